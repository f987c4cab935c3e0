"""No way to narrow or come back: the query history kept between runs (0600, bounded, up / down in the box),
and filters over the ranked results (source, date range, path) with a sort by score or date, applied by pure
functions of the application layer (core/result_filter.py)."""

from __future__ import annotations

import os
import stat
from dataclasses import replace

import pytest
from textual.widgets import Input

from openclaw_memtui.core.history import HISTORY_FILE, QueryHistory
from openclaw_memtui.core.result_filter import BadBound, ResultFilter, narrow, parse_bound
from openclaw_memtui.engine.search.rank import Result
from openclaw_memtui.tui.narrowing import FilterScreen
from openclaw_memtui.tui.widgets.result_list import ResultList

from .app_helpers import NOW_MS, copy_demo, make_app, wait_for

DAY = 86_400_000


def result(path, source="memory", age=None, score=0.5, rank=1):
    return Result(path, 1, 2, source, "text", score, None, score, score, 1.0, age, rank, rank, id=path)


# -- the rules (application layer) -----------------------------------------------------------------------------

def test_narrow_filters_by_source_dates_and_path_and_sorts_by_date():
    now = 1_764_547_200_000.0  # 2025-12-01
    rs = [result("MEMORY.md", age=None, rank=1), result("memory/2025-11-20.md", age=11, rank=2),
          result("sessions/a.jsonl", "sessions", age=2, rank=3), result("memory/projects/x.md", age=40, rank=4)]
    assert narrow(rs, ResultFilter(), now) == rs
    assert [r.path for r in narrow(rs, ResultFilter(source="sessions"), now)] == ["sessions/a.jsonl"]
    assert [r.path for r in narrow(rs, ResultFilter(path="PROJECTS"), now)] == ["memory/projects/x.md"]
    since = parse_bound("2025-11-15", now)
    assert [r.path for r in narrow(rs, ResultFilter(since_ms=since), now)] == ["memory/2025-11-20.md", "sessions/a.jsonl"]
    until = parse_bound("2025-11-20", now, end=True)  # the day itself is inside
    assert [r.path for r in narrow(rs, ResultFilter(since_ms=since, until_ms=until), now)] == ["memory/2025-11-20.md"]
    by_date = narrow(rs, ResultFilter(sort="date"), now)
    assert [r.path for r in by_date] == ["sessions/a.jsonl", "memory/2025-11-20.md", "memory/projects/x.md", "MEMORY.md"]
    assert parse_bound("7d", now) == now - 7 * DAY and parse_bound("", now) is None
    with pytest.raises(BadBound, match="not a date"):
        parse_bound("last tuesday-ish", now)
    assert ResultFilter(source="memory", path="lumen", sort="date").describe() == "notes · path ~ lumen · newest first"


def test_the_history_is_private_bounded_and_each_query_once(tmp_path):
    path = tmp_path / "data" / HISTORY_FILE
    history = QueryHistory(path, limit=3)
    for q in ("alpha", "beta", "alpha", "gamma", "delta", "  ", "x" * 5000):
        history.add(q)
    assert history.entries == ["alpha", "gamma", "delta"]  # alpha moved up, beta fell off, blank and paste not kept
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert QueryHistory(path, limit=3).entries == ["alpha", "gamma", "delta"]  # kept between runs
    path.write_text('"ok"\nnot json\n{"a": 1}\n')
    assert QueryHistory(path).entries == ["ok"]  # a damaged line is skipped, not raised


# -- the app ---------------------------------------------------------------------------------------------

def test_a_key_typed_as_a_query_is_never_stored_in_the_history(tmp_path):
    token = "ghp_" + "H7j6K5l4Z3x2C1v0B9n8M7q6W5e4R3t2Y1u0"
    path = tmp_path / "history.jsonl"
    QueryHistory(path, limit=3).add(f"where did I paste {token}")
    stored = path.read_text(encoding="utf-8")
    assert token[4:] not in stored and "where did I paste" in stored


