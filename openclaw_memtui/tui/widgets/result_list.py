"""The result list: two lines per result (rank, move, score, place; then source, age, snippet).

The app sets `ranked`; the list renders it and keeps the same result highlighted when its rank
changes. It never ranks or searches.
"""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from ...engine.search.rank import Result
from ...render import safe
from ..state import RankedResults


def result_row(result: Result, move: int | None, width: int) -> Text:
    """Both lines of one entry, each cut to `width` cells. `move` is ranks climbed; None means new."""
    head = Text()
    head.append(f"#{result.rank:<2} ", style="bold")
    if move is None:
        head.append("new ", style="bold cyan")
    elif move > 0:
        head.append(f"▲{move:<2} ", style="bold green")
    elif move < 0:
        head.append(f"▼{-move:<2} ", style="bold red")
    head.append(f"{result.score:.3f} ", style="bold")
    head.append(safe(f"{result.path}:{result.start_line}-{result.end_line}", one_line=True))
    age = "evergreen" if result.age_days is None else f"{result.age_days:.0f}d old"
    snippet = safe(" ".join(result.snippet.split()), False)
    tail = Text(f"    {result.source} · {age} · {snippet}", style="dim")
    head.truncate(width, overflow="ellipsis")
    tail.truncate(width, overflow="ellipsis")
    return Text("\n").join([head, tail])


class ResultList(OptionList):
    """Options whose ids are the results' ids, so the highlight follows a result, not a row number."""

    ranked: reactive[RankedResults] = reactive(RankedResults, always_update=True, init=False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, markup=False)

    @property
    def selected(self) -> Result | None:
        """The highlighted result, if any."""
        index = self.highlighted
        results = self.ranked.results
        return results[index] if index is not None and 0 <= index < len(results) else None

    def watch_ranked(self, old: RankedResults, new: RankedResults) -> None:
        index = self.highlighted
        self._fill(new, old.results[index].id if index is not None and index < len(old.results) else None)

    def refit(self) -> None:
        """Cut the rows again to the list's current width (after the terminal was resized)."""
        current = self.selected
        self._fill(self.ranked, current.id if current else None)

    def _fill(self, ranked: RankedResults, keep_id: str | None) -> None:
        width = max(20, self.scrollable_content_region.width - 1)
        self.clear_options()
        self.add_options([Option(result_row(r, ranked.moves.get(r.id, 0), width), id=r.id) for r in ranked.results])
        if ranked.results:
            ids = [r.id for r in ranked.results]
            self.highlighted = ids.index(keep_id) if keep_id in ids else 0
