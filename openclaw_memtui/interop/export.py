"""Carry tuned ranking settings into OpenClaw's config, in the shape its layout accepts.

* **2026.9**: its schema takes only `memory.search.query.maxResults` and `minScore` (globally or
  under `agents.entries.<id>.memory.search`); hybrid weights, MMR and temporal decay are hard-coded
  (0.7/0.3, MMR λ 0.7 on, 30-day decay on) and any other key makes OpenClaw refuse to start
  ("Unrecognized key"). So only those two are written, and the values it cannot take are named.
* **legacy**: the builtin engine's `memorySearch.query` block (with `hybrid.*`), under
  `agents.defaults` or the agent's entry in `agents.list`; its strict schema knows only those keys, so
  nothing else is written either.

Both name what OpenClaw will not honour (`Export.not_exported`): memtui's own ranking settings that
no OpenClaw has a key for (`memtui_only`), and for each layout what it fixes or rounds.

Writing goes through `settings_io.rewrite_file` (mode, owner and symlinks kept, a backup that never
overwrites another, an atomic replace). Only plain JSON is rewritten: a JSON5 file with comments
would lose them, so it is refused with a message saying to paste the printed block instead.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..engine.search.rank import SearchParams
from .agents import NEW_LAYOUT, Layout, OpenClawError, normalize_agent_id
from .config_file import json_object
from .memory_search import deep_merge

# what OpenClaw 2026.9 ranks with, whatever its config says (memory-search.ts)
FIXED_2026 = {"vectorWeight": 0.7, "textWeight": 0.3, "mmr": True, "mmrLambda": 0.7, "decay": True, "halfLifeDays": 30.0}


@dataclass
class Export:
    """The block to put into openclaw.json, where it goes, and what this OpenClaw cannot take."""

    layout: Layout
    block: dict[str, Any]  # the whole nested object, e.g. {"memory": {"search": {"query": {...}}}}
    not_exported: list[str] = field(default_factory=list)

    def to_json(self) -> str:
        return json.dumps(self.block, indent=2)

    def not_honoured(self) -> str:
        """One line naming every setting this OpenClaw will not rank with ("" when there is none)."""
        if not self.not_exported:
            return ""
        what = ("OpenClaw 2026.9 takes only maxResults and minScore" if self.layout == NEW_LAYOUT
                else "OpenClaw's memorySearch.query takes weights, MMR, decay, maxResults and minScore")
        return (f"{what}; not honoured: {'; '.join(self.not_exported)}. "
                "memtui's own search (the app, `memtui search`) still ranks with them")


def memtui_only(params: SearchParams, keyword: Mapping[str, Any] | None = None) -> list[str]:
    """memtui's settings that no OpenClaw layout has a key for, each with the memtui config key that sets
    it. `keyword` is the config's `query.keyword` block (OR fallback, CJK bigrams, stemming), when known."""
    out = []
    if params.line_weight > 0:
        out.append(f"line weight {params.line_weight:.2f} (query.keyword.lineWeight; OpenClaw scores keywords over "
                   "whole chunks only)")
    if params.overlap_penalty > 0:
        out.append(f"overlap penalty {params.overlap_penalty:.2f} (query.overlapPenalty; OpenClaw lists overlapping "
                   "chunks of a file in score order)")
    if params.time_mode != "off":
        out.append(f"time words {params.time_mode} (query.time.mode; OpenClaw has no time windows)")
    if params.fusion != "openclaw":
        out.append(f"{params.fusion} fusion (query.hybrid.fusion; OpenClaw adds the raw weighted scores)")
    if params.decay and params.decay_evergreen:
        out.append("undated notes aging like the oldest dated one (the Recent first preset; OpenClaw never decays them)")
    keyword = keyword or {}
    if keyword.get("orFallback"):
        out.append("OR when AND finds nothing (query.keyword.orFallback; OpenClaw ANDs every term)")
    if keyword.get("cjk", "none") != "none":
        out.append(f"CJK {keyword['cjk']}s (query.keyword.cjk; OpenClaw's unicode61 keeps a CJK run whole)")
    if keyword.get("stemming", "none") != "none":
        out.append(f"{keyword['stemming']} stemming (query.keyword.stemming; OpenClaw matches whole words)")
    return out


def candidate_multiplier(params: SearchParams, pool_size: int) -> int:
    """OpenClaw's pool is maxResults × candidateMultiplier (an integer 1–20): the nearest to memtui's fixed pool."""
    return min(20, max(1, math.ceil(pool_size / max(1, params.max_results))))


def legacy_rounding(params: SearchParams, pool_size: int) -> list[str]:
    """What the older engine takes only rounded: whole days of half-life, a pool of at most 20 × maxResults."""
    out = []
    if params.decay and params.half_life_days != legacy_half_life(params):
        out.append(f"half-life {params.half_life_days:g} days, exported as {legacy_half_life(params)} "
                   "(OpenClaw takes whole days, at least 1)")
    multiplier = candidate_multiplier(params, pool_size)
    if multiplier * params.max_results < pool_size:
        out.append(f"candidate pool {pool_size} per leg (query.hybrid.candidatePool), exported as "
                   f"{multiplier * params.max_results} (OpenClaw's pool is at most 20 × maxResults)")
    return out