async def test_up_and_down_in_the_query_box_walk_the_queries_of_earlier_runs(tmp_path):
    ws = copy_demo(tmp_path)
    app = make_app(ws, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        assert await wait_for(pilot, lambda: not app.sync_running)
        query = app.query_one("#query", Input)
        for q in ("database migration", "token endpoint"):
            query.value = q
            await pilot.press("enter")
            assert await wait_for(pilot, lambda q=q: app.search_screen.pool is not None and app.search_screen.pool.query == q)
            query.focus()
    history = os.path.join(os.environ["MEMTUI_DATA_DIR"], HISTORY_FILE)
    assert stat.S_IMODE(os.stat(history).st_mode) == 0o600
    app = make_app(ws, tmp_path)  # a new run
    async with app.run_test(size=(80, 24)) as pilot:
        assert await wait_for(pilot, lambda: not app.sync_running)
        query = app.query_one("#query", Input)
        await pilot.press(*"pager")
        await pilot.press("up")
        assert query.value == "token endpoint"
        await pilot.press("up", "up")  # the oldest stays
        assert query.value == "database migration"
        assert await wait_for(pilot, lambda: app.search_screen.pool is not None
                              and app.search_screen.pool.query == "database migration")  # searched
        await pilot.press("down")
        assert query.value == "token endpoint"
        await pilot.press("down")  # past the newest: what was being typed
        assert query.value == "pager"


async def test_f4_ctrl_f_and_f7_narrow_and_sort_the_search_results_without_searching_again(tmp_path):
    app = make_app(copy_demo(tmp_path), tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        assert await wait_for(pilot, lambda: not app.sync_running)
        app.search_screen.params = replace(app.search_screen.params, max_results=30)
        app.query_one("#query", Input).value = "token"
        await pilot.press("enter")  # at once, the debounced search of the value set cancelled
        assert await wait_for(pilot, lambda: app.search_screen.pool is not None and app.search_screen.pool.query == "token"
                              and len(app.search_screen.results) > 3)
        listing = app.query_one(ResultList)
        shown = lambda: list(listing.ranked.results)  # noqa: E731
        await app.workers.wait_for_complete()
        await pilot.pause()
        listing_pool, generation = app.search_screen.pool, app.search_screen.search_generation
        everything = shown()
        assert {r.source for r in everything} == {"memory", "sessions"}
        await pilot.press("f4")  # notes only
        assert await wait_for(pilot, lambda: {r.source for r in shown()} == {"memory"})
        assert "filtered: notes" in str(app.query_one("#info").render())
        await pilot.press("f4", "f4")  # transcripts, then all again
        assert await wait_for(pilot, lambda: shown() == everything)
        await pilot.press("f7")  # newest first
        dated = [r for r in shown() if r.age_days is not None]
        assert await wait_for(pilot, lambda: [r.age_days for r in shown() if r.age_days is not None]
                              == sorted(r.age_days for r in dated))
        assert "newest first" in str(app.query_one("#info").render())
        await pilot.press("f7")
        await pilot.press("ctrl+f")
        assert await wait_for(pilot, lambda: isinstance(app.screen, FilterScreen))
        await pilot.press(*"2026-11", "enter")  # path has "2026-11"
        assert await wait_for(pilot, lambda: not isinstance(app.screen, FilterScreen))
        assert shown() and all("2026-11" in r.path for r in shown())
        assert len(shown()) < len(everything)
        await pilot.press("ctrl+f")
        assert await wait_for(pilot, lambda: isinstance(app.screen, FilterScreen))
        app.screen.query_one("#filter-since", Input).value = "next friday"
        await pilot.click("#filter-apply")
        assert await wait_for(pilot, lambda: "not a date" in str(app.screen.query_one("#filter-error").render()))
        await pilot.click("#filter-clear")
        assert await wait_for(pilot, lambda: shown() == everything)
        # narrowed the ranking on screen: no search again, the same pool
        assert app.search_screen.search_generation == generation and app.search_screen.pool is listing_pool
        since = NOW_MS - 10 * DAY
        app.search_screen.narrowing.set_filter(replace(ResultFilter(), since_ms=since))
        assert all(r.age_days is not None and r.age_days <= 10 for r in shown())
