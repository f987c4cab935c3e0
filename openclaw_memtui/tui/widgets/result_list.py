"""The result list: two lines per result (rank, move, score, place; then source, age, snippet).

The app sets `ranked`; the list renders it and keeps the same result highlighted when its rank
changes. It never ranks or searches.
"""

from __future__ import annotations

import re

from rich.cells import cell_len
from rich.text import Text
from textual.binding import Binding
from textual.reactive import reactive
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from ...engine.search.rank import Result
from ...render import safe
from ..state import RankedResults
from .detail_pane import first_match_line

DATED = re.compile(r"\d{4}-\d{2}-\d{2}")


def cut_middle(text: str, width: int) -> str:
    """`text` in at most `width` cells, cut in the middle so both ends stay ("memory/…/2026-11-21.md");
    a date it starts with stays whole when there is room for it."""
    if cell_len(text) <= width:
        return text
    if width <= 1:
        return "…"[:width]
    head_len = (width - 1) * 3 // 5
    dated = DATED.match(text)
    if dated and dated.end() < width - 1:
        head_len = max(head_len, dated.end())
    head, tail = "", ""
    for ch in text:
        if cell_len(head + ch) > head_len:
            break
        head += ch
    for ch in reversed(text):
        if cell_len(head) + 1 + cell_len(ch + tail) > width:
            break
        tail = ch + tail
    return head + "…" + tail


def cut_path(path: str, lines: str, width: int) -> str:
    """`path:lines` in `width` cells. Folders go first, then the middle of the name: the name's date
    and the line numbers stay (`memory/2026-11-2…` lost exactly what tells notes apart)."""
    whole = f"{path}:{lines}"
    if cell_len(whole) <= width:
        return whole
    folder, _, name = path.rpartition("/")
    if name.endswith(".md") and len(name) > 3:  # every note is one: the extension goes before any of the name
        name = name[:-3]
        if cell_len(f"{folder}/{name}:{lines}") <= width:
            return f"{folder}/{name}:{lines}"
    named = f"{name}:{lines}"
    if folder and cell_len(named) + 2 <= width:  # room for "…/" and the whole name
        return cut_middle(f"{folder}/", width - cell_len(named)) + named
    if folder and width > 12:  # "…/" still says there were folders
        return "…/" + cut_middle(named, width - 2)
    return cut_middle(named, width)


def snippet_from_match(snippet: str, query: str) -> str:
    """The snippet from the first line that matched the query, on one line."""
    lines = snippet.split("\n")
    return " ".join(" ".join(lines[first_match_line(snippet, query):]).split())


# a judged result's mark: relevant, not relevant, or judged on text that has changed since (stale)
MARKS = {"relevant": ("✓ ", "bold green"), "not_relevant": ("✗ ", "bold red"), "stale": ("! ", "bold yellow")}


def result_row(result: Result, move: int | None, width: int, query: str = "", mark: str | None = None,
               openclaw: str = "") -> Text:
    """Both lines of one entry, each cut to `width` cells. `move` is ranks climbed; None means new;
    `mark` is the result's judgement for this query (a key of MARKS); `openclaw` is "◆2" when OpenClaw
    returned it at rank 2 for this query. Rank 0 is a hit memtui ranks nowhere (OpenClaw's, to judge)."""
    head = Text()
    if mark in MARKS:
        glyph, style = MARKS[mark]
        head.append(glyph, style=style)
    if openclaw:
        head.append(f"{openclaw} ", style="bold magenta")
    head.append(f"#{result.rank:<2} " if result.rank else "#— ", style="bold")
    if move is None:
        head.append("new ", style="bold cyan")
    elif move > 0:
        head.append(f"▲{move:<2} ", style="bold green")
    elif move < 0:
        head.append(f"▼{-move:<2} ", style="bold red")
    unscored = not result.rank and result.vector_score is None and not result.hybrid_score  # not in memtui's pool
    head.append("  —   " if unscored else f"{result.score:.3f} ", style="bold")
    place = safe(result.path, one_line=True)
    head.append(cut_path(place, f"{result.start_line}-{result.end_line}", max(8, width - head.cell_len)))
    age = "evergreen" if result.age_days is None else f"{result.age_days:.0f}d old"
    snippet = safe(snippet_from_match(result.snippet, query), False)
    tail = Text(f"    {result.source} · {age} · {snippet}", style="dim")
    head.truncate(width, overflow="ellipsis")
    tail.truncate(width, overflow="ellipsis")
    return Text("\n").join([head, tail])


class ResultList(OptionList):
    """Options whose ids are the results' ids, so the highlight follows a result, not a row number."""

    BINDINGS = [
        Binding("e", "app.open_in_editor", "Edit", id="results.edit"),
        Binding("c", "app.copy_snippet", "Copy", id="results.copy"),
        Binding("j", "app.copy_json", "Copy JSON", show=False, id="results.copy_json"),
        # judging: keys of the list, so they never reach the query input
        Binding("plus", "app.mark('relevant')", "Judge relevant", show=False, id="results.mark_relevant"),
        Binding("minus", "app.mark('not_relevant')", "Judge not relevant", show=False, id="results.mark_not_relevant"),
        Binding("x", "app.mark('')", "Clear judgement", show=False, id="results.clear_mark"),
    ]

    ranked: reactive[RankedResults] = reactive(RankedResults, always_update=True, init=False)
    marks: reactive[dict[str, str]] = reactive(dict, always_update=True, init=False)  # result id -> MARKS key
    openclaw: reactive[dict[str, str]] = reactive(dict, always_update=True, init=False)  # result id -> "◆2"

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

    def watch_marks(self) -> None:
        if self.ranked.results:
            self.refit()

    def on_resize(self) -> None:
        """A new terminal size, or the tuning panel opened or closed beside the list: cut the rows again."""
        if self.ranked.results:
            self.refit()

    def refit(self) -> None:
        """Cut the rows again to the list's current width."""
        current = self.selected
        self._fill(self.ranked, current.id if current else None)

    def _fill(self, ranked: RankedResults, keep_id: str | None) -> None:
        width = max(20, self.scrollable_content_region.width - 1)
        self.clear_options()
        query = ranked.pool.query if ranked.pool is not None else ""
        marks, openclaw = self.marks, self.openclaw
        self.add_options([Option(result_row(r, ranked.moves.get(r.id, 0) if r.rank else 0, width, query, marks.get(r.id),
                                            openclaw.get(r.id, "")), id=r.id) for r in ranked.results])
        if ranked.results:
            ids = [r.id for r in ranked.results]
            self.highlighted = ids.index(keep_id) if keep_id in ids else 0
