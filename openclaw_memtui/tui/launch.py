"""Start the TUI from parsed arguments: one session (the CLI's bootstrap), one app, closed on exit; and
when the app's Switch agent picked another agent, that agent's session and a new app in its place."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..core.config_types import AppConfig
    from ..core.session import SessionOptions


def run_tui(args: argparse.Namespace, cfg: AppConfig) -> int:
    from ..core.config import search_params
    from ..core.search import parse_now
    from ..core.session import SessionOptions, open_session
    from ..errors import UserError
    from ..render import safe
    from .app import MemtuiApp
    from .quit import end_process, exit_now_if_busy

    now_ms = parse_now(getattr(args, "now", None))
    options, told, before = SessionOptions.from_args(args), "", None
    while True:
        try:  # the app syncs: like `index`, it may set an invalid file aside
            session = open_session(options, cfg, repair=True)
        except UserError as exc:
            if before is None:  # the command's own agent: its error is the command's
                raise
            # the agent picked in the app cannot be opened: the one open before comes back, saying why
            told = f"Agent {safe(options.agent or '', one_line=True)} not opened: {safe(str(exc), one_line=True)}"
            options, before = before, None
            continue
        with session:
            if told:
                session.index.notices.append(told)  # toasted as the app starts
            app = MemtuiApp.from_session(session, now_ms=now_ms, config_path=Path(args.config) if args.config else None,
                                         params=search_params(session.cfg))
            app.run()
            if app.crash_report:  # written here, with the terminal restored, not by Rich (which wraps at its width)
                sys.stderr.write(app.crash_report)
            if app.switch_to is None:
                # a worker still running (a model load, a sync's batch) would hold the exit: end the process now
                exit_now_if_busy(getattr(app, "executor", None), app.return_code or 0)
        if app.switch_to is None:
            end_process(app.return_code or 0)  # 1 after a crash, as a failed command; the session is closed
            return app.return_code or 0  # not reached: for the type
        options, told, before = switched(options, app.switch_to), "", options


def switched(options: SessionOptions, agent_id: str) -> SessionOptions:
    """The options that open `agent_id` instead: its workspace, index and settings, as `--agent` does (the
    provider and model flags stay)."""
    return replace(options, agent=agent_id, workspace=None, db=None, demo=False)
