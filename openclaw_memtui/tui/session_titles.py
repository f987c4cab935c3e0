"""Transcripts by what was said, not by UUID: the result list names a transcript by its first user line.

The titles are read from the index in a worker (`MemoryIndex.session_titles`) the first time a transcript is on
screen, and kept for the session; the list redraws its rows when they arrive.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from textual.message import Message

from .state import RankedResults
from .widgets.result_list import ResultList

if TYPE_CHECKING:
    from .search_screen import MainScreen


@dataclass
class TitlesLoaded(Message):
    titles: dict[str, str]


class SessionTitles:
    """The titles read so far, for one search screen (which holds this and shows them in its list)."""

    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self.titles: dict[str, str] = {}
        self._asked: set[str] = set()

    def want(self, ranked: RankedResults) -> None:
        """Ask once for the titles of the transcripts in `ranked` not asked for yet."""
        paths = [r.path for r in ranked.results if r.source == "sessions" and r.path not in self._asked]
        if paths:
            self._asked.update(paths)
            self.screen.run_worker(partial(self._read, paths), thread=True, group="titles", exit_on_error=False)

    def _read(self, paths: list[str]) -> None:
        try:
            titles = self.screen.memtui.index.session_titles(paths)
        except Exception:  # a locked or vanished index: the rows keep their paths, nothing to say
            return
        if titles:
            self.screen.post_message(TitlesLoaded(titles))

    def loaded(self, message: TitlesLoaded) -> None:
        self.titles.update(message.titles)
        lists = self.screen.query(ResultList)
        if lists:
            lists.first().titles = dict(self.titles)
