"""The whole memory file, scrolled to the chunk that matched."""

from __future__ import annotations

from typing import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from ...engine.redact import redact_secrets
from ...render import safe


class FileScreen(Screen):
    BINDINGS = [Binding("escape,q", "app.pop_screen", "Back", id="file.back")]

    def __init__(self, load: Callable[[], str], display: str, start: int, end: int, source: str = "memory") -> None:
        """`load` reads the file's current text (a transcript may live in OpenClaw's database)."""
        super().__init__()
        self.load, self.display_name, self.start, self.end = load, display, start, end
        self.source = source

    def compose(self) -> ComposeResult:
        yield Static(Text(f" {safe(self.display_name, one_line=True)}  lines {self.start}-{self.end}", style="bold reverse"), id="file-title")
        with VerticalScroll(id="file-body"):
            yield Static(self._body(), id="file-text")
        yield Footer()

    def _body(self) -> Text:
        try:
            raw = self.load()
        except FileNotFoundError:
            return Text(f"{safe(self.display_name, one_line=True)} no longer exists on disk (it was deleted or moved); sync to drop it from the index.")
        except OSError as exc:
            return Text(f"cannot read {safe(self.display_name, one_line=True)}: {exc.strerror}")
        body = Text()
        for n, line in enumerate(raw.split("\n"), 1):
            if self.source == "sessions":  # the raw transcript holds the secrets the index masks
                line = redact_secrets(line)
            inside = self.start <= n <= self.end
            body.append(f"{n:5} ", style="bold" if inside else "dim")
            body.append(safe(line) + "\n", style="on #3a3320" if inside else "")
        return body

    def on_mount(self) -> None:
        self.query_one("#file-body", VerticalScroll).scroll_to(y=max(0, self.start - 3), animate=False)
