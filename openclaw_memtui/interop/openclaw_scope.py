"""Which configuration OpenClaw 2026.9 built its index for: its `scopeHash`.

OpenClaw keeps `scopeHash` in its index meta, the sha256 of `JSON.stringify({extraPaths,
multimodal})` (its `resolveConfiguredScopeHash`), and when the configured value differs it reports
the index as mismatched ("index scope changed": `dirty` in `openclaw memory status`, and searches
warn that the index is stale) until it rebuilds it. memtui compared only files, so it called such an
index current. The hash is reproduced here from the same inputs: the agent's `extraPaths` entries
(the global ones, then the agent's; trimmed, repeated ones dropped, each resolved against the
workspace, `{path, pattern}` kept as an object) and the multimodal settings. Checked against hashes
the real OpenClaw 2026.9.6 wrote (no extra paths; one relative extra path, in two locations).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
from collections.abc import Iterable
from typing import Any

DEFAULT_MULTIMODAL_MAX_FILE_BYTES = 10_485_760  # OpenClaw's DEFAULT_MEMORY_MULTIMODAL_MAX_FILE_BYTES
# OpenClaw sorts the entries with JavaScript's localeCompare (ICU collation), which Python cannot
# reproduce exactly: every order of up to this many entries is tried, so an unchanged scope is
# always recognised (a false "changed" would need a sha256 collision). Past it only two likely
# orders are tried, and a hash matching neither cannot be told from a changed scope.
MAX_PERMUTED = 6


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def scope_inputs(cfg: dict[str, Any], entry: dict[str, Any]) -> dict[str, Any]:
    """What the scope of an agent's index is made of, from openclaw.json (env refs already resolved)."""
    defaults = _dict(_dict(cfg.get("memory")).get("search"))
    overrides = _dict(_dict(entry.get("memory")).get("search"))
    extra = [*(defaults.get("extraPaths") or []), *(overrides.get("extraPaths") or [])]
    multimodal = {key: (_dict(overrides.get("multimodal")).get(key) if _dict(overrides.get("multimodal")).get(key)
                        is not None else _dict(defaults.get("multimodal")).get(key))
                  for key in ("enabled", "modalities", "maxFileBytes")}
    return {"extraPaths": extra, "multimodal": multimodal}


def _entries(workspace: str, extra: list[Any]) -> list[Any]:
    """OpenClaw's normalizeConfiguredMemoryExtraPaths, then normalizeExtraMemoryPathEntries."""
    kept: dict[str, Any] = {}
    for item in extra:
        raw = item.get("path") if isinstance(item, dict) else item
        if not isinstance(raw, str) or not raw.strip():
            continue
        pattern = item.get("pattern") if isinstance(item, dict) else None
        pattern = pattern.strip() if isinstance(pattern, str) else ""
        kept.setdefault(f"{raw.strip()}\0{pattern}", (raw.strip(), pattern))
    out: list[Any] = []
    for raw, pattern in kept.values():
        resolved = os.path.normpath(os.path.join(workspace, os.path.expanduser(raw))).replace("\\", "/")
        out.append({"path": resolved, "pattern": pattern.replace("\\", "/")} if pattern else resolved)
    return out


def scope_changed(stored: str, workspace: str, inputs: dict[str, Any]) -> bool | None:
    """Whether the `stored` scopeHash is not the one OpenClaw would write for this configuration now;
    None when memtui cannot tell (see expected_scope_hashes, and MAX_PERMUTED)."""
    expected = expected_scope_hashes(workspace, inputs)
    if expected is None:
        return None
    if stored in expected:
        return False
    return True if len(_entries(workspace, list(inputs.get("extraPaths") or []))) <= MAX_PERMUTED else None


def expected_scope_hashes(workspace: str, inputs: dict[str, Any]) -> set[str] | None:
    """The scopeHash values OpenClaw may have written for this configuration; None when memtui cannot
    tell (multimodal indexing on: its modality list is normalised by code not ported here)."""
    multimodal = _dict(inputs.get("multimodal"))
    if multimodal.get("enabled") is True:
        return None
    raw = multimodal.get("maxFileBytes")
    size = (max(1, math.floor(raw)) if isinstance(raw, (int, float)) and not isinstance(raw, bool) and math.isfinite(raw)
            else DEFAULT_MULTIMODAL_MAX_FILE_BYTES)
    entries = _entries(workspace, list(inputs.get("extraPaths") or []))

    def key(entry: Any) -> str:
        return json.dumps(entry, ensure_ascii=False, separators=(",", ":"))

    orders: Iterable[Iterable[Any]]
    if len(entries) <= MAX_PERMUTED:
        orders = itertools.permutations(entries)
    else:
        orders = [sorted(entries, key=key), sorted(entries, key=lambda e: key(e).casefold())]
    scope = {"enabled": False, "modalities": [], "maxFileBytes": size}
    return {hashlib.sha256(json.dumps({"extraPaths": list(order), "multimodal": scope}, ensure_ascii=False,
                                      separators=(",", ":")).encode("utf-8")).hexdigest() for order in orders}
