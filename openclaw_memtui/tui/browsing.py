"""Browsing: with an empty query the list shows the memory newest first, grouped by day, a page at
a time, filtered by source (notes / transcripts / all). Entries open, edit and copy like results.

The engine sorts and pages (`MemoryIndex.browse`, SQL in IndexReader); a worker reads each page and
answers with `BrowseLoaded`, dropped when a query was typed meanwhile (the search generation).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import work

from ..core.caller import Caller
from ..engine.search.browse import BROWSE_FILTERS, BROWSE_PAGE, BrowseEntry, BrowseFilter, one_row_per_file
from ..engine.search.rank import Pool
from ..errors import describe
from ..render import safe
from .messages import BrowseLoaded
from .state import RankedResults

if TYPE_CHECKING:
    from ..engine.index import MemoryIndex

FILTER_NAMES: dict[str, str] = {"all": "notes and transcripts", "notes": "notes", "transcripts": "transcripts"}
READ_AHEAD = 20  # rows left below the highlight when the next page is read


class BrowsingMixin:
    """The search screen's browsing state and its page reads (mixed into search_screen.MainScreen,
    which owns the widgets)."""

    if TYPE_CHECKING:
        @property
        def index(self) -> MemoryIndex: ...
        @property
        def search_generation(self) -> int: ...
        @property
        def ranked(self) -> RankedResults: ...

    def init_browsing(self) -> None:
        self.browse_filter: BrowseFilter = "all"
        self.browse_entries: list[BrowseEntry] = []
        self._browse_reading = False

    def start_browse(self) -> None:
        """The first page for the current filter (the caller bumped the search generation)."""
        self._browse_reading = True
        self._read_browse_page(self.search_generation, self.browse_filter, 0)

    def browse_more(self) -> None:
        """The highlight nears the end of what was read: read the next page once."""
        if self.ranked.browsing and self.ranked.more and not self._browse_reading:
            self._browse_reading = True
            self._read_browse_page(self.search_generation, self.browse_filter, len(self.browse_entries))

    @work(thread=True, exclusive=False, group="browse", exit_on_error=False)
    def _read_browse_page(self, generation: int, which: BrowseFilter, offset: int) -> None:
        screen: Any = self  # the search screen this is mixed into
        try:
            # one row more than a page tells whether there are older entries, without a count
            entries = self.index.browse(which, offset, BROWSE_PAGE + 1, now_ms=screen.now_ms())
            # through the gate, as every result the app shows (core/gate.py)
            agent = screen.memtui.agent
            entries = screen.memtui.gate.browse(Caller("tui", agent.id if agent is not None else None), entries)
        except Exception as exc:  # a locked or vanished index: said once, the list stays as it was
            screen.post_message(BrowseLoaded(generation, which, offset, [], describe(exc)))
            return
        screen.post_message(BrowseLoaded(generation, which, offset, entries))

    def on_browse_loaded(self, message: BrowseLoaded) -> None:
        screen: Any = self  # the search screen this is mixed into
        self._browse_reading = False
        if message.generation != self.search_generation or message.which != self.browse_filter:
            return  # a query was typed, or the filter changed, meanwhile
        if message.error:
            screen.notify(f"Could not list the memory: {safe(message.error, False)}", severity="error", markup=False)
            return
        more = len(message.entries) > BROWSE_PAGE
        page = message.entries[:BROWSE_PAGE]
        self.browse_entries = (self.browse_entries[:message.offset] if message.offset else []) + page
        pool = Pool(query="", candidates=[], now_ms=screen.now_ms(), mode="browse")
        shown = one_row_per_file(self.browse_entries)  # a file's neighbouring chunks as one row (its bullets inside)
        screen._show_ranking(RankedResults(pool, tuple(e.result for e in shown), screen.params,
                                        days=tuple(e.day for e in shown), more=more))

    def action_browse_source(self) -> None:
        """Cycle what browsing lists: notes and transcripts, notes only, transcripts only; while searching,
        what the result list shows (narrowing.py)."""
        screen: Any = self  # the search screen this is mixed into
        if not self.ranked.browsing:
            screen.cycle_result_source()
            return
        self.browse_filter = BROWSE_FILTERS[(BROWSE_FILTERS.index(self.browse_filter) + 1) % len(BROWSE_FILTERS)]
        screen.notify(f"Listing {FILTER_NAMES[self.browse_filter]}", markup=False, timeout=2)
        screen.start_search()
