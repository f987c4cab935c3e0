"""Judging in the app: marks in the result list, the live metric in the tuning panel, suggested settings.

Mixed into `MemtuiApp` (app.py stays the wiring). The judged questions are retrieved once, in a
worker, after the launch check and after every sync; a slider move re-ranks every judged pool with
the pure `rank()` in a worker (`Scorer`), the newest move cancelling the one before, so the event
loop only renders the answer. A mark reuses the pool on screen: the question is not retrieved again.
Marks are saved in a worker, newest snapshot wins (`JudgementStore.save`).
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import work

from ..engine.search.rank import SearchParams
from ..engine.tuning.judgements import Judgement, JudgementStore, Target, Verdict, find, normalize_question, set_verdict
from ..engine.tuning.tuner import Cancelled, JudgedSet, NeedMore, Scorer, Suggestion, retrieve_judged, suggest
from ..errors import describe
from ..render import safe
from .messages import JudgedLoaded, MetricScored, SuggestFinished, WorkProgressed
from .screens.suggest import SuggestScreen
from .settings_actions import save_settings
from .state import MetricView, RankedResults
from .teardown import skip_when_torn_down
from .widgets.metric import MetricBox
from .widgets.result_list import ResultList
from .widgets.tuning import TuningPanel

if TYPE_CHECKING:
    from textual.app import App

    from ..engine.index import MemoryIndex
    from ..engine.search.rank import Result
    from ..engine.search.request import SearchRequest
    from ..interop.agents import Agent
    from .settings_actions import Outcome

    class _App(App[None]):
        """What this mixin uses of MemtuiApp (app.py), for the type checker."""

        index: MemoryIndex
        params: SearchParams
        default_params: SearchParams
        pool_size: int
        config_path: Path | None
        agent: Agent | None
        ranked: RankedResults

        def now_ms(self) -> float: ...
        def search_request(self, query: str) -> SearchRequest: ...
        def selected(self) -> Result | None: ...
        def _time_ignored(self) -> bool: ...
        def _tell(self, outcome: Outcome) -> None: ...
else:
    _App = object


class JudgingMixin(_App):
    def init_judging(self, store: JudgementStore) -> None:
        self.judgement_store = store
        self.judgements: list[Judgement] = []
        self.unreadable_lines: list[bytes] = []
        self.judgements_read = False  # the store is read once; after that the list in memory is the truth
        self.judged: JudgedSet | None = None
        self.scorer: Scorer | None = None
        self.saved_params: SearchParams = self.default_params  # the delta in the panel is against these
        self.judged_generation = 0
        self.metric_generation = 0
        self.judge_snapshot = 0
        self.metric_ms = 0.0  # the last move's re-rank of every judged pool: what bench/tui.py reads
        self.metric_shown = 0  # the generation of the metric on screen
        self.metric_view = MetricView(loading="waiting for the index")
        self._metric_cancel = threading.Event()
        self._suggest_cancel = threading.Event()
        self._judged_cancel = threading.Event()

    # -- the judged questions, retrieved once ---------------------------------------------------
    def load_judged(self) -> None:
        """(Re)retrieve every judged question: at launch and after each sync (the pools changed)."""
        if self.judgements_read and self.judgement_store.changed_on_disk():
            self.judgements_read = False  # `memtui judgements import` rewrote the file: read it again
        self.judged_generation += 1
        self._judged_cancel.set()  # a retrieval still running for an older sync stops between questions
        self._judged_cancel = threading.Event()
        self._load_judged(self.judged_generation, None if not self.judgements_read else list(self.judgements),
                          self.judge_snapshot, self._judged_cancel)

    def reread_judgements_if_changed(self) -> None:
        """Another process wrote the judgements since the app read them (`memtui judgements import`,
        a second app): read them again, so the metric counts them and the next mark keeps them."""
        if self.judgements_read and self.judgement_store.changed_on_disk():
            self.judgements_read = False  # what load_judged would find: said here, so the file is stat-ed once
            self.judged = self.scorer = None  # the panel says it is retrieving them, not the old numbers
            self._show_metric(MetricView(loading="reading the judgements again"))
            self.load_judged()

    @work(thread=True, exclusive=True, group="judged", exit_on_error=False)
    def _load_judged(self, generation: int, judgements: list[Judgement] | None, snapshot: int,
                     cancel: threading.Event) -> None:
        from ..engine.tuning.judgements import Loaded

        loaded = self.judgement_store.load() if judgements is None else Loaded(judgements, self.unreadable_lines)

        def progress(done: int, total: int) -> None:
            self.post_message(WorkProgressed("judged", generation, done, total))

        try:
            judged = retrieve_judged(self.index, loaded.judgements, self.search_request(""), progress=progress,
                                     cancel=cancel)
        except Exception as exc:  # a locked index: said once; the next sync tries again
            self.post_message(JudgedLoaded(generation, snapshot, loaded, None, describe(exc)))
            return
        if judged is not None:  # None: cancelled by a newer load
            self.post_message(JudgedLoaded(generation, snapshot, loaded, judged))

    @skip_when_torn_down
    def on_work_progressed(self, message: WorkProgressed) -> None:
        if message.work == "suggest":
            screen = self._suggest_screen()
            if screen is not None:
                screen.progressed(message.done, message.total)
        elif message.generation == self.judged_generation and self.judged is None:
            self._show_metric(MetricView(loading=f"retrieving {message.done}/{message.total}"))

    @skip_when_torn_down
    def on_judged_loaded(self, message: JudgedLoaded) -> None:
        if message.generation != self.judged_generation:
            return
        if not self.judgements_read:
            self.judgements_read = True
            self.judgements, self.unreadable_lines = message.loaded.judgements, message.loaded.unreadable
            if message.loaded.problem:
                self.notify(safe(message.loaded.problem, False), severity="warning", markup=False, timeout=10)
        if message.judged is None:
            self.notify(f"Judged questions not retrieved: {safe(message.error, False)}", severity="error", markup=False)
            return
        if message.snapshot != self.judge_snapshot:  # marked meanwhile: these pools miss what was just judged
            self.load_judged()
            return
        self.judged = message.judged
        self.scorer = Scorer(message.judged.pools)
        self.show_marks()
        self.rescore()

    # -- the live metric ---------------------------------------------------------------------------
    def rescore(self) -> None:
        """Score the current and the saved setting over every judged pool, off the event loop."""
        judged, scorer = self.judged, self.scorer
        if judged is None or scorer is None:
            return
        self.metric_generation += 1
        self._metric_cancel.set()  # the move before this one is not worth finishing
        self._metric_cancel = threading.Event()
        if not scorer.pools:
            self._show_metric(MetricView(stale=judged.stale))
            return
        self._score(self.metric_generation, scorer, judged.stale, self.params, self.saved_params, self._metric_cancel)

    @work(thread=True, exclusive=True, group="metric", exit_on_error=False)
    def _score(self, generation: int, scorer: Scorer, stale: int, params: SearchParams, saved: SearchParams,
               cancel: threading.Event) -> None:
        started = time.perf_counter()
        current = scorer.scores(params, cancel)
        saved_scores = scorer.scores(saved, cancel) if current is not None else None
        if current is None or saved_scores is None:
            return  # a newer move cancelled this one
        view = MetricView(judged=current.n, stale=stale, current=current, saved=saved_scores)
        self.post_message(MetricScored(generation, view, (time.perf_counter() - started) * 1000))

    @skip_when_torn_down
    def on_metric_scored(self, message: MetricScored) -> None:
        if message.generation == self.metric_generation:
            self.metric_ms, self.metric_shown = message.ms, message.generation
            self._show_metric(message.view)

    def _show_metric(self, view: MetricView) -> None:
        self.metric_view = view
        self.query_one(MetricBox).view = view

    # -- marks ----------------------------------------------------------------------------------------
    def marks_for(self, ranked: RankedResults) -> dict[str, str]:
        """Result id → its mark for the query on screen (see result_list.MARKS)."""
        pool = ranked.pool
        judgement = find(self.judgements, pool.query) if pool is not None else None
        if pool is None or judgement is None:
            return {}
        text = {c.id: c.text for c in pool.candidates}
        marks: dict[str, str] = {}
        for r in ranked.results:
            mark = judgement.mark_of(Target.of_chunk(r.path, r.start_line, r.end_line, text.get(r.id, r.snippet)))
            if mark is not None:
                marks[r.id] = mark
        return marks

    def show_marks(self) -> None:
        self.query_one(ResultList).marks = self.marks_for(self.ranked)

    def action_mark(self, verdict: str) -> None:
        """Judge the highlighted result for the query on screen: 'relevant', 'not_relevant' or '' (clear)."""
        result, pool = self.selected(), self.ranked.pool
        if result is None or pool is None or not pool.query:  # a browsed entry answers no question
            self.notify("Search, then pick a result to judge", markup=False, timeout=2)
            return
        if not self.judgements_read:  # a mark now would be saved over the judgements not read yet
            self.notify("The stored judgements are still being read; mark again in a moment", markup=False, timeout=3)
            return
        # The list in memory is saved whole: read the file again first if another process wrote it,
        # or this save would drop what `memtui judgements import` stored while the app was open
        reread = self.judgement_store.changed_on_disk()
        if reread:
            loaded = self.judgement_store.load()  # one short line per question: read on the spot
            self.judgements, self.unreadable_lines = loaded.judgements, loaded.unreadable
        text = next((c.text for c in pool.candidates if c.id == result.id), result.snippet)
        target = Target.of_chunk(result.path, result.start_line, result.end_line, text)
        question = normalize_question(pool.query)
        chosen: Verdict | None = "relevant" if verdict == "relevant" else "not_relevant" if verdict == "not_relevant" else None
        self.judgements = set_verdict(self.judgements, question, target, chosen)
        self.judge_snapshot += 1
        self._save_judgements(list(self.judgements), list(self.unreadable_lines), self.judge_snapshot)
        judgement = find(self.judgements, question)
        if self.judged is not None:
            qid = judgement.qid if judgement is not None else next(
                (p.qid for p in self.judged.pools if normalize_question(p.question) == question), "")
            # f3: the pool on screen ignored the time words, a judged one does not; reread: new questions
            if reread or self._time_ignored():
                self.load_judged()
            else:
                self.judged = self.judged.with_question(qid, judgement, pool)
                self.scorer = Scorer(self.judged.pools)
        self.show_marks()
        self.rescore()

    @work(thread=True, group="judgements-save", exit_on_error=False)
    def _save_judgements(self, judgements: list[Judgement], unreadable: list[bytes], snapshot: int) -> None:
        try:
            self.judgement_store.save(judgements, unreadable, snapshot)
        except Exception as exc:  # any failure, not only OSError: a worker's error is otherwise silent
            self.call_from_thread(self.notify, f"Could not save the judgement: {safe(describe(exc), False)}",
                                  severity="error", markup=False)

    # -- saving and suggesting settings ---------------------------------------------------------------
    def save_tuned(self, params: SearchParams) -> None:
        """Save to the config; the panel's delta is then against these, and Reset goes back to them."""
        outcome = save_settings(params, self.config_path, self.agent)
        self._tell(outcome)
        if all(t.severity != "error" for t in outcome.toasts):
            self.saved_params = params
            self.query_one(TuningPanel).defaults = params
            self.rescore()

    def action_suggest_settings(self) -> None:
        if self.judged is None:
            self.notify("The judged questions are still being retrieved; try again in a moment", markup=False)
            return
        self._suggest_cancel.set()
        self._suggest_cancel = threading.Event()
        self.push_screen(SuggestScreen(self._suggest_cancel))
        self._suggest(list(self.judged.pools), self.params, self._suggest_cancel)

    @work(thread=True, exclusive=True, group="suggest", exit_on_error=False)
    def _suggest(self, pools: list[Any], params: SearchParams, cancel: threading.Event) -> None:
        def progress(done: int, total: int) -> None:
            self.post_message(WorkProgressed("suggest", 0, done, total))

        try:
            found: Suggestion | NeedMore = suggest(pools, params, cancel=cancel, progress=progress)
        except Cancelled:
            return
        except Exception as exc:
            self.post_message(SuggestFinished(None, describe(exc)))
            return
        self.post_message(SuggestFinished(found))

    def _suggest_screen(self) -> SuggestScreen | None:
        return next((s for s in self.screen_stack if isinstance(s, SuggestScreen)), None)

    def on_suggest_finished(self, message: SuggestFinished) -> None:
        screen = self._suggest_screen()
        if screen is not None:
            screen.finished(message.result, message.error)

    @skip_when_torn_down
    def on_suggest_screen_chosen(self, message: SuggestScreen.Chosen) -> None:
        self.query_one("#tuning", TuningPanel).apply(message.params)
        if message.save:
            self.save_tuned(message.params)
        else:
            self.notify("Suggested settings applied (Save keeps them)", markup=False, timeout=3)
