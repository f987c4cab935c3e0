"""Narrowing search results on the search screen: f4 cycles the source, ctrl+f opens the filter (source, date
range, path, sort), f7 sorts by score or date. The rules are core/result_filter.py's (pure, over the ranked
results); here is only the screen's filter (`Narrowing`, held by the screen, whose keys these are) and the filter dialog.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static

from ..core.result_filter import SOURCE_NAMES, SOURCES, BadBound, ResultFilter, Sort, Source, narrow, next_source, parse_bound
from ..render import safe
from .state import RankedResults
from .widgets.context_footer import ContextFooter

if TYPE_CHECKING:
    from .search_screen import MainScreen

NARROWING_BINDINGS: list[Binding | tuple[str, str] | tuple[str, str, str]] = [
    Binding("ctrl+f", "filter_results", "Filter", id="filter_results"),
    Binding("f7", "sort_results", "Sort", show=False, id="sort_results"),
]


def narrowed(ranked: RankedResults, flt: ResultFilter, now_ms: float) -> RankedResults:
    """The ranking as the list shows it: browsing has its own source filter (f4) and is left as it is."""
    if ranked.browsing or not flt.active:
        return ranked
    return replace(ranked, results=tuple(narrow(ranked.results, flt, now_ms)))


class Narrowing:
    """The search screen's result filter (held by search_screen.MainScreen, which shows the narrowed ranking)."""

    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self.filter = ResultFilter()

    def set_filter(self, flt: ResultFilter) -> None:
        self.filter = flt
        self.screen.show_ranking(self.screen.searches.ranked)  # the same ranking, narrowed anew: no search, no re-rank

    def open_filter(self) -> None:
        self.screen.app.push_screen(FilterScreen(self.filter, self.screen.now_ms()),
                                    lambda chosen: None if chosen is None else self.set_filter(chosen))

    def next_sort(self) -> None:
        sort: Sort = "date" if self.filter.sort == "score" else "score"
        self.set_filter(replace(self.filter, sort=sort))
        self.screen.notify("Newest first" if sort == "date" else "By score", markup=False, timeout=2)

    def cycle_source(self) -> None:
        """f4 while searching: notes and transcripts, notes, transcripts."""
        source = next_source(self.filter.source)
        self.set_filter(replace(self.filter, source=source))
        self.screen.notify(f"Showing {SOURCE_NAMES[source]}", markup=False, timeout=2)


class FilterScreen(ModalScreen[ResultFilter | None]):
    """Source, date range, path and sort for the results; Enter or Apply applies, Clear shows them all."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="filter.cancel")]
    DEFAULT_CSS = """
    FilterScreen { align: center middle; }
    FilterScreen > Vertical {
        width: 90%; max-width: 70; height: auto; border: thick $primary; background: $surface; padding: 1 2;
    }
    FilterScreen .row { height: 1; margin-bottom: 1; }
    FilterScreen .row Label { width: 12; }
    FilterScreen .row Input, FilterScreen .row Select { width: 1fr; }
    FilterScreen #filter-error { color: $error; height: auto; }
    FilterScreen .buttons { height: 1; }
    FilterScreen Button { margin-right: 2; }
    """

    def __init__(self, current: ResultFilter, now_ms: float) -> None:
        super().__init__()
        self.current, self.now_ms = current, now_ms

    def compose(self) -> ComposeResult:
        c = self.current
        with Vertical():
            yield Static("Filter the results (the ranking stays as it is)", markup=False)
            with Horizontal(classes="row"):
                yield Label("source")
                yield Select([(SOURCE_NAMES[s], s) for s in SOURCES], value=c.source, allow_blank=False,
                             compact=True, id="filter-source")
            with Horizontal(classes="row"):
                yield Label("from")
                yield Input(_bound_text(c.since_ms), placeholder="YYYY-MM-DD or 7d, 2w, 3m ago",
                            compact=True, id="filter-since")
            with Horizontal(classes="row"):
                yield Label("to")
                yield Input(_bound_text(c.until_ms, end=True), placeholder="YYYY-MM-DD (inclusive)",
                            compact=True, id="filter-until")
            with Horizontal(classes="row"):
                yield Label("path has")
                yield Input(c.path, placeholder="part of the path, e.g. projects/ or 2026-11", compact=True,
                            id="filter-path")
            with Horizontal(classes="row"):
                yield Label("sort")
                yield Select([("by score", "score"), ("newest first", "date")], value=c.sort, allow_blank=False,
                             compact=True, id="filter-sort")
            yield Static("", id="filter-error", markup=False)
            with Horizontal(classes="buttons"):
                yield Button("Apply", id="filter-apply", compact=True, variant="primary")
                yield Button("Clear", id="filter-clear", compact=True)
        yield ContextFooter()

    def on_mount(self) -> None:
        self.query_one("#filter-path", Input).focus()

    def chosen(self) -> ResultFilter | None:
        """The filter as filled in; None (and the reason shown) when a date is not one."""
        try:
            since = parse_bound(self.query_one("#filter-since", Input).value, self.now_ms)
            until = parse_bound(self.query_one("#filter-until", Input).value, self.now_ms, end=True)
        except BadBound as exc:
            self.query_one("#filter-error", Static).update(safe(str(exc), one_line=True))
            return None
        source: Any = self.query_one("#filter-source", Select).value
        sort: Any = self.query_one("#filter-sort", Select).value
        return ResultFilter(cast(Source, source), since, until, self.query_one("#filter-path", Input).value.strip(),
                            cast(Sort, sort))

    def _apply(self) -> None:
        flt = self.chosen()
        if flt is not None:
            self.dismiss(flt)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._apply()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "filter-apply":
            self._apply()
        elif event.button.id == "filter-clear":
            self.dismiss(ResultFilter())

    def action_cancel(self) -> None:
        self.dismiss(None)


def _bound_text(ms: float | None, *, end: bool = False) -> str:
    from datetime import UTC, datetime

    if ms is None:
        return ""
    return datetime.fromtimestamp((ms - 1 if end else ms) / 1000, UTC).strftime("%Y-%m-%d")
