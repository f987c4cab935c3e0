"""State the app shares with its widgets and screens, as immutable values set on reactives.

The app owns one `SyncState` reactive; the search screen (and through it the info bar) and the status
screen follow it and render what it says. Replacing the whole value (never mutating it) is what makes the watchers fire.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

from ..engine.models import SyncProgress, SyncReport
from ..engine.search.rank import Pool, Result, SearchParams
from ..engine.tuning.tuner import Scores

IndexChange = Literal["", "checked", "rows", "synced"]
RATE_AFTER_S = 2.0  # a rate and an ETA only once a phase has run this long (the first batches mislead)


@dataclass(frozen=True)
class SyncState:
    """Where the index stands as far as the UI knows: the launch check, a running sync, the watcher."""

    checking: bool = True  # the launch check (is the index empty or stale?) has not answered yet
    running: bool = False
    progress: SyncProgress | None = None
    last_report: SyncReport | None = None
    dirty: bool = False  # the watcher saw changes, or a sync was cancelled, and no sync has finished since
    watcher: str = "off"
    phase_started: float = 0.0  # monotonic seconds when the current phase's first event came
    phase_start_done: int = 0  # its `done` count then
    # The last change to what the index answers, for the screens that follow this state (the search screen
    # searches again): "checked", the launch check found it current; "rows", a sync's keyword rows are in
    # (its vectors follow); "synced", a sync finished. `index_changes` counts them: each is a new state.
    index_change: IndexChange = ""
    index_changes: int = 0

    def changed(self, what: IndexChange) -> SyncState:
        """This state, saying the index changed (`what`)."""
        return replace(self, index_change=what, index_changes=self.index_changes + 1)

    @property
    def busy(self) -> bool:
        """True until the launch check answered and while a sync runs: results may still change."""
        return self.checking or self.running

    def advanced(self, progress: SyncProgress, now: float) -> SyncState:
        """This state with a new progress event received at `now` (monotonic seconds)."""
        previous = self.progress
        if previous is None or previous.phase != progress.phase or progress.done < previous.done:
            return replace(self, progress=progress, phase_started=now, phase_start_done=progress.done)
        return replace(self, progress=progress)

    def rate_eta(self, now: float) -> tuple[float, float] | None:
        """(items a second, seconds left) of the current phase, once it has run RATE_AFTER_S."""
        p = self.progress
        if not self.running or p is None or p.total <= 0:
            return None
        elapsed, done = now - self.phase_started, p.done - self.phase_start_done
        if elapsed < RATE_AFTER_S or done <= 0:
            return None
        rate = done / elapsed
        return rate, max(0, p.total - p.done) / rate


def format_rate_eta(rate_eta: tuple[float, float] | None, unit: str) -> str:
    """"120 chunks/s · 1m 05s left", or "" before a rate is known."""
    if rate_eta is None:
        return ""
    rate, left = rate_eta
    seconds = int(round(left))
    eta = f"{seconds // 60}m {seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"
    return f"{rate:,.0f} {unit}/s · {eta} left" if rate >= 10 else f"{rate:,.1f} {unit}/s · {eta} left"


def phase_unit(phase: str) -> str:
    return "chunks" if phase == "embed" else "files"


@dataclass(frozen=True)
class RankedResults:
    """One ranking of the cached pool, as the result list, detail pane and info bar show it."""

    pool: Pool | None = None
    results: tuple[Result, ...] = ()
    params: SearchParams = field(default_factory=SearchParams)
    moves: dict[str, int | None] = field(default_factory=dict)  # id -> ranks climbed (None: new)
    # browsing (no query, pool.mode "browse"): each result's day ("2026-11-27 Fri"), the list's group headings
    days: tuple[str, ...] = ()
    more: bool = False  # browsing: older entries not read yet (the list asks for them as it nears the end)

    @property
    def browsing(self) -> bool:
        return self.pool is not None and self.pool.mode == "browse"


@dataclass(frozen=True)
class MetricView:
    """What the tuning panel says about the judgements: how many, how many stale, the metric of the
    current setting and of the saved one (the delta is between the two)."""

    judged: int = 0  # questions with at least one relevant result that is not stale
    stale: int = 0
    current: Scores | None = None
    saved: Scores | None = None
    loading: str = ""  # "retrieving 12/40": the judged questions are being retrieved
