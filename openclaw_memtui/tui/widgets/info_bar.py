"""The line under the query: time window, how many results of how many candidates, warnings, sync.

It renders what it is given: the current ranking and the time words ignored (set by the app) and
the sync state (the search screen follows the app's), so a sync's progress shows without the app
rebuilding the line.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from ...render import safe
from ..state import RankedResults, SyncState, format_rate_eta, phase_unit

MODE_NAMES = {"hybrid": "hybrid", "keyword": "keywords only", "vector": "vectors only"}
# the working indicator: what each worker group is doing
WORKING_LABELS = {"model": "loading the model", "search": "searching", "vectors": "loading vectors",
                  "judged": "retrieving judged questions", "index-check": "checking the index", "browse": "listing",
                  "file": "reading a file", "recalls": "reading the agent's searches", "status": "reading the status",
                  "agent": "reading OpenClaw's config"}
QUIET_GROUPS = {"sync", "metric"}  # the sync has its own progress on the line; the metric its own box


def working_label(groups: Iterable[str]) -> str:
    """What the running workers' groups are doing, for the line ("" when none is)."""
    return ", ".join(sorted({WORKING_LABELS.get(group, "working") for group in set(groups) - QUIET_GROUPS}))
RUN_A_SYNC = "(run a sync)"


def info_line(ranked: RankedResults, sync: SyncState, ignored_window: str = "", now: float | None = None,
              time_key: str = "f3", browse_filter: str = "notes and transcripts", browse_key: str = "f4",
              working: str = "", narrowing: str = "") -> Text:
    # What runs in the background, then the sync's state: the line is one row, and at 80 columns a time
    # window or a warning filled it, so a running sync (the reason results are keyword-only) was cut off the end
    parts: list[str] = [f"⋯ {working}"] if working else []
    if sync.running and sync.progress is not None:
        p = sync.progress
        speed = format_rate_eta(sync.rate_eta(time.monotonic() if now is None else now), phase_unit(p.phase))
        parts.append(f"syncing {p.phase} {p.done}/{p.total}" + (f" · {speed}" if speed else ""))
    elif sync.dirty:
        parts.append("changes waiting to sync")
    pool = ranked.pool
    if pool is not None and pool.time_window is not None:
        w = pool.time_window.to_dict()
        parts.append(f"time window “{w['text']}” {w['start']} → {w['end']} ({ranked.params.time_mode}; {time_key} ignores it)")
    elif ignored_window:
        parts.append(f"time words “{ignored_window}” ignored ({time_key} uses them)")
    if ranked.browsing:
        listed = f"{len(ranked.results)}+" if ranked.more else f"{len(ranked.results)}"
        parts.append(f"browsing {listed} entries newest first · {browse_filter} ({browse_key} changes)")
    elif pool is not None:
        parts.append(f"{len(ranked.results)} of {len(pool.candidates)} candidates · {MODE_NAMES[pool.mode]}")
        if narrowing:  # what the filter keeps, said first of the rest: the list is not the whole ranking
            parts.append(f"filtered: {narrowing}")
        # the engine's advice to run a sync is stale while one runs
        parts.extend(w.replace(RUN_A_SYNC, "(sync running)") if sync.running else w for w in pool.warnings)
    return Text(safe(" · ".join(parts), False))


class InfoBar(Static):
    ranked: reactive[RankedResults] = reactive(RankedResults, always_update=True, init=False)
    sync: reactive[SyncState] = reactive(SyncState, init=False)
    ignored_window: reactive[str] = reactive("", init=False)  # f3: the time words this query ignores
    working: reactive[str] = reactive("", init=False)  # what runs in the background (the app's, set by the search screen)

    def __init__(self, *, id: str | None = None, time_key: str = "f3", browse_key: str = "f4") -> None:
        super().__init__(id=id)
        self.time_key = time_key  # the key that ignores a time window (remappable)
        self.browse_key = browse_key  # the key that changes what browsing lists (remappable)
        self.browse_filter = "notes and transcripts"  # what browsing lists now (set by the app before `ranked`)
        self.narrowing = ""  # the result filter in words (narrowing.py), "" when none

    def _line(self) -> Text:
        return info_line(self.ranked, self.sync, self.ignored_window, time_key=self.time_key,
                         browse_filter=self.browse_filter, browse_key=self.browse_key, working=self.working,
                         narrowing=self.narrowing)

    def watch_ranked(self) -> None:
        self.update(self._line())

    def watch_sync(self) -> None:
        self.update(self._line())

    def watch_working(self) -> None:
        self.update(self._line())
