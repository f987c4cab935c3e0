"""The file view's text: the rows of a file (numbered lines, or a transcript's turns with time and speaker) and
their layout at a width, a wrapped line indented under its own text.

`file_rows` reads and renders the file (a transcript may live in OpenClaw's SQLite database) and runs in a
worker; `lay_out` runs on the UI thread at the view's width and knows the first screen line of every row,
so the view scrolls to a match exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, cast

from rich.text import Text

from ..engine.ingest.transcripts import FlatSession, flatten_session
from ..engine.search.rank import Result
from ..render import safe
from .file_find import Match

if TYPE_CHECKING:
    from ..engine.index import MemoryIndex
    from ..engine.settings import IndexSettings


def file_title(result: Result) -> Text:
    return Text(f" {safe(result.path, one_line=True)}  lines {result.start_line}-{result.end_line}", style="bold reverse")


MATCHED = "on #3a3320"
FOUND = "black on #d7af5f"  # every find match
FOUND_CURRENT = "bold black on #ff8700"  # the one `n` / `N` is on

# What the view lays out. The screen wraps every line on the UI thread, so the cost grows with the lines and
# their length: a 5 MB note of 100,000 lines, or one 5 MB line, froze the app. So the view shows a window of
# lines around the match (or the end, when following), each cut to a length a screen can show; the editor
# (e) has the whole file.
WINDOW_LINES = 2000
CONTEXT_ABOVE = 500
MAX_LINE_CHARS = 4000
ELSEWHERE = "open the file in your editor to see all of it"
MIN_TEXT_COLUMNS = 20  # narrower than this beside the gutter, a wrapped line goes back to column 0


@dataclass(frozen=True)
class Row:
    """One line of the file as shown: `gutter` (number, and a transcript's time and speaker) and `text`.
    `line` is the file's line (a transcript's JSONL line) the editor opens at; 0 for a note of the view's."""

    gutter: Text
    text: Text
    line: int = 0


@dataclass
class FileBody:
    rows: list[Row] = field(default_factory=list)
    scroll_row: int = 0  # the row of the first matched line

    def text(self) -> Text:
        """The rows one per line, unwrapped (what tests and the plain-text readers compare)."""
        return Text("\n").join(Text.assemble(r.gutter, r.text) for r in self.rows)


def _window(count: int, first_match: int) -> range:
    """The 0-based rows shown: up to CONTEXT_ABOVE before row `first_match`, at most WINDOW_LINES in all."""
    start = max(0, min(first_match - CONTEXT_ABOVE, count - WINDOW_LINES))
    return range(start, min(count, start + WINDOW_LINES))


def _cut(line: str) -> str:
    extra = len(line) - MAX_LINE_CHARS
    return line if extra <= 0 else f"{line[:MAX_LINE_CHARS]} … [{extra:,} more characters]"


def _not_shown(what: str) -> Row:
    return Row(Text(), Text(f"… {what} not shown: {ELSEWHERE}", style="dim italic"))


def _said(text: str, style: str = "") -> FileBody:
    return FileBody([Row(Text(), Text(text, style=style))])


def file_rows(read: Callable[[], str], path: str, start_line: int, end_line: int, source: str,
              flatten: Callable[[str], FlatSession] | None = None, *, tail: bool = False) -> FileBody:
    """The file's current text (from `read`) as rows, numbered, lines start_line..end_line marked, and the
    row to scroll to; or one row saying why it cannot be shown. A transcript (`source` "sessions") is
    shown as the conversation the index holds, masked as the index masks it (`flatten`: as the index's
    settings flatten it, engine/ingest/reading.flatten_transcript). `tail`: the window ends at the file's
    end (following a growing file) instead of around the match."""
    name = safe(path, one_line=True)
    try:
        raw = read()
    except FileNotFoundError:
        return _said(f"{name} no longer exists on disk (it was deleted or moved); sync to drop it from the index.")
    except OSError as exc:
        return _said(f"cannot read {name}: {exc.strerror}")
    if source == "sessions":
        return conversation_rows(raw, start_line, end_line, flatten, tail=tail)
    lines = raw.split("\n")
    shown = _window(len(lines), len(lines) - 1 if tail else start_line - 1)
    body = FileBody()
    if shown.start:
        body.rows.append(_not_shown(f"lines 1-{shown.start}"))
    for i in shown:
        n = i + 1
        inside = start_line <= n <= end_line
        body.rows.append(Row(Text(f"{n:5} ", style="bold" if inside else "dim"),
                             Text(safe(_cut(lines[i])), style=MATCHED if inside else ""), n))
    if shown.stop < len(lines):
        body.rows.append(_not_shown(f"lines {shown.stop + 1}-{len(lines)}"))
    body.scroll_row = max(0, start_line - 1 - shown.start) + (1 if shown.start else 0)
    return body


