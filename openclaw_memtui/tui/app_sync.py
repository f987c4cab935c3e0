"""The app's sync: the launch check, syncs started and cancelled, their progress and report, the watcher.

Mixed into `MemtuiApp` (app.py): the sync state is the app's alone (`SyncState`, one reactive the info
bar and the status screen render), and what a finished sync changes on the search screen is asked of
it (`start_search`, the judged questions). The worker's body is `sync_runner.run_sync`.
"""

from __future__ import annotations

import contextlib
import threading
import time
from dataclasses import replace
from typing import TYPE_CHECKING

from textual import work

from ..errors import describe
from ..render import safe
from .messages import FilesChanged, IndexChecked, SyncFinished, SyncProgressed
from .screens.sync import SyncScreen
from .state import SyncState
from .sync_runner import run_sync
from .teardown import skip_when_torn_down

if TYPE_CHECKING:
    from textual.app import App

    from ..engine.embeddings.choice import FallbackRecord
    from ..engine.index import MemoryIndex
    from ..engine.models import SyncReport
    from ..engine.sync.watch import MemoryWatcher
    from .search_screen import MainScreen

    class _App(App[None]):
        """What this mixin uses of MemtuiApp (app.py), for the type checker."""

        index: MemoryIndex
        sync_state: SyncState
        sync_again: bool
        search_screen: MainScreen
        _cancel: threading.Event
        _watcher: MemoryWatcher | None
        _fallback_told: FallbackRecord | None

        def refresh_footer(self) -> None: ...
        def load_recalls(self) -> None: ...
else:
    _App = object


class SyncMixin(_App):
    # -- launch check ------------------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="index-check", exit_on_error=False)
    def check_index(self) -> None:
        """Empty or stale? Reading every file's stamp takes 160–240 ms at 10k files: not on the event loop."""
        try:
            # unembedded: a sync cancelled or quit while embedding resumes now, not at the next file change
            self.post_message(IndexChecked(self.index.needs_sync()))
        except Exception as exc:  # a locked or unreadable index: say so, let a sync try to repair it
            self.post_message(IndexChecked(True, describe(exc)))

    def on_index_checked(self, message: IndexChecked) -> None:
        if message.error:
            self.notify(f"Index check failed: {safe(message.error, False)}", severity="error", markup=False)
        if message.needs_sync:
            self.action_sync()  # also ends `checking`; a sync started meanwhile queues one more
        else:
            self.sync_state = replace(self.sync_state, checking=False)
            self.search_screen.judging.load_judged()
            self.search_screen.start_search()  # the initial query's results, or the memory newest first

    def warm_up_vectors(self) -> None:
        """Load the in-memory vector matrix (called in the search screen's worker); without it
        searches keep using sqlite-vec."""
        with contextlib.suppress(Exception):
            self.index.warm_up_vectors()

    # -- sync ------------------------------------------------------------------------------------
    def action_sync(self, force: bool = False) -> None:
        if self.sync_state.running:
            self.sync_again = True
            return
        self._cancel = threading.Event()
        self.sync_state = replace(self.sync_state, checking=False, running=True)
        self.notify("Sync started", markup=False, timeout=2)
        self._sync(force)

    def action_cancel_sync(self) -> None:
        if self.sync_state.running:
            self._cancel.set()
            self.notify("Cancelling sync…", markup=False, timeout=2)
        else:
            self.notify("No sync is running", markup=False, timeout=2)

    # Not exclusive: `SyncState.running` already keeps it to one at a time, and cancelling a thread
    # worker would only mark it, not stop it (the cancel event does that between batches).
    @work(thread=True, group="sync", exit_on_error=False)
    def _sync(self, force: bool) -> None:
        run_sync(self.index, force, self._cancel, self.post_message)

    def watch_sync_state(self, state: SyncState) -> None:
        self.refresh_footer()  # "Cancel" shows in the footer while a sync runs
        for screen in self.screen_stack:
            if isinstance(screen, SyncScreen):
                screen.sync_state = state

    @skip_when_torn_down
    def on_sync_progressed(self, message: SyncProgressed) -> None:
        previous = self.sync_state.progress
        self.sync_state = self.sync_state.advanced(message.progress, time.monotonic())
        first_embed = message.progress.phase == "embed" and (previous is None or previous.phase != "embed")
        if first_embed:
            self.search_screen.start_search()  # keyword rows are committed: show results (or browse them) while vectors fill in

    @skip_when_torn_down
    def on_sync_finished(self, message: SyncFinished) -> None:
        report = message.report
        if message.error:
            self.notify(f"Sync failed: {safe(message.error, False)}", severity="error", markup=False, timeout=8)
            self.sync_state = replace(self.sync_state, running=False, progress=None)
        elif report is not None:
            # A cancelled sync left files or vectors behind: still dirty (the status screen says what)
            self.sync_state = replace(self.sync_state, running=False, progress=None, last_report=report,
                                      dirty=report.cancelled)
            self._tell_sync_report(report)
            self.tell_fallback()
            self.search_screen.judging.load_judged()  # the judged questions' pools (and their targets' text) may have changed
            self.load_recalls()
            self.search_screen.start_search()  # or browse again: entries were added or changed
        if self.sync_again:
            self.sync_again = False
            self.action_sync()

    def tell_fallback(self, hint: str = "") -> None:
        """One toast when the index switches to the fallback provider; the status screen keeps showing it."""
        record = self.index.fallback
        if record == self._fallback_told:
            return
        self._fallback_told = record
        if record is not None:
            self.notify(safe(f"{record.line()} — now {record.to_id} ({record.model}){hint}", one_line=True),
                        severity="warning", markup=False, timeout=10)

    def _tell_sync_report(self, r: SyncReport) -> None:
        if r.cancelled:
            self.notify("Sync cancelled; what was written is kept", severity="warning", markup=False)
            return
        text = f"Sync finished: {r.files_indexed} indexed, {r.files_removed} removed, {r.chunks_embedded} embedded"
        if r.embed_error:
            self.notify(f"{text}. Embeddings failed: {safe(r.embed_error, False)} — keyword search still works",
                        severity="warning", markup=False, timeout=8)
        else:
            self.notify(text, markup=False, timeout=3)

    # -- watcher -----------------------------------------------------------------------------
    def _start_watcher(self) -> None:
        from ..engine.sync.watch import MemoryWatcher

        def changed(paths: set[str]) -> None:  # called on the watcher's thread: post_message is thread-safe
            self.post_message(FilesChanged(paths))

        self._watcher = MemoryWatcher(self.index.settings, changed)
        try:
            self._watcher.start()
        except Exception as exc:
            self.notify(f"File watching unavailable: {safe(describe(exc), False)}", severity="warning", markup=False)
        self.sync_state = replace(self.sync_state, watcher=self._watcher.state)

    def on_files_changed(self, message: FilesChanged) -> None:
        self.sync_state = replace(self.sync_state, dirty=True)
        self.action_sync()

    def on_unmount(self) -> None:
        if self._watcher is not None:
            self._watcher.stop()
        self._cancel.set()
