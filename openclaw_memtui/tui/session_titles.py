"""Transcripts by what was said, not by UUID: the result list names a transcript by its first user line.

The titles are read from the index in a worker (`MemoryIndex.session_titles`) the first time a transcript is on
screen, and kept for the session; the list redraws its rows when they arrive.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual import work
from textual.message import Message

from .state import RankedResults
from .widgets.result_list import ResultList

if TYPE_CHECKING:
    from ..engine.index import MemoryIndex


@dataclass
class TitlesLoaded(Message):
    titles: dict[str, str]


class SessionTitlesMixin:
    """Mixed into search_screen.MainScreen."""

    if TYPE_CHECKING:
        @property
        def index(self) -> MemoryIndex: ...

    def init_titles(self) -> None:
        self.session_titles: dict[str, str] = {}
        self._titles_asked: set[str] = set()

    def want_titles(self, ranked: RankedResults) -> None:
        """Ask once for the titles of the transcripts in `ranked` not asked for yet."""
        paths = [r.path for r in ranked.results if r.source == "sessions" and r.path not in self._titles_asked]
        if paths:
            self._titles_asked.update(paths)
            self._read_titles(paths)

    @work(thread=True, group="titles", exit_on_error=False)
    def _read_titles(self, paths: list[str]) -> None:
        screen: Any = self
        try:
            titles = self.index.session_titles(paths)
        except Exception:  # a locked or vanished index: the rows keep their paths, nothing to say
            return
        if titles:
            screen.post_message(TitlesLoaded(titles))

    def on_titles_loaded(self, message: TitlesLoaded) -> None:
        screen: Any = self
        self.session_titles.update(message.titles)
        lists = screen.query(ResultList)
        if lists:
            lists.first().titles = dict(self.session_titles)
