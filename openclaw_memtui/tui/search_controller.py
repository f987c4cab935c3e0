"""The search screen's queue, generations and reranking, without Textual: which search runs, which
answer counts, and the ranking of the pool on screen.

Every query typed bumps the generation; an answer for an older generation is stale and dropped. One
search runs at a time and the newest query runs next: a superseded search cannot be stopped (a
sqlite-vec leg over a large index takes seconds), and each one left running held one of the few worker
threads Textual shares, so the status screen waited behind them. The screen asks this object what to
do and runs the worker; this object never touches a widget or a thread, so tests drive it directly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from ..engine.search.rank import Pool, Result, SearchParams, rank
from .state import RankedResults

# The hits OpenClaw returned for the pool's query that the ranking lacks, appended (agent_searches.py)
AddHits = Callable[[Pool, tuple[Result, ...], SearchParams], tuple[Result, ...]]


@dataclass(frozen=True)
class SearchCall:
    """One search to run in the worker: the query, the generation its answer carries, and whether
    its time words ("last week") are read as a window (f3 turns that off for one query)."""

    query: str
    generation: int
    time_words: bool


class SearchController:
    def __init__(self, params: SearchParams) -> None:
        self.generation = 0
        self.in_flight = False
        self.queued = False
        self.focus_results_for = -1  # Enter was pressed: move to the results when this generation answers
        self.time_disabled_query: str | None = None  # f3: ignore the time words of this query
        self.ranked = RankedResults(params=params)
        self.partial_for = -1  # the generation whose keyword-only results are on screen, the hybrid to follow

    # -- the queue ------------------------------------------------------------------------------------
    def start(self, query: str) -> SearchCall | Literal["browse"] | None:
        """A new query (or the same one again): "browse" for an empty one, the search to run now, or
        None when one is running (the newest query runs when it ends)."""
        self.generation += 1
        if not query.strip():
            self.queued = False
            return "browse"
        if self.in_flight:
            self.queued = True
            return None
        return self._launch(query)

    def ended(self, query_now: Callable[[], str]) -> SearchCall | None:
        """The running search answered (in full) or failed: the queued search to run now, with the
        query as it reads now (read only then: the screen may be shutting down) and the latest generation."""
        self.in_flight = False
        if not self.queued:
            return None
        self.queued = False
        return self._launch(query_now())

    def _launch(self, query: str) -> SearchCall:
        self.in_flight = True
        return SearchCall(query, self.generation, query.strip() != self.time_disabled_query)

    def is_current(self, generation: int) -> bool:
        """An answer for this generation is still the one to show."""
        return generation == self.generation

    def focus_when_answered(self, generation: int | None = None) -> None:
        """Move to the results once this generation (default: the latest) answers."""
        self.focus_results_for = self.generation if generation is None else generation

    def focuses(self, generation: int) -> bool:
        return generation == self.focus_results_for

    def time_ignored(self, query: str) -> bool:
        return self.time_disabled_query is not None and self.time_disabled_query == query.strip()

    # -- the ranking ----------------------------------------------------------------------------------
    def answered(self, generation: int, pool: Pool, params: SearchParams,
                 add_hits: AddHits | None = None, partial: bool = False) -> RankedResults | None:
        """A search answered: its pool ranked with `params`, or None when the answer is stale (a newer
        query is on its way) and nothing changes. `partial`: keyword results first, the hybrid pool of the
        same generation follows and re-ranks them in place (its moves are against the keyword ranking;
        a new query has none)."""
        if not self.is_current(generation):
            return None
        follows_partial = self.partial_for == generation and not partial
        self.partial_for = generation if partial else -1
        previous = self.ranked.results if follows_partial else ()
        self.ranked = RankedResults(pool=pool, results=previous, params=params)
        return self.rerank(params, add_hits, track_moves=follows_partial)

    def rerank(self, params: SearchParams, add_hits: AddHits | None = None, track_moves: bool = True) -> RankedResults | None:
        """The cached pool ranked with `params`, never touching the database; with `track_moves` each
        result's ranks climbed since the ranking before (None: new in the list). None with no pool, or
        while browsing (listed by date: no score to rank by)."""
        pool = self.ranked.pool
        if pool is None or self.ranked.browsing:
            return None
        results = tuple(rank(pool, params))
        if add_hits is not None:
            results = add_hits(pool, results, params)
        moves: dict[str, int | None] = {}
        if track_moves:
            previous = {r.id: r.rank for r in self.ranked.results}
            moves = {r.id: (previous[r.id] - r.rank if r.id in previous else None) for r in results}
        self.ranked = RankedResults(pool, results, params, moves)
        return self.ranked
