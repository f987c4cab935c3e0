"""`--wait SECONDS` of the commands that sync (index, eval, tune; search, of an index never built): how long they wait for another
process's sync of the same index, what they say meanwhile, and the exit code when they give up."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..errors import UserError

# long enough for a usual sync to end, bounded so a cron job or an agent's hook never hangs for ever
DEFAULT_LOCK_WAIT_S = 300.0
MAX_LOCK_WAIT_S = 86_400.0
EX_TEMPFAIL = 75  # sysexits.h: a temporary failure, try again later


def add_wait_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--wait", type=float, default=DEFAULT_LOCK_WAIT_S, metavar="SECONDS",
                   help="how long to wait for another process's sync of this index before giving up with exit "
                        f"code {EX_TEMPFAIL} (default {DEFAULT_LOCK_WAIT_S:g}; 0: do not wait)")


def lock_wait(args: argparse.Namespace) -> dict[str, Any]:
    """The `MemoryIndex.sync()` arguments for --wait: the bound, and a line on stderr at once when it
    waits (with no terminal or with --json the progress line is off, and the wait was silent)."""
    from ..render import safe

    seconds = args.wait
    if not 0 <= seconds <= MAX_LOCK_WAIT_S:  # `not <=` also refuses nan
        raise UserError(f"--wait must be between 0 and {MAX_LOCK_WAIT_S:g} seconds, got {seconds:g}")

    def on_wait(what: str) -> None:
        print(f"memtui: {safe(what, one_line=True)}", file=sys.stderr, flush=True)

    return {"wait_s": seconds, "on_wait": on_wait}


def gave_up(exc: Exception) -> int:
    """The one line for a SyncLockTimeout, and its exit code."""
    from ..render import safe

    print(f"memtui: error: {safe(str(exc), one_line=True)}; try again later, or wait longer with --wait SECONDS",
          file=sys.stderr)
    return EX_TEMPFAIL
