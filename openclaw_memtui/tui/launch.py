"""Start the TUI from CLI arguments."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def run_tui(args: argparse.Namespace, cfg: dict[str, Any]) -> int:
    from ..cli import open_index
    from ..cli_search import parse_now
    from ..config import search_params
    from .app import MemtuiApp

    now_ms = parse_now(getattr(args, "now", None))
    index = open_index(args, cfg, repair=True)  # the app syncs: like `index`, it may set an invalid file aside
    cfg = index.cfg
    app = MemtuiApp(index, cfg, origin=getattr(index, "origin", ""), now_ms=now_ms,
                    config_path=Path(args.config) if args.config else None, params=search_params(cfg))
    app.run()
    index.close()
    return 0
