"""The app and the vector matrix: a saved matrix is mapped in at launch (the first search uses it),
one without a saved matrix builds it after its first results and saves it for the next start,
and the initial query is searched once."""

from __future__ import annotations

import pytest

from openclaw_memtui.core.config import validate
from openclaw_memtui.engine.index import MemoryIndex
from openclaw_memtui.engine.vectors import vector
from openclaw_memtui.engine.vectors.matrix_file import matrix_path
from openclaw_memtui.tui.app import VECTORS_FOLLOW

from .app_helpers import NOW_MS, RecordingApp, wait_for
from .test_matrix_file import reopen
from .test_vector_matrix import seeded_index


class CountingIndex(MemoryIndex):
    """Counts the searches the app runs."""

    retrievals: list[str]

    def retrieve(self, query, *args, **kwargs):
        self.retrievals.append(query)
        return super().retrieve(query, *args, **kwargs)


def app_on(index: MemoryIndex, query: str) -> RecordingApp:
    counting = reopen(index)
    counting.__class__ = CountingIndex
    counting.retrievals = []
    return RecordingApp(counting, validate({}), origin="test", now_ms=NOW_MS, watch=False, initial_query=query)


@pytest.fixture
def large(monkeypatch):
    monkeypatch.setattr(vector, "LOAD_INLINE_ROWS", 10)  # 121 vectors count as "large": no inline build


async def test_a_saved_matrix_serves_the_first_search_and_the_initial_query_runs_once(tmp_path, large):
    index = seeded_index(tmp_path)
    index.warm_up_vectors()  # what the last run of the app left
    saved = matrix_path(index.settings.db_path).read_bytes()
    app = app_on(index, "subject 3 detail 10")
    async with app.run_test(size=(100, 30)) as pilot:
        assert await wait_for(pilot, lambda: app.search_screen.pool is not None and app.search_screen.pool.mode == "hybrid"
                              and app.search_screen.results)
        # the initial value's own Changed event schedules no second search: nothing is left to run
        assert await wait_for(pilot, lambda: app.search_screen.search_settled)
        assert app.search_screen.pool.vector_path == "numpy-int8"
        assert app.index.vector_searcher.loaded_from == "file"
        assert app.index.retrievals == ["subject 3 detail 10"]
    assert matrix_path(index.settings.db_path).read_bytes() == saved  # used, not rewritten


async def test_without_a_saved_matrix_the_app_builds_and_saves_one_after_its_first_results(tmp_path, large):
    index = seeded_index(tmp_path)
    path = matrix_path(index.settings.db_path)
    assert not path.exists()
    app = app_on(index, "subject 3 detail 10")
    async with app.run_test(size=(100, 30)) as pilot:
        assert await wait_for(pilot, lambda: app.search_screen.pool is not None and app.search_screen.pool.mode == "hybrid"
                              and app.search_screen.results)
        assert app.search_screen.pool.vector_path == "sqlite-vec"  # nothing to map: the matrix is built after these results
        searcher = app.index.vector_searcher
        assert await wait_for(pilot, lambda: searcher.loaded_from == "sqlite" and path.exists())
    again = app_on(index, "subject 3 detail 10")
    async with again.run_test(size=(100, 30)) as pilot:
        assert await wait_for(pilot, lambda: again.search_screen.pool is not None and again.search_screen.pool.mode == "hybrid"
                              and again.search_screen.results)
        assert again.search_screen.pool.vector_path == "numpy-int8" and again.index.vector_searcher.loaded_from == "file"
        assert [r.path for r in again.search_screen.results] == [r.path for r in app.search_screen.results]


class GatedIndex(CountingIndex):
    """Each search waits for the test to open the gate, and records how many ran at once."""

    def retrieve(self, query, *args, **kwargs):
        with self.counter_lock:
            self.started.append(query)
            self.running += 1
            self.most_at_once = max(self.most_at_once, self.running)
        try:
            self.gate.wait(30)
            return super().retrieve(query, *args, **kwargs)
        finally:
            with self.counter_lock:
                self.running -= 1


