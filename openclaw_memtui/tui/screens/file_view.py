"""The whole memory file, scrolled to the chunk that matched: find in it, open it in the editor, follow it.

The rows and their layout are file_rows.py's (read in a worker; laid out here at the view's width, a wrapped
line indented under its own text); find (`/`, `n`, `N`), the editor (`e`) and the follow mode (`f`, a
growing transcript's new lines as they are written) are the screen's.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Input, Static

from ...engine.search.rank import Result
from ...render import safe
from ..file_find import Match, find_matches, next_match
from ..file_rows import (  # the names tests and the search screen take from here
    CONTEXT_ABOVE,
    FOUND,
    FOUND_CURRENT,
    MATCHED,
    MAX_LINE_CHARS,
    WINDOW_LINES,
    FileBody,
    Layout,
    file_title,
    followed_file,
    lay_out,
    load_body,
    render_conversation,
    render_file,
)
from ..widgets.context_footer import ContextFooter

if TYPE_CHECKING:
    import threading

    from ...engine.index import MemoryIndex
    from ..app import MemtuiApp


__all__ = ["CONTEXT_ABOVE", "FOUND", "FOUND_CURRENT", "MATCHED", "MAX_LINE_CHARS", "WINDOW_LINES", "FileBody",
           "FileScreen", "file_title", "load_body", "render_conversation", "render_file"]


@dataclass
class BodyLoaded(Message):
    """The file read again (followed, or after the editor), for the view of this generation."""

    generation: int
    body: FileBody


@dataclass
class FollowedFileChanged(Message):
    def can_replace(self, message: Message) -> bool:  # a burst of writes: one re-read
        return isinstance(message, FollowedFileChanged)


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
                 index: MemoryIndex | None = None) -> None:
        super().__init__()
        self.title_text, self.file_body, self.result, self.index = title, body, result, index
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
        yield ContextFooter()

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
            app.syncs.check_index()
            self._reload()

    # -- follow --------------------------------------------------------------------------------------
    def action_follow(self) -> None:
        """Follow the file as it grows (a live transcript): new lines appear at the end, the view stays there."""
        if self.result is None or self.index is None:
            return
        if self.following:
            self._stop_follow()
            self.notify("Stopped following", markup=False, timeout=2)
            return
        target = followed_file(self.index.settings, self.result)
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
        if self.result is None or self.index is None:
            return
        self.generation += 1
        self._read_again(self.generation, self.following)

    @work(thread=True, exclusive=True, group="file-reload", exit_on_error=False)
    def _read_again(self, generation: int, tail: bool) -> None:
        assert self.result is not None and self.index is not None
        self.post_message(BodyLoaded(generation, load_body(self.index, self.result, tail=tail)))

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

