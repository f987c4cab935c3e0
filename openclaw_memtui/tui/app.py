"""The Textual app: search as you type, explain every score, tune live, watch sync.

The app wires things together and owns the state; widgets render what it sets on them
(`ResultList.ranked`, `DetailPane.shown`, `InfoBar`), panels post typed messages, and every call
into the index runs in a thread worker that answers with a message from `messages.py`.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import events, on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.command import CommandPalette
from textual.containers import Horizontal
from textual.css.query import NoMatches
from textual.keys import format_key
from textual.reactive import reactive
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Header, Input, OptionList

from ..core.config_types import to_tree
from ..core.search import search_request
from ..engine.index import MemoryIndex
from ..engine.models import SyncProgress, SyncReport
from ..engine.search.rank import Pool, Result, SearchParams, rank
from ..engine.search.request import SearchRequest
from ..engine.settings import DEFAULT_SEARCH_PARAMS
from ..errors import crash_report, describe
from ..render import dumps_json, safe
from . import theme_picker
from .agent_searches import AgentSearchesMixin
from .browsing import FILTER_NAMES, READ_AHEAD, BrowsingMixin
from .editor import chosen_editor, editable_path, editor_command, empty_workspace_text
from .judging import JudgingMixin
from .keys import checked_keymap, key_for
from .messages import FileLoaded, FilesChanged, IndexChecked, SearchDone, SearchFailed, SyncFinished, SyncProgressed
from .screens.agent_searches import AgentSearchesScreen
from .screens.file_view import FileScreen, file_title, render_file
from .screens.help import ABOUT, HelpScreen, help_keys
from .screens.suggest import SuggestScreen
from .screens.sync import SyncScreen
from .settings_actions import Outcome, export_settings
from .state import RankedResults, SyncState
from .sync_runner import run_sync
from .teardown import skip_when_torn_down
from .themes import discover_themes
from .widgets.breakdown import score_summary
from .widgets.detail_pane import DetailPane, ShownResult
from .widgets.info_bar import InfoBar
from .widgets.result_list import ResultList
from .widgets.tuning import PRESET_LABELS, PRESETS, TuningPanel

if TYPE_CHECKING:
    from ..core.config_types import AppConfig
    from ..core.session import Session
    from ..engine.embeddings.choice import FallbackRecord
    from ..engine.sync.watch import MemoryWatcher
    from ..engine.tuning.judgements import JudgementStore
    from ..interop.agents import Agent

SEARCH_DEBOUNCE_S = 0.25
VECTORS_FOLLOW = "vectors follow (matrix loading)"
NARROW_COLUMNS = 100  # below this the tuning panel floats over the detail pane
HEADER_SIDES = 20  # the header's icon and clock space on either side of its title, and a margin

def embeds_label(index: MemoryIndex) -> str:
    """Who embeds the notes, for the header: "local" (the offline model), "keywords" (none), or "via" the remote
    provider's name (its fallback once it switched), without creating the provider."""
    name = index.fallback.to_id if index.fallback is not None else index.provider_name
    if name == "none":  # short: at 80 columns the workspace's own name must still fit beside it
        return "keywords"
    return "local" if name == "local" else f"via {name}"


class MainScreen(Screen[None]):
    """The search screen. Under NARROW_COLUMNS it carries `-narrow`: the tuning panel floats over the
    detail pane instead of crushing both panes (app.tcss)."""

    def on_resize(self, event: events.Resize) -> None:
        self.set_class(event.size.width < NARROW_COLUMNS, "-narrow")


