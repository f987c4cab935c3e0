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
    """`path:lines` in `width` cells. The file's whole name and the line range stay; the folders go
    first, from the top down ("…/projects/lumen-roadmap.md:1-7", then "…/lumen-roadmap.md:1-7").
    Only a name too long even alone loses its ".md", then its middle (its date kept)."""
    whole = f"{path}:{lines}"
    if cell_len(whole) <= width:
        return whole
    *folders, name = path.split("/")
    named = f"{name}:{lines}"
    for i in range(1, len(folders) + 1):  # "…/" still says there were folders
        shorter = "…/" + "".join(f"{f}/" for f in folders[i:]) + named
        if cell_len(shorter) <= width:
            return shorter
    if cell_len(named) <= width:
        return named
    if name.endswith(".md") and len(name) > 3:  # every note has it: it goes before any of the name
        name = name[:-3]
        if cell_len(f"{name}:{lines}") <= width:
            return f"{name}:{lines}"
    room = max(1, width - cell_len(f":{lines}"))
    dated = DATED.match(name)
    if dated and cell_len(name) > room >= dated.end():  # narrow (tuning panel open): the date is what tells notes apart
        return (name[:dated.end()] + ("…" if room > dated.end() else "")) + f":{lines}"
    return cut_middle(name, room) + f":{lines}"


def snippet_from_match(snippet: str, query: str) -> str:
    """The snippet from the first line that matched the query, on one line."""
    lines = snippet.split("\n")
    return " ".join(" ".join(lines[first_match_line(snippet, query):]).split())


# a judged result's mark: relevant, not relevant, or judged on text that has changed since (stale)
MARKS = {"relevant": ("✓ ", "bold green"), "not_relevant": ("✗ ", "bold red"), "stale": ("! ", "bold yellow")}


def place_of(result: Result, width: int, title: str = "") -> str:
    """Where the result is, in `width` cells: a transcript by its first user line (`title`) when known, not
    its file's UUID; else the path, shortened from the folders down (cut_path)."""
    lines = f"{result.start_line}-{result.end_line}"
    if title:  # a sentence reads from its start: cut at the end
        named = Text(f"“{safe(title, one_line=True)}”")
        named.truncate(max(4, width - len(lines) - 1), overflow="ellipsis")
        return f"{named.plain}:{lines}"
    return cut_path(safe(result.path, one_line=True), lines, width)


def result_row(result: Result, move: int | None, width: int, query: str = "", mark: str | None = None,
               openclaw: str = "", title: str = "") -> Text:
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
    head.append(place_of(result, max(8, width - head.cell_len), title))
    age = "evergreen" if result.age_days is None else f"{result.age_days:.0f}d old"
    snippet = safe(snippet_from_match(result.snippet, query), False)
    tail = Text(f"    {result.source} · {age} · {snippet}", style="dim")
    head.truncate(width, overflow="ellipsis")
    tail.truncate(width, overflow="ellipsis")
    return Text("\n").join([head, tail])


def browse_row(result: Result, width: int, title: str = "") -> Text:
    """A browsed entry (no query, no score): where, then what kind and its first words."""
    head = Text()
    head.append(place_of(result, width - 2, title))
    kind = "transcript" if result.source == "sessions" else "note"
    snippet = safe(" ".join(result.snippet.split()), False)
    tail = Text(f"    {kind} · {snippet}", style="dim")
    head.truncate(width, overflow="ellipsis")
    tail.truncate(width, overflow="ellipsis")
    return Text("\n").join([head, tail])


def browse_options(ranked: RankedResults, width: int, titles: dict[str, str] | None = None) -> list[Option]:
    """The browsed entries, a disabled heading option before each day's first one."""
    options: list[Option] = []
    day = None
    for result, result_day in zip(ranked.results, ranked.days, strict=True):
        if result_day != day:
            day = result_day
            options.append(Option(Text(f"── {day} ", style="bold").append("─" * max(0, width - len(day) - 4)),
                                  disabled=True))
        options.append(Option(browse_row(result, width, (titles or {}).get(result.path, "")), id=result.id))
    return options


JUDGE = Binding.Group("Judge", compact=True)


class ResultList(OptionList):
    """Options whose ids are the results' ids, so the highlight follows a result, not a row number."""

    BINDINGS = [
        Binding("e", "screen.open_in_editor", "Edit", id="results.edit"),
        Binding("c", "screen.copy_snippet", "Copy", id="results.copy"),
        Binding("j", "screen.copy_json", "Copy JSON", show=False, id="results.copy_json"),
        # judging: keys of the list, so they never reach the query input; one "+ - x Judge" in the footer
        Binding("plus", "screen.mark('relevant')", "Judge relevant", show=False, id="results.mark_relevant", group=JUDGE),
        Binding("minus", "screen.mark('not_relevant')", "Judge not relevant", show=False, id="results.mark_not_relevant",
                group=JUDGE),
        Binding("x", "screen.mark('')", "Clear judgement", show=False, id="results.clear_mark", group=JUDGE),
    ]

    ranked: reactive[RankedResults] = reactive(RankedResults, always_update=True, init=False)
    marks: reactive[dict[str, str]] = reactive(dict, always_update=True, init=False)  # result id -> MARKS key
    openclaw: reactive[dict[str, str]] = reactive(dict, always_update=True, init=False)  # result id -> "◆2"
    titles: reactive[dict[str, str]] = reactive(dict, always_update=True, init=False)  # transcript path -> first user line

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, markup=False)
        self._by_id: dict[str, Result] = {}

    @property
    def selected(self) -> Result | None:
        """The highlighted result, if any (by option id: browsing puts day headings between results)."""
        option = self.highlighted_option
        return self._by_id.get(option.id) if option is not None and option.id is not None else None

    @property
    def entries_below(self) -> int:
        """Options below the highlighted one (browsing reads the next page when few are left)."""
        return self.option_count - 1 - (self.highlighted if self.highlighted is not None else -1)

    def watch_ranked(self, old: RankedResults, new: RankedResults) -> None:
        current = self.selected
        # a new query starts at its best result (#1), not at the row the last query's highlight was on;
        # the same query again (tuning, its hybrid answer after the keyword one, a sync) or browse's
        # next page keeps the highlighted result
        same = old.pool is not None and new.pool is not None and old.pool.query == new.pool.query \
            and old.browsing == new.browsing
        self._fill(new, current.id if current is not None and same else None)

    def watch_marks(self) -> None:
        if self.ranked.results:
            self.refit()

    def watch_titles(self) -> None:
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
        # the width the rows will have, scrollbar included: the one on screen now may be the previous
        # list's (18 browsed entries scroll, 2 results do not), and the rows would stay cut for it
        rows = 2 * len(ranked.results) + (len(set(ranked.days)) if ranked.browsing else 0)
        bar = self.styles.scrollbar_size_vertical if rows > self.content_region.height else 0
        width = max(20, self.content_region.width - bar - 1)
        self.clear_options()
        self._by_id = {r.id: r for r in ranked.results}
        if ranked.browsing:
            self.add_options(browse_options(ranked, width, self.titles))
        else:
            query = ranked.pool.query if ranked.pool is not None else ""
            marks = self.marks
            openclaw, titles = self.openclaw, self.titles
            self.add_options([Option(result_row(r, ranked.moves.get(r.id, 0) if r.rank else 0, width, query, marks.get(r.id),
                                            openclaw.get(r.id, ""), titles.get(r.path, "")), id=r.id)
                              for r in ranked.results])
        if ranked.results:
            wanted = keep_id if keep_id in self._by_id else ranked.results[0].id
            self.highlighted = self.get_option_index(wanted)