async def test_one_search_runs_at_a_time_and_the_latest_query_runs_next(tmp_path):
    """A slow search (sqlite-vec while a 1M matrix loads) is never joined by superseded ones: each
    would hold one of the worker threads the status screen needs too."""
    import threading

    index = seeded_index(tmp_path)
    app = app_on(index, "subject 1")
    gated = app.index
    gated.__class__ = GatedIndex
    gated.gate, gated.counter_lock, gated.running, gated.most_at_once, gated.started = (
        threading.Event(), threading.Lock(), 0, 0, [])
    async with app.run_test(size=(100, 30)) as pilot:
        assert await wait_for(pilot, lambda: gated.running == 1)
        box = app.query_one("#query")
        for typed in ("subject 2", "subject 3", "detail 44"):
            box.value = typed
            app.search_screen.start_search()
        screen = app.search_screen
        assert screen.searches.in_flight and screen.searches.queued  # the others wait: only the latest will run
        assert gated.started == ["subject 1"]
        gated.gate.set()
        assert await wait_for(pilot, lambda: app.search_screen.pool is not None and app.search_screen.pool.query == "detail 44")
        assert await wait_for(pilot, lambda: screen.search_settled)  # the typed values' debounced searches ran too
        assert gated.started[0] == "subject 1" and set(gated.started[1:]) == {"detail 44"}, gated.started
        assert gated.most_at_once == 1
        assert any(r.path == "memory/n044.md" for r in app.search_screen.results)


class ModeRecordingApp(RecordingApp):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.shown_modes: list[str] = []

    def on_search_done(self, message):  # the search screen handled it; it bubbles up to the app
        if message.generation == self.search_screen.search_generation:
            self.shown_modes.append(message.pool.mode)


def mode_app_on(index: MemoryIndex, query: str) -> ModeRecordingApp:
    app = app_on(index, query)
    return ModeRecordingApp(app.index, validate({}), origin="test", now_ms=NOW_MS, watch=False, initial_query=query)


async def test_keyword_results_come_first_while_the_matrix_is_not_in_memory(tmp_path, large):
    """A large index without a current matrix file: the vector leg would wait for sqlite-vec, so the
    keyword ranking is shown first and the hybrid one replaces it; with the file, hybrid at once."""
    index = seeded_index(tmp_path)
    app = mode_app_on(index, "subject 3 detail 10")
    async with app.run_test(size=(100, 30)) as pilot:
        assert await wait_for(pilot, lambda: app.search_screen.pool is not None and app.search_screen.pool.mode == "hybrid")
        assert app.shown_modes[:2] == ["keyword", "hybrid"]
        assert VECTORS_FOLLOW not in app.search_screen.pool.warnings
        assert await wait_for(pilot, lambda: matrix_path(index.settings.db_path).exists())  # saved after these results
    again = mode_app_on(index, "subject 3 detail 10")
    async with again.run_test(size=(100, 30)) as pilot:
        assert await wait_for(pilot, lambda: again.search_screen.pool is not None and again.search_screen.pool.mode == "hybrid")
        assert await wait_for(pilot, lambda: again.search_screen.search_settled)
        assert again.shown_modes == ["hybrid"]


def test_score_pane_says_a_result_had_no_vector_and_was_ranked_on_keywords():
    """The pane showed "× 0.40" for the vector leg of a chunk not yet embedded, as if it scored 0."""
    from openclaw_memtui.engine.search.rank import Result, SearchParams
    from openclaw_memtui.tui.widgets.breakdown import breakdown_text

    base = dict(path="memory/a.md", start_line=1, end_line=2, source="memory", snippet="s", score=0.8,
                text_score=0.8, hybrid_score=0.8, decay=1.0, age_days=None, rank_before_mmr=1, rank=1)
    missing = breakdown_text(Result(vector_score=None, vector_missing=True, **base), SearchParams(), "hybrid", width=100).plain
    assert "no vector yet: ranked on keywords alone" in missing
    assert "× 1.00" in missing.splitlines()[1]  # the text leg carries the whole score
    embedded = breakdown_text(Result(vector_score=0.5, **base), SearchParams(), "hybrid", width=100).plain
    assert "no vector" not in embedded and f"× {SearchParams().vector_weight:.2f}" in embedded.splitlines()[0]
