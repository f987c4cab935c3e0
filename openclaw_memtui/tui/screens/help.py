"""Key bindings and what the panes mean."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

ABOUT = """\
Type a query: results update as you type (Enter searches at once).
Up/Down in the list selects a result; Enter opens the whole file at that chunk.

Score pane: vector = cosine similarity of the query and chunk embeddings; text = BM25 score
mapped to [0,1); hybrid = weighted sum of the two; decay = temporal decay factor for dated notes
and transcripts (MEMORY.md and undated notes are evergreen); final = hybrid × decay; MMR rank
shows where diversity re-ranking moved the result.

Tuning (ctrl+t) re-ranks the cached candidates instantly, without touching the index.
"""


class HelpScreen(ModalScreen):
    BINDINGS = [Binding("escape,q,question_mark,f1", "app.pop_screen", "Close", id="help.close")]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 90%; max-width: 100; height: 80%; border: thick $primary; background: $surface; padding: 1 2;
    }
    """

    def compose(self) -> ComposeResult:
        text = Text(ABOUT)
        text.append("\nKeys\n", style="bold")
        for binding in self.app.active_bindings.values():
            b = binding.binding
            if b.description:
                text.append(f"  {binding.binding.key_display or self.app.get_key_display(b):<14} {b.description}\n")
        with VerticalScroll():
            yield Static(text)
