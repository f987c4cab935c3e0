"""Quitting with ranking settings applied but not saved: say which, and let the user save, quit or stay.

An applied suggestion or a moved slider lived only in the app and was lost at quit without a word. Quit again
(ctrl+q) or q quits anyway, s saves to memtui's config first, esc stays.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from ...engine.search.rank import SearchParams
from ...engine.tuning.tuner import FIELD_LABELS, changed_fields, format_value
from ..keys import key_for
from ..widgets.context_footer import ContextFooter

if TYPE_CHECKING:
    from ..app import MemtuiApp


def unsaved_changes(saved: SearchParams, current: SearchParams) -> list[str]:
    """One line per setting applied but not saved: "vector weight 0.10 → 0.30"."""
    changes = dict(changed_fields(saved, current))
    if saved.max_results != current.max_results:
        changes["max_results"] = (saved.max_results, current.max_results)
    return [f"{FIELD_LABELS.get(name, name.replace('_', ' '))} {format_value(old)} → {format_value(new)}"
            for name, (old, new) in changes.items()]


class ConfirmQuitScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("s", "save_and_quit", "Save and quit", id="quit.save"),
        Binding("q", "app.quit", "Quit without saving", id="quit.anyway"),
        Binding("escape", "app.pop_screen", "Stay", id="quit.stay"),
    ]
    DEFAULT_CSS = """
    ConfirmQuitScreen { align: center middle; }
    ConfirmQuitScreen > Vertical {
        width: 90%; max-width: 72; height: auto; border: thick $warning; background: $surface; padding: 1 2;
    }
    ConfirmQuitScreen #quit-title { text-style: bold; margin-bottom: 1; }
    """

    def __init__(self, changes: list[str]) -> None:
        super().__init__()
        self.changes = changes

    def compose(self) -> ComposeResult:
        app = self.app
        keys = {i: key_for(app, self.BINDINGS, i) for i in ("quit.save", "quit.anyway", "quit.stay")}
        with Vertical():
            yield Static("Ranking settings applied but not saved", id="quit-title", markup=False)
            yield Static("\n".join(f"  {line}" for line in self.changes), id="quit-changes", markup=False)
            yield Static(f"\n{keys['quit.save']}: save them to memtui's config and quit · {keys['quit.anyway']} or "
                         f"{key_for(app, app.BINDINGS, 'quit')}: quit without saving · {keys['quit.stay']}: stay",
                         id="quit-keys", markup=False)
        yield ContextFooter()

    def action_save_and_quit(self) -> None:
        app: MemtuiApp = self.app  # type: ignore[assignment]
        search = app.search_screen
        search.action_save_settings()
        if search.judging.saved_params == search.params:  # saved (a failure was said in a toast: stay)
            app.exit()
        else:
            self.dismiss()


def quit_needs_asking(app: MemtuiApp) -> bool:
    """Ask first (and show the question) when settings are applied but unsaved and the question is not up
    already: ctrl+q on it quits."""
    if any(isinstance(s, ConfirmQuitScreen) for s in app.screen_stack):
        return False
    try:
        changes = unsaved_changes(app.search_screen.judging.saved_params, app.search_screen.params)
    except Exception:  # the search screen is gone (shutting down): nothing to ask
        return False
    if not changes:
        return False
    app.push_screen(ConfirmQuitScreen(changes))
    return True
