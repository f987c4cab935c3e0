"""Key bindings and what the panes mean."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.css.query import NoMatches
from textual.dom import DOMNode
from textual.keys import format_key
from textual.screen import ModalScreen
from textual.widgets import Static

from ..widgets.context_footer import ContextFooter, lead_order

if TYPE_CHECKING:
    from ..app import MemtuiApp

# {tune}, {export}, {time_words}, {palette}, {relevant}, {not_relevant} and {clear_mark} are the keys
# bound now (the config's tui.keys remaps them)
ABOUT = """\
Type a query: results update as you type (Enter searches at once and moves to the results).
Up/Down in the list selects a result; Enter opens the whole file at that chunk; {edit} opens it in
$EDITOR at that line; {copy} copies the snippet, {copy_json} the result as JSON.

Score pane: vector = cosine similarity of the query and chunk embeddings; text = keyword score:
the chunk's BM25 score mapped to [0,1), blended with its best-matching line's as (1 − line weight)
× chunk + line weight × best line; hybrid = weighted sum of the two (the weights are normalised to
sum 1, so the pane shows each one's share); decay = temporal decay factor for dated notes and
transcripts, with decay on (MEMORY.md and undated notes are evergreen); time = the time-window
factor, shown when the query names a time (above 1 inside the window, halving with distance outside;
{time_words} ignores the window); final = hybrid × decay × time. rank = the place in the list and
why it is not the place in score order: pushed down for repeating lines of a result above it (the
overlap penalty), then moved by MMR's diversity re-ranking when MMR is on.

Tuning ({tune}) re-ranks the cached candidates instantly, without touching the index. Sliders,
each with an exact number box: vector and text weight; line weight (the best line's share of the
text score, 0 = whole chunk only); overlap penalty (how far a chunk repeating lines of a result
above it is pushed down, 0 = score order); MMR λ (1 = relevance only, lower = more diverse);
half-life days (with decay on); minScore; maxResults. Then the MMR and decay switches, what time words
do (boost, filter, ignored) and presets. Reset goes back to the saved settings (those memtui
started with, or the last Save); Save writes them to memtui's config file ([query], a backup kept); Export ({export}) writes the
block the detected OpenClaw accepts to memtui's config folder and the clipboard (a toast says where the copy
went), and names the settings
OpenClaw will not honour (the full list in the .not-honoured.txt file beside the export).

Judging: in the list, {relevant} marks the highlighted result relevant to the query, {not_relevant} not relevant,
{clear_mark} clears (✓ ✗ in the list; ! = judged on text that has changed since: mark it again). The tuning
panel then shows nDCG@10, recall@5 and MRR over every judged question for the current settings,
against the saved ones; "Suggest settings" ({palette}) searches better ones, cross-validated.
"""

Keys = list[tuple[str, str]]


def paragraphs(text: str) -> list[str]:
    """The help text's paragraphs, each on one line: the source is wrapped for the editor, and hard
    breaks plus the screen's own wrapping left one-word lines at any other width."""
    return [" ".join(block.split()) for block in text.split("\n\n") if block.strip()]


def _same_action(action: str) -> str:
    """An action without the arguments that only say how it was asked for (`help('key')` is `help`)."""
    name, _, args = action.partition("(")
    return name if args in ("'key')", "") else action


def help_keys(bindings: Iterable[Binding], key_display: Callable[[Binding], str]) -> Keys:
    """(key, what it does) for every binding with a description where help was asked for: the app's,
    the screen's and the focused widget's, hidden ones included; one line per action."""
    bindings = list(bindings)
    # a priority binding (the app's ctrl+e export, ctrl+q) fires whatever has the focus: the query
    # input's own ctrl+e ("Go to end") never runs, so listing it would tell the user a key that exports
    claimed = {b.key: b.action for b in bindings if b.priority}
    keys: Keys = []
    seen: dict[str, int] = {}
    for b in bindings:
        # memtui's own bindings only (each has an id to remap it): not the input's or Textual's own keys
        if not b.description or not b.id or b.system or claimed.get(b.key, b.action) != b.action:
            continue
        shown = b.key_display or key_display(b)
        action = _same_action(b.action)
        if action in seen:  # "f1" and "?" both open help: one line, both keys
            i = seen[action]
            if shown not in keys[i][0].split():
                keys[i] = (f"{keys[i][0]} {shown}", keys[i][1])
            continue
        seen[action] = len(keys)
        keys.append((shown, b.description))
    return list(dict.fromkeys(keys))  # the input's copy and the screen's: one "^c super+c  Copy selected text"


