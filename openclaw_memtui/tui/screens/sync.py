"""Index status and live sync progress (F2).

The screen is given the index, where it came from and the app's `SyncState`, and the app sets
each new `SyncState` on it. It shows at once, saying it is reading, and asks a worker for the
status as it mounts (the read overlaps the screen's compose and layout, which cost more); while a
sync runs a timer asks again once a second, since counts grow while vectors fill in. The worker
answers with `StatusLoaded`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Header, Static

from ...engine.index import MemoryIndex
from ...render import safe
from ..keys import key_for
from ..messages import AgentReread
from ..state import SyncState, format_rate_eta, phase_unit
from ..widgets.context_footer import ContextFooter
from ..widgets.progress_line import ProgressLine
from .status_rows import StatusSnapshot, StatusTable, read_status, status_rows, unembedded

if TYPE_CHECKING:
    from ...interop.agents import Agent

STATUS_REFRESH_DURING_SYNC_S = 1.0
PHASE_WORDS = {"scan": "listing files", "index": "indexing files", "embed": "embedding chunks", "swap": "swapping in",
               "done": "done"}


def progress_label(sync: SyncState, now: float | None = None, *, sync_key: str = "s", rebuild_key: str = "f") -> Text:
    """The line above the bar; its hints name the screen's keys (the config's tui.keys may remap them)."""
    p = sync.progress
    if sync.running and p is not None:
        speed = format_rate_eta(sync.rate_eta(time.monotonic() if now is None else now), phase_unit(p.phase))
        # the counts once: the embed phase's message repeats them ("embed 48/2953 … embedding 48/2953 chunks")
        what = p.path or ("" if p.phase == "embed" else p.message)
        return Text(f"Syncing — {PHASE_WORDS.get(p.phase, p.phase)} {p.done}/{p.total}" + (f" · {speed}" if speed else "")
                    + (f" · {safe(what, one_line=True)}" if what else ""), style="bold")
    if sync.running:
        return Text("Syncing — starting", style="bold")
    if sync.last_report is not None and sync.last_report.cancelled:
        return Text(f"Cancelled — {sync_key} resumes where it stopped, {rebuild_key}: full rebuild", style="bold")
    return Text(f"Idle — {sync_key}: sync now, {rebuild_key}: full rebuild", style="dim")


@dataclass
class StatusLoaded(Message):
    """The index status and the OpenClaw inspection, read by the screen's worker."""

    generation: int
    snapshot: StatusSnapshot


class SyncScreen(Screen[None]):
    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back", id="syncscreen.back"),
        Binding("s", "app.sync", "Sync now", id="syncscreen.sync"),
        Binding("c", "app.cancel_sync", "Cancel sync", id="syncscreen.cancel"),
        Binding("f", "app.sync(True)", "Full rebuild", id="syncscreen.rebuild"),
    ]

    sync_state: reactive[SyncState] = reactive(SyncState, init=False)
    snapshot: reactive[StatusSnapshot] = reactive(StatusSnapshot.reading, init=False)

    def __init__(self, index: MemoryIndex, origin: str, agent: Agent | None, sync_state: SyncState) -> None:
        super().__init__()
        self.index, self.origin, self.agent = index, origin, agent
        self.set_reactive(SyncScreen.sync_state, sync_state)
        self._status_generation = 0

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="sync-phase")
        yield ProgressLine(id="sync-bar")
        with VerticalScroll():
            yield StatusTable(id="sync-status")
        yield ContextFooter()

    def on_mount(self) -> None:
        self.load_status()
        self._show_progress()
        self._show_status()
        self.set_interval(STATUS_REFRESH_DURING_SYNC_S, self._refresh_while_syncing)

    def _refresh_while_syncing(self) -> None:
        if self.sync_state.running:
            self.load_status()

    def watch_sync_state(self, old: SyncState, new: SyncState) -> None:
        if not self._composed():
            return  # set between the push and the compose (a sync's progress): on_mount shows it and reads
        self._show_progress()
        self._show_status()  # dirty and watcher come from the state itself
        if old.running and not new.running:
            self.load_status()  # the sync's final counts

    def watch_snapshot(self) -> None:
        if self._composed():
            self._show_progress()
            self._show_status()

    def _composed(self) -> bool:
        """The app pushes this screen at once and sets each new SyncState on every SyncScreen in the
        stack; one may arrive before compose has made the widgets these watchers update."""
        return bool(self.query("#sync-status"))

    def _show_progress(self) -> None:
        sync = self.sync_state
        bar = self.query_one("#sync-bar", ProgressLine)
        status = self.snapshot.status
        if sync.running and sync.progress is not None:
            bar.show(sync.progress.done, sync.progress.total)
        elif status is not None and status.chunks:  # what the index holds: a cancelled embed is not 100 %
            bar.show(status.chunks - unembedded(status), status.chunks)
        elif status is None:  # still reading, or the read failed (an unreadable index): not the last sync's 100 %
            bar.show_unknown()
        else:
            bar.show(1 if sync.last_report and not sync.last_report.cancelled else 0, 1)
        self.query_one("#sync-phase", Static).update(progress_label(sync, sync_key=self._key("syncscreen.sync"),
                                                                    rebuild_key=self._key("syncscreen.rebuild")))

    def _show_status(self) -> None:
        self.query_one("#sync-status", StatusTable).rows = status_rows(self.snapshot, self.origin, self.sync_state,
                                                                       resume_key=self._key("syncscreen.sync"))

    def _key(self, binding_id: str) -> str:
        return key_for(self.app, self.BINDINGS, binding_id)

    def load_status(self) -> None:
        self._status_generation += 1
        self._read_status(self._status_generation)

    @work(thread=True, exclusive=True, group="status", exit_on_error=False)
    def _read_status(self, generation: int) -> None:
        self.post_message(StatusLoaded(generation, read_status(self.index, self.agent)))

    def _take_agent(self, agent: Agent | None) -> None:
        """The agent read again with the status: said to the app, whose header and Agent searches use it."""
        if agent is None or agent == self.agent:
            return
        self.agent = agent
        self.post_message(AgentReread(agent))  # bubbles up to the app

    def on_status_loaded(self, message: StatusLoaded) -> None:
        message.stop()
        if message.generation == self._status_generation:  # else an older read finished after a newer was asked for
            self._take_agent(message.snapshot.agent)
            self.snapshot = message.snapshot
