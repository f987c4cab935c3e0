"""`${VAR}` references in openclaw.json, resolved as OpenClaw resolves them when it loads its config.

OpenClaw substitutes `${NAME}` in every string value of its config (names in capitals, digits and
`_` only; `$${NAME}` stands for the literal text `${NAME}`), looking the name up in its process
environment and then in the config's own `env` block (`env.vars.NAME` or `env.NAME`, applied only
where the environment lacks the name). An `apiKey` may also be a secret reference
`{source: "env", id: NAME}`. Without this, memtui sent `Bearer ${VOYAGE_API_KEY}` to the provider.
Secret-manager references (`${pass:…}`, `{source: "exec"}`) run commands: memtui never does, and
leaves them unresolved, as it does a name that is set nowhere (listed for a warning).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

_REF = re.compile(r"\$(\$?)\{([A-Z_][A-Z0-9_]*)\}")


def config_env(cfg: Mapping[str, Any]) -> dict[str, str]:
    """The names the config's `env` block sets (`env.vars` wins over a plain `env` entry), strings only."""
    block = cfg.get("env")
    if not isinstance(block, dict):
        return {}
    out = {k: v for k, v in block.items() if isinstance(v, str) and k not in ("vars", "shellEnv")}
    inner = block.get("vars")
    if isinstance(inner, dict):
        out.update({k: v for k, v in inner.items() if isinstance(v, str)})
    return out


def lookup(name: str, cfg_env: Mapping[str, str]) -> str | None:
    """NAME's value: the process environment first, then the config's `env` block; None when set nowhere."""
    return os.environ.get(name) or cfg_env.get(name) or None


def resolve_refs(value: Any, cfg_env: Mapping[str, str], missing: set[tuple[str, str]], where: str = "") -> Any:
    """`value` with every `${NAME}` in its strings replaced (a copy). A name set nowhere is left as
    written and added to `missing` as (NAME, the dotted key it stands under)."""
    if isinstance(value, str):
        if "${" not in value:
            return value

        def one(match: re.Match[str]) -> str:
            escaped, name = match.group(1), match.group(2)
            if escaped:
                return "${" + name + "}"
            found = lookup(name, cfg_env)
            if found is None:
                missing.add((name, where))
                return match.group(0)
            return found

        return _REF.sub(one, value)
    if isinstance(value, list):
        return [resolve_refs(item, cfg_env, missing, f"{where}[{i}]") for i, item in enumerate(value)]
    if isinstance(value, dict):
        return {key: resolve_refs(item, cfg_env, missing, f"{where}.{key}" if where else str(key))
                for key, item in value.items()}
    return value


# keys under which memtui reads strings of openclaw.json (a reference elsewhere is OpenClaw's business)
READ_KEYS = frozenset({"memorySearch", "search", "workspace", "agentDir"})


def read_by_memtui(where: str) -> bool:
    return not READ_KEYS.isdisjoint(where.split("."))


def secret_ref_value(ref: Any, cfg_env: Mapping[str, str]) -> str | None:
    """The key an env secret reference (`{source: "env", id: NAME}`) names, if it is set; None otherwise."""
    if not isinstance(ref, dict) or ref.get("source") != "env" or not isinstance(ref.get("id"), str):
        return None
    return lookup(ref["id"], cfg_env)
