"""The line under the query: time window, how many results of how many candidates, warnings, sync.

It renders two values it is given: the current ranking (set by the app) and the sync state (bound
to the app's reactive), so a sync's progress shows without the app rebuilding the line.
"""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from ...render import safe
from ..state import RankedResults, SyncState

MODE_NAMES = {"hybrid": "hybrid", "keyword": "keywords only", "vector": "vectors only"}


def info_line(ranked: RankedResults, sync: SyncState) -> Text:
    parts: list[str] = []
    pool = ranked.pool
    if pool is not None and pool.time_window is not None:
        w = pool.time_window.to_dict()
        parts.append(f"time window “{w['text']}” {w['start']} → {w['end']} ({ranked.params.time_mode}; f3 ignores it)")
    if pool is not None:
        parts.append(f"{len(ranked.results)} of {len(pool.candidates)} candidates · {MODE_NAMES[pool.mode]}")
        parts.extend(pool.warnings)
    if sync.running and sync.progress is not None:
        p = sync.progress
        parts.append(f"syncing {p.phase} {p.done}/{p.total}")
    elif sync.dirty:
        parts.append("changes waiting to sync")
    return Text(safe(" · ".join(parts), False))


class InfoBar(Static):
    ranked: reactive[RankedResults] = reactive(RankedResults, always_update=True, init=False)
    sync: reactive[SyncState] = reactive(SyncState, init=False)

    def watch_ranked(self) -> None:
        self.update(info_line(self.ranked, self.sync))

    def watch_sync(self) -> None:
        self.update(info_line(self.ranked, self.sync))
