"""An agent's effective memory-search settings, as OpenClaw resolves them from openclaw.json, and the
memtui config keys they translate to.

* 2026.9: `memory.search` with each agent's `agents.entries.<id>.memory.search` over it, key by key
  (OpenClaw's `resolveMemorySearchIndexConfig`); `extraPaths` concatenated, chunking fixed.
* legacy: `agents.defaults.memorySearch` deep-merged with the agent's own `memorySearch`.

Which agents there are, and where their files live, is `agents`'s.
"""

from __future__ import annotations

import copy
from typing import Any

from ..engine.settings import PROVIDERS, SOURCES
from .config_file import json_object
from .envrefs import secret_ref_value

# OpenClaw 2026.9 hard-codes these (memory-search.ts); memtui indexes with the same budgets
NEW_LAYOUT_CHUNKING = {"tokens": 400, "overlap": 80}


def deep_merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for key, value in override.items():
        if key == "extraPaths" and isinstance(value, list):
            out[key] = list(dict.fromkeys([*out.get(key, []), *value]))  # concatenated, not replaced
        elif isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _normalize_extra_paths(ms: dict[str, Any]) -> dict[str, Any]:
    """`extraPaths` as plain paths, with the newer `{path, pattern}` entries' globs in
    `extraPathPatterns` ([path, pattern] pairs; a path also listed plainly is not filtered)."""
    paths, patterned, plain = [], [], set()
    for item in ms.get("extraPaths") or []:
        raw = item.get("path") if isinstance(item, dict) else item
        if not isinstance(raw, str) or not raw.strip():
            continue
        paths.append(raw.strip())
        pattern = item.get("pattern") if isinstance(item, dict) else None
        if isinstance(pattern, str) and pattern.strip():
            patterned.append([raw.strip(), pattern.strip()])
        else:
            plain.add(raw.strip())
    if "extraPaths" in ms:
        ms = dict(ms, extraPaths=list(dict.fromkeys(paths)))
        patterns = [pair for pair in patterned if pair[0] not in plain]
        if patterns:
            ms["extraPathPatterns"] = patterns
    return ms


def _remember_across_conversations(cfg: dict[str, Any], overrides: dict[str, Any], defaults: dict[str, Any]) -> bool:
    explicit = overrides.get("rememberAcrossConversations", defaults.get("rememberAcrossConversations"))
    if isinstance(explicit, bool):
        return explicit
    dm_scope = json_object(cfg.get("session")).get("dmScope")
    raw_bindings = cfg.get("bindings")
    bindings: list[Any] = raw_bindings if isinstance(raw_bindings, list) else []
    scoped = any(isinstance(b, dict) and "dmScope" in json_object(b.get("session")) for b in bindings)
    return dm_scope in (None, "main") and not scoped


def _policy_sources(configured: Any, session_memory: bool) -> list[str]:
    wanted = configured if isinstance(configured, list) and configured else ["memory"]
    out = [s for s in ("memory", "sessions") if s in wanted and (s == "memory" or session_memory)]
    return out or ["memory"]


def effective_memory_search_2026(cfg: dict[str, Any], entry: dict[str, Any]) -> dict[str, Any]:
    """OpenClaw 2026.9's `resolveMemorySearchIndexConfig`, as a memorySearch-shaped dict."""
    defaults = json_object(json_object(cfg.get("memory")).get("search"))
    overrides = json_object(json_object(entry.get("memory")).get("search"))

    def pick(key: str) -> Any:
        return overrides[key] if overrides.get(key) is not None else defaults.get(key)

    def pick_in(block: str, key: str) -> Any:
        value = json_object(overrides.get(block)).get(key)
        return value if value is not None else json_object(defaults.get(block)).get(key)

    remember = _remember_across_conversations(cfg, overrides, defaults)
    configured_sessions = bool(pick_in("experimental", "sessionMemory"))
    configured = pick("sources")
    search_sources = _policy_sources(configured, configured_sessions or (
        remember and isinstance(configured, list) and "sessions" in configured))
    sources = _policy_sources([*search_sources, "sessions"] if remember else configured, remember or configured_sessions)
    ms: dict[str, Any] = {
        "enabled": pick("enabled") is not False,
        "sources": sources,
        "searchSources": search_sources,
        "extraPaths": [*(defaults.get("extraPaths") or []), *(overrides.get("extraPaths") or [])],
        "chunking": dict(NEW_LAYOUT_CHUNKING),
    }
    for key in ("provider", "model", "fallback"):
        if isinstance(pick(key), str) and pick(key).strip():
            ms[key] = pick(key).strip()
    remote = {k: pick_in("remote", k) for k in ("baseUrl", "apiKey", "headers") if pick_in("remote", k) is not None}
    if remote:
        ms["remote"] = remote
    query = {k: pick_in("query", k) for k in ("maxResults", "minScore") if pick_in("query", k) is not None}
    if query:
        ms["query"] = query
    return _normalize_extra_paths(ms)


