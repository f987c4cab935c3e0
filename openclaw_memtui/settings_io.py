"""Carry tuned search settings out: as OpenClaw's `memorySearch.query` block or into our config."""

from __future__ import annotations

import json
import math
import shutil
import time
import tomllib
from pathlib import Path
from typing import Any

import tomli_w

from .engine.search.rank import SearchParams


def openclaw_query_block(params: SearchParams, pool_size: int = 100) -> dict[str, Any]:
    """The `memorySearch.query` object of an openclaw.json with these settings."""
    vw, tw = params.weights()
    multiplier = min(20, max(1, math.ceil(pool_size / max(1, params.max_results))))
    return {
        "maxResults": int(params.max_results),
        "minScore": round(params.min_score, 4),
        "hybrid": {
            "vectorWeight": round(vw, 4),
            "textWeight": round(tw, 4),
            "candidateMultiplier": multiplier,
            "mmr": {"enabled": params.mmr, "lambda": round(params.mmr_lambda, 4)},
            "temporalDecay": {"enabled": params.decay, "halfLifeDays": int(max(1, math.floor(params.half_life_days)))},
        },
    }


def openclaw_json(params: SearchParams, pool_size: int = 100) -> str:
    return json.dumps({"memorySearch": {"query": openclaw_query_block(params, pool_size)}}, indent=2)


def _rewrite(path: Path, text: str) -> Path | None:
    """Back the original up as `*.bak-<time>` (if there is one), then replace it in one rename."""
    backup = None
    if path.exists():
        backup = path.with_name(path.name + f".bak-{time.strftime('%Y%m%d-%H%M%S')}")
        shutil.copy2(path, backup)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    return backup


def save_to_config(params: SearchParams, path: Path) -> Path | None:
    """Write the query settings into our TOML config, keeping every other key; back up the original."""
    data: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    query = data.setdefault("query", {})
    query["maxResults"] = int(params.max_results)
    query["minScore"] = float(params.min_score)
    query["time"] = {"mode": params.time_mode, "boost": float(params.time_boost), "floor": float(params.time_floor)}
    hybrid = query.setdefault("hybrid", {})
    hybrid.update({"vectorWeight": float(params.vector_weight), "textWeight": float(params.text_weight), "fusion": params.fusion})
    hybrid["mmr"] = {"enabled": params.mmr, "lambda": float(params.mmr_lambda)}
    hybrid["temporalDecay"] = {"enabled": params.decay, "halfLifeDays": float(params.half_life_days)}
    return _rewrite(path, tomli_w.dumps(data))


def write_openclaw_query(config_file: Path, params: SearchParams, pool_size: int = 100,
                         agent_id: str | None = None) -> Path:
    """Set `memorySearch.query` in openclaw.json (the defaults, or one agent's), nothing else.

    Only plain JSON is rewritten: a JSON5 file with comments would lose them, so it is refused with
    a message saying to paste the printed block instead. The original is copied to `*.bak-<time>`.
    """
    from .interop.agents import OpenClawError, deep_merge

    try:
        text = config_file.read_text(encoding="utf-8")
    except OSError as exc:
        raise OpenClawError(f"cannot read {config_file}: {exc.strerror}") from None
    try:
        data = json.loads(text)
    except ValueError:
        raise OpenClawError(f"{config_file} uses JSON5 (comments, trailing commas); memtui only rewrites plain JSON "
                            "so nothing else changes — paste the printed block into it instead") from None
    agents = data.setdefault("agents", {})
    if agent_id is None:
        holder = agents.setdefault("defaults", {})
    else:
        matches = [a for a in agents.get("list") or [] if isinstance(a, dict) and a.get("id") == agent_id]
        if not matches:
            raise OpenClawError(f"no agent '{agent_id}' in {config_file}")
        holder = matches[0]
    ms = holder.setdefault("memorySearch", {})
    ms["query"] = deep_merge(ms.get("query") or {}, openclaw_query_block(params, pool_size))
    backup = _rewrite(config_file, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    assert backup is not None  # the file was read above, so it existed
    return backup
