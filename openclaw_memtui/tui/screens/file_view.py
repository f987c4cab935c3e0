"""The whole memory file, scrolled to the chunk that matched.

`render_file` reads and renders the file (a transcript may live in OpenClaw's SQLite database) and
runs in a worker; the screen only shows the text it is given.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from ...engine.redact import redact_secrets
from ...engine.search.rank import Result
from ...render import safe


def file_title(result: Result) -> Text:
    return Text(f" {safe(result.path, one_line=True)}  lines {result.start_line}-{result.end_line}", style="bold reverse")


def render_file(read: Callable[[], str], path: str, start_line: int, end_line: int, source: str) -> Text:
    """The file's current text (from `read`), numbered, lines start_line..end_line marked; or one line
    saying why it cannot be shown. Transcripts (`source` "sessions") are masked as the index masks them."""
    name = safe(path, one_line=True)
    try:
        raw = read()
    except FileNotFoundError:
        return Text(f"{name} no longer exists on disk (it was deleted or moved); sync to drop it from the index.")
    except OSError as exc:
        return Text(f"cannot read {name}: {exc.strerror}")
    body = Text()
    for n, line in enumerate(raw.split("\n"), 1):
        if source == "sessions":  # the raw transcript holds the secrets the index masks
            line = redact_secrets(line)
        inside = start_line <= n <= end_line
        body.append(f"{n:5} ", style="bold" if inside else "dim")
        body.append(safe(line) + "\n", style="on #3a3320" if inside else "")
    return body


class FileScreen(Screen):
    BINDINGS = [Binding("escape,q", "app.pop_screen", "Back", id="file.back")]

    def __init__(self, title: Text, body: Text, scroll_to_line: int) -> None:
        super().__init__()
        self.title_text, self.body, self.scroll_to_line = title, body, scroll_to_line

    def compose(self) -> ComposeResult:
        yield Static(self.title_text, id="file-title")
        with VerticalScroll(id="file-body"):
            yield Static(self.body, id="file-text")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#file-body", VerticalScroll).scroll_to(y=max(0, self.scroll_to_line - 3), animate=False)
