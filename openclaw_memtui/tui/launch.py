"""Start the TUI from parsed arguments: one session (the CLI's bootstrap), one app, closed on exit."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..core.config_types import AppConfig


def run_tui(args: argparse.Namespace, cfg: AppConfig) -> int:
    from ..core.config import search_params
    from ..core.search import parse_now
    from ..core.session import SessionOptions, open_session
    from .app import MemtuiApp
    from .quit import end_process, exit_now_if_busy

    now_ms = parse_now(getattr(args, "now", None))
    # the app syncs: like `index`, it may set an invalid file aside
    with open_session(SessionOptions.from_args(args), cfg, repair=True) as session:
        app = MemtuiApp.from_session(session, now_ms=now_ms, config_path=Path(args.config) if args.config else None,
                                     params=search_params(session.cfg))
        app.run()
        if app.crash_report:  # written here, with the terminal restored, not by Rich (which wraps at its width)
            sys.stderr.write(app.crash_report)
        # a worker still running (a model load, a sync's batch) would hold the exit: end the process now
        exit_now_if_busy(getattr(app, "executor", None), app.return_code or 0)
    end_process(app.return_code or 0)  # 1 after a crash, as a failed command; the session is closed
    return app.return_code or 0  # not reached: for the type
