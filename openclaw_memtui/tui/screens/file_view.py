"""The whole memory file, scrolled to the chunk that matched: find in it, open it in the editor, follow it.

`file_rows` reads and renders the file (a transcript may live in OpenClaw's SQLite database) into rows,
each a gutter (line number; for a transcript also time and speaker) and its text, and runs in a worker;
the screen lays the rows out at its width, a wrapped line indented under its own text (not back to
column 0), so it knows where each row starts and can scroll to a match exactly. Find (`/`, `n`, `N`)
and the follow mode (`f`, a growing transcript's new lines as they are written) are the screen's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Input, Static

from ...engine.ingest.transcripts import FlatSession, flatten_session
from ...engine.search.rank import Result
from ...render import safe
from ..file_find import Match, find_matches, next_match

if TYPE_CHECKING:
    import threading

    from ...engine.settings import IndexSettings
    from ..app import MemtuiApp


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


def load_body(settings: IndexSettings, result: Result, *, tail: bool = False) -> FileBody:
    """The rows of `result`'s file as it is now (read by the access rule, masked as the index masks it)."""
    from ...engine.ingest.reading import flatten_transcript, read_indexed_file

    return file_rows(lambda: read_indexed_file(settings, result.path, result.source), result.path,
                     result.start_line, result.end_line, result.source,
                     lambda raw: flatten_transcript(raw, settings), tail=tail)


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


# -- the screen ----------------------------------------------------------------------------------------


@dataclass
class BodyLoaded(Message):
    """The file read again (followed, or after the editor), for the view of this generation."""

    generation: int
    body: FileBody


@dataclass
class FollowedFileChanged(Message):
    def can_replace(self, message: Message) -> bool:  # a burst of writes: one re-read
        return isinstance(message, FollowedFileChanged)


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


