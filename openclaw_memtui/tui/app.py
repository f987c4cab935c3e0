"""The Textual app: search as you type, explain every score, tune live, watch sync."""

from __future__ import annotations

import functools
import os
import re
import sys
import threading
import time
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Footer, Header, Input, OptionList, Static
from textual.widgets.option_list import Option

from ..engine.index import MemoryIndex
from ..engine.models import SyncProgress, SyncReport
from ..engine.search.query import STOP_WORDS, query_tokens
from ..engine.search.rank import Pool, Result, SearchParams, rank
from ..errors import describe
from ..render import dumps_json, safe
from .messages import FilesChanged, SearchDone, SearchFailed, SyncFinished, SyncProgressed
from .screens.file_view import FileScreen
from .screens.help import HelpScreen
from .screens.sync import SyncScreen
from .themes import discover_themes
from .widgets.breakdown import breakdown_text
from .widgets.tuning import PRESETS, PRESET_LABELS, TuningPanel

SEARCH_DEBOUNCE_S = 0.25


def highlight_terms(text: Text, query: str) -> None:
    """Underline the query's content words where they stand as words (not "we" inside "weeks")."""
    terms = sorted({t for t in query_tokens(query) if len(t) > 1 and t.lower() not in STOP_WORDS}, key=len, reverse=True)
    if not terms:
        return
    ascii_terms = [re.escape(t) for t in terms if t.isascii()]
    other_terms = [re.escape(t) for t in terms if not t.isascii()]  # CJK has no word boundaries
    parts = ([rf"\b(?:{'|'.join(ascii_terms)})\w*" ] if ascii_terms else []) + other_terms
    text.highlight_regex(re.compile("|".join(parts), re.IGNORECASE), style="bold underline")


def _lower_this_thread_priority() -> None:
    """Let the UI thread win the CPU over a sync (and the model threads it starts) on busy cores.

    On Linux `setpriority` with a thread id renices just that thread; threads it creates (the
    embedding model's OpenMP pool) inherit it. Elsewhere this is a no-op.
    """
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
    except (AttributeError, OSError):
        pass


