"""The search screen's queue, generations and reranking without Textual (tui/search_controller.py): a
stale answer is dropped, the newest query wins, one search runs at a time, an empty query browses,
and a rerank says how far each result moved."""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

from openclaw_memtui.engine.search.rank import Candidate, Pool, Result, SearchParams
from openclaw_memtui.tui import search_controller
from openclaw_memtui.tui.search_controller import SearchCall, SearchController
from openclaw_memtui.tui.state import RankedResults

PARAMS = SearchParams(min_score=0.0, max_results=10, text_weight=1.0, vector_weight=0.0, line_weight=0.0,
                      overlap_penalty=0.0)


def cand(i: int, score: float) -> Candidate:
    return Candidate(rowid=i, id=f"id{i}", path=f"memory/{i}.md", source="memory", start_line=1, end_line=2,
                     text=f"text {i}", vector_score=None, text_score=score, bm25_rank=None, ts_ms=None,
                     date_source="evergreen")


def pool(query: str = "deploy", scores: tuple[float, ...] = (0.9, 0.6, 0.3)) -> Pool:
    return Pool(query=query, candidates=[cand(i, s) for i, s in enumerate(scores)], now_ms=0.0, mode="keyword")


def controller() -> SearchController:
    return SearchController(PARAMS)


def test_the_first_query_runs_at_once_reading_its_time_words():
    c = controller()
    assert c.start("deploy") == SearchCall("deploy", 1, True)
    assert c.in_flight and c.is_current(1) and not c.is_current(0) and not c.is_current(2)


def test_queries_typed_while_a_search_runs_queue_and_only_the_newest_runs_next():
    c = controller()
    first = c.start("dep")
    assert isinstance(first, SearchCall)
    assert c.start("deplo") is None and c.start("deploy") is None  # one search at a time
    assert not c.is_current(first.generation)  # its answer is stale: dropped
    nxt = c.ended(lambda: "deploy last week ")  # the query as it reads when the running one ends, as typed
    assert nxt == SearchCall("deploy last week ", 3, True) and c.is_current(nxt.generation)
    assert c.in_flight  # the queued one runs now: a query typed meanwhile waits for it
    assert c.start("deploy last") is None
    assert c.ended(lambda: "deploy last") == SearchCall("deploy last", 4, True)
    assert c.ended(lambda: "unused") is None and not c.in_flight  # nothing more queued


def test_a_search_ending_with_nothing_queued_frees_the_queue_without_reading_the_query():
    def gone() -> str:
        raise AssertionError("the query input is read only for a queued search (it may be gone at shutdown)")

    c = controller()
    c.start("alpha")
    assert c.ended(gone) is None and not c.in_flight
    assert c.start("beta") == SearchCall("beta", 2, True)


def test_an_empty_query_browses_and_drops_the_queued_search():
    c = controller()
    running = c.start("alpha")
    assert isinstance(running, SearchCall)
    assert c.start("alphabet") is None
    assert c.start("   ") == "browse" and not c.is_current(running.generation) and c.generation == 3
    assert c.ended(lambda: "alphabet") is None  # the queued search for "alphabet" is gone: browsing won
    assert not c.in_flight


def test_time_words_are_ignored_only_for_the_query_f3_named():
    c = controller()
    c.time_disabled_query = "deploy last week"
    assert c.start("  deploy last week ") == SearchCall("  deploy last week ", 1, False)
    assert c.time_ignored("deploy last week ") and not c.time_ignored("deploy")
    c.ended(lambda: "")
    assert c.start("deploy") == SearchCall("deploy", 2, True)
    c.time_disabled_query = None
    assert not c.time_ignored("")


def test_enter_moves_to_the_results_of_the_generation_it_was_pressed_for():
    c = controller()
    c.start("alpha")
    c.focus_when_answered()
    assert c.focuses(1) and not c.focuses(2)
    c.start("alphabet")
    assert not c.focuses(2)
    c.focus_when_answered(3)  # the agent's searches: the search the query change is about to start
    assert c.focuses(3) and not c.focuses(1)


def test_a_stale_answer_is_dropped_and_the_ranking_on_screen_kept():
    c = controller()
    c.start("dep")
    shown = c.answered(1, pool("dep"), PARAMS)
    assert shown is not None and [r.id for r in shown.results] == ["id0", "id1", "id2"] and shown.moves == {}
    c.start("deploy")  # generation 2: the answer for 1 that comes now is stale
    assert c.answered(1, pool("dep", (0.1, 0.9)), PARAMS) is None
    assert c.ranked is shown


def test_a_rerank_says_how_far_each_result_climbed_and_which_are_new():
    c = controller()
    c.start("deploy")
    first = c.answered(1, pool(), PARAMS)
    assert first is not None and first.params == PARAMS
    fewer = replace(PARAMS, max_results=2)
    cut = c.rerank(fewer)
    assert cut is not None and [r.id for r in cut.results] == ["id0", "id1"] and cut.params == fewer
    assert cut.moves == {"id0": 0, "id1": 0}
    again = c.rerank(PARAMS)
    assert again is not None and again.moves == {"id0": 0, "id1": 0, "id2": None}  # id2 is back: new in the list


def test_a_rerank_counts_ranks_climbed_as_the_previous_rank_minus_the_new_one():
    c = controller()
    c.start("deploy")
    c.answered(1, pool(), PARAMS)

    def reversed_order(p: Pool, results: tuple[Result, ...], params: SearchParams) -> tuple[Result, ...]:
        return tuple(replace(r, rank=len(results) - i) for i, r in enumerate(results))[::-1]

    moved = c.rerank(PARAMS, reversed_order)
    assert moved is not None and [r.id for r in moved.results] == ["id2", "id1", "id0"]
    assert moved.moves == {"id2": 2, "id1": 0, "id0": -2}
    assert c.rerank(PARAMS, track_moves=False) is not None and c.ranked.moves == {}


def test_the_added_hits_come_after_the_ranking_and_are_called_with_the_pool_and_params():
    c = controller()
    c.start("deploy")
    seen: list[tuple[str, int, SearchParams]] = []

    def add(p: Pool, results: tuple[Result, ...], params: SearchParams) -> tuple[Result, ...]:
        seen.append((p.query, len(results), params))
        return (*results, replace(results[0], id="openclaw", rank=0))

    shown = c.answered(1, pool(), PARAMS, add)
    assert shown is not None and [r.id for r in shown.results] == ["id0", "id1", "id2", "openclaw"]
    assert seen == [("deploy", 3, PARAMS)]


def test_nothing_to_rerank_without_a_pool_or_while_browsing():
    c = controller()
    assert c.rerank(PARAMS) is None and c.ranked.pool is None
    browsing = RankedResults(Pool(query="", candidates=[], now_ms=0.0, mode="browse"), (), PARAMS)
    c.ranked = browsing
    assert c.rerank(replace(PARAMS, max_results=1)) is None and c.ranked is browsing


def test_the_controller_imports_no_textual():
    tree = ast.parse(Path(search_controller.__file__).read_text(encoding="utf-8"))
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert imported and not any(name.split(".")[0] in ("textual", "rich") for name in imported)
    state = Path(search_controller.__file__).with_name("state.py").read_text(encoding="utf-8")
    assert "textual" not in state  # what it imports from the tui package is Textual-free too
