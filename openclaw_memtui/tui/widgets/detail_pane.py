"""The detail pane: the selected result's text with the query's words marked, and its score breakdown.

The app sets `shown` (a result with the ranking it came from) or `placeholder` (what to say when
there is no result); the pane renders. `refit()` redraws the bars for a new terminal size.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.reactive import reactive
from textual.widgets import Static

from ...engine.search.query import STOP_WORDS, query_tokens
from ...engine.search.rank import Pool, Result, SearchParams
from ...render import safe
from .breakdown import breakdown_text

DEFAULT_PLACEHOLDER = "Type to search. Results explain their scores here."
CONTEXT_LINES = 1  # lines shown above the first matched line
MIN_SKIPPED_LINES = 3  # fewer lines above the match are shown rather than skipped


def term_pattern(query: str) -> re.Pattern[str] | None:
    """The query's content words where they stand as words (not "we" inside "weeks"); None without any."""
    terms = sorted({t for t in query_tokens(query) if len(t) > 1 and t.lower() not in STOP_WORDS}, key=len, reverse=True)
    if not terms:
        return None
    ascii_terms = [re.escape(t) for t in terms if t.isascii()]
    other_terms = [re.escape(t) for t in terms if not t.isascii()]  # CJK has no word boundaries
    parts = ([rf"\b(?:{'|'.join(ascii_terms)})\w*"] if ascii_terms else []) + other_terms
    return re.compile("|".join(parts), re.IGNORECASE)


def highlight_terms(text: Text, query: str) -> None:
    """Underline the query's content words where they stand as words."""
    pattern = term_pattern(query)
    if pattern is not None:
        text.highlight_regex(pattern, style="bold underline")


def first_match_line(text: str, query: str) -> int:
    """The 0-based line of `text` where the query's words first show; 0 when none does (a vector hit)."""
    pattern = term_pattern(query)
    if pattern is None:
        return 0
    for n, line in enumerate(text.split("\n")):
        if pattern.search(line):
            return n
    return 0


@dataclass(frozen=True)
class ShownResult:
    """A result and the ranking it came from: the breakdown needs the weights, mode and time window."""

    result: Result
    params: SearchParams
    pool: Pool
    openclaw: Any = None  # (rank, RecallHit, Recall) when OpenClaw returned this result for this query


def preview_text(shown: ShownResult) -> Text:
    """The heading, then the chunk from the lines that matched (one line of context above them)."""
    result = shown.result
    text = Text(safe(f"{result.path}  lines {result.start_line}-{result.end_line}  [{result.source}]", one_line=True) + "\n\n",
                style="bold")
    lines = result.snippet.split("\n")
    start = first_match_line(result.snippet, shown.pool.query) - CONTEXT_LINES
    if start < MIN_SKIPPED_LINES:
        start = 0  # a heading or two above the match: show them, the note would take as many rows
    else:
        text.append(f"⋮ {start} lines above (Enter: whole file)\n", style="dim italic")
    body = Text(safe("\n".join(lines[start:])))
    highlight_terms(body, shown.pool.query)
    text.append_text(body)
    return text


class DetailPane(Vertical):
    shown: reactive[ShownResult | None] = reactive(None, always_update=True, init=False)
    placeholder: reactive[str] = reactive(DEFAULT_PLACEHOLDER, init=False)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="preview-box"):
            yield Static(Text(DEFAULT_PLACEHOLDER, style="dim"), id="preview")
        yield Static(id="breakdown")

    def watch_shown(self) -> None:
        self._render_detail()

    def watch_placeholder(self) -> None:
        self._render_detail()

    def on_resize(self) -> None:
        if self.shown is not None:
            self.refit()

    def refit(self) -> None:
        """Draw again at the current width (the bars shrink so each row stays on one line)."""
        self._render_detail()

    def _render_detail(self) -> None:
        preview = self.query_one("#preview", Static)
        breakdown = self.query_one("#breakdown", Static)
        shown = self.shown
        if shown is None:
            preview.update(Text(self.placeholder, style="dim"))
            breakdown.update("")
            return
        preview.update(preview_text(shown))
        self.query_one("#preview-box", VerticalScroll).scroll_home(animate=False)
        if shown.pool.mode == "browse":  # listed by date, not scored
            breakdown.update(Text("Listed newest first (no query). Enter opens the whole file.", style="dim"))
            return
        breakdown.update(breakdown_text(shown.result, shown.params, shown.pool.mode,
                                        breakdown.content_region.width or 70, shown.pool.time_window, shown.openclaw))