def _skip_when_torn_down(method):
    """Worker messages can arrive while the app shuts down, after its widgets are gone."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except NoMatches:  # the main screen's widgets are gone: nothing left to update
            self.log.warning(f"{method.__name__}: widgets gone, message dropped")
            return None

    return wrapper


class MemtuiApp(App):
    CSS_PATH = Path(__file__).with_name("app.tcss")  # absolute, so subclasses elsewhere still find it
    TITLE = "memtui"
    BINDINGS = [
        Binding("f1", "help", "Help", id="help"),
        Binding("question_mark", "help", "Help", show=False, id="help_key"),
        Binding("ctrl+t", "toggle_tuning", "Tuning", id="toggle_tuning"),
        Binding("ctrl+r", "sync", "Sync", id="sync"),
        Binding("ctrl+g", "cancel_sync", "Cancel sync", id="cancel_sync"),
        Binding("f2", "sync_screen", "Status", id="sync_screen"),
        Binding("ctrl+l", "focus_query", "Query", id="focus_query"),
        Binding("f3", "clear_time_window", "Ignore time", id="clear_time_window"),  # ctrl+w is Input's delete-word
        Binding("slash", "focus_query", show=False, id="focus_query_slash"),
        Binding("ctrl+e", "export_settings", "Export", show=False, id="export_settings"),
        Binding("ctrl+q", "quit", "Quit", id="quit"),
    ]

    def __init__(self, index: MemoryIndex, cfg: dict[str, Any], *, origin: str = "", now_ms: float | None = None,
                 config_path: Path | None = None, watch: bool = True, initial_query: str = "",
                 params: SearchParams | None = None, theme_dirs: list[Path] | None = None) -> None:
        super().__init__()
        self.index = index
        self.cfg = cfg
        self.origin = origin
        self.fixed_now_ms = now_ms
        self.config_path = config_path
        self.enable_watch = watch
        self.initial_query = initial_query
        self.theme_dirs = theme_dirs
        self.default_params = params or SearchParams()
        self.params = self.default_params
        self.pool_size = cfg["query"]["hybrid"]["candidatePool"]
        self.keyword_mode = "and-or" if cfg["query"]["keyword"]["orFallback"] else "and"
        self.pool: Pool | None = None
        self.results: list[Result] = []
        self.moves: dict[str, int | None] = {}
        self.search_generation = 0
        self.time_disabled_query: str | None = None  # ctrl+w: ignore the time words of this query
        self.searches_started = 0
        self.rerank_ms = 0.0
        self.sync_running = False
        self.sync_again = False
        self.sync_progress: SyncProgress | None = None
        self.last_report: SyncReport | None = None
        self.dirty = False
        self._cancel = threading.Event()
        self._debounce = None
        self._watcher = None
        self._theme_errors: list[str] = []
        keys = cfg.get("tui", {}).get("keys") or {}
        if keys:
            self.set_keymap(dict(keys))

    # -- layout ------------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Header()
        yield Input(placeholder="Search memory… (Enter to search now, ctrl+t to tune)", id="query", select_on_focus=False)
        yield Static(id="info")
        with Horizontal(id="main"):
            yield OptionList(id="results", markup=False)
            with Vertical(id="detail"):
                with VerticalScroll(id="preview-box"):
                    yield Static(Text("Type to search. Results explain their scores here.", style="dim"), id="preview")
                yield Static(id="breakdown")
            yield TuningPanel(self.params, self.default_params, id="tuning")
        yield Footer()

    def on_mount(self) -> None:
        # Sync and search run in threads; a shorter GIL switch interval (default 5 ms) hands the
        # event loop its turn sooner, so typing stays smooth while a long sync runs.
        sys.setswitchinterval(0.001)
        themes, errors = discover_themes(self.theme_dirs)
        for theme in themes:
            self.register_theme(theme)
        for error in errors:
            self.notify(safe(error, False) + " — using the built-in themes", severity="error", markup=False, timeout=8)
        wanted = self.cfg.get("tui", {}).get("theme") or "memtui-dark"
        self.theme = wanted if wanted in self.available_themes else "memtui-dark"
        self.sub_title = safe(str(self.index.settings.workspace), one_line=True) + (f"  [{safe(self.origin, one_line=True)}]" if self.origin else "")
        for binding_id in (self.cfg.get("tui", {}).get("keys") or {}):
            if binding_id not in self._binding_ids():
                self.notify(f"tui.keys: no binding with id '{safe(binding_id, one_line=True)}'", severity="warning", markup=False)
        for notice in self.index.notices:
            self.notify(safe(notice, False), severity="warning", markup=False, timeout=10)
        if self.enable_watch:
            self._start_watcher()
        self.query_one("#query", Input).focus()
        if self.initial_query:
            self.query_one("#query", Input).value = self.initial_query
        try:
            needs_sync = self.index.is_empty() or self.index.is_dirty()
        except Exception as exc:  # a locked or unreadable index: say so, let a sync try to repair it
            self.notify(f"Index check failed: {safe(describe(exc), False)}", severity="error", markup=False)
            needs_sync = True
        if needs_sync:
            self.action_sync()
        elif self.initial_query:
            self.start_search()
        self._update_info()

    def _binding_ids(self) -> set[str]:
        ids = {b.id for b in self.BINDINGS if isinstance(b, Binding) and b.id}
        for screen_cls in (SyncScreen, FileScreen, HelpScreen):
            ids |= {b.id for b in screen_cls.BINDINGS if isinstance(b, Binding) and b.id}
        return ids

    def now_ms(self) -> float:
        return self.fixed_now_ms if self.fixed_now_ms is not None else time.time() * 1000

    # -- search ----------------------------------------------------------------------------------
    @on(Input.Changed, "#query")
    def _query_changed(self, event: Input.Changed) -> None:
        if self._debounce is not None:
            self._debounce.stop()
        self._debounce = self.set_timer(SEARCH_DEBOUNCE_S, self.start_search)

    @on(Input.Submitted, "#query")
    def _query_submitted(self, event: Input.Submitted) -> None:
        if self._debounce is not None:
            self._debounce.stop()
        self.start_search()
        if self.results:
            self.query_one("#results", OptionList).focus()

    def start_search(self) -> None:
        query = self.query_one("#query", Input).value
        self.search_generation += 1
        if not query.strip():
            self.pool, self.results = None, []
            self._fill_results()
            return
        self.searches_started += 1
        time_aware = query.strip() != self.time_disabled_query
        self._search_worker(query, self.search_generation, time_aware)

    @work(thread=True, exclusive=True, group="search", exit_on_error=False)
    def _search_worker(self, query: str, generation: int, time_aware: bool = True) -> None:
        try:
            pool = self.index.retrieve(query, pool_size=self.pool_size, keyword_mode=self.keyword_mode, now_ms=self.now_ms(),
                                       time_aware=time_aware)
        except Exception as exc:  # DB locked, file vanished: say it in one line, keep working
            self.post_message(SearchFailed(generation, describe(exc)))
            return
        self.post_message(SearchDone(generation, pool))

    @_skip_when_torn_down
    def on_search_done(self, message: SearchDone) -> None:
        if message.generation != self.search_generation:
            return  # a newer query is on its way; drop this stale answer
        self.pool = message.pool
        self.moves = {}
        self.rerank(track_moves=False)

    def on_search_failed(self, message: SearchFailed) -> None:
        if message.generation == self.search_generation:
            self.notify(f"Search failed: {safe(message.error, False)}", severity="error", markup=False)

    def rerank(self, track_moves: bool = True) -> None:
        """Rank the cached pool with the current parameters. Never touches the database."""
        if self.pool is None:
            return
        started = time.perf_counter()
        previous = {r.id: r.rank for r in self.results}
        self.results = rank(self.pool, self.params)
        if track_moves:
            self.moves = {r.id: (previous[r.id] - r.rank if r.id in previous else None) for r in self.results}
        self._fill_results()
        self.rerank_ms = (time.perf_counter() - started) * 1000

    @_skip_when_torn_down
    def _fill_results(self) -> None:
        listing = self.query_one("#results", OptionList)
        highlighted = listing.highlighted
        selected_id = self.results[highlighted].id if highlighted is not None and highlighted < len(self.results) else None
        listing.clear_options()
        options = []
        width = max(20, listing.scrollable_content_region.width - 1)
        for r in self.results:
            head = Text()
            head.append(f"#{r.rank:<2} ", style="bold")
            move = self.moves.get(r.id, 0)
            if move is None:
                head.append("new ", style="bold cyan")
            elif move > 0:
                head.append(f"▲{move:<2} ", style="bold green")
            elif move < 0:
                head.append(f"▼{-move:<2} ", style="bold red")
            head.append(f"{r.score:.3f} ", style="bold")
            head.append(safe(f"{r.path}:{r.start_line}-{r.end_line}", one_line=True))
            age = "evergreen" if r.age_days is None else f"{r.age_days:.0f}d old"
            snippet = safe(" ".join(r.snippet.split()), False)
            tail = Text(f"    {r.source} · {age} · {snippet}", style="dim")
            head.truncate(width, overflow="ellipsis")
            tail.truncate(width, overflow="ellipsis")
            options.append(Option(Text("\n").join([head, tail]), id=r.id))
        listing.add_options(options)
        if self.results:
            ids = [r.id for r in self.results]
            listing.highlighted = ids.index(selected_id) if selected_id in ids else 0
        self._show_selected()
        self._update_info()

    def on_resize(self) -> None:
        if self.results:
            self.call_after_refresh(self._fill_results)

    @on(OptionList.OptionHighlighted, "#results")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._show_selected()

    def selected(self) -> Result | None:
        idx = self.query_one("#results", OptionList).highlighted
        return self.results[idx] if idx is not None and 0 <= idx < len(self.results) else None

    @_skip_when_torn_down
    def _show_selected(self) -> None:
        result = self.selected()
        preview = self.query_one("#preview", Static)
        breakdown = self.query_one("#breakdown", Static)
        if result is None:
            query = self.query_one("#query", Input).value.strip()
            preview.update(Text("No matches." if query and self.pool is not None else "Type to search.", style="dim"))
            breakdown.update("")
            return
        text = Text(safe(f"{result.path}  lines {result.start_line}-{result.end_line}  [{result.source}]", one_line=True) + "\n\n",
                    style="bold")
        body = Text(safe(result.snippet))
        highlight_terms(body, self.pool.query if self.pool else "")
        text.append_text(body)
        preview.update(text)
        breakdown.update(breakdown_text(result, self.params, self.pool.mode if self.pool else "hybrid",
                                        breakdown.content_region.width or 70, self.pool.time_window if self.pool else None))

    @on(OptionList.OptionSelected, "#results")
    def _open_file(self, event: OptionList.OptionSelected) -> None:
        result = self.selected()
        if result is None:
            return
        from ..engine.sync import read_indexed_file

        settings = self.index.settings
        self.push_screen(FileScreen(lambda: read_indexed_file(settings, result.path, result.source), result.path,
                                    result.start_line, result.end_line, result.source))

    @_skip_when_torn_down
    def _update_info(self) -> None:
        parts = []
        if self.pool is not None and self.pool.time_window is not None:
            w = self.pool.time_window.to_dict()
            parts.append(f"time window “{w['text']}” {w['start']} → {w['end']} ({self.params.time_mode}; f3 ignores it)")
        if self.pool is not None:
            mode = {"hybrid": "hybrid", "keyword": "keywords only", "vector": "vectors only"}[self.pool.mode]
            parts.append(f"{len(self.results)} of {len(self.pool.candidates)} candidates · {mode}")
            parts.extend(self.pool.warnings)
        if self.sync_running and self.sync_progress is not None:
            p = self.sync_progress
            parts.append(f"syncing {p.phase} {p.done}/{p.total}")
        elif self.dirty:
            parts.append("changes waiting to sync")
        self.query_one("#info", Static).update(Text(safe(" · ".join(parts), False)))

    # -- tuning ----------------------------------------------------------------------------------
    def on_tuning_panel_params_changed(self, message: TuningPanel.ParamsChanged) -> None:
        self.params = message.params
        self.rerank()

    def action_toggle_tuning(self) -> None:
        panel = self.query_one("#tuning", TuningPanel)
        panel.toggle_class("visible")
        if panel.has_class("visible"):
            panel.query_one("Slider").focus()
        else:
            self.query_one("#query", Input).focus()

    def action_clear_time_window(self) -> None:
        if self.pool is None or self.pool.time_window is None:
            self.notify("This query has no time window", markup=False, timeout=2)
            return
        self.time_disabled_query = self.query_one("#query", Input).value.strip()
        self.notify(f"Ignoring “{safe(self.pool.time_window.text, False)}” for this query", markup=False, timeout=3)
        self.start_search()

    def apply_preset(self, name: str) -> None:
        self.query_one("#tuning", TuningPanel).apply(PRESETS[name])

    def action_save_settings(self) -> None:
        from ..paths import default_config_path
        from ..settings_io import save_to_config

        path = self.config_path or default_config_path()
        try:
            backup = save_to_config(self.params, path)
        except Exception as exc:
            self.notify(f"Could not save settings: {safe(describe(exc), False)}", severity="error", markup=False)
            return
        note = f" (backup {backup.name})" if backup else ""
        self.notify(safe(f"Saved search settings to {path}{note}", one_line=True), markup=False)

    def _openclaw_layout(self) -> str:
        """The layout of the OpenClaw this export is for: the agent's, else the installed one's."""
        agent = getattr(self.index, "openclaw_agent", None)
        if agent is not None:
            return agent.layout
        from ..interop.agents import OpenClawError, load_installation

        try:
            return load_installation().layout
        except OpenClawError:
            return "legacy"

    def action_export_settings(self) -> None:
        from ..interop.export import build_export
        from ..paths import config_dir

        export = build_export(self.params, self._openclaw_layout(), self.pool_size)  # type: ignore[arg-type]
        text = export.to_json()
        name = "openclaw-memory.search.json" if export.layout == "2026.9" else "openclaw-memorySearch.json"
        target = config_dir() / name
        try:
            from ..engine.store import make_private_dirs

            make_private_dirs(target.parent)  # the config dir may hold an API key: 0700 when we create it
            target.write_text(text + "\n", encoding="utf-8")
        except OSError as exc:
            self.notify(f"Could not export: {safe(describe(exc), False)}", severity="error", markup=False)
            return
        self.copy_to_clipboard(text)
        block = "memory.search.query" if export.layout == "2026.9" else "memorySearch.query"
        self.notify(safe(f"Exported {block} to {target} and the clipboard", one_line=True), markup=False)
        if export.not_exported:
            self.notify(safe("This OpenClaw takes only maxResults and minScore; not exported: "
                             + "; ".join(export.not_exported), one_line=True), severity="warning", markup=False, timeout=8)

    # -- sync ------------------------------------------------------------------------------------
    def action_sync(self, force: bool = False) -> None:
        if self.sync_running:
            self.sync_again = True
            return
        self.sync_running = True
        self._cancel = threading.Event()
        self.notify("Sync started", markup=False, timeout=2)
        self._sync_worker(force)
        self._update_info()

    def action_cancel_sync(self) -> None:
        if self.sync_running:
            self._cancel.set()
            self.notify("Cancelling sync…", markup=False, timeout=2)
        else:
            self.notify("No sync is running", markup=False, timeout=2)

    @work(thread=True, group="sync", exit_on_error=False)
    def _sync_worker(self, force: bool) -> None:
        _lower_this_thread_priority()
        last = {"phase": "", "at": 0.0}

        def progress(p: SyncProgress) -> None:
            # Throttle to ~20 messages a second (and every phase change): a 10,000-file sync must
            # not flood the event loop with one message per file.
            now = time.monotonic()
            if p.phase != last["phase"] or now - last["at"] > 0.05 or p.phase == "done":
                last["phase"], last["at"] = p.phase, now
                self.post_message(SyncProgressed(p))

        try:
            report = self.index.sync(force=force, progress=progress, cancel=self._cancel)
        except Exception as exc:
            self.post_message(SyncFinished(None, describe(exc)))
            return
        self.post_message(SyncFinished(report))

    @_skip_when_torn_down
    def on_sync_progressed(self, message: SyncProgressed) -> None:
        first_embed = message.progress.phase == "embed" and getattr(self.sync_progress, "phase", "") != "embed"
        self.sync_progress = message.progress
        if first_embed and self.query_one("#query", Input).value.strip():
            self.start_search()  # keyword rows are committed: show results while vectors fill in
        self._update_info()

    @_skip_when_torn_down
    def on_sync_finished(self, message: SyncFinished) -> None:
        self.sync_running = False
        self.sync_progress = None
        if message.error:
            self.notify(f"Sync failed: {safe(message.error, False)}", severity="error", markup=False, timeout=8)
        elif message.report is not None:
            r = message.report
            self.last_report = r
            self.dirty = False
            if r.cancelled:
                self.notify("Sync cancelled; what was written is kept", severity="warning", markup=False)
            else:
                text = f"Sync finished: {r.files_indexed} indexed, {r.files_removed} removed, {r.chunks_embedded} embedded"
                if r.embed_error:
                    self.notify(f"{text}. Embeddings failed: {safe(r.embed_error, False)} — keyword search still works",
                                severity="warning", markup=False, timeout=8)
                else:
                    self.notify(text, markup=False, timeout=3)
            if self.query_one("#query", Input).value.strip():
                self.start_search()
        if isinstance(self.screen, SyncScreen):
            self.screen.refresh_status()
        self._update_info()
        if self.sync_again:
            self.sync_again = False
            self.action_sync()

    # -- watcher -----------------------------------------------------------------------------
    def _start_watcher(self) -> None:
        from ..engine.watch import MemoryWatcher

        self._watcher = MemoryWatcher(self.index.settings, lambda paths: self.post_message(FilesChanged(paths)))
        try:
            self._watcher.start()
        except Exception as exc:
            self.notify(f"File watching unavailable: {safe(describe(exc), False)}", severity="warning", markup=False)
        self.index.watcher_state = self._watcher.state

    def watcher_state(self) -> str:
        return self._watcher.state if self._watcher else "off"

    def on_files_changed(self, message: FilesChanged) -> None:
        self.dirty = True
        self.action_sync()

    def on_unmount(self) -> None:
        if self._watcher is not None:
            self._watcher.stop()
        self._cancel.set()

    # -- other actions ---------------------------------------------------------------------------
    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    def action_sync_screen(self) -> None:
        self.push_screen(SyncScreen())

    def action_focus_query(self) -> None:
        self.query_one("#query", Input).focus()

    def action_copy_snippet(self) -> None:
        result = self.selected()
        if result:
            self.copy_to_clipboard(result.snippet)
            self.notify("Snippet copied", markup=False, timeout=2)

    def action_copy_json(self) -> None:
        result = self.selected()
        if result:
            self.copy_to_clipboard(dumps_json(result.to_dict(), indent=2))
            self.notify("Result copied as JSON", markup=False, timeout=2)

    def get_system_commands(self, screen):
        yield from super().get_system_commands(screen)
        yield SystemCommand("Sync now", "Index changed memory files", self.action_sync)
        yield SystemCommand("Full rebuild", "Rebuild the whole index atomically", lambda: self.action_sync(True))
        yield SystemCommand("Cancel sync", "Stop the running sync between batches", self.action_cancel_sync)
        yield SystemCommand("Sync status", "Index, provider, watcher and skipped files", self.action_sync_screen)
        for key, label in PRESET_LABELS.items():
            yield SystemCommand(f"Preset: {label}", "Apply these ranking settings", lambda k=key: self.apply_preset(k))
        yield SystemCommand("Export settings", "memorySearch.query block for openclaw.json", self.action_export_settings)
        yield SystemCommand("Save settings", "Write the tuned settings to the config file", self.action_save_settings)
        yield SystemCommand("Copy snippet", "Copy the selected result's text", self.action_copy_snippet)
        yield SystemCommand("Copy result as JSON", "Copy the selected result with its scores", self.action_copy_json)
