"""State the app shares with its widgets and screens, as immutable values set on reactives.

The app owns one `SyncState` reactive; the info bar and the status screen bind to it and render
what it says. Replacing the whole value (never mutating it) is what makes the watchers fire.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..engine.models import SyncProgress, SyncReport
from ..engine.search.rank import Pool, Result, SearchParams


@dataclass(frozen=True)
class SyncState:
    """Where the index stands as far as the UI knows: the launch check, a running sync, the watcher."""

    checking: bool = True  # the launch check (is the index empty or stale?) has not answered yet
    running: bool = False
    progress: SyncProgress | None = None
    last_report: SyncReport | None = None
    dirty: bool = False  # the watcher saw changes that no sync has picked up yet
    watcher: str = "off"

    @property
    def busy(self) -> bool:
        """True until the launch check answered and while a sync runs: results may still change."""
        return self.checking or self.running


@dataclass(frozen=True)
class RankedResults:
    """One ranking of the cached pool, as the result list, detail pane and info bar show it."""

    pool: Pool | None = None
    results: tuple[Result, ...] = ()
    params: SearchParams = field(default_factory=SearchParams)
    moves: dict[str, int | None] = field(default_factory=dict)  # id -> ranks climbed (None: new)
