"""Type checks for the parts of OpenClaw's `openclaw.json` that memtui reads.

OpenClaw's config is written by hand and by other tools; a value of the wrong type
(`"workspace": 5`, `"extraPaths": 5`, `"lambda": "abc"`) used to surface as Python's own error
text from deep inside the code that uses it. `check_openclaw_config` walks only the keys memtui
reads and stops at the first wrong one with one line naming the file and the key, as the TOML
config does. Keys memtui does not read are never judged: OpenClaw may add new ones at any time.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

# What a checked key must hold. A dict is a nested object whose own keys are checked the same way.
_Check = Callable[[Any], bool]


def _string(v: Any) -> bool:
    return isinstance(v, str)


def _boolean(v: Any) -> bool:
    return isinstance(v, bool)


def _number(v: Any) -> bool:
    # JSON5 reads Infinity and NaN as numbers; no memorySearch setting can use them
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _strings(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


def _string_map(v: Any) -> bool:
    return isinstance(v, dict) and all(isinstance(x, str) for x in v.values())


def _extra_paths(v: Any) -> bool:
    """A list of paths, each a string or the newer `{path, pattern}` object."""
    return isinstance(v, list) and all(
        isinstance(x, str) or (isinstance(x, dict) and isinstance(x.get("path", ""), str)) for x in v)


def _secret(v: Any) -> bool:
    return isinstance(v, (str, dict))  # a key, or one of OpenClaw's secret references


_KINDS: dict[_Check, str] = {
    _string: "a string", _boolean: "true or false", _number: "a finite number", _strings: "a list of strings",
    _string_map: "an object of strings", _extra_paths: "a list of paths (strings or {path} objects)",
    _secret: "a string or a secret reference",
}

MEMORY_SEARCH: dict[str, Any] = {
    "enabled": _boolean,
    "sources": _strings,
    "extraPaths": _extra_paths,
    "provider": _string,
    "model": _string,
    "fallback": _string,
    "remote": {"baseUrl": _string, "apiKey": _secret, "headers": _string_map},
    "store": {"path": _string},
    "chunking": {"tokens": _number, "overlap": _number},
    "query": {
        "maxResults": _number,
        "minScore": _number,
        "hybrid": {
            "enabled": _boolean,
            "vectorWeight": _number,
            "textWeight": _number,
            "candidateMultiplier": _number,
            "mmr": {"enabled": _boolean, "lambda": _number},
            "temporalDecay": {"enabled": _boolean, "halfLifeDays": _number},
        },
    },
}

# OpenClaw 2026.9's memory.search: the keys above that it still reads, plus its own
MEMORY_SEARCH_2026: dict[str, Any] = MEMORY_SEARCH | {
    "rememberAcrossConversations": _boolean,
    "experimental": {"sessionMemory": _boolean},
}

AGENT: dict[str, Any] = {"id": _string, "default": _boolean, "workspace": _string, "memorySearch": MEMORY_SEARCH}
# an entry of the 2026.9 map agents.entries.<id>
AGENT_ENTRY: dict[str, Any] = {"workspace": _string, "agentDir": _string, "memory": {"search": MEMORY_SEARCH_2026}}

ROOT: dict[str, Any] = {
    "agents": {"defaults": {"workspace": _string, "memorySearch": MEMORY_SEARCH,
                            "systemAgent": {"agentId": _string}}},
    "memory": {"search": MEMORY_SEARCH_2026},
    "meta": {"lastTouchedVersion": _string},
}


class OpenClawConfigTypeError(ValueError):
    """A key of openclaw.json holds the wrong type; the message is one line naming file and key."""


def _show(value: Any) -> str:
    if isinstance(value, (dict, list)):
        return "an object" if isinstance(value, dict) else "a list"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _walk(schema: dict[str, Any], node: dict[str, Any], where: str, prefix: str) -> None:
    for key, rule in schema.items():
        if key not in node or node[key] is None:
            continue  # absent (or null) means "not set": OpenClaw's defaults apply
        value = node[key]
        name = f"{prefix}{key}"
        if isinstance(rule, dict):
            if not isinstance(value, dict):
                raise OpenClawConfigTypeError(f"{where}: '{name}' must be an object, got {_show(value)}")
            _walk(rule, value, where, f"{name}.")
        elif not rule(value):
            raise OpenClawConfigTypeError(f"{where}: '{name}' must be {_KINDS[rule]}, got {_show(value)}")


def check_openclaw_config(data: Any, path: Path | str) -> None:
    """Raise OpenClawConfigTypeError at the first key memtui reads that holds the wrong type."""
    where = f"OpenClaw config {path}"
    if not isinstance(data, dict):
        raise OpenClawConfigTypeError(f"{where} must hold an object, got {_show(data)}")
    _walk(ROOT, data, where, "")
    agents = data.get("agents")
    entries = agents.get("entries") if isinstance(agents, dict) else None
    if entries is not None:
        if not isinstance(entries, dict):
            raise OpenClawConfigTypeError(f"{where}: 'agents.entries' must be an object of agents, got {_show(entries)}")
        for agent_id, entry in entries.items():
            if entry is None:
                continue  # OpenClaw skips a null entry
            if not isinstance(entry, dict):
                raise OpenClawConfigTypeError(f"{where}: 'agents.entries.{agent_id}' must be an object, got {_show(entry)}")
            _walk(AGENT_ENTRY, entry, where, f"agents.entries.{agent_id}.")
    listed = agents.get("list") if isinstance(agents, dict) else None
    if listed is None:
        return
    if not isinstance(listed, list):
        raise OpenClawConfigTypeError(f"{where}: 'agents.list' must be a list, got {_show(listed)}")
    for i, entry in enumerate(listed):
        if not isinstance(entry, dict):
            raise OpenClawConfigTypeError(f"{where}: 'agents.list[{i}]' must be an object, got {_show(entry)}")
        label = f"agents.list[{i}]" if not isinstance(entry.get("id"), str) else f"agents.list[id={entry['id']!r}]"
        _walk(AGENT, entry, where, f"{label}.")
