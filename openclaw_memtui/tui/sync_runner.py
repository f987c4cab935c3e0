"""The body of the app's sync worker: run a sync in this thread, post progress and the outcome."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable

from textual.message import Message

from ..engine.index import MemoryIndex
from ..engine.models import SyncProgress
from ..errors import describe
from .messages import SyncFinished, SyncProgressed

PROGRESS_INTERVAL_S = 0.05  # at most ~20 progress messages a second, plus one per phase change


def lower_this_thread_priority() -> None:
    """Let the UI thread win the CPU over a sync (and the model threads it starts) on busy cores.

    On Linux `setpriority` with a thread id renices just that thread; threads it creates (the
    embedding model's OpenMP pool) inherit it. Elsewhere this is a no-op.
    """
    with contextlib.suppress(AttributeError, OSError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)


def run_sync(index: MemoryIndex, force: bool, cancel: threading.Event, post: Callable[[Message], object]) -> None:
    """Sync `index`, posting `SyncProgressed` (throttled) and one `SyncFinished`. Call from a worker thread."""
    lower_this_thread_priority()
    last_phase, last_at = "", 0.0

    def progress(p: SyncProgress) -> None:
        # A 10,000-file sync must not flood the event loop with one message per file; the
        # messages also coalesce in the queue (SyncProgressed.can_replace).
        nonlocal last_phase, last_at
        now = time.monotonic()
        if p.phase != last_phase or now - last_at > PROGRESS_INTERVAL_S or p.phase == "done":
            last_phase, last_at = p.phase, now
            post(SyncProgressed(p))

    try:
        report = index.sync(force=force, progress=progress, cancel=cancel)
    except Exception as exc:  # a locked index, a full disk: one line in a toast, the app keeps working
        post(SyncFinished(None, describe(exc)))
        return
    post(SyncFinished(report))
