"""Judging on the search screen: marks in the result list, the live metric in the tuning panel, suggested settings.

`Judging` is an object the search screen holds (search_screen.py), not a mixin: its state is its own,
and what it needs of the screen and the app it asks them for. The judged questions are retrieved once,
in a worker, after the launch check and after every sync; a slider move re-ranks every judged pool with
the pure `rank()` in a worker (`Scorer`), the newest move cancelling the one before, so the event loop
only renders the answer. A mark reuses the pool on screen: the question is not retrieved again. Marks
are saved in a worker, newest snapshot wins (`JudgementStore.save`). Its workers run on the screen and
answer it; the screen hands those messages back here.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from ..engine.search.rank import SearchParams
from ..engine.tuning.judgements import Judgement, JudgementStore, Target, Verdict, find, normalize_question, set_verdict
from ..engine.tuning.tuner import Cancelled, JudgedSet, NeedMore, Scorer, Suggestion, retrieve_judged, suggest
from ..errors import describe
from ..render import safe
from .messages import JudgedLoaded, MetricScored, SuggestFinished, WorkProgressed
from .screens.suggest import Chosen, SuggestScreen
from .settings_actions import save_settings
from .state import MetricView, RankedResults
from .widgets.metric import MetricBox
from .widgets.result_list import ResultList
from .widgets.tuning import TuningPanel

if TYPE_CHECKING:
    from .search_screen import MainScreen


class Judging:
    """The judgements, the judged questions' pools and the metric over them, for one search screen."""

    def __init__(self, screen: MainScreen, store: JudgementStore, default_params: SearchParams) -> None:
        self.screen = screen
        self.judgement_store = store
        self.judgements: list[Judgement] = []
        self.unreadable_lines: list[bytes] = []
        self.judgements_read = False  # the store is read once; after that the list in memory is the truth
        self.judged: JudgedSet | None = None
        self.scorer: Scorer | None = None
        self.saved_params: SearchParams = default_params  # the delta in the panel is against these
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
        self._run(partial(self._load_judged, self.judged_generation, None if not self.judgements_read else list(self.judgements),
                          self.judge_snapshot, self._judged_cancel), "judged")

    def reread_judgements_if_changed(self) -> None:
        """Another process wrote the judgements since the app read them (`memtui judgements import`,
        a second app): read them again, so the metric counts them and the next mark keeps them."""
        if self.judgements_read and self.judgement_store.changed_on_disk():
            self.judgements_read = False  # what load_judged would find: said here, so the file is stat-ed once
            self.judged = self.scorer = None  # the panel says it is retrieving them, not the old numbers
            self._show_metric(MetricView(loading="reading the judgements again"))
            self.load_judged()

    def _run(self, work: Callable[[], None], group: str, exclusive: bool = True) -> None:
        """Run `work` in a thread worker on the screen (what `@work` does on a widget's method)."""
        self.screen.run_worker(work, thread=True, exclusive=exclusive, group=group, exit_on_error=False)

    def _load_judged(self, generation: int, judgements: list[Judgement] | None, snapshot: int,
                     cancel: threading.Event) -> None:
        from ..engine.tuning.judgements import Loaded

        loaded = self.judgement_store.load() if judgements is None else Loaded(judgements, self.unreadable_lines)

        def progress(done: int, total: int) -> None:
            self.screen.post_message(WorkProgressed("judged", generation, done, total))

        try:
            judged = retrieve_judged(self.screen.index, loaded.judgements, self.screen.search_request(""), progress=progress,
                                     cancel=cancel)
        except Exception as exc:  # a locked index: said once; the next sync tries again
            self.screen.post_message(JudgedLoaded(generation, snapshot, loaded, None, describe(exc)))
            return
        if judged is not None:  # None: cancelled by a newer load
            self.screen.post_message(JudgedLoaded(generation, snapshot, loaded, judged))

    def on_work_progressed(self, message: WorkProgressed) -> None:
        if message.work == "suggest":
            screen = self._suggest_screen()
            if screen is not None:
                screen.progressed(message.done, message.total)
        elif message.generation == self.judged_generation and self.judged is None:
            self._show_metric(MetricView(loading=f"retrieving {message.done}/{message.total}"))

    def on_judged_loaded(self, message: JudgedLoaded) -> None:
        if message.generation != self.judged_generation:
            return
        if not self.judgements_read:
            self.judgements_read = True
            self.judgements, self.unreadable_lines = message.loaded.judgements, message.loaded.unreadable
            if message.loaded.problem:
                self.screen.notify(safe(message.loaded.problem, False), severity="warning", markup=False, timeout=10)
        if message.judged is None:
            self.screen.notify(f"Judged questions not retrieved: {safe(message.error, False)}", severity="error", markup=False)
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
        self._run(partial(self._score, self.metric_generation, scorer, judged.stale, self.screen.params, self.saved_params,
                          self._metric_cancel), "metric")

    def _score(self, generation: int, scorer: Scorer, stale: int, params: SearchParams, saved: SearchParams,
               cancel: threading.Event) -> None:
        started = time.perf_counter()
        current = scorer.scores(params, cancel)
        saved_scores = scorer.scores(saved, cancel) if current is not None else None
        if current is None or saved_scores is None:
            return  # a newer move cancelled this one
        view = MetricView(judged=current.n, stale=stale, current=current, saved=saved_scores)
        self.screen.post_message(MetricScored(generation, view, (time.perf_counter() - started) * 1000))

    def on_metric_scored(self, message: MetricScored) -> None:
        if message.generation == self.metric_generation:
            self.metric_ms, self.metric_shown = message.ms, message.generation
            self._show_metric(message.view)

    def _show_metric(self, view: MetricView) -> None:
        self.metric_view = view
        self.screen.query_one(MetricBox).view = view

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
        self.screen.query_one(ResultList).marks = self.marks_for(self.screen.ranked)

    def action_mark(self, verdict: str) -> None:
        """Judge the highlighted result for the query on screen: 'relevant', 'not_relevant' or '' (clear)."""
        result, pool = self.screen.selected(), self.screen.ranked.pool
        if result is None or pool is None or not pool.query:  # a browsed entry answers no question
            self.screen.notify("Search, then pick a result to judge", markup=False, timeout=2)
            return
        if not self.judgements_read:  # a mark now would be saved over the judgements not read yet
            self.screen.notify("The stored judgements are still being read; mark again in a moment", markup=False, timeout=3)
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
        self._run(partial(self._save_judgements, list(self.judgements), list(self.unreadable_lines), self.judge_snapshot),
                  "judgements-save", exclusive=False)
        judgement = find(self.judgements, question)
        if self.judged is not None:
            qid = judgement.qid if judgement is not None else next(
                (p.qid for p in self.judged.pools if normalize_question(p.question) == question), "")
            # f3: the pool on screen ignored the time words, a judged one does not; reread: new questions
            if reread or self.screen.time_ignored():
                self.load_judged()
            else:
                self.judged = self.judged.with_question(qid, judgement, pool)
                self.scorer = Scorer(self.judged.pools)
        self.show_marks()
        self.rescore()

    def _save_judgements(self, judgements: list[Judgement], unreadable: list[bytes], snapshot: int) -> None:
        try:
            self.judgement_store.save(judgements, unreadable, snapshot)
        except Exception as exc:  # any failure, not only OSError: a worker's error is otherwise silent
            self.screen.app.call_from_thread(self.screen.notify, f"Could not save the judgement: {safe(describe(exc), False)}",
                                             severity="error", markup=False)

    # -- saving and suggesting settings ---------------------------------------------------------------
    def save_tuned(self, params: SearchParams) -> None:
        """Save to the config; the panel's delta is then against these, and Reset goes back to them."""
        outcome = save_settings(params, self.screen.memtui.config_path, self.screen.memtui.agent)
        self.screen.memtui.tell(outcome)
        if all(t.severity != "error" for t in outcome.toasts):
            self.saved_params = params
            self.screen.query_one(TuningPanel).defaults = params
            self.rescore()

    def action_suggest_settings(self) -> None:
        if self.judged is None:
            self.screen.notify("The judged questions are still being retrieved; try again in a moment", markup=False)
            return
        self._suggest_cancel.set()
        self._suggest_cancel = threading.Event()
        self.screen.app.push_screen(SuggestScreen(self._suggest_cancel), self.chosen)
        self._run(partial(self._suggest, list(self.judged.pools), self.screen.params, self._suggest_cancel), "suggest")

    def _suggest(self, pools: list[Any], params: SearchParams, cancel: threading.Event) -> None:
        def progress(done: int, total: int) -> None:
            self.screen.post_message(WorkProgressed("suggest", 0, done, total))

        try:
            found: Suggestion | NeedMore = suggest(pools, params, cancel=cancel, progress=progress)
        except Cancelled:
            return
        except Exception as exc:
            self.screen.post_message(SuggestFinished(None, describe(exc)))
            return
        self.screen.post_message(SuggestFinished(found))

    def _suggest_screen(self) -> SuggestScreen | None:
        return next((s for s in self.screen.app.screen_stack if isinstance(s, SuggestScreen)), None)

    def on_suggest_finished(self, message: SuggestFinished) -> None:
        screen = self._suggest_screen()
        if screen is not None:
            screen.finished(message.result, message.error)

    def chosen(self, message: Chosen | None) -> None:
        """The Suggest screen closed: apply (and save) the settings picked there, if any."""
        if message is None:
            return
        self.screen.query_one("#tuning", TuningPanel).apply(message.params)
        if message.save:
            self.save_tuned(message.params)
        else:
            self.screen.notify("Suggested settings applied (Save keeps them)", markup=False, timeout=3)