def remapped(app: App[Any], bindings: Iterable[object]) -> list[Binding]:
    """A `BINDINGS` list as the app's keymap (tui.keys) binds it, one Binding per key."""
    out: list[Binding] = []
    for b in bindings:
        if not isinstance(b, Binding):
            continue
        keys = app._keymap.get(b.id, b.key) if b.id else b.key  # Textual keeps the remap there (set_keymap)
        out += [replace(b, key=k.strip()) for k in keys.split(",") if k.strip()]
    return out


Section = tuple[str, Keys]


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark,f1", "app.pop_screen", "Close", id="help.close")]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 90%; max-width: 100; height: 80%; border: thick $primary; background: $surface; padding: 1 2;
    }
    """

    def __init__(self, keys: Keys, about: str = ABOUT, elsewhere: list[Section] | None = None) -> None:
        super().__init__()
        self.keys = keys  # the keys where help was asked for
        self.elsewhere = elsewhere or []  # the keys of the other panes and screens, titled
        self.about = about  # ABOUT with the keys bound now filled in

    def compose(self) -> ComposeResult:
        about = Text("\n\n".join(paragraphs(self.about)) + "\n")
        parts: list[RenderableType] = []
        for title, keys in [("Keys", self.keys), *self.elsewhere]:
            # keys in a grid: a long description wraps inside its own column, under itself
            grid = Table.grid(padding=(0, 2))
            grid.add_column(no_wrap=True)
            grid.add_column(ratio=1)
            for key, description in keys:
                grid.add_row(Text(key), Text(description))
            parts += [Text(title, style="bold"), Padding(grid, (0, 0, 1, 2))]
        with VerticalScroll():  # keys first: at 80x24 the prose above them hid every key
            yield Static(Group(*parts, about), id="help-text")
        # its own footer: the main screen's, below, lists the main screen's keys and not how to close this
        yield ContextFooter()


def open_help(app: MemtuiApp) -> None:
    """The help screen over the app: every binding of the screen, the focused widget and the app (not
    only those that apply this moment), and the result list's keys even while the query has the focus."""
    from ..widgets.result_list import ResultList

    chain = app.screen._modal_binding_chain
    if app.screen is app.screen_stack[0]:  # the search screen: the app's keys (sync), then its own (tuning), then the box's
        chain = sorted(chain, key=lambda entry: (entry[0] is not app, entry[0] is not app.screen))
    bindings = [b for _, keys in chain for _, b in keys]
    if app.screen is app.screen_stack[0]:  # the keys the footer leads with (Quit, Help, Tuning, Sync…) first, in its order
        bindings.sort(key=lead_order)
    with contextlib.suppress(NoMatches):
        bindings += [b for _, b in app.query_one(ResultList)._bindings]
    key = app.key_for
    palette = format_key(app.COMMAND_PALETTE_BINDING)
    about = ABOUT.format(tune=key("toggle_tuning"), export=key("export_settings"), time_words=key("clear_time_window"),
                         palette=palette, relevant=key("results.mark_relevant"), not_relevant=key("results.mark_not_relevant"),
                         clear_mark=key("results.clear_mark"), edit=key("results.edit"), copy=key("results.copy"),
                         copy_json=key("results.copy_json"))
    keys = help_keys(bindings, app.get_key_display) + [(palette, "Command palette")]
    app.push_screen(HelpScreen(keys, about, elsewhere_keys(app, {type(n) for n, _ in app.screen._modal_binding_chain})))


def elsewhere_keys(app: MemtuiApp, here: set[type]) -> list[Section]:
    """The keys of each pane and screen besides the one help was asked on, as remapped: what the footer
    shows only once you are there."""
    from ..widgets.slider import Slider
    from .file_view import FileScreen
    from .suggest import SuggestScreen
    from .sync import SyncScreen

    # (the result list's keys are under Keys, wherever help is asked: open_help adds them)
    places: list[tuple[str, type[DOMNode]]] = [
        ("On a tuning slider", Slider), ("In the file view (Enter on a result)", FileScreen),
        (f"On the status screen ({app.key_for('sync_screen')})", SyncScreen), ("In Suggest settings", SuggestScreen)]
    sections: list[Section] = []
    for title, owner in places:
        if owner in here:  # listed under Keys already
            continue
        keys = help_keys(remapped(app, owner.BINDINGS), app.get_key_display)
        if keys:
            sections.append((title, keys))
    return sections
