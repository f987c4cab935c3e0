"""Browsing: with an empty query the list shows the memory newest first, grouped by day, a page at
a time, filtered by source (notes / transcripts / all). Entries open, edit and copy like results.

`Browsing` is an object the search screen holds, not a mixin. The engine sorts and pages
(`MemoryIndex.browse`); a worker on the screen reads each page and answers with `BrowseLoaded`, dropped when a
query was typed meanwhile (the search generation).
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from ..core.caller import Caller
from ..engine.search.browse import BROWSE_FILTERS, BROWSE_PAGE, BrowseEntry, BrowseFilter, one_row_per_file
from ..engine.search.rank import Pool
from ..errors import describe
from ..render import safe
from .messages import BrowseLoaded
from .state import RankedResults

if TYPE_CHECKING:
    from .search_screen import MainScreen

FILTER_NAMES: dict[str, str] = {"all": "notes and transcripts", "notes": "notes", "transcripts": "transcripts"}
READ_AHEAD = 20  # rows left below the highlight when the next page is read


class Browsing:
    """The search screen's browsing state and its page reads (held by search_screen.MainScreen, which owns
    the widgets and shows what is read)."""

    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self.filter: BrowseFilter = "all"
        self.entries: list[BrowseEntry] = []
        self._reading = False

    def start(self) -> None:
        """The first page for the current filter (the caller bumped the search generation)."""
        self._reading = True
        self._read_page(self.screen.search_generation, self.filter, 0)

    def more(self) -> None:
        """The highlight nears the end of what was read: read the next page once."""
        if self.screen.ranked.browsing and self.screen.ranked.more and not self._reading:
            self._reading = True
            self._read_page(self.screen.search_generation, self.filter, len(self.entries))

    def _read_page(self, generation: int, which: BrowseFilter, offset: int) -> None:
        self.screen.run_worker(partial(self._read, generation, which, offset), thread=True, exclusive=False,
                               group="browse", exit_on_error=False)

    def _read(self, generation: int, which: BrowseFilter, offset: int) -> None:
        screen, app = self.screen, self.screen.memtui
        try:
            # one row more than a page tells whether there are older entries, without a count
            entries = app.index.browse(which, offset, BROWSE_PAGE + 1, now_ms=screen.now_ms())
            # through the gate, as every result the app shows (core/gate.py)
            entries = app.gate.browse(Caller("tui", app.agent.id if app.agent is not None else None), entries)
        except Exception as exc:  # a locked or vanished index: said once, the list stays as it was
            screen.post_message(BrowseLoaded(generation, which, offset, [], describe(exc)))
            return
        screen.post_message(BrowseLoaded(generation, which, offset, entries))

    def loaded(self, message: BrowseLoaded) -> None:
        screen = self.screen
        self._reading = False
        if message.generation != screen.search_generation or message.which != self.filter:
            return  # a query was typed, or the filter changed, meanwhile
        if message.error:
            screen.notify(f"Could not list the memory: {safe(message.error, False)}", severity="error", markup=False)
            return
        more = len(message.entries) > BROWSE_PAGE
        page = message.entries[:BROWSE_PAGE]
        self.entries = (self.entries[:message.offset] if message.offset else []) + page
        pool = Pool(query="", candidates=[], now_ms=screen.now_ms(), mode="browse")
        shown = one_row_per_file(self.entries)  # a file's neighbouring chunks as one row (its bullets inside)
        screen.show_ranking(RankedResults(pool, tuple(e.result for e in shown), screen.params,
                                          days=tuple(e.day for e in shown), more=more))

    def next_filter(self) -> None:
        """Cycle what browsing lists: notes and transcripts, notes only, transcripts only."""
        self.filter = BROWSE_FILTERS[(BROWSE_FILTERS.index(self.filter) + 1) % len(BROWSE_FILTERS)]
        self.screen.notify(f"Listing {FILTER_NAMES[self.filter]}", markup=False, timeout=2)
        self.screen.start_search()
