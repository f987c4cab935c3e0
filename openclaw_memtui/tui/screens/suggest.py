"""Suggested settings: the cross-validated search's progress, then its answer, applied or saved with one key.

The search screen's judging runs the search in a worker and calls `progressed` / `finished`; the screen is
dismissed with the choice (a `Chosen`, or None). Escape closes the screen and stops a search still running.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import ProgressBar, Static

from ...engine.search.rank import SearchParams
from ...engine.tuning.tuner import NeedMore, Suggestion, describe_suggestion
from ...render import safe
from ..keys import key_for


@dataclass(frozen=True)
class Chosen:
    """The suggested settings picked: applied, and saved when `save`."""

    params: SearchParams
    save: bool


class SuggestScreen(ModalScreen[Chosen | None]):
    BINDINGS = [
        Binding("a", "choose(False)", "Apply", id="suggest.apply"),
        Binding("s", "choose(True)", "Apply and save", id="suggest.save"),
        Binding("escape,q", "close", "Close", id="suggest.close"),
    ]
    DEFAULT_CSS = """
    SuggestScreen { align: center middle; }
    SuggestScreen > Vertical {
        width: 90%; max-width: 84; height: auto; max-height: 90%; border: thick $primary; background: $surface;
        padding: 1 2;
    }
    SuggestScreen #suggest-title { text-style: bold; margin-bottom: 1; }
    SuggestScreen ProgressBar { margin-bottom: 1; }
    SuggestScreen #suggest-keys { color: $text-muted; margin-top: 1; }
    """

    def __init__(self, cancel: threading.Event) -> None:
        super().__init__()
        self.cancel = cancel
        self.result: Suggestion | NeedMore | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Suggest settings — cross-validated on your judgements", id="suggest-title")
            yield ProgressBar(total=None, show_eta=False, id="suggest-progress")
            yield Static("Searching weights, MMR, decay, minScore and time words…", id="suggest-body", markup=False)
            yield Static(f"{self._key('suggest.close')} stops the search", id="suggest-keys", markup=False)

    def progressed(self, done: int, total: int) -> None:
        self.query_one(ProgressBar).update(total=total, progress=done)

    def finished(self, result: Suggestion | NeedMore | None, error: str = "") -> None:
        self.result = result
        self.query_one(ProgressBar).display = False
        body = self.query_one("#suggest-body", Static)
        keys = self.query_one("#suggest-keys", Static)
        apply, save, close = (self._key(f"suggest.{name}") for name in ("apply", "save", "close"))
        if isinstance(result, Suggestion):
            body.update(Text(describe_suggestion(result)))
            keys.update(Text((f"{apply} apply · {save} apply and save · {close} close" if result.vectors
                              else f"{apply} apply (not saved: tuned without vectors) · {close} close")
                             if result.better else f"{close} close"))
        else:
            body.update(Text(result.message if isinstance(result, NeedMore) else f"Search failed: {safe(error, False)}"))
            keys.update(Text(f"{close} close"))
        self.refresh_bindings()

    def _key(self, binding_id: str) -> str:
        """The key that works for one of this screen's bindings: the config's tui.keys may remap it."""
        return key_for(self.app, self.BINDINGS, binding_id)

    def _choosable(self, save: bool) -> Suggestion | None:
        """The suggestion to apply (save: and write), or None: nothing better found, or a keyword-only
        result asked to be saved (see KEYWORD_ONLY_NOTE) — it may be tried, never saved."""
        found = self.result
        if isinstance(found, Suggestion) and found.better and (found.vectors or not save):
            return found
        return None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "choose":
            return self._choosable(bool(parameters and parameters[0])) is not None
        return True

    def action_choose(self, save: bool) -> None:
        found = self._choosable(save)
        if found is not None:
            self.dismiss(Chosen(found.best, save))

    def action_close(self) -> None:
        self.cancel.set()  # a search still running stops at its next step
        self.dismiss()