def conversation_rows(raw: str, start_line: int, end_line: int, flatten: Callable[[str], FlatSession] | None = None,
                      *, tail: bool = False) -> FileBody:
    """A JSONL transcript as speaker, time and text per message (the raw JSON holds the secrets the index
    masks, and tool calls nobody reads); the matched messages marked. `start_line`/`end_line` are JSONL
    lines, as the index stores them; the row to scroll to is the first matched message's."""
    # the very text the index holds, masked (and for a 2026.9 agent filtered) the same way
    flat = flatten(raw) if flatten is not None else flatten_session(raw, redact=True)
    if not flat.content:
        return _said("This transcript has no user or assistant messages.", "dim")
    rows = list(zip(flat.content.split("\n"), flat.line_map, flat.timestamps_ms, strict=True))
    first = next((i for i, (_, jsonl_line, _) in enumerate(rows) if start_line <= jsonl_line <= end_line), 0)
    shown = _window(len(rows), len(rows) - 1 if tail else first)
    body = FileBody()
    if shown.start:
        body.rows.append(_not_shown(f"{shown.start} earlier message line(s)"))
    for i in shown:
        line, jsonl_line, ts = rows[i]
        speaker, _, text = line.partition(": ")
        inside = start_line <= jsonl_line <= end_line
        when = datetime.fromtimestamp(ts / 1000, UTC).strftime("%Y-%m-%d %H:%M") if ts > 0 else " " * 16
        gutter = Text.assemble((f"{jsonl_line:5} ", "bold" if inside else "dim"), (f"{when}  ", "dim"),
                               (f"{speaker:<9} ", "bold cyan" if speaker == "User" else "bold magenta"))
        body.rows.append(Row(gutter, Text(safe(_cut(text)), style=MATCHED if inside else ""), jsonl_line))
    if shown.stop < len(rows):
        body.rows.append(_not_shown(f"{len(rows) - shown.stop} later message line(s)"))
    body.scroll_row = first - shown.start + (1 if shown.start else 0)
    return body


def render_file(read: Callable[[], str], path: str, start_line: int, end_line: int, source: str,
                flatten: Callable[[str], FlatSession] | None = None) -> tuple[Text, int]:
    """`file_rows` as one text, a line per row, and the row to scroll to."""
    body = file_rows(read, path, start_line, end_line, source, flatten)
    return body.text(), body.scroll_row


def render_conversation(raw: str, start_line: int, end_line: int,
                        flatten: Callable[[str], FlatSession] | None = None) -> tuple[Text, int]:
    body = conversation_rows(raw, start_line, end_line, flatten)
    return body.text(), body.scroll_row


def load_body(index: MemoryIndex, result: Result, *, tail: bool = False) -> FileBody:
    """The rows of `result`'s file as it is now (read by the access rule, masked as the index masks it)."""
    return file_rows(lambda: index.read_file(result.path, result.source), result.path,
                     result.start_line, result.end_line, result.source, index.flatten_transcript, tail=tail)


def followed_file(settings: IndexSettings, result: Result) -> tuple[Path, set[str]] | None:
    """The folder to watch while following `result`'s file and the names in it that change it: the file
    itself, or an OpenClaw 2026.9 agent's database and its WAL (a new turn is a write there). None when
    nothing on disk backs it."""
    if result.source == "sessions":
        name = result.path.removeprefix(settings.sessions_prefix + "/")
        db = settings.transcripts_db
        if db is not None and name.endswith(".jsonl") and db.is_file():
            return db.parent, {db.name, f"{db.name}-wal"}
        if settings.sessions_dir is None:
            return None
        target = settings.sessions_dir / name
    else:
        target = settings.workspace / result.path
    return (target.parent, {target.name}) if target.parent.is_dir() else None


@dataclass
class Layout:
    """The rows laid out at one width: the text shown and the first screen line of each row."""

    text: Text
    starts: list[int]


def lay_out(rows: list[Row], width: int, console: object, matches: list[Match], current: int) -> Layout:
    """The rows at `width` columns: a line too long wraps under its own text, its gutter left blank on
    the lines after the first; the find matches highlighted (`current` the one `n` is on)."""
    from rich.console import Console

    console = cast(Console, console)
    by_row: dict[int, list[tuple[int, Match]]] = {}
    for i, m in enumerate(matches):
        by_row.setdefault(m.row, []).append((i, m))
    out = Text(no_wrap=True, overflow="crop")
    starts: list[int] = []
    line_count = 0
    for r, row in enumerate(rows):
        text = row.text
        if r in by_row:
            text = text.copy()
            for i, m in by_row[r]:
                text.stylize(FOUND_CURRENT if i == current else FOUND, m.start, m.end)
        gutter = row.gutter.cell_len
        room = width - gutter
        if room < MIN_TEXT_COLUMNS:  # too narrow to indent under the text: wrap it all
            gutter, room, text = 0, max(1, width), Text.assemble(row.gutter, text)
        pieces = text.wrap(console, room) if text.cell_len > room else [text]
        starts.append(line_count)
        for k, piece in enumerate(pieces):
            if line_count:
                out.append("\n")
            if gutter:
                out.append_text(row.gutter if k == 0 else Text(" " * gutter))
            out.append_text(piece)
            line_count += 1
        if not pieces:  # an empty line
            if line_count:
                out.append("\n")
            out.append_text(row.gutter)
            line_count += 1
    return Layout(out, starts)