class MemtuiApp(JudgingMixin, AgentSearchesMixin, BrowsingMixin, App[None]):
    CSS_PATH = Path(__file__).with_name("app.tcss")  # absolute, so subclasses elsewhere still find it
    TITLE = "memtui"
    BINDINGS = [
        Binding("f1", "help", "Help", id="help"),
        Binding("question_mark", "help", "Help", show=False, id="help_key"),
        Binding("ctrl+t", "toggle_tuning", "Tuning", id="toggle_tuning"),
        Binding("ctrl+r", "sync", "Sync", id="sync"),
        Binding("ctrl+g", "cancel_sync", "Cancel", id="cancel_sync"),  # in the footer only while a sync runs
        Binding("f2", "sync_screen", "Status", id="sync_screen"),
        Binding("ctrl+l", "focus_query", "Query", show=False, id="focus_query"),
        # ctrl+w is Input's delete-word; in the footer only when the query has (or had) a time window
        Binding("f3", "toggle_time_window", "Time words", id="clear_time_window"),
        # ctrl+o: OpenClaw's own searches (f4 is the browse filter)
        Binding("ctrl+o", "agent_searches", "Agent searches", show=False, id="agent_searches"),
        # in the footer only while browsing (empty query): notes and transcripts, notes, transcripts
        Binding("f4", "browse_source", "Source", id="browse_source"),
        Binding("slash", "focus_query", "Query", show=False, id="focus_query_slash"),
        # priority: the query input binds ctrl+e (end of line) and would swallow it
        Binding("ctrl+e", "export_settings", "Export settings", show=False, priority=True, id="export_settings"),
        # priority: also while help or another modal screen is open (Textual's own ctrl+q is too)
        Binding("ctrl+q", "quit", "Quit", priority=True, id="quit"),
    ]

    sync_state: reactive[SyncState] = reactive(SyncState, init=False)

    def __init__(self, index: MemoryIndex, cfg: AppConfig, *, origin: str = "", agent: Agent | None = None,
                 now_ms: float | None = None, config_path: Path | None = None, watch: bool = True,
                 initial_query: str = "", params: SearchParams | None = None,
                 theme_dirs: list[Path] | None = None, judgements: JudgementStore | None = None) -> None:
        super().__init__()
        self.index = index
        self.cfg = cfg
        self.origin = origin
        self.agent = agent  # the OpenClaw agent this workspace belongs to (--agent), if any
        self.fixed_now_ms = now_ms
        self.config_path = config_path
        self._fallback_told: FallbackRecord | None = None  # the provider fallback last toasted
        self.enable_watch = watch
        self.initial_query = initial_query
        self.theme_dirs = theme_dirs
        self.default_params = params or DEFAULT_SEARCH_PARAMS  # as the CLI and the config rank
        self.params = self.default_params
        if judgements is None:
            from ..engine.tuning.judgements import JudgementStore, judgements_path

            judgements = JudgementStore(judgements_path(index.settings.db_path))
        self.init_judging(judgements)  # judging.py: marks, the live metric, suggested settings
        self.init_browsing()  # browsing.py: the memory newest first while the query is empty
        self.pool_size: int = cfg.query.hybrid.candidate_pool
        self.ranked = RankedResults(params=self.params)
        self.search_generation = 0
        self.file_generation = 0
        self.time_disabled_query: str | None = None  # f3: ignore the time words of this query
        self.ignored_window = ""  # ... and the words that were ignored, said in the info bar
        self._focus_results_for = -1  # Enter was pressed: move to the results when this search answers
        self.rerank_ms = 0.0
        self.crash_report = ""  # what stderr says after an unexpected error ended the app (_fatal_error)
        self.sync_again = False
        self._cancel = threading.Event()
        self._debounce: Timer | None = None
        self._watcher: MemoryWatcher | None = None
        keys = cfg.tui.keys
        self._key_errors: list[str] = []
        if keys:
            # a remap that takes another binding's key is refused (ctrl+q for tuning took Quit away)
            palette = Binding(self.COMMAND_PALETTE_BINDING, "command_palette", "Command palette", id="command_palette")
            accepted, self._key_errors = checked_keymap(dict(keys), [*self.BINDINGS, palette], self._binding_scopes())
            self.set_keymap(accepted)
        # Before the app runs: choosing a theme later re-parses every stylesheet (~100 ms at launch)
        self.theme_choice = theme_picker.ThemeChoice(config_path)
        self._theme_errors = self._install_themes()
        # The vector matrix saved beside the index is mapped while Textual starts (mostly a checksum of
        # the file, 0.3-0.7 s at 1M chunks, that releases the GIL), so the first search finds it in memory
        threading.Thread(target=self._map_saved_vectors, name="memtui-map-vectors", daemon=True).start()

    @classmethod
    def from_session(cls, session: Session, **options: Any) -> MemtuiApp:
        """The app over an opened session (see `session.open_session`); `options` as for __init__."""
        options.setdefault("judgements", session.judgements())
        return cls(session.index, session.cfg, origin=session.origin, agent=session.agent, **options)

    # -- what tests, benches and scripts read ---------------------------------------------------
    @property
    def pool(self) -> Pool | None:
        return self.ranked.pool

    @property
    def results(self) -> list[Result]:
        return list(self.ranked.results)

    @property
    def moves(self) -> dict[str, int | None]:
        return self.ranked.moves

    @property
    def sync_running(self) -> bool:
        """True until the launch check answered and while a sync runs."""
        return self.sync_state.busy

    @property
    def sync_progress(self) -> SyncProgress | None:
        return self.sync_state.progress

    @property
    def last_report(self) -> SyncReport | None:
        return self.sync_state.last_report

    # -- layout ------------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Header()
        yield Input(placeholder=f"Search memory… (Enter to search now, {self.key_for('toggle_tuning')} to tune)", id="query",
                    select_on_focus=False)
        yield InfoBar(id="info", time_key=self.key_for("clear_time_window"),
                      browse_key=self.key_for("browse_source")).data_bind(sync=MemtuiApp.sync_state)
        with Horizontal(id="main"):
            yield ResultList(id="results")
            yield DetailPane(id="detail")
            yield TuningPanel(self.params, self.default_params, id="tuning",
                              judge_keys=f"{self.key_for('results.mark_relevant')} / {self.key_for('results.mark_not_relevant')}")
        yield Footer()

    def on_resize(self, event: events.Resize) -> None:
        self._show_workspace(event.size.width)

    def _show_workspace(self, width: int) -> None:
        """The workspace in the header, `~` for home and cut in the middle to fit, so its origin
        (`[demo]`, `[agent main]`) and the folder's own name always show (the header cut the end)."""
        from .widgets.result_list import cut_middle

        origin = f"  [{safe(self.origin, one_line=True)}]" if self.origin else ""
        if self.agent is not None and self.agent.search_disabled:
            origin += "  [OpenClaw memory search off]"  # F2 says why
        elif self.agent is not None and self.agent.connected:
            origin += "  [connected to OpenClaw]"
        origin += f" · {embeds_label(self.index)}"  # which provider sees the notes: offline, or which remote one
        path = str(self.index.settings.workspace)
        home = str(Path.home())
        if path.startswith(home + "/"):
            path = "~" + path[len(home):]
        room = width - HEADER_SIDES - len(f"{self.title} — ") - len(origin)
        self.sub_title = cut_middle(safe(path, one_line=True), max(12, room)) + origin

    def _fatal_error(self) -> None:
        """An unexpected error ends the app as it ends a command: `crash_report` (one scrubbed line, or
        with MEMTUI_DEBUG=1 the scrubbed traceback), which run_tui writes once the terminal is back.
        Textual's own report (this hook is Textual's, and private) is a Rich traceback with every
        frame's locals, printed raw: a key an exception or a provider holds, a note's escape
        sequences; and Rich would wrap or crop the line at the console's width."""
        self.bell()
        error = sys.exc_info()[1] or self._exception  # called while the error is handled
        if error is not None and not self.crash_report:
            self.crash_report = crash_report(error)
        self._close_messages_no_wait()

    def get_default_screen(self) -> Screen[Any]:
        return MainScreen(id="_default")

    def on_mount(self) -> None:
        # Sync and search run in threads; a shorter GIL switch interval (default 5 ms) hands the
        # event loop its turn sooner, so typing stays smooth while a long sync runs.
        sys.setswitchinterval(0.001)
        for error in self._theme_errors:
            self.notify(safe(error, False) + " — using the built-in themes", severity="error", markup=False, timeout=8)
        self._show_workspace(self.size.width)
        for binding_id in self.cfg.tui.keys:
            if binding_id not in self._binding_ids():
                self.notify(f"tui.keys: no binding with id '{safe(binding_id, one_line=True)}'", severity="warning", markup=False)
        for error in self._key_errors:
            self.notify(safe(error, one_line=True), severity="warning", markup=False, timeout=10)
        for notice in self.index.notices:
            self.notify(safe(notice, False), severity="warning", markup=False, timeout=10)
        if self.enable_watch:
            self._start_watcher()
        query = self.query_one("#query", Input)
        query.focus()
        if self.initial_query:
            # searched once the index check answers; its Changed event must not start a second search
            # that would supersede the first (at 1M chunks each costs a vector leg)
            self._initial_value_pending = True
            query.value = self.initial_query
        self._check_index()
        self.load_recalls()  # agent_searches.py: the agent's own searches, OpenClaw's hits marked

    def _install_themes(self) -> list[str]:
        """Register the bundled and user themes, choose the configured one; return the errors to toast."""
        themes, errors = discover_themes(self.theme_dirs)
        for theme in themes:
            self.register_theme(theme)
        wanted = self.cfg.tui.theme or "memtui-dark"
        # the configured theme's own file failing to load is already said: "no theme named" would say it twice
        broken_file = any(error.startswith(f"theme {wanted}.toml:") for error in errors)
        if wanted not in self.available_themes and not broken_file:
            errors.append(f"tui.theme: no theme named '{wanted}'")
        self.theme = wanted if wanted in self.available_themes else "memtui-dark"
        self._saved_theme = self.theme
        return errors

    def watch_theme(self, theme: str) -> None:
        """A theme set outside the picker's preview is kept: written to the config's `tui.theme`."""
        if not self.theme_choice.previewing:
            self._keep_theme(theme)

    def _keep_theme(self, theme: str) -> None:
        saved = getattr(self, "_saved_theme", None)
        if saved is None or theme == saved or not self.is_running:
            return
        self._saved_theme = theme
        self._tell(self.theme_choice.keep(theme))

    def search_themes(self) -> None:
        """The theme picker previews the highlighted theme; only a confirmed one is written (theme_picker.py)."""
        theme_picker.open_picker(self, self.theme_choice)

    def confirm_theme(self, theme: str) -> None:
        self.theme_choice.close()
        self.theme = theme
        self._keep_theme(theme)

    def on_command_palette_option_highlighted(self, event: CommandPalette.OptionHighlighted) -> None:
        theme_picker.previewed(self, self.theme_choice, event)

    def on_command_palette_closed(self, event: CommandPalette.Closed) -> None:
        theme_picker.closed(self, self.theme_choice, event)

    @staticmethod
    def _binding_scopes() -> list[list[Any]]:
        """The bindings of each screen and widget besides the app's own: the ids tui.keys may remap."""
        return [list(cls.BINDINGS) for cls in (SyncScreen, FileScreen, HelpScreen, SuggestScreen, AgentSearchesScreen,
                                                ResultList)]

    def _binding_ids(self) -> set[str]:
        ids = {b.id for b in self.BINDINGS if isinstance(b, Binding) and b.id}
        for scope in self._binding_scopes():  # the result list's too: results.mark_relevant was "no binding with id"
            ids |= {b.id for b in scope if isinstance(b, Binding) and b.id}
        return ids

    def now_ms(self) -> float:
        return self.fixed_now_ms if self.fixed_now_ms is not None else time.time() * 1000

    # -- launch check ------------------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="index-check", exit_on_error=False)
    def _check_index(self) -> None:
        """Empty or stale? Reading every file's stamp takes 160–240 ms at 10k files: not on the event loop."""
        try:
            # unembedded: a sync cancelled or quit while embedding resumes now, not at the next file change
            self.post_message(IndexChecked(self.index.is_empty() or self.index.is_dirty() or self.index.unembedded() > 0))
        except Exception as exc:  # a locked or unreadable index: say so, let a sync try to repair it
            self.post_message(IndexChecked(True, describe(exc)))

    _vectors_warming = False
    _initial_value_pending = False

    def _map_saved_vectors(self) -> None:
        """Map in the vector matrix saved beside the index (a thread started before the app runs);
        without a current one, searches use sqlite-vec until the warm-up after the first results."""
        with contextlib.suppress(Exception):  # a closed or unreadable index: the first search says so
            self.index.map_saved_vectors()

    @work(thread=True, exclusive=True, group="vectors", exit_on_error=False)
    def _warm_up_vectors(self) -> None:
        """Load the in-memory vector matrix (~35 s of wall time at 1M chunks on a loaded machine);
        searches use sqlite-vec until it is there, and after a sync while it reloads."""
        with contextlib.suppress(Exception):  # without it searches keep using sqlite-vec
            self.index.warm_up_vectors()

    def on_index_checked(self, message: IndexChecked) -> None:
        if message.error:
            self.notify(f"Index check failed: {safe(message.error, False)}", severity="error", markup=False)
        if message.needs_sync:
            self.action_sync()  # also ends `checking`; a sync started meanwhile queues one more
        else:
            self.sync_state = replace(self.sync_state, checking=False)
            self.load_judged()
            self.start_search()  # the initial query's results, or the memory newest first

    # -- search ----------------------------------------------------------------------------------
    @on(Input.Changed, "#query")
    def _query_changed(self, event: Input.Changed) -> None:
        if self._initial_value_pending:
            self._initial_value_pending = False
            if event.value == self.initial_query:
                return
        if self._debounce is not None:
            self._debounce.stop()
        self._debounce = self.set_timer(SEARCH_DEBOUNCE_S, self.start_search)

    @on(Input.Submitted, "#query")
    def _query_submitted(self, event: Input.Submitted) -> None:
        if self._debounce is not None:
            self._debounce.stop()
        self.start_search()
        # The results of what was just typed are not here yet: move to them when they are
        self._focus_results_for = self.search_generation

    _search_in_flight = False
    _search_queued = False

    @skip_when_torn_down  # the debounce timer may fire while the app shuts down
    def start_search(self) -> None:
        query = self.query_one("#query", Input).value
        self.search_generation += 1
        if not query.strip():
            self._search_queued = False
            self.start_browse()  # browsing.py: the memory newest first
            return
        if self._search_in_flight:
            # One search at a time, the latest query next: a superseded search cannot be stopped
            # (a sqlite-vec leg takes seconds at 1M chunks), and each one left running held a worker
            # thread of the few Textual shares, so the status screen waited behind them (28 s).
            self._search_queued = True
            return
        self._run_search()

    def search_request(self, query: str) -> SearchRequest:
        """The request `memtui search` and the MCP tool would send for `query` with these settings."""
        return search_request(self.cfg, query, self.params, now_ms=self.now_ms(),
                              time_words=query.strip() != self.time_disabled_query)

    def _run_search(self) -> None:
        self._search_in_flight = True
        self._search(self.search_request(self.query_one("#query", Input).value), self.search_generation)

    def _search_ended(self) -> None:
        self._search_in_flight = False
        if self._search_queued:
            self._search_queued = False
            self._run_search()

    @work(thread=True, exclusive=True, group="search", exit_on_error=False)
    def _search(self, request: SearchRequest, generation: int) -> None:
        try:
            if self.index.vectors_pending():
                # the vector leg waits for sqlite-vec (seconds at 1M chunks) until the matrix is in memory:
                # keyword results first (tens of ms), the hybrid ranking replaces them when it is ready
                quick = self.index.pool_for(replace(request, use_vectors=False))
                quick.warnings.append(VECTORS_FOLLOW)
                self.post_message(SearchDone(generation, quick, partial=True))
            pool = self.index.pool_for(request)
        except Exception as exc:  # DB locked, file vanished: say it in one line, keep working
            self.post_message(SearchFailed(generation, describe(exc)))
            return
        self.post_message(SearchDone(generation, pool))

    def on_search_done(self, message: SearchDone) -> None:
        if not message.partial:
            self._search_ended()
        if message.generation != self.search_generation:
            return  # a newer query is on its way; drop this stale answer
        self.ranked = RankedResults(pool=message.pool, params=self.params)
        self.rerank(track_moves=False)
        if message.partial:
            return
        # a failing query embedding may have switched to the fallback, whose vectors the next sync builds
        self._tell_fallback(f" — sync ({self.key_for('sync')}) to build its vectors" if message.pool.mode != "hybrid" else "")
        if message.pool.mode == "hybrid" and not self._vectors_warming:
            self._vectors_warming = True
            self._warm_up_vectors()  # after the first results: loading 1M vectors must not delay them
        if message.generation == self._focus_results_for and self.ranked.results and isinstance(self.screen.focused, Input):
            self.query_one(ResultList).focus()

    def on_search_failed(self, message: SearchFailed) -> None:
        self._search_ended()
        if message.generation == self.search_generation:
            self.notify(f"Search failed: {safe(message.error, False)}", severity="error", markup=False)

    def rerank(self, track_moves: bool = True) -> None:
        """Rank the cached pool with the current parameters. Never touches the database."""
        pool = self.ranked.pool
        if pool is None or self.ranked.browsing:  # browsing lists by date: no score to rank by
            return
        started = time.perf_counter()
        results = self.with_openclaw_hits(pool, tuple(rank(pool, self.params)), self.params)
        moves: dict[str, int | None] = {}
        if track_moves:
            previous = {r.id: r.rank for r in self.ranked.results}
            moves = {r.id: (previous[r.id] - r.rank if r.id in previous else None) for r in results}
        self._show_ranking(RankedResults(pool, results, self.params, moves))
        self.rerank_ms = (time.perf_counter() - started) * 1000

    @skip_when_torn_down
    def _show_ranking(self, ranked: RankedResults) -> None:
        self.ranked = ranked
        listing = self.query_one(ResultList)
        listing.set_reactive(ResultList.marks, self.marks_for(ranked))  # drawn with the ranking, not after it
        listing.set_reactive(ResultList.openclaw, self.openclaw_marks(ranked))
        listing.ranked = ranked
        info = self.query_one(InfoBar)
        info.ignored_window = self.ignored_window if self._time_ignored() else ""
        info.browse_filter = FILTER_NAMES[self.browse_filter]
        info.ranked = ranked
        self._show_selected()
        self._refresh_footer()  # f3 shows in the footer only with a time window

    @skip_when_torn_down
    def _show_selected(self) -> None:
        detail = self.query_one(DetailPane)
        result, pool = self.selected(), self.ranked.pool
        if result is None or pool is None:
            query = self.query_one("#query", Input).value.strip()
            detail.placeholder = self._no_result_text(query, pool)
            detail.shown = None
        else:
            detail.shown = ShownResult(result, self.ranked.params, pool, self.openclaw_hit(result, pool))
        windowed = pool is not None and pool.time_window is not None
        shown = None if self.ranked.browsing else result
        self.query_one("#tuning", TuningPanel).show_score(score_summary(shown, self.ranked.params, windowed=windowed))

    def _no_result_text(self, query: str, pool: Pool | None) -> str:
        if not query and pool is not None and pool.mode == "browse":
            report = self.sync_state.last_report
            if report is not None and report.files_total == 0:
                return empty_workspace_text(self.index.settings)
            if self.sync_state.busy:
                return "Indexing the memory… it lists here, newest first, as it is read."
            return "Nothing to list for this filter. Type to search."
        if not query or pool is None:
            return "Type to search."
        if not pool.candidates:
            if self.sync_state.last_report is not None and self.sync_state.last_report.files_total == 0:
                return empty_workspace_text(self.index.settings)
            return "No matches."
        below = rank(pool, replace(self.ranked.params, min_score=0.0, max_results=3))
        if not below:
            return "No matches."
        lines = [f"No matches above minScore {self.ranked.params.min_score:.2f}. Best hits below it:", ""]
        lines += [f"  {r.score:.3f}  {safe(r.path, one_line=True)}:{r.start_line}-{r.end_line}" for r in below]
        lines += ["", f"Lower minScore in the tuning panel ({self.key_for('toggle_tuning')}) to list them."]
        return "\n".join(lines)


    @on(OptionList.OptionHighlighted, "#results")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        lists = self.query(ResultList)
        if not lists:  # a highlight still queued while the app shuts down and its widgets are gone
            return
        self._show_selected()
        if self.ranked.browsing and lists.first().entries_below < READ_AHEAD:
            self.browse_more()

    def selected(self) -> Result | None:
        return self.query_one(ResultList).selected

    # -- the whole file ------------------------------------------------------------------------
    @on(OptionList.OptionSelected, "#results")
    def _open_file(self, event: OptionList.OptionSelected) -> None:
        result = self.selected()
        if result is not None:
            self.file_generation += 1
            self._load_file(result, self.file_generation)

    @work(thread=True, exclusive=True, group="file", exit_on_error=False)
    def _load_file(self, result: Result, generation: int) -> None:
        """A transcript may be read from OpenClaw's database, and a long file takes a while to render."""
        from ..engine.ingest.reading import flatten_transcript, read_indexed_file

        settings = self.index.settings
        body, row = render_file(lambda: read_indexed_file(settings, result.path, result.source), result.path,
                                result.start_line, result.end_line, result.source,
                                lambda raw: flatten_transcript(raw, settings))
        self.post_message(FileLoaded(generation, file_title(result), body, row))

    def on_file_loaded(self, message: FileLoaded) -> None:
        if message.generation == self.file_generation and not isinstance(self.screen, FileScreen):
            self.push_screen(FileScreen(message.heading, message.body, message.scroll_to_row))

    # -- tuning ----------------------------------------------------------------------------------
    def on_tuning_panel_params_changed(self, message: TuningPanel.ParamsChanged) -> None:
        words_were_read = self.params.time_mode != "off"
        self.params = message.params
        self.rerank()
        if (self.params.time_mode != "off") != words_were_read and self.query_one("#query", Input).value.strip():
            self.start_search()  # time words on or off is another search ("last week" as words or as a window)
        self.rescore()  # the judged metric, also with no query on screen

    def on_tuning_panel_save_requested(self, message: TuningPanel.SaveRequested) -> None:
        self.save_tuned(message.params)

    def on_tuning_panel_export_requested(self, message: TuningPanel.ExportRequested) -> None:
        self.export_tuned(message.params)

    def action_toggle_tuning(self) -> None:
        panel = self.query_one("#tuning", TuningPanel)
        panel.toggle_class("visible")
        if panel.has_class("visible"):
            panel.query_one("Slider").focus()
            self.reread_judgements_if_changed()  # imported since the app read them: the metric counts them
        else:
            self.query_one("#query", Input).focus()

    def _time_ignored(self) -> bool:
        return self.time_disabled_query is not None and self.time_disabled_query == self.query_one("#query", Input).value.strip()

    def action_toggle_time_window(self) -> None:
        """f3: ignore the time words of this query, or use them again."""
        if self._time_ignored():
            self.time_disabled_query = None
            self.notify(f"Using “{safe(self.ignored_window, False)}” again", markup=False, timeout=3)
            self.start_search()
            return
        pool = self.ranked.pool
        if pool is None or pool.time_window is None:
            self.notify("This query has no time window", markup=False, timeout=2)
            return
        self.time_disabled_query = self.query_one("#query", Input).value.strip()
        self.ignored_window = pool.time_window.text
        again = self.key_for("clear_time_window")
        self.notify(f"Ignoring “{safe(pool.time_window.text, False)}” for this query ({again} again uses it)", markup=False,
                    timeout=3)
        self.start_search()

    action_clear_time_window = action_toggle_time_window  # the name it had: scripts and keymaps may use it

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Keep the footer to what applies now: it must fit 80 columns."""
        main = self.screen is self.screen_stack[0] if self.screen_stack else True
        if action == "cancel_sync":
            return self.sync_state.running
        if action == "toggle_time_window":
            pool = self.ranked.pool
            return main and ((pool is not None and pool.time_window is not None) or self._time_ignored_safe())
        if action in ("toggle_tuning", "focus_query", "sync_screen", "agent_searches"):
            return main
        if action == "browse_source":
            return main and self.ranked.browsing
        return True

    def _refresh_footer(self) -> None:
        if self.screen_stack:  # none left while the app shuts down
            self.refresh_bindings()

    def _time_ignored_safe(self) -> bool:
        try:
            return self._time_ignored()
        except NoMatches:
            return False

    def apply_preset(self, name: str) -> None:
        self.query_one("#tuning", TuningPanel).apply(PRESETS[name])

    def action_save_settings(self) -> None:
        self.save_tuned(self.params)

    def deliver_screenshot(self, filename: str | None = None, path: str | None = None,
                           time_format: str | None = None) -> str | None:
        """The palette's Screenshot (and action_screenshot), saved where it can be (tui/screenshot.py)
        and said in a toast: Textual's own fails without ~/Downloads. Returns the file's path."""
        from datetime import datetime

        from .screenshot import save_screenshot, screenshot_folder

        try:
            folder = Path(path) if path else screenshot_folder()
            name = filename or f"{self.title} {datetime.now().strftime(time_format or '%Y-%m-%dT%H_%M_%S')}.svg"
            saved = save_screenshot(self.export_screenshot(), folder, name)
        except OSError as exc:
            self.notify(f"Screenshot not saved: {describe(exc)}", severity="error", markup=False)
            return None
        self.notify(f"Screenshot saved to {safe(str(saved), one_line=True)}", markup=False, timeout=6)
        return str(saved)

    def action_export_settings(self) -> None:
        self.export_tuned(self.params)

    def export_tuned(self, params: SearchParams) -> None:
        self._tell(export_settings(params, self.agent, self.pool_size, to_tree(self.cfg.query.keyword)))

    def _tell(self, outcome: Outcome) -> None:
        if outcome.clipboard is not None:
            self.copy_to_clipboard(outcome.clipboard)
        for toast in outcome.toasts:
            self.notify(toast.text, severity=toast.severity, timeout=toast.timeout, markup=False)

    # -- sync ------------------------------------------------------------------------------------
    def action_sync(self, force: bool = False) -> None:
        if self.sync_state.running:
            self.sync_again = True
            return
        self._cancel = threading.Event()
        self.sync_state = replace(self.sync_state, checking=False, running=True)
        self.notify("Sync started", markup=False, timeout=2)
        self._sync(force)

    def action_cancel_sync(self) -> None:
        if self.sync_state.running:
            self._cancel.set()
            self.notify("Cancelling sync…", markup=False, timeout=2)
        else:
            self.notify("No sync is running", markup=False, timeout=2)

    # Not exclusive: `SyncState.running` already keeps it to one at a time, and cancelling a thread
    # worker would only mark it, not stop it (the cancel event does that between batches).
    @work(thread=True, group="sync", exit_on_error=False)
    def _sync(self, force: bool) -> None:
        run_sync(self.index, force, self._cancel, self.post_message)

    def watch_sync_state(self, state: SyncState) -> None:
        self._refresh_footer()  # "Cancel" shows in the footer while a sync runs
        for screen in self.screen_stack:
            if isinstance(screen, SyncScreen):
                screen.sync_state = state

    @skip_when_torn_down
    def on_sync_progressed(self, message: SyncProgressed) -> None:
        previous = self.sync_state.progress
        self.sync_state = self.sync_state.advanced(message.progress, time.monotonic())
        first_embed = message.progress.phase == "embed" and (previous is None or previous.phase != "embed")
        if first_embed:
            self.start_search()  # keyword rows are committed: show results (or browse them) while vectors fill in

    @skip_when_torn_down
    def on_sync_finished(self, message: SyncFinished) -> None:
        report = message.report
        if message.error:
            self.notify(f"Sync failed: {safe(message.error, False)}", severity="error", markup=False, timeout=8)
            self.sync_state = replace(self.sync_state, running=False, progress=None)
        elif report is not None:
            # A cancelled sync left files or vectors behind: still dirty (the status screen says what)
            self.sync_state = replace(self.sync_state, running=False, progress=None, last_report=report,
                                      dirty=report.cancelled)
            self._tell_sync_report(report)
            self._tell_fallback()
            self.load_judged()  # the judged questions' pools (and their targets' text) may have changed
            self.load_recalls()
            self.start_search()  # or browse again: entries were added or changed
        if self.sync_again:
            self.sync_again = False
            self.action_sync()

    def _tell_fallback(self, hint: str = "") -> None:
        """One toast when the index switches to the fallback provider; the status screen keeps showing it."""
        record = self.index.fallback
        if record == self._fallback_told:
            return
        self._fallback_told = record
        if record is not None:
            self.notify(safe(f"{record.line()} — now {record.to_id} ({record.model}){hint}", one_line=True),
                        severity="warning", markup=False, timeout=10)

    def _tell_sync_report(self, r: SyncReport) -> None:
        if r.cancelled:
            self.notify("Sync cancelled; what was written is kept", severity="warning", markup=False)
            return
        text = f"Sync finished: {r.files_indexed} indexed, {r.files_removed} removed, {r.chunks_embedded} embedded"
        if r.embed_error:
            self.notify(f"{text}. Embeddings failed: {safe(r.embed_error, False)} — keyword search still works",
                        severity="warning", markup=False, timeout=8)
        else:
            self.notify(text, markup=False, timeout=3)

    # -- watcher -----------------------------------------------------------------------------
    def _start_watcher(self) -> None:
        from ..engine.sync.watch import MemoryWatcher

        def changed(paths: set[str]) -> None:  # called on the watcher's thread: post_message is thread-safe
            self.post_message(FilesChanged(paths))

        self._watcher = MemoryWatcher(self.index.settings, changed)
        try:
            self._watcher.start()
        except Exception as exc:
            self.notify(f"File watching unavailable: {safe(describe(exc), False)}", severity="warning", markup=False)
        self.sync_state = replace(self.sync_state, watcher=self._watcher.state)

    def on_files_changed(self, message: FilesChanged) -> None:
        self.sync_state = replace(self.sync_state, dirty=True)
        self.action_sync()

    def on_unmount(self) -> None:
        if self._watcher is not None:
            self._watcher.stop()
        self._cancel.set()

    # -- other actions ---------------------------------------------------------------------------
    async def action_quit(self) -> None:
        """Quit now. A sync stops between batches only, and the exit waits for the batch it is embedding
        (seconds with the local model) after the screen is gone: the terminal sat blank meanwhile, so
        say what it is waiting for. Vectors not embedded yet are built at the next start."""
        if not self.sync_state.running:
            self.exit()
            return
        self._cancel.set()
        self.exit(message=Text("memtui: finishing the sync's current batch before quitting; the rest resumes at the next start"))

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            return
        # every binding of the screen, the focused widget and the app (not only those that apply this
        # moment), and the result list's keys even while the query has the focus
        bindings = [b for _, keys in self.screen._modal_binding_chain for _, b in keys]
        with contextlib.suppress(NoMatches):
            bindings += [b for _, b in self.query_one(ResultList)._bindings]
        about = ABOUT.format(tune=self.key_for("toggle_tuning"), export=self.key_for("export_settings"),
                             time_words=self.key_for("clear_time_window"),
                             palette=format_key(self.COMMAND_PALETTE_BINDING), relevant=self.key_for("results.mark_relevant"),
                             not_relevant=self.key_for("results.mark_not_relevant"),
                             clear_mark=self.key_for("results.clear_mark"), edit=self.key_for("results.edit"),
                             copy=self.key_for("results.copy"), copy_json=self.key_for("results.copy_json"))
        keys = help_keys(bindings, self.get_key_display) + [(format_key(self.COMMAND_PALETTE_BINDING), "Command palette")]
        self.push_screen(HelpScreen(keys, about))

    def key_for(self, binding_id: str) -> str:
        """The first key of the binding `binding_id` (the app's or the result list's) after the config's
        remap (tui.keys), spelled for prose (`ctrl+t`, `f5`, `+`), so text that names a key names the
        one that works."""
        return key_for(self, (*self.BINDINGS, *ResultList.BINDINGS), binding_id)

    def action_sync_screen(self) -> None:
        """Open the status screen at once; it reads its counts in a worker as it mounts (~25 ms at 1M
        chunks), so the read and the screen's compose overlap instead of running one after the other."""
        if any(isinstance(s, SyncScreen) for s in self.screen_stack):
            # one status screen (f2 f2); asked from a screen over it (the palette's "Sync status" on help): back to it
            while not isinstance(self.screen, SyncScreen):
                self.pop_screen()
            return
        self.push_screen(SyncScreen(self.index, self.origin, self.agent, self.sync_state))

    def action_focus_query(self) -> None:
        self.query_one("#query", Input).focus()

    def action_open_in_editor(self) -> None:
        """Open the selected result in $VISUAL / $EDITOR at its first line; the app comes back after."""
        result = self.selected()
        if result is None:
            self._nothing_selected("open")
            return
        target = editable_path(self.index.settings, result.path, result.source)
        if target is None:
            self.notify("This result is not a file on disk (a transcript kept in OpenClaw's database)",
                        severity="warning", markup=False)
            return
        variable, editor = chosen_editor()
        shown = safe(repr(editor), one_line=True)
        try:
            command = editor_command(editor, target, result.start_line)
        except ValueError as exc:  # shlex: an unbalanced quote
            self.notify(f"${variable} {shown} cannot be split into a command ({exc}): fix its quotes", severity="error",
                        markup=False)
            return
        try:
            code = self.run_editor(command)
        except Exception as exc:  # not found, not executable, no terminal to suspend to: the app is back either way
            self.notify(f"Could not run the editor {shown} (${variable}): {safe(describe(exc), False)}; "
                        "set $VISUAL or $EDITOR to an editor on your PATH", severity="error", markup=False)
            return
        if code:
            how = f"was stopped by signal {-code}" if code < 0 else f"exited with status {code}"
            self.notify(safe(f"The editor {editor!r} (${variable}) {how}", one_line=True), severity="warning",
                        markup=False)
        self._check_index()  # an edit shows in the results once synced (the watcher may be off)

    def run_editor(self, command: list[str]) -> int:
        """Run the editor in the terminal, the app suspended meanwhile; its exit status.

        A failure is caught inside `suspend()` and raised again after it: raised through it, Textual
        never resumed application mode and the terminal stayed dead (a bad $EDITOR)."""
        import subprocess

        failure: BaseException | None = None
        code = 0
        with self.suspend():
            try:
                code = subprocess.run(command, check=False).returncode
            except KeyboardInterrupt:  # Ctrl-C reaches this process too while the editor runs
                code = -2
            except Exception as exc:
                failure = exc
        if failure is not None:
            raise failure
        return code

    def _nothing_selected(self, verb: str) -> None:
        """The palette offers copy and edit with no result on screen: say why nothing happened."""
        self.notify(f"No result to {verb}: search, then pick one in the list", markup=False, timeout=3)

    def action_copy_snippet(self) -> None:
        result = self.selected()
        if result is None:
            self._nothing_selected("copy")
            return
        self.copy_to_clipboard(result.snippet)
        self.notify("Snippet copied", markup=False, timeout=2)

    def action_copy_json(self) -> None:
        result = self.selected()
        if result is None:
            self._nothing_selected("copy")
            return
        self.copy_to_clipboard(dumps_json(result.to_dict(), indent=2))
        self.notify("Result copied as JSON", markup=False, timeout=2)

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand("Sync now", "Index changed memory files", self.action_sync)
        yield SystemCommand("Full rebuild", "Rebuild the whole index atomically", lambda: self.action_sync(True))
        yield SystemCommand("Cancel sync", "Stop the running sync between batches", self.action_cancel_sync)
        yield SystemCommand("Sync status", "Index, provider, watcher and skipped files", self.action_sync_screen)
        for key, label in PRESET_LABELS.items():
            yield SystemCommand(f"Preset: {label}", "Apply these ranking settings", lambda k=key: self.apply_preset(k))
        yield SystemCommand("Export settings", "memorySearch.query block for openclaw.json", self.action_export_settings)
        yield SystemCommand("Save settings", "Write the tuned settings to the config file", self.action_save_settings)
        yield SystemCommand("Agent searches", "The agent's own memory searches: judge what OpenClaw gave it",
                            self.action_agent_searches)
        yield SystemCommand("Suggest settings", "Search settings on your judged questions (cross-validated)",
                            self.action_suggest_settings)
        yield SystemCommand("Copy snippet", "Copy the selected result's text", self.action_copy_snippet)
        yield SystemCommand("Copy result as JSON", "Copy the selected result with its scores", self.action_copy_json)