class FileScreen(Screen[None]):
    BINDINGS = [
        Binding("escape,q", "back", "Back", id="file.back"),
        Binding("slash", "find", "Find", id="file.find"),
        Binding("n", "next_match", "Next", id="file.next"),
        Binding("N", "previous_match", "Previous", id="file.previous"),
        Binding("e", "edit", "Edit", id="file.edit"),
        Binding("f", "follow", "Follow", id="file.follow"),
    ]
    DEFAULT_CSS = """
    FileScreen #file-body { height: 1fr; scrollbar-gutter: stable; }
    FileScreen #file-find { display: none; height: 1; border: none; padding: 0 1; }
    FileScreen #file-find.visible { display: block; }
    FileScreen #file-status { height: 1; display: none; background: $panel; padding: 0 1; }
    FileScreen #file-status.visible { display: block; }
    """

    def __init__(self, title: Text, body: FileBody, result: Result | None = None,
                 settings: IndexSettings | None = None) -> None:
        super().__init__()
        self.title_text, self.file_body, self.result, self.settings = title, body, result, settings
        self.find_query = ""
        self.matches: list[Match] = []
        self.current = -1  # the match `n` / `N` is on
        self.following = False
        self.generation = 0  # of reads: a read asked before another answers last is dropped
        self._layout: Layout | None = None
        self._laid_width = 0
        self._stop_watching: object | None = None  # the watch thread's stop event while following

    @property
    def body(self) -> Text:
        """The file as shown, one row a line, unwrapped."""
        return self.file_body.text()

    def compose(self) -> ComposeResult:
        yield Static(self.title_text, id="file-title")
        with VerticalScroll(id="file-body"):
            yield Static("", id="file-text")
        yield Static("", id="file-status", markup=False)
        yield Input(placeholder="find in this file (Enter: keep, esc: clear)", id="file-find")
        yield Footer()

    def on_mount(self) -> None:
        self.call_after_refresh(self._first_layout)  # once laid out: the wrap width is known then

    def _first_layout(self) -> None:
        self._relayout()
        self._scroll_to_row(self.file_body.scroll_row)

    def on_resize(self) -> None:
        self.call_after_refresh(self._relayout_kept)

    def _relayout_kept(self) -> None:
        if self._text_width() != self._laid_width:
            top = self._top_row()
            self._relayout()
            self._scroll_to_row(top, above=0)

    # -- layout --------------------------------------------------------------------------------------
    def _text_width(self) -> int:
        return self.query_one("#file-body", VerticalScroll).scrollable_content_region.width

    def _relayout(self) -> None:
        width = self._text_width()
        if width <= 0:
            return
        self._laid_width = width
        self._layout = lay_out(self.file_body.rows, width, self.app.console, self.matches, self.current)
        self.query_one("#file-text", Static).update(self._layout.text)

    def _scroll_to_row(self, row: int, above: int = 2) -> None:
        """Row `row` at the top, `above` rows of context over it, once the text just set is laid out (its
        height, and so how far the view scrolls, is known then)."""
        if self._layout is None or not self._layout.starts:
            return
        y = self._layout.starts[max(0, min(row - above, len(self._layout.starts) - 1))]
        scroll = self.query_one("#file-body", VerticalScroll)
        self.call_after_refresh(scroll.scroll_to, y=y, animate=False)

    def _top_row(self) -> int:
        """The row at the top of the view now."""
        if self._layout is None:
            return 0
        from bisect import bisect_right

        y = round(self.query_one("#file-body", VerticalScroll).scroll_y)
        return max(0, bisect_right(self._layout.starts, y) - 1)

    def _row_visible(self, row: int) -> bool:
        if self._layout is None:
            return False
        scroll = self.query_one("#file-body", VerticalScroll)
        y = self._layout.starts[row]
        return scroll.scroll_y <= y < scroll.scroll_y + scroll.scrollable_content_region.height

    # -- find ----------------------------------------------------------------------------------------
    def action_find(self) -> None:
        box = self.query_one("#file-find", Input)
        box.add_class("visible")
        box.focus()

    @on(Input.Changed, "#file-find")
    def _find_changed(self, event: Input.Changed) -> None:
        self.find(event.value, from_row=self._top_row())

    @on(Input.Submitted, "#file-find")
    def _find_kept(self) -> None:
        box = self.query_one("#file-find", Input)
        box.remove_class("visible")
        self.query_one("#file-body").focus()

    def find(self, query: str, from_row: int = 0) -> None:
        """Highlight every match of `query` and go to the first at or after `from_row`."""
        self.find_query = query
        self.matches = find_matches([r.text.plain for r in self.file_body.rows], query)
        self.current = next_match(self.matches, from_row, forward=True, current=-1)
        self._show_found()

    def _show_found(self) -> None:
        self._relayout()
        status = self.query_one("#file-status", Static)
        if not self.find_query:
            status.remove_class("visible")
        else:
            status.add_class("visible")
            count = len(self.matches)
            told = safe(self.find_query, one_line=True)
            if not count:
                status.update(f"no match for “{told}” in the lines shown")
            else:
                keys = f"{self.app.get_key_display(self._binding('file.next'))}/" \
                       f"{self.app.get_key_display(self._binding('file.previous'))}"
                status.update(f"match {self.current + 1} of {count} for “{told}” · {keys}: next/previous")
        if 0 <= self.current < len(self.matches):
            row = self.matches[self.current].row
            if not self._row_visible(row):
                self._scroll_to_row(row, above=3)

    def _binding(self, binding_id: str) -> Binding:
        binding = next(b for b in self.BINDINGS if isinstance(b, Binding) and b.id == binding_id)
        keys = self.app._keymap.get(binding_id, binding.key)  # as remapped (tui.keys)
        return Binding(keys.split(",")[0].strip(), binding.action, binding.description)

    def _step(self, forward: bool) -> None:
        if not self.find_query:
            self.action_find()
            return
        if not self.matches:
            self.notify(f"No match for “{safe(self.find_query, one_line=True)}”", markup=False, timeout=2)
            return
        self.current = next_match(self.matches, self._top_row(), forward=forward, current=self.current)
        self._show_found()

    def action_next_match(self) -> None:
        self._step(True)

    def action_previous_match(self) -> None:
        self._step(False)

    def action_back(self) -> None:
        """esc in the find box clears the find; otherwise back to the results."""
        box = self.query_one("#file-find", Input)
        if box.has_focus or (self.find_query and box.has_class("visible")):
            box.value = ""
            box.remove_class("visible")
            self.find("")
            self.query_one("#file-body").focus()
            return
        if self.find_query:  # a kept find: the first esc clears it, as in less and vim
            box.value = ""
            self.find("")
            return
        self.app.pop_screen()

    # -- edit ----------------------------------------------------------------------------------------
    def action_edit(self) -> None:
        """The whole file in $VISUAL / $EDITOR, at the match `n` is on (else at the result's first line);
        read again after, the edit shown."""
        from ..editor import open_in_editor

        app = cast("MemtuiApp", self.app)
        if self.result is None:
            return
        line = self.result.start_line
        if 0 <= self.current < len(self.matches):
            line = self.file_body.rows[self.matches[self.current].row].line or line
        if open_in_editor(app, app.search_screen, self.result, line):
            app.check_index()
            self._reload()

    # -- follow --------------------------------------------------------------------------------------
    def action_follow(self) -> None:
        """Follow the file as it grows (a live transcript): new lines appear at the end, the view stays there."""
        if self.result is None or self.settings is None:
            return
        if self.following:
            self._stop_follow()
            self.notify("Stopped following", markup=False, timeout=2)
            return
        target = followed_file(self.settings, self.result)
        if target is None:
            self.notify("Nothing on disk to follow for this file", severity="warning", markup=False)
            return
        self.following = True
        self._set_title()
        self._watch(*target)
        self._reload()

    def _set_title(self) -> None:
        title = self.title_text.copy()
        if self.following:
            key = self.app.get_key_display(self._binding("file.follow"))
            title.append(f"  following: new lines appear below ({key} stops)", style="bold reverse")
        self.query_one("#file-title", Static).update(title)

    def _stop_follow(self) -> None:
        self.following = False
        if self._stop_watching is not None:
            cast("threading.Event", self._stop_watching).set()
            self._stop_watching = None
        self._set_title()

    def on_unmount(self) -> None:
        if self._stop_watching is not None:
            cast("threading.Event", self._stop_watching).set()

    def _watch(self, folder: Path, names: set[str]) -> None:
        import threading

        stop = threading.Event()
        self._stop_watching = stop
        self._watch_folder(folder, names, stop)

    @work(thread=True, group="follow", exit_on_error=False)
    def _watch_folder(self, folder: Path, names: set[str], stop: threading.Event) -> None:
        """Post FollowedFileChanged when a file of `names` in `folder` changes, until `stop` is set."""
        import os

        import watchfiles

        for changes in watchfiles.watch(folder, stop_event=stop, recursive=False, debounce=400, step=50,
                                        rust_timeout=500, yield_on_timeout=False, raise_interrupt=False,
                                        force_polling=bool(os.environ.get("MEMTUI_WATCH_POLL")) or None):
            if any(Path(path).name in names for _, path in changes):
                self.post_message(FollowedFileChanged())

    def on_followed_file_changed(self, message: FollowedFileChanged) -> None:
        if self.following:
            self._reload()

    def _reload(self) -> None:
        if self.result is None or self.settings is None:
            return
        self.generation += 1
        self._read_again(self.generation, self.following)

    @work(thread=True, exclusive=True, group="file-reload", exit_on_error=False)
    def _read_again(self, generation: int, tail: bool) -> None:
        assert self.result is not None and self.settings is not None
        self.post_message(BodyLoaded(generation, load_body(self.settings, self.result, tail=tail)))

    def on_body_loaded(self, message: BodyLoaded) -> None:
        if message.generation != self.generation:
            return
        top = self._top_row()
        self.file_body = message.body
        self.matches = find_matches([r.text.plain for r in self.file_body.rows], self.find_query)
        if self.current >= len(self.matches):
            self.current = len(self.matches) - 1
        self._show_found()
        if self.following:  # once the new text is laid out: its height is known then
            self.call_after_refresh(self.query_one("#file-body", VerticalScroll).scroll_end, animate=False)
        else:
            self._scroll_to_row(top, above=0)

