"""The query box: an Input that lets `?` through to help while it is empty (a query may hold a "?", but
none starts with one), so `?` is help wherever the user is, as f1 is; and up / down walk the queries
searched before (kept between runs by core/history.py)."""

from __future__ import annotations

from typing import Any

from textual import events
from textual.binding import Binding
from textual.widgets import Input

from ...core.history import QueryHistory
from ...render import safe


class QueryInput(Input):
    def check_consume_key(self, key: str, character: str | None) -> bool:
        if character in ("?", ":") and not self.value:
            return False  # the app's `?` (help) and `:` (switch agent) bindings answer
        return super().check_consume_key(key, character)


HISTORY = Binding.Group("History", compact=True)


class HistoryInput(QueryInput):
    """The query box with the queries searched before (core/history.py): up for an earlier one, down for a
    later one and, past the newest, what was being typed. A query is kept when it is submitted (Enter) or
    left for the results."""

    BINDINGS = [  # one "↑↓ History" in the footer
        Binding("up", "older", "Earlier query", show=False, id="query.older", group=HISTORY),
        Binding("down", "newer", "Later query", show=False, id="query.newer", group=HISTORY),
    ]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.history: QueryHistory | None = None  # set by the screen once it knows memtui's data dir
        self._at: int | None = None  # the entry shown, None while the user's own text is
        self._draft = ""

    def remember(self) -> None:
        """Keep the query in the box as the newest of the history (a failure to write said once)."""
        if self.history is None or not self.value.strip():
            return
        told = bool(self.history.error)
        if not self.history.add(self.value) and not told:
            self.notify(safe(self.history.error, one_line=True), severity="warning", markup=False)
        self._at = None

    def _show(self, text: str) -> None:
        self.value = text
        self.cursor_position = len(text)

    def action_older(self) -> None:
        entries = self.history.entries if self.history is not None else []
        if not entries:
            return
        if self._at is None:
            self._draft, self._at = self.value, len(entries)
        if self._at > 0:
            self._at -= 1
            self._show(entries[self._at])

    def action_newer(self) -> None:
        if self._at is None or self.history is None:
            return
        self._at += 1
        if self._at >= len(self.history.entries):
            self._at = None
            self._show(self._draft)
        else:
            self._show(self.history.entries[self._at])

    async def action_submit(self) -> None:
        self.remember()
        await super().action_submit()

    def _on_blur(self, event: events.Blur) -> None:  # Input's own _on_blur runs after this one (Textual's dispatch)
        self.remember()  # left for the results (Tab, a click, the list): the query was what was wanted

    def on_key(self, event: events.Key) -> None:
        if event.is_printable or event.key in ("backspace", "delete"):
            self._at = None  # typing: the text is the user's own again
