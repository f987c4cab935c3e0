"""The search screen: the query, the results, the detail and score panes, the tuning panel.

It owns what is on it and the keys that act on it (tuning, time words, source, filter, agent searches,
copy, edit, judge): the query's debounce and search worker (which search runs and which answer counts:
search_controller.py, without Textual), reranking as the sliders move, the selected result, the whole file
and the time words (f3). Its other work is in objects it holds: browsing (`Browsing`), the result filter
(`Narrowing`), transcript titles (`SessionTitles`), the agent's searches (`AgentSearches`) and judging
(`Judging`); their workers run on this screen and answer it. The app keeps what is app-wide (the index,
the config, themes, sync and the watcher); this screen follows the app's sync state, which says when the
index changed, and searches again then.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, cast

from textual import events, on, work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Header, Input, OptionList
from textual.worker import Worker

from ..core.caller import Caller
from ..core.config_types import to_tree
from ..core.history import QueryHistory, history_path
from ..core.search import search_request
from ..engine.search.rank import Pool, Result, SearchParams, rank
from ..engine.search.request import SearchRequest
from ..errors import describe
from ..paths import data_dir
from ..render import dumps_json, safe
from .agent_searches import AgentSearches, RecallsLoaded
from .browsing import FILTER_NAMES, READ_AHEAD, Browsing
from .clipboard import copy_and_tell
from .editor import empty_workspace_text, open_in_editor
from .judging import Judging
from .messages import (
    BrowseLoaded,
    FileLoaded,
    JudgedLoaded,
    MetricScored,
    SearchDone,
    SearchFailed,
    SuggestFinished,
    WorkProgressed,
)
from .narrowing import NARROWING_BINDINGS, Narrowing, narrowed
from .screens.file_view import FileScreen, file_title, load_body
from .search_controller import SearchController
from .session_titles import SessionTitles, TitlesLoaded
from .settings_actions import export_settings
from .state import RankedResults, SyncState
from .teardown import skip_when_torn_down
from .widgets.breakdown import score_summary
from .widgets.context_footer import ContextFooter
from .widgets.detail_pane import DetailPane, ShownResult
from .widgets.info_bar import InfoBar
from .widgets.query_input import HistoryInput
from .widgets.result_list import ResultList
from .widgets.tuning import PRESET_LABELS, PRESETS, TuningPanel

if TYPE_CHECKING:
    from ..engine.index import MemoryIndex
    from ..engine.tuning.judgements import JudgementStore
    from .app import MemtuiApp

SEARCH_DEBOUNCE_S = 0.25
VECTORS_FOLLOW = "vectors follow (matrix loading)"
VECTORS_FOLLOW_QUERY = "vectors follow (embedding the query)"
NARROW_COLUMNS = 100  # below this the tuning panel floats over the detail pane


class MainScreen(Screen[None]):
    """The search screen. Under NARROW_COLUMNS it carries `-narrow`: the tuning panel floats over the
    detail pane instead of crushing both panes (app.tcss)."""

    BINDINGS = [
        Binding("ctrl+t", "toggle_tuning", "Tuning", id="toggle_tuning"),
        Binding("ctrl+l", "focus_query", "Query", show=False, id="focus_query"),
        # ctrl+w is Input's delete-word; in the footer only when the query has (or had) a time window
        Binding("f3", "toggle_time_window", "Time words", id="clear_time_window"),
        # ctrl+o: OpenClaw's own searches (f4 is the browse filter)
        Binding("ctrl+o", "agent_searches", "Agent searches", show=False, id="agent_searches"),
        # notes and transcripts, notes, transcripts: what browsing lists (empty query), or the results shown
        Binding("f4", "browse_source", "Source", id="browse_source"),
        Binding("slash", "focus_query", "Query", show=False, id="focus_query_slash"),
        *NARROWING_BINDINGS,  # ctrl+f filter, f7 sort (narrowing.py)
    ]

    def __init__(self, params: SearchParams, judgements: JudgementStore, default_params: SearchParams) -> None:
        super().__init__(id="_default")
        self.params = params
        self.searches = SearchController(params)  # the queue, the generations and the ranking on screen
        self.judging = Judging(self, judgements, default_params)  # marks, the live metric, suggested settings
        self.browsing = Browsing(self)  # the memory newest first while the query is empty
        self.narrowing = Narrowing(self)  # source, dates, path and sort over the ranked results
        self.titles = SessionTitles(self)  # transcripts named by their first user line
        self.recalls = AgentSearches(self)  # the agent's own searches, OpenClaw's hits marked
        self.file_generation = 0
        self.ignored_window = ""  # the time words f3 ignores, said in the info bar
        self.rerank_ms = 0.0
        self._debounce: Timer | None = None
        self._vectors_warming = False
        self._initial_value_pending = False

    @property
    def memtui(self) -> MemtuiApp:
        return cast("MemtuiApp", self.app)

    @property
    def index(self) -> MemoryIndex:
        return self.memtui.index

    @property
    def ranked(self) -> RankedResults:
        return self.searches.ranked

    @property
    def search_generation(self) -> int:
        return self.searches.generation

    @property
    def pool(self) -> Pool | None:
        return self.ranked.pool

    @property
    def results(self) -> list[Result]:
        return list(self.ranked.results)

    @property
    def moves(self) -> dict[str, int | None]:
        return self.ranked.moves

    def now_ms(self) -> float:
        return self.memtui.now_ms()

    # -- layout ------------------------------------------------------------------------------------
    def widgets(self) -> ComposeResult:
        """The search UI. The app's compose mounts it into this, its default screen, as Textual does
        for an app's widgets: they exist before the app's on_mount runs (composed by the screen
        itself they came after, and an error there left Textual's own warnings on stderr)."""
        app = self.memtui
        yield Header()
        yield HistoryInput(placeholder=f"Search memory… (Enter to search now, {app.key_for('toggle_tuning')} to tune, "
                         f"{app.key_for('help')} or ? for help)", id="query", select_on_focus=False)
        yield InfoBar(id="info", time_key=app.key_for("clear_time_window"), browse_key=app.key_for("browse_source"))
        with Horizontal(id="main"):
            yield ResultList(id="results")
            yield DetailPane(id="detail")
            yield TuningPanel(self.params, app.default_params, id="tuning",
                              judge_keys=f"{app.key_for('results.mark_relevant')} / {app.key_for('results.mark_not_relevant')}")
        yield ContextFooter()

    def on_resize(self, event: events.Resize) -> None:
        self.set_class(event.size.width < NARROW_COLUMNS, "-narrow")

    def on_mount(self) -> None:
        # the sync's state and what runs in the background are the app's: this screen follows them
        self.watch(self.app, "sync_state", self._sync_state_changed)
        info = self.query_one(InfoBar)
        self.watch(self.app, "working", lambda working: setattr(info, "working", working))
        query = self.query_one("#query", HistoryInput)
        query.history = QueryHistory(history_path(data_dir()))  # core/history.py: up / down in the box
        query.focus()
        app = self.memtui
        if app.initial_query:
            # searched once the index check answers; its Changed event must not start a second search
            # that would supersede the first (at 1M chunks each costs a vector leg)
            self._initial_value_pending = True
            query.value = app.initial_query
        app.syncs.check_index()  # its answer changes the sync state: _sync_state_changed searches
        self.recalls.load()  # agent_searches.py: the agent's own searches, OpenClaw's hits marked

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        self.memtui.refresh_working()  # this screen's workers report here, not to the app

    def _sync_state_changed(self, old: SyncState, new: SyncState) -> None:
        """The app's sync state changed (a reactive this screen watches): the info bar shows it, and when it
        says the index changed (checked, keyword rows in, synced), what depends on the index is read again
        and the query searched (or the memory browsed) again, in this same step."""
        self.query_one(InfoBar).sync = new
        if new.index_changes == old.index_changes:
            return
        if new.index_change != "rows":
            self.judging.load_judged()  # the judged questions' pools (and their targets' text) may have changed
        if new.index_change == "synced":
            self.recalls.load()
        self.start_search()  # the initial query's results, or the memory newest first; entries were added or changed

    # -- search ----------------------------------------------------------------------------------
    @on(Input.Changed, "#query")
    def _query_changed(self, event: Input.Changed) -> None:
        if self._initial_value_pending:
            self._initial_value_pending = False
            if event.value == self.memtui.initial_query:
                return
        if self._debounce is not None:
            self._debounce.stop()
        self._debounce = self.set_timer(SEARCH_DEBOUNCE_S, self._debounced_search)

    def _debounced_search(self) -> None:
        self._debounce = None
        self.start_search()

    @on(Input.Submitted, "#query")
    def _query_submitted(self, event: Input.Submitted) -> None:
        if self._debounce is not None:
            self._debounce.stop()
            self._debounce = None
        self.start_search()
        # The results of what was just typed are not here yet: move to them when they are
        self.searches.focus_when_answered()

    @property
    def search_settled(self) -> bool:
        """No search scheduled (a typed query's debounce), running or queued: the results stay as they are
        until something new happens (what a test awaits rather than a pause)."""
        return self._debounce is None and not self.searches.in_flight and not self.searches.queued

    @skip_when_torn_down  # the debounce timer may fire while the app shuts down
    def start_search(self) -> None:
        """Search for the query (one search at a time, the newest next: search_controller.py), or browse."""
        call = self.searches.start(self.query_one("#query", Input).value)
        if call == "browse":
            self.browsing.start()  # browsing.py: the memory newest first
        elif call is not None:
            self._search(self.search_request(call.query, call.time_words), call.generation)

    def search_request(self, query: str, time_words: bool | None = None) -> SearchRequest:
        """The request `memtui search` and the MCP tool would send for `query` with these settings
        (its time words read unless f3 ignores them for this query)."""
        if time_words is None:
            time_words = query.strip() != self.searches.time_disabled_query
        return search_request(self.memtui.cfg, query, self.params, now_ms=self.now_ms(), time_words=time_words)

    def _search_ended(self) -> None:
        call = self.searches.ended(lambda: self.query_one("#query", Input).value)
        if call is not None:
            self._search(self.search_request(call.query, call.time_words), call.generation)

    @work(thread=True, exclusive=True, group="search", exit_on_error=False)
    def _search(self, request: SearchRequest, generation: int) -> None:
        index, gate = self.memtui.index, self.memtui.gate
        caller = Caller("tui", self.memtui.agent.id if self.memtui.agent is not None else None)
        try:
            # every pool passes the gate (core/gate.py): forgotten sessions out, texts and paths masked.
            # Keyword results first (milliseconds) whenever the vector leg would keep them waiting, the
            # hybrid ranking re-ranks them in place when it is ready: the query's vector is not at hand
            # (the model still loading, a remote provider's round trip), or the vector leg waits for
            # sqlite-vec (seconds at 1M chunks) until the matrix is in memory
            follow = "" if not request.use_vectors else (
                VECTORS_FOLLOW_QUERY if not index.query_vector_ready() else VECTORS_FOLLOW if index.vectors_pending() else "")
            if follow:
                quick = gate.pool(caller, index.pool_for(replace(request, use_vectors=False))).pool
                quick.warnings.append(follow)
                self.post_message(SearchDone(generation, quick, partial=True))
            pool = gate.pool(caller, index.pool_for(request)).pool
        except Exception as exc:  # DB locked, file vanished: say it in one line, keep working
            self.post_message(SearchFailed(generation, describe(exc)))
            return
        self.post_message(SearchDone(generation, pool))

    def on_search_done(self, message: SearchDone) -> None:
        if not message.partial:
            self._search_ended()
        started = time.perf_counter()
        ranked = self.searches.answered(message.generation, message.pool, self.params, self.recalls.with_openclaw_hits,
                                        partial=message.partial)
        if ranked is None:
            return  # a newer query is on its way; drop this stale answer
        self.show_ranking(ranked)
        self.rerank_ms = (time.perf_counter() - started) * 1000
        if message.partial:
            return
        app = self.memtui
        # a failing query embedding may have switched to the fallback, whose vectors the next sync builds
        app.syncs.tell_fallback(f" — sync ({app.key_for('sync')}) to build its vectors" if message.pool.mode != "hybrid" else "")
        if message.pool.mode == "hybrid" and not self._vectors_warming:
            self._vectors_warming = True
            self._warm_up_vectors()  # after the first results: loading 1M vectors must not delay them
        if (self.searches.focuses(message.generation) and self.ranked.results and app.screen is self
                and isinstance(self.focused, Input)):
            self.query_one(ResultList).focus()

    def on_search_failed(self, message: SearchFailed) -> None:
        self._search_ended()
        if self.searches.is_current(message.generation):
            self.notify(f"Search failed: {safe(message.error, False)}", severity="error", markup=False)

    @work(thread=True, exclusive=True, group="vectors", exit_on_error=False)
    def _warm_up_vectors(self) -> None:
        """Load the in-memory vector matrix (~35 s of wall time at 1M chunks on a loaded machine);
        searches use sqlite-vec until it is there, and after a sync while it reloads."""
        with contextlib.suppress(Exception):  # without it searches keep using sqlite-vec
            self.index.warm_up_vectors()

    def rerank(self, track_moves: bool = True) -> None:
        """Rank the cached pool with the current parameters. Never touches the database."""
        started = time.perf_counter()
        ranked = self.searches.rerank(self.params, self.recalls.with_openclaw_hits, track_moves)
        if ranked is not None:
            self.show_ranking(ranked)
            self.rerank_ms = (time.perf_counter() - started) * 1000

    @skip_when_torn_down
    def show_ranking(self, ranked: RankedResults) -> None:
        self.searches.ranked = ranked
        ranked = narrowed(ranked, self.narrowing.filter, self.now_ms())  # what the list shows (narrowing.py)
        self.titles.want(ranked)
        listing = self.query_one(ResultList)
        listing.set_reactive(ResultList.marks, self.judging.marks_for(ranked))  # drawn with the ranking, not after it
        listing.set_reactive(ResultList.openclaw, self.recalls.openclaw_marks(ranked))
        listing.ranked = ranked
        info = self.query_one(InfoBar)
        info.ignored_window = self.ignored_window if self.time_ignored() else ""
        info.browse_filter = FILTER_NAMES[self.browsing.filter]
        info.narrowing = "" if ranked.browsing else self.narrowing.filter.describe()
        info.ranked = ranked
        self._show_selected()
        self.refresh_bindings()  # f3 shows in the footer only with a time window

    @skip_when_torn_down
    def _show_selected(self) -> None:
        detail = self.query_one(DetailPane)
        result, pool = self.selected(), self.ranked.pool
        if result is None or pool is None:
            query = self.query_one("#query", Input).value.strip()
            detail.placeholder = self._no_result_text(query, pool)
            detail.shown = None
        else:
            detail.shown = ShownResult(result, self.ranked.params, pool, self.recalls.openclaw_hit(result, pool))
        windowed = pool is not None and pool.time_window is not None
        shown = None if self.ranked.browsing else result
        self.query_one("#tuning", TuningPanel).show_score(score_summary(shown, self.ranked.params, windowed=windowed))

    def _no_result_text(self, query: str, pool: Pool | None) -> str:
        settings, sync = self.memtui.index.settings, self.memtui.sync_state
        report = sync.last_report
        if not query and pool is not None and pool.mode == "browse":
            if report is not None and report.files_total == 0:
                return empty_workspace_text(settings)
            if sync.busy:
                return "Indexing the memory… it lists here, newest first, as it is read."
            return "Nothing to list for this filter. Type to search."
        if not query or pool is None:
            return "Type to search."
        if not pool.candidates:
            if report is not None and report.files_total == 0:
                return empty_workspace_text(settings)
            return "No matches."
        below = rank(pool, replace(self.ranked.params, min_score=0.0, max_results=3))
        if not below:
            return "No matches."
        lines = [f"No matches above minScore {self.ranked.params.min_score:.2f}. Best hits below it:", ""]
        lines += [f"  {r.score:.3f}  {safe(r.path, one_line=True)}:{r.start_line}-{r.end_line}" for r in below]
        lines += ["", f"Lower minScore in the tuning panel ({self.memtui.key_for('toggle_tuning')}) to list them."]
        return "\n".join(lines)

    @on(OptionList.OptionHighlighted, "#results")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        lists = self.query(ResultList)
        if not lists:  # a highlight still queued while the app shuts down and its widgets are gone
            return
        self._show_selected()
        if self.ranked.browsing and lists.first().entries_below < READ_AHEAD:
            self.browsing.more()

    def selected(self) -> Result | None:
        return self.query_one(ResultList).selected

    def nothing_selected(self, verb: str) -> None:
        """The palette offers copy and edit with no result on screen: say why nothing happened."""
        self.notify(f"No result to {verb}: search, then pick one in the list", markup=False, timeout=3)

    def action_copy_snippet(self) -> None:
        result = self.selected()
        if result is None:
            self.nothing_selected("copy")
            return
        copy_and_tell(self.app, result.snippet, "Snippet")  # where it went, or that it went nowhere

    def action_copy_json(self) -> None:
        result = self.selected()
        if result is None:
            self.nothing_selected("copy")
            return
        copy_and_tell(self.app, dumps_json(result.to_dict(), indent=2), "Result as JSON")

    def action_open_in_editor(self) -> None:
        """Open the selected result in $VISUAL / $EDITOR at its first line; the app comes back after."""
        if open_in_editor(self.memtui, self, self.selected()):
            self.memtui.syncs.check_index()  # an edit shows in the results once synced (the watcher may be off)

    def action_mark(self, verdict: str) -> None:
        self.judging.action_mark(verdict)

    def action_suggest_settings(self) -> None:
        self.judging.action_suggest_settings()

    def action_save_settings(self) -> None:
        self.judging.save_tuned(self.params)

    def export_tuned(self, params: SearchParams) -> None:
        app = self.memtui
        app.tell(export_settings(params, app.agent, app.cfg.query.hybrid.candidate_pool, to_tree(app.cfg.query.keyword)))

    def action_agent_searches(self) -> None:
        self.recalls.open()

    def search_for(self, query: str | None) -> None:
        """Search `query` here (picked on the Agent searches screen), moving to its results when they come."""
        if not query:
            return
        box = self.query_one("#query", Input)
        self.searches.focus_when_answered(self.search_generation + 1)  # the search the change starts
        if box.value == query:
            self.start_search()
        box.value = query

    def action_focus_query(self) -> None:
        self.query_one("#query").focus()

    def action_browse_source(self) -> None:
        """Cycle what browsing lists (notes and transcripts, notes only, transcripts only), or while searching
        what the result list shows (narrowing.py)."""
        if self.ranked.browsing:
            self.browsing.next_filter()
        else:
            self.narrowing.cycle_source()

    def action_filter_results(self) -> None:
        self.narrowing.open_filter()

    def action_sort_results(self) -> None:
        self.narrowing.next_sort()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Keep the footer to what applies now: it must fit 80 columns. f3 only with a time window."""
        if action == "toggle_time_window":
            pool = self.ranked.pool
            return (pool is not None and pool.time_window is not None) or self._time_ignored_safe()
        return True

    def _time_ignored_safe(self) -> bool:
        try:
            return self.time_ignored()
        except NoMatches:
            return False

    def system_commands(self) -> Iterable[SystemCommand]:
        """This screen's commands in the palette (the app lists them beside its own)."""
        keyed = self.memtui.keyed_help
        for key, label in PRESET_LABELS.items():
            yield SystemCommand(f"Preset: {label}", "Apply these ranking settings", lambda k=key: self.apply_preset(k))
        yield SystemCommand("Export settings", keyed("memorySearch.query block for openclaw.json", "export_settings"),
                            self.memtui.action_export_settings)
        yield SystemCommand("Save settings", "Write the tuned settings to the config file", self.action_save_settings)
        yield SystemCommand("Agent searches", keyed("The agent's own memory searches: judge what OpenClaw gave it",
                                                    "agent_searches"), self.action_agent_searches)
        yield SystemCommand("Suggest settings", "Search settings on your judged questions (cross-validated); "
                            "also the tuning panel's Suggest button", self.action_suggest_settings)
        yield SystemCommand("Copy snippet", keyed("Copy the selected result's text", "results.copy"),
                            self.action_copy_snippet)
        yield SystemCommand("Copy result as JSON", keyed("Copy the selected result with its scores", "results.copy_json"),
                            self.action_copy_json)

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
        self.post_message(FileLoaded(generation, file_title(result), load_body(self.memtui.index, result),
                                     result))

    def on_file_loaded(self, message: FileLoaded) -> None:
        if message.generation == self.file_generation and not isinstance(self.app.screen, FileScreen):
            self.app.push_screen(FileScreen(message.heading, message.body, message.result, self.memtui.index))

    # -- tuning ----------------------------------------------------------------------------------
    def on_tuning_panel_params_changed(self, message: TuningPanel.ParamsChanged) -> None:
        words_were_read = self.params.time_mode != "off"
        self.params = message.params
        self.rerank()
        if (self.params.time_mode != "off") != words_were_read and self.query_one("#query", Input).value.strip():
            self.start_search()  # time words on or off is another search ("last week" as words or as a window)
        self.judging.rescore()  # the judged metric, also with no query on screen

    def on_tuning_panel_save_requested(self, message: TuningPanel.SaveRequested) -> None:
        self.judging.save_tuned(message.params)

    def on_tuning_panel_export_requested(self, message: TuningPanel.ExportRequested) -> None:
        self.export_tuned(message.params)

    def on_tuning_panel_suggest_requested(self, message: TuningPanel.SuggestRequested) -> None:
        self.judging.action_suggest_settings()

    def action_toggle_tuning(self) -> None:
        panel = self.query_one("#tuning", TuningPanel)
        panel.toggle_class("visible")
        if panel.has_class("visible"):
            panel.query_one("Slider").focus()
            self.judging.reread_judgements_if_changed()  # imported since the app read them: the metric counts them
        else:
            self.query_one("#query", Input).focus()

    def apply_preset(self, name: str) -> None:
        self.query_one("#tuning", TuningPanel).apply(PRESETS[name])

    def time_ignored(self) -> bool:
        """f3 ignores the time words of the query on screen."""
        return self.searches.time_ignored(self.query_one("#query", Input).value)

    def action_toggle_time_window(self) -> None:
        """f3: ignore the time words of this query, or use them again."""
        if self.time_ignored():
            self.searches.time_disabled_query = None
            self.notify(f"Using “{safe(self.ignored_window, False)}” again", markup=False, timeout=3)
            self.start_search()
            return
        pool = self.ranked.pool
        if pool is None or pool.time_window is None:
            self.notify("This query has no time window", markup=False, timeout=2)
            return
        self.searches.time_disabled_query = self.query_one("#query", Input).value.strip()
        self.ignored_window = pool.time_window.text
        again = self.memtui.key_for("clear_time_window")
        self.notify(f"Ignoring “{safe(pool.time_window.text, False)}” for this query ({again} again uses it)", markup=False,
                    timeout=3)
        self.start_search()

    # -- judging: its workers answer this screen --------------------------------------------------
    @skip_when_torn_down
    def on_work_progressed(self, message: WorkProgressed) -> None:
        self.judging.on_work_progressed(message)

    @skip_when_torn_down
    def on_judged_loaded(self, message: JudgedLoaded) -> None:
        self.judging.on_judged_loaded(message)

    @skip_when_torn_down
    def on_metric_scored(self, message: MetricScored) -> None:
        self.judging.on_metric_scored(message)

    def on_suggest_finished(self, message: SuggestFinished) -> None:
        self.judging.on_suggest_finished(message)

    # -- the held objects' workers answer this screen ---------------------------------------------
    def on_browse_loaded(self, message: BrowseLoaded) -> None:
        self.browsing.loaded(message)

    def on_titles_loaded(self, message: TitlesLoaded) -> None:
        self.titles.loaded(message)

    @skip_when_torn_down
    def on_recalls_loaded(self, message: RecallsLoaded) -> None:
        self.recalls.loaded(message)
