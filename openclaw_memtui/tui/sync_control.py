"""The app's sync: the launch check, syncs started and cancelled, their progress and report, the watcher.

`SyncControl` is an object the app holds (app.py), not a mixin: the sync state itself is the app's one
`SyncState` reactive, set through `state`, which the search screen and the status screen follow. Its
workers run on the app and answer it with messages (`messages.py`), which the app hands here. A check or a
sync that changes what the index answers says so in that same state (`SyncState.changed`), so the search
screen decides what to search or read again as it sees the state change, in the same step. The sync
worker's body is `sync_runner.run_sync`.
"""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING

from ..errors import describe
from ..render import safe
from .messages import FilesChanged, IndexChecked, SyncFinished, SyncProgressed
from .state import SyncState
from .sync_runner import run_sync

if TYPE_CHECKING:
    from ..engine.embeddings.choice import FallbackRecord
    from ..engine.models import SyncReport
    from ..engine.sync.watch import MemoryWatcher
    from .app import MemtuiApp


class SyncControl:
    """Starts, cancels and reports the syncs of the app's index; watches its files."""

    def __init__(self, app: MemtuiApp) -> None:
        self.app = app
        self.again = False  # a sync was asked for while one ran: run one more when it ends
        self.cancel_event = threading.Event()
        self.watcher: MemoryWatcher | None = None
        self._fallback_told: FallbackRecord | None = None  # the provider fallback last toasted

    @property
    def state(self) -> SyncState:
        return self.app.sync_state

    @state.setter
    def state(self, state: SyncState) -> None:
        self.app.sync_state = state

    # -- launch check ------------------------------------------------------------------------------
    def check_index(self) -> None:
        """Empty or stale? Reading every file's stamp takes 160–240 ms at 10k files: not on the event loop."""
        self.app.run_worker(self._check, thread=True, exclusive=True, group="index-check", exit_on_error=False)

    def _check(self) -> None:
        try:
            # unembedded: a sync cancelled or quit while embedding resumes now, not at the next file change
            self.app.post_message(IndexChecked(self.app.index.needs_sync()))
        except Exception as exc:  # a locked or unreadable index: say so, let a sync try to repair it
            self.app.post_message(IndexChecked(True, describe(exc)))

    def index_checked(self, message: IndexChecked) -> None:
        if message.error:
            self.app.notify(f"Index check failed: {safe(message.error, False)}", severity="error", markup=False)
        if message.needs_sync:
            self.start()  # also ends `checking`; a sync started meanwhile queues one more
        else:
            # the search screen shows the initial query's results, or the memory newest first
            self.state = replace(self.state, checking=False).changed("checked")

    # -- sync ------------------------------------------------------------------------------------
    def start(self, force: bool = False) -> None:
        if self.state.running:
            self.again = True
            return
        self.cancel_event = threading.Event()
        self.state = replace(self.state, checking=False, running=True)
        self.app.notify("Sync started", markup=False, timeout=2)
        # Not exclusive: `SyncState.running` already keeps it to one at a time, and cancelling a thread
        # worker would only mark it, not stop it (the cancel event does that between batches).
        self.app.run_worker(partial(run_sync, self.app.index, force, self.cancel_event, self.app.post_message),
                            thread=True, group="sync", exit_on_error=False)

    def cancel(self) -> None:
        if self.state.running:
            self.cancel_event.set()
            self.app.notify("Cancelling sync…", markup=False, timeout=2)
        else:
            self.app.notify("No sync is running", markup=False, timeout=2)

    def progressed(self, message: SyncProgressed) -> None:
        previous = self.state.progress
        state = self.state.advanced(message.progress, time.monotonic())
        first_embed = message.progress.phase == "embed" and (previous is None or previous.phase != "embed")
        # keyword rows are committed: the search screen shows results (or browses them) while vectors fill in
        self.state = state.changed("rows") if first_embed else state

    def finished(self, message: SyncFinished) -> None:
        report = message.report
        if message.error:
            self.app.notify(f"Sync failed: {safe(message.error, False)}", severity="error", markup=False, timeout=8)
            self.state = replace(self.state, running=False, progress=None)
        elif report is not None:
            # A cancelled sync left files or vectors behind: still dirty (the status screen says what). The search
            # screen reads the judged questions, the agent's searches and the list again.
            self.state = replace(self.state, running=False, progress=None, last_report=report,
                                 dirty=report.cancelled).changed("synced")
            self._tell_report(report)
            self.tell_fallback()
        if self.again:
            self.again = False
            self.start()

    def tell_fallback(self, hint: str = "") -> None:
        """One toast when the index switches to the fallback provider; the status screen keeps showing it."""
        record = self.app.index.fallback
        if record == self._fallback_told:
            return
        self._fallback_told = record
        if record is not None:
            self.app.notify(safe(f"{record.line()} — now {record.to_id} ({record.model}){hint}", one_line=True),
                            severity="warning", markup=False, timeout=10)

    def _tell_report(self, r: SyncReport) -> None:
        if r.cancelled:
            self.app.notify("Sync cancelled; what was written is kept", severity="warning", markup=False)
            return
        text = f"Sync finished: {r.files_indexed} indexed, {r.files_removed} removed, {r.chunks_embedded} embedded"
        if r.embed_error:
            self.app.notify(f"{text}. Embeddings failed: {safe(r.embed_error, False)} — keyword search still works",
                            severity="warning", markup=False, timeout=8)
        else:
            self.app.notify(text, markup=False, timeout=3)

    # -- watcher -----------------------------------------------------------------------------
    def start_watcher(self) -> None:
        from ..engine.sync.watch import MemoryWatcher

        def changed(paths: set[str]) -> None:  # called on the watcher's thread: post_message is thread-safe
            self.app.post_message(FilesChanged(paths))

        self.watcher = MemoryWatcher(self.app.index.settings, changed)
        try:
            self.watcher.start()
        except Exception as exc:
            self.app.notify(f"File watching unavailable: {safe(describe(exc), False)}", severity="warning", markup=False)
        self.state = replace(self.state, watcher=self.watcher.state)

    def files_changed(self, message: FilesChanged) -> None:
        self.state = replace(self.state, dirty=True)
        self.start()

    def stop(self) -> None:
        """The app ends: stop watching, and stop a running sync between batches."""
        if self.watcher is not None:
            self.watcher.stop()
        self.cancel_event.set()
