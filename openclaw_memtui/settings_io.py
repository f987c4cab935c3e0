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


def save_to_config(params: SearchParams, path: Path) -> Path | None:
    """Write the query settings into our TOML config, keeping every other key; back up the original."""
    data: dict[str, Any] = {}
    backup = None
    if path.exists():
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        backup = path.with_name(path.name + f".bak-{time.strftime('%Y%m%d-%H%M%S')}")
        shutil.copy2(path, backup)
    query = data.setdefault("query", {})
    query["maxResults"] = int(params.max_results)
    query["minScore"] = float(params.min_score)
    hybrid = query.setdefault("hybrid", {})
    hybrid.update({"vectorWeight": float(params.vector_weight), "textWeight": float(params.text_weight), "fusion": params.fusion})
    hybrid["mmr"] = {"enabled": params.mmr, "lambda": float(params.mmr_lambda)}
    hybrid["temporalDecay"] = {"enabled": params.decay, "halfLifeDays": float(params.half_life_days)}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(tomli_w.dumps(data), encoding="utf-8")
    tmp.replace(path)
    return backup
