"""The app's errors: `UserError` for problems the CLI and the app phrase themselves, `describe`, and
`crash_report` for an unexpected one (with MEMTUI_DEBUG=1 its traceback, `debug_traceback`)."""

from __future__ import annotations

import os

from .engine.errors import MemtuiError, describe
from .engine.scrub import scrub

__all__ = ["MemtuiError", "UserError", "crash_report", "debug_traceback", "debugging", "describe"]


class UserError(MemtuiError):
    """An error already phrased for the user."""


def debugging() -> bool:
    """MEMTUI_DEBUG=1: an unexpected error shows its traceback instead of one line."""
    return bool(os.environ.get("MEMTUI_DEBUG"))


def debug_traceback(exc: BaseException) -> str:
    """`exc`'s traceback, as safe to print as the one-line error it replaces: keys scrubbed (an
    exception may quote a request, a header or a URL with ?key=) and control characters shown as
    escapes (a file name may carry terminal sequences); its newlines kept, it is a traceback."""
    import traceback  # only when it fails: every command imports this module at start

    from .render import safe

    return safe(scrub("".join(traceback.format_exception(exc))))


def crash_report(exc: BaseException) -> str:
    """What an unexpected error prints as memtui ends (the CLI's last line of defence, the TUI's
    crash): one line, or with MEMTUI_DEBUG=1 the traceback; either scrubbed and escaped."""
    if debugging():
        return debug_traceback(exc)
    from .render import safe

    return f"memtui: error: {safe(describe(exc), one_line=True)}\n"  # describe scrubs
