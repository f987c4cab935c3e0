"""The whole memory file, scrolled to the chunk that matched.

`render_file` reads and renders the file (a transcript may live in OpenClaw's SQLite database) and
runs in a worker; the screen only shows the text it is given.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from ...engine.ingest.transcripts import FlatSession, flatten_session
from ...engine.search.rank import Result
from ...render import safe


def file_title(result: Result) -> Text:
    return Text(f" {safe(result.path, one_line=True)}  lines {result.start_line}-{result.end_line}", style="bold reverse")


MATCHED = "on #3a3320"

# What the view lays out. Textual wraps every line of the Static on the UI thread, so the cost grows
# with the lines and their length: a 5 MB note of 100,000 lines, or one 5 MB line, froze the app. So the view
# shows a window of lines around the match, each cut to a length a screen can show; the editor (e
# in the result list) has the whole file.
WINDOW_LINES = 2000
CONTEXT_ABOVE = 500
MAX_LINE_CHARS = 4000
ELSEWHERE = "open the file in your editor to see all of it"


def _window(count: int, first_match: int) -> range:
    """The 0-based rows shown: up to CONTEXT_ABOVE before row `first_match`, at most WINDOW_LINES in all."""
    start = max(0, min(first_match - CONTEXT_ABOVE, count - WINDOW_LINES))
    return range(start, min(count, start + WINDOW_LINES))


def _cut(line: str) -> str:
    extra = len(line) - MAX_LINE_CHARS
    return line if extra <= 0 else f"{line[:MAX_LINE_CHARS]} … [{extra:,} more characters]"


def _not_shown(body: Text, what: str) -> None:
    body.append(f"… {what} not shown: {ELSEWHERE}\n", style="dim italic")


def render_file(read: Callable[[], str], path: str, start_line: int, end_line: int, source: str,
                flatten: Callable[[str], FlatSession] | None = None) -> tuple[Text, int]:
    """The file's current text (from `read`), numbered, lines start_line..end_line marked, and the
    row to scroll to; or one line saying why it cannot be shown. A transcript (`source` "sessions")
    is shown as the conversation the index holds, masked as the index masks it (`flatten`: as the
    index's settings flatten it, engine/ingest/reading.flatten_transcript)."""
    name = safe(path, one_line=True)
    try:
        raw = read()
    except FileNotFoundError:
        return Text(f"{name} no longer exists on disk (it was deleted or moved); sync to drop it from the index."), 0
    except OSError as exc:
        return Text(f"cannot read {name}: {exc.strerror}"), 0
    if source == "sessions":
        return render_conversation(raw, start_line, end_line, flatten)
    lines = raw.split("\n")
    shown = _window(len(lines), start_line - 1)
    body = Text()
    if shown.start:
        _not_shown(body, f"lines 1-{shown.start}")
    for i in shown:
        n = i + 1
        inside = start_line <= n <= end_line
        body.append(f"{n:5} ", style="bold" if inside else "dim")
        body.append(safe(_cut(lines[i])) + "\n", style=MATCHED if inside else "")
    if shown.stop < len(lines):
        _not_shown(body, f"lines {shown.stop + 1}-{len(lines)}")
    return body, max(0, start_line - 1 - shown.start) + (1 if shown.start else 0)


def render_conversation(raw: str, start_line: int, end_line: int,
                        flatten: Callable[[str], FlatSession] | None = None) -> tuple[Text, int]:
    """A JSONL transcript as speaker, time and text per message (the raw JSON holds the secrets the
    index masks, and tool calls nobody reads); the matched messages marked. `start_line`/`end_line`
    are JSONL lines, as the index stores them; the row returned is the first matched message's."""
    # the very text the index holds, masked (and for a 2026.9 agent filtered) the same way
    flat = flatten(raw) if flatten is not None else flatten_session(raw, redact=True)
    if not flat.content:
        return Text("This transcript has no user or assistant messages.", style="dim"), 0
    rows = list(zip(flat.content.split("\n"), flat.line_map, flat.timestamps_ms, strict=True))
    first = next((i for i, (_, jsonl_line, _) in enumerate(rows) if start_line <= jsonl_line <= end_line), 0)
    shown = _window(len(rows), first)
    body = Text()
    if shown.start:
        _not_shown(body, f"{shown.start} earlier message line(s)")
    for i in shown:
        line, jsonl_line, ts = rows[i]
        speaker, _, text = line.partition(": ")
        inside = start_line <= jsonl_line <= end_line
        when = datetime.fromtimestamp(ts / 1000, UTC).strftime("%Y-%m-%d %H:%M") if ts > 0 else " " * 16
        body.append(f"{jsonl_line:5} ", style="bold" if inside else "dim")
        body.append(f"{when}  ", style="dim")
        body.append(f"{speaker:<9} ", style="bold cyan" if speaker == "User" else "bold magenta")
        body.append(safe(_cut(text)) + "\n", style=MATCHED if inside else "")
    if shown.stop < len(rows):
        _not_shown(body, f"{len(rows) - shown.stop} later message line(s)")
    return body, first - shown.start + (1 if shown.start else 0)


class FileScreen(Screen):
    BINDINGS = [Binding("escape,q", "app.pop_screen", "Back", id="file.back")]

    def __init__(self, title: Text, body: Text, scroll_to_row: int) -> None:
        super().__init__()
        self.title_text, self.body, self.scroll_to_row = title, body, scroll_to_row

    def compose(self) -> ComposeResult:
        yield Static(self.title_text, id="file-title")
        with VerticalScroll(id="file-body"):
            yield Static(self.body, id="file-text")
        yield Footer()

    def on_mount(self) -> None:
        self.call_after_refresh(self._scroll_to_match)  # once laid out: the wrap width is known then

    def _scroll_to_match(self) -> None:
        """Two lines above the match at the top. Long lines wrap onto several rows, so the row to
        scroll to is counted from the wrapped text above the match, not from its line number."""
        text = self.query_one("#file-text", Static)
        above = self.body.split("\n")[: max(0, self.scroll_to_row - 2)]
        width = text.content_region.width
        rows = sum(len(line.wrap(self.app.console, width)) for line in above) if width > 0 else len(above)
        self.query_one("#file-body", VerticalScroll).scroll_to(y=rows, animate=False)
