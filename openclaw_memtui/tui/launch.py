"""Start the TUI from CLI arguments."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def params_from_config(cfg: dict[str, Any]):
    from ..engine.search.rank import SearchParams

    q, h = cfg["query"], cfg["query"]["hybrid"]
    return SearchParams(vector_weight=h["vectorWeight"], text_weight=h["textWeight"], fusion=h["fusion"],
                        mmr=h["mmr"]["enabled"], mmr_lambda=h["mmr"]["lambda"], decay=h["temporalDecay"]["enabled"],
                        half_life_days=h["temporalDecay"]["halfLifeDays"], min_score=q["minScore"], max_results=q["maxResults"],
                        time_mode=q["time"]["mode"], time_boost=q["time"]["boost"], time_floor=q["time"]["floor"])


def run_tui(args: argparse.Namespace, cfg: dict[str, Any]) -> int:
    from ..cli import open_index
    from .app import MemtuiApp

    index = open_index(args, cfg)
    cfg = index.cfg
    now_ms = None
    if getattr(args, "now", None):
        from datetime import datetime, timezone

        now_ms = datetime.fromisoformat(args.now.replace("Z", "+00:00")).astimezone(timezone.utc).timestamp() * 1000
    app = MemtuiApp(index, cfg, origin=getattr(index, "origin", ""), now_ms=now_ms,
                    config_path=Path(args.config) if args.config else None, params=params_from_config(cfg))
    app.run()
    index.close()
    return 0