def legacy_half_life(params: SearchParams) -> int:
    return int(max(1, math.floor(params.half_life_days)))


def legacy_query_block(params: SearchParams, pool_size: int = 100) -> dict[str, Any]:
    """The older engine's `memorySearch.query` object with these settings."""
    vw, tw = params.weights()
    multiplier = candidate_multiplier(params, pool_size)
    return {
        "maxResults": int(params.max_results),
        "minScore": round(params.min_score, 4),
        "hybrid": {
            "vectorWeight": round(vw, 4),
            "textWeight": round(tw, 4),
            "candidateMultiplier": multiplier,
            "mmr": {"enabled": params.mmr, "lambda": round(params.mmr_lambda, 4)},
            "temporalDecay": {"enabled": params.decay, "halfLifeDays": legacy_half_life(params)},
        },
    }


# OpenClaw 2026.9's own defaults for the two keys it takes (memory-search.ts)
DEFAULT_QUERY_2026 = {"maxResults": 6, "minScore": 0.35}


def build_export(params: SearchParams, layout: Layout, pool_size: int = 100, *, only: set[str] | None = None,
                 agent_id: str | None = None, keyword: Mapping[str, Any] | None = None) -> Export:
    """The block for this layout. `only` limits a 2026.9 export to the keys the user set (e.g. the
    flags given), so values they did not ask to change are never rewritten; with `agent_id` the
    printed block is shaped for that agent's entry, so pasting it changes that agent only. `keyword`
    (the config's `query.keyword`) lets the keyword settings be named among those not exported."""
    if layout != NEW_LAYOUT:
        return Export(layout, {"memorySearch": {"query": legacy_query_block(params, pool_size)}},
                      legacy_rounding(params, pool_size) + memtui_only(params, keyword))
    query = {k: v for k, v in (("maxResults", int(params.max_results)), ("minScore", round(float(params.min_score), 4)))
             if only is None or k in only}
    vw, tw = params.weights()
    missing = []
    if (round(vw, 4), round(tw, 4)) != (FIXED_2026["vectorWeight"], FIXED_2026["textWeight"]):
        missing.append(f"weights vector {vw:.2f} / text {tw:.2f} (OpenClaw 2026.9 always uses 0.70 / 0.30)")
    if params.mmr != FIXED_2026["mmr"] or (params.mmr and round(params.mmr_lambda, 4) != FIXED_2026["mmrLambda"]):
        missing.append(f"MMR {'on, λ ' + format(params.mmr_lambda, '.2f') if params.mmr else 'off'} "
                       "(OpenClaw 2026.9 always uses MMR on, λ 0.70)")
    if params.decay != FIXED_2026["decay"] or (params.decay and params.half_life_days != FIXED_2026["halfLifeDays"]):
        missing.append(f"temporal decay {'half-life ' + format(params.half_life_days, 'g') + ' days' if params.decay else 'off'} "
                       "(OpenClaw 2026.9 always decays with a 30-day half-life)")
    missing += memtui_only(params, keyword)
    block: dict[str, Any] = {"memory": {"search": {"query": query}}}
    if agent_id is not None:
        block = {"agents": {"entries": {agent_id: block}}}
    return Export(layout, block, missing)


def _obj_at(data: dict[str, Any], keys: list[str], config_file: Path) -> dict[str, Any]:
    """The object at `keys`, created when absent; one line naming the key when something else is there."""
    node = data
    walked = []
    for key in keys:
        walked.append(key)
        value = node.get(key)
        if value is None:
            value = node[key] = {}
        if not isinstance(value, dict):
            raise OpenClawError(f"{config_file}: '{'.'.join(walked)}' must be an object, not {type(value).__name__}; "
                                "fix it (or run `openclaw doctor`) before exporting")
        node = value
    return node