def resolved_key(ms: dict[str, Any], cfg_env: dict[str, str]) -> dict[str, Any]:
    """`ms` with an env secret reference as `remote.apiKey` (`{source: "env", id: NAME}`) replaced by
    NAME's value when it is set; any other reference is left for memtui to ignore."""
    remote = ms.get("remote")
    if not isinstance(remote, dict) or not isinstance(remote.get("apiKey"), dict):
        return ms
    value = secret_ref_value(remote["apiKey"], cfg_env)
    return ms if value is None else dict(ms, remote=dict(remote, apiKey=value))


def effective_memory_search_legacy(cfg: dict[str, Any], entry: dict[str, Any]) -> dict[str, Any]:
    defaults = json_object(json_object(cfg.get("agents")).get("defaults"))
    newer = json_object(json_object(cfg.get("memory")).get("search"))
    base = deep_merge(_normalize_extra_paths(newer), _normalize_extra_paths(json_object(defaults.get("memorySearch"))))
    ms = deep_merge(base, _normalize_extra_paths(json_object(entry.get("memorySearch"))))
    sources = ms.get("sources")
    ms["sources"] = [s for s in ("memory", "sessions") if isinstance(sources, list) and s in sources] or ["memory"]
    return ms


def memtui_overrides(ms: dict[str, Any]) -> dict[str, Any]:
    """Translate an effective `memorySearch` block into memtui config keys (only those present)."""
    out: dict[str, Any] = {}
    if isinstance(ms.get("sources"), list):
        out["sources"] = [s for s in ms["sources"] if s in SOURCES] or ["memory"]
    if isinstance(ms.get("extraPaths"), list):
        out["extraPaths"] = list(ms["extraPaths"])
    for key in ("provider", "model", "fallback"):
        if isinstance(ms.get(key), str) and ms[key]:
            if key == "provider" and (ms[key] not in PROVIDERS or ms[key] in ("none", "auto")):
                # OpenClaw's "none" (keyword-only), its default "auto" (names no provider: memtui sends notes
                # to a remote one only when one is named) and providers memtui lacks: memtui's own applies
                continue
            if key == "fallback" and (ms[key] not in PROVIDERS or ms[key] == "auto"):
                continue  # one memtui lacks (bedrock, lmstudio): a failing provider degrades to keywords
            out[key] = ms[key]
    remote = json_object(ms.get("remote"))
    r = {k: remote[k] for k in ("baseUrl", "apiKey") if isinstance(remote.get(k), str)}
    if isinstance(remote.get("headers"), dict):
        r["headers"] = {str(k): str(v) for k, v in remote["headers"].items()}
    if r:
        out["remote"] = r
    chunking = json_object(ms.get("chunking"))
    c = {k: int(chunking[k]) for k in ("tokens", "overlap") if isinstance(chunking.get(k), (int, float))}
    if c:
        out["chunking"] = c
    query = json_object(ms.get("query"))
    q: dict[str, Any] = {}
    if isinstance(query.get("maxResults"), (int, float)):
        q["maxResults"] = int(query["maxResults"])
    if isinstance(query.get("minScore"), (int, float)):
        q["minScore"] = float(query["minScore"])
    hybrid = json_object(query.get("hybrid"))
    h: dict[str, Any] = {}
    for key in ("vectorWeight", "textWeight"):
        if isinstance(hybrid.get(key), (int, float)):
            h[key] = float(hybrid[key])
    for block, keys in (("mmr", ("enabled", "lambda")), ("temporalDecay", ("enabled", "halfLifeDays"))):
        src = json_object(hybrid.get(block))
        part = {k: (bool(src[k]) if k == "enabled" else float(src[k])) for k in keys if k in src}
        if part:
            h[block] = part
    if h:
        q["hybrid"] = h
    if q:
        out["query"] = q
    return out
