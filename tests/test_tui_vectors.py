"""The app and the vector matrix: a saved matrix is mapped in at launch (the first search uses it),
one without a saved matrix builds it after its first results and saves it for the next start,
and the initial query is searched once."""

from __future__ import annotations

import pytest

from openclaw_memtui.config import validate
from openclaw_memtui.engine.index import MemoryIndex
from openclaw_memtui.engine.search import vector
from openclaw_memtui.engine.search.matrix_file import matrix_path

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
        assert await wait_for(pilot, lambda: app.pool is not None and app.pool.mode == "hybrid" and app.results)
        await pilot.pause(0.5)  # a second, debounced search would have started by now
        assert app.pool.vector_path == "numpy-int8"
        assert app.index.vector_searcher.loaded_from == "file"
        assert app.index.retrievals == ["subject 3 detail 10"]
    assert matrix_path(index.settings.db_path).read_bytes() == saved  # used, not rewritten


async def test_without_a_saved_matrix_the_app_builds_and_saves_one_after_its_first_results(tmp_path, large):
    index = seeded_index(tmp_path)
    path = matrix_path(index.settings.db_path)
    assert not path.exists()
    app = app_on(index, "subject 3 detail 10")
    async with app.run_test(size=(100, 30)) as pilot:
        assert await wait_for(pilot, lambda: app.pool is not None and app.pool.mode == "hybrid" and app.results)
        assert app.pool.vector_path == "sqlite-vec"  # nothing to map: the matrix is built after these results
        searcher = app.index.vector_searcher
        assert await wait_for(pilot, lambda: searcher.loaded_from == "sqlite" and path.exists())
    again = app_on(index, "subject 3 detail 10")
    async with again.run_test(size=(100, 30)) as pilot:
        assert await wait_for(pilot, lambda: again.pool is not None and again.pool.mode == "hybrid" and again.results)
        assert again.pool.vector_path == "numpy-int8" and again.index.vector_searcher.loaded_from == "file"
        assert [r.path for r in again.results] == [r.path for r in app.results]
