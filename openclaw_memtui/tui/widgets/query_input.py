"""The query box: an Input that lets `?` through to help while it is empty (a query may hold a "?", but
none starts with one), so `?` is help wherever the user is, as f1 is."""

from __future__ import annotations

from textual.widgets import Input


class QueryInput(Input):
    def check_consume_key(self, key: str, character: str | None) -> bool:
        if character == "?" and not self.value:
            return False  # the app's `?` binding (help) answers
        return super().check_consume_key(key, character)