def apply_export(data: dict[str, Any], export: Export, agent_id: str | None, config_file: Path,
                 effective: dict[str, Any] | None = None) -> dict[str, Any]:
    """`data` (a parsed openclaw.json) with the export set for the defaults or for one agent; nothing else changes.

    `effective` is the config as OpenClaw reads it (`$include`s resolved) when it differs from `data`:
    agents and inherited values are looked up there, while the keys are written into `data`, where
    they sit beside any `$include` and so win over the included content (OpenClaw merges siblings last)."""
    seen = effective if effective is not None else data
    if export.layout == NEW_LAYOUT:
        query = _query_2026(export)
        if agent_id is None:
            holder = _obj_at(data, ["memory", "search"], config_file)
        else:
            effective_entries = json_object(json_object(seen.get("agents")).get("entries"))
            entries = _obj_at(data, ["agents", "entries"], config_file)
            wanted = normalize_agent_id(agent_id)
            key = next((k for k in effective_entries if normalize_agent_id(k) == wanted), None)
            if key is None:
                known = ", ".join(effective_entries) or "none"
                raise OpenClawError(f"no agent '{agent_id}' under agents.entries in {config_file}; known agents: {known}")
            holder = _obj_at(entries, [key, "memory", "search"], config_file)
            # a value equal to what the agent inherits is not copied into its entry (unless it already
            # sets that key): later changes to the global value keep reaching it
            inherited = {**DEFAULT_QUERY_2026, **_query_of(seen.get("memory"))}
            own = {**_query_of(json_object(json_object(effective_entries.get(key)).get("memory"))),
                   **json_object(holder.get("query"))}
            query = {k: v for k, v in query.items() if k in own or inherited.get(k) != v}
        holder["query"] = {**json_object(holder.get("query")), **query}
        return data
    block = export.block["memorySearch"]["query"]
    if agent_id is None:
        holder = _obj_at(data, ["agents", "defaults"], config_file)
    else:
        agents = _obj_at(data, ["agents"], config_file)
        listed = agents.get("list")
        if not isinstance(listed, list):
            raise OpenClawError(f"no agent '{agent_id}' in {config_file} (it has no agents.list)")
        matches = [a for a in listed if isinstance(a, dict) and a.get("id") == agent_id]
        if not matches:
            raise OpenClawError(f"no agent '{agent_id}' in {config_file}")
        holder = matches[0]
    ms = _obj_at(holder, ["memorySearch"], config_file)
    ms["query"] = deep_merge(json_object(ms.get("query")), block)
    return data


def _export_reaches(effective: dict[str, Any], export: Export, agent_id: str | None) -> bool:
    """Whether OpenClaw, reading the written config with its includes, sees the exported values."""
    if export.layout != NEW_LAYOUT:
        return True
    query = _query_2026(export)
    seen = _query_of(effective.get("memory"))
    if agent_id is not None:
        entries = json_object(json_object(effective.get("agents")).get("entries"))
        key = next((k for k in entries if normalize_agent_id(k) == normalize_agent_id(agent_id)), None)
        own = _query_of(json_object(json_object(entries.get(key)).get("memory"))) if key is not None else {}
        seen = {**DEFAULT_QUERY_2026, **seen, **own}
    return all(seen.get(k) == v for k, v in query.items())


def _query_2026(export: Export) -> dict[str, Any]:
    block = export.block
    if "agents" in block:
        (entry,) = block["agents"]["entries"].values()
        block = entry
    return dict(block["memory"]["search"]["query"])


def _query_of(memory: Any) -> dict[str, Any]:
    search = memory.get("search") if isinstance(memory, dict) else None
    query = search.get("query") if isinstance(search, dict) else None
    return query if isinstance(query, dict) else {}


def _leaves(value: Any) -> Any:
    """`value` without the empty objects setting a path creates: what OpenClaw would read the same."""
    if isinstance(value, dict):
        kept = {k: _leaves(v) for k, v in value.items()}
        return {k: v for k, v in kept.items() if v != {}}
    return value


def write_export(config_file: Path, export: Export, agent_id: str | None = None) -> Path | None:
    """Set the export in `config_file` (plain JSON only) and return the backup of the original; None
    when OpenClaw already reads those values there (set, or inherited by the agent): nothing is
    written, no backup made."""
    from .config_file import ConfigFileError, has_include, refuse_lone_surrogates, resolve_includes
    from .rewrite import read_plain_json
    from .safe_rewrite import RewriteError, rewrite_file

    text, data = read_plain_json(config_file, "paste the printed block into it instead")
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    text = text[len(bom):]

    try:
        refuse_lone_surrogates(data, config_file)  # it could not be written back as UTF-8
        included = has_include(data)
        # `$include`d files are only read: the keys go into this file beside the `$include`, where
        # OpenClaw merges them over the included content; the includes stay as they are, unflattened
        effective = resolve_includes(data, config_file)[0] if included else None
        data = apply_export(data, export, agent_id, config_file, effective)
        if included and not _export_reaches(resolve_includes(data, config_file)[0], export, agent_id):
            raise OpenClawError(f"{config_file}: its $include files would override the exported values; set them "
                                "in the included file instead (memtui does not write included files)")
    except ConfigFileError as exc:
        raise OpenClawError(str(exc)) from None
    if _leaves(data) == _leaves(json.loads(text)):
        return None
    try:
        backup = rewrite_file(config_file, bom + json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    except RewriteError as exc:
        raise OpenClawError(str(exc)) from None
    if backup is None:  # the file was read above, so it existed; a vanished file is reported, not assumed
        raise OpenClawError(f"{config_file} disappeared while it was being rewritten")
    return backup
