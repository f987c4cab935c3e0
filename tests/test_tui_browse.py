"""Issue 31: with no query the app lists the memory newest first, grouped by day, paged, filtered by source;
a new query starts at its #1."""

from __future__ import annotations

from textual.widgets import Input

from openclaw_memtui.engine.search.browse import BROWSE_PAGE
from openclaw_memtui.tui.widgets.result_list import ResultList

from .app_helpers import copy_demo, make_app, rendered_lines, wait_for
from .helpers import write


def browsed(app) -> bool:
    return app.search_screen.ranked.browsing and bool(app.search_screen.results)


async def test_an_empty_query_lists_the_memory_newest_first_by_day_and_opens_like_results(tmp_path):
    app = make_app(copy_demo(tmp_path), tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        assert await wait_for(pilot, lambda: not app.sync_running and browsed(app))
        listing = app.query_one(ResultList)
        days = app.search_screen.ranked.days
        assert list(days) == sorted(days, reverse=True)  # newest first
        headings = [str(o.prompt) for o in listing.options if o.disabled]
        assert len(headings) == len(set(days)) and headings[0].startswith(f"── {days[0]}")
        assert {r.source for r in app.search_screen.results} == {"memory", "sessions"}
        assert "MEMORY.md" in {r.path for r in app.search_screen.results}
        assert "browsing 18 entries newest first" in str(app.query_one("#info").render())
        # f4: notes, then transcripts, then both again
        await pilot.press("f4")
        assert await wait_for(pilot, lambda: browsed(app) and {r.source for r in app.search_screen.results} == {"memory"})
        await pilot.press("f4")
        assert await wait_for(pilot, lambda: browsed(app) and {r.source for r in app.search_screen.results} == {"sessions"})
        # an entry opens like a result: the list, Enter, the whole file at that chunk
        listing.focus()
        await pilot.press("down", "enter")
        assert await wait_for(pilot, lambda: app.screen.__class__.__name__ == "FileScreen")
        await pilot.press("escape")
        await pilot.press("f4")
        assert await wait_for(pilot, lambda: browsed(app) and len({r.source for r in app.search_screen.results}) == 2)
        # typing a query searches; clearing it browses again
        app.query_one("#query", Input).value = "database migration"
        assert await wait_for(pilot, lambda: app.search_screen.pool is not None
                              and app.search_screen.pool.query == "database migration")
        assert not app.search_screen.ranked.browsing
        app.query_one("#query", Input).value = ""
        assert await wait_for(pilot, lambda: browsed(app))


async def test_browsing_3000_notes_reads_a_page_at_a_time(tmp_path):
    ws = tmp_path / "ws"
    write(ws / "MEMORY.md", "# Memory\n- curated\n")
    for n in range(3000):
        year, day = 2018 + n // 365, n % 365
        month, mday = 1 + day // 31 % 12, 1 + day % 28
        write(ws / "memory" / f"{year}-{month:02d}-{mday:02d}-n{n}.md", f"# note {n}\n- item {n}\n")
    app = make_app(ws, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        assert await wait_for(pilot, lambda: not app.sync_running and browsed(app), 120)
        assert len(app.search_screen.results) == BROWSE_PAGE and app.search_screen.ranked.more  # one page, not 3,001 rows
        assert f"browsing {BROWSE_PAGE}+ entries" in str(app.query_one("#info").render())
        listing = app.query_one(ResultList)
        listing.focus()
        await pilot.press("end")  # near the end of what was read: the next page follows
        assert await wait_for(pilot, lambda: len(app.search_screen.results) == 2 * BROWSE_PAGE)
        days = app.search_screen.ranked.days
        assert list(days) == sorted(days, reverse=True) and days[0].startswith("2026-")
        assert len({r.id for r in app.search_screen.results}) == len(app.search_screen.results)  # pages do not overlap


async def test_a_new_query_selects_its_first_result(tmp_path):
    """After a new search the previous query's row stayed highlighted at #2, and Enter / e acted on it."""
    app = make_app(copy_demo(tmp_path), tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        assert await wait_for(pilot, lambda: not app.sync_running)
        query = app.query_one("#query", Input)
        query.value = "database migration"
        assert await wait_for(pilot, lambda: app.search_screen.pool is not None
                              and app.search_screen.pool.query == "database migration"
                              and len(app.search_screen.results) > 1)
        app.query_one(ResultList).focus()
        await pilot.press("down")
        second = app.search_screen.selected()
        assert second.rank == 2
        query.value = "migration"
        assert await wait_for(pilot, lambda: app.search_screen.pool is not None and app.search_screen.pool.query == "migration"
                              and bool(app.search_screen.results))
        assert second.id in {r.id for r in app.search_screen.results}  # it is still listed, yet the new query starts at #1
        assert app.search_screen.selected().rank == 1


async def test_an_empty_folder_says_so_at_once(tmp_path):
    """An empty folder said nothing until a query was typed."""
    ws = tmp_path / "empty"
    ws.mkdir()
    app = make_app(ws, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        assert await wait_for(pilot, lambda: not app.sync_running and app.search_screen.ranked.browsing)
        shown = "\n".join(rendered_lines(app.query_one("#preview")))
        assert "no memory files" in shown.lower() or "empty" in shown.lower(), shown


async def test_a_memory_folder_points_at_its_workspace_and_loose_notes_at_extra_paths(tmp_path):
    """A path to …/ws/memory did not suggest …/ws; a folder of notes with no memory/ did not name extraPaths."""
    ws = tmp_path / "ws"
    write(ws / "MEMORY.md", "# Memory\n")
    write(ws / "memory" / "2026-11-01.md", "# Log\n- a line\n")
    app = make_app(ws / "memory", tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        assert await wait_for(pilot, lambda: not app.sync_running and app.search_screen.ranked.browsing)
        from openclaw_memtui.tui.widgets.detail_pane import DetailPane

        pane = app.query_one(DetailPane)
        assert await wait_for(pilot, lambda: f"open the workspace instead: memtui {ws}" in pane.placeholder), pane.placeholder

    from openclaw_memtui.core.config import index_settings, validate
    from openclaw_memtui.core.session import workspace_hint

    notes = tmp_path / "notes"
    write(notes / "ideas.md", "# Ideas\n")
    write(notes / "deep" / "todo.md", "# Todo\n")
    hint = workspace_hint(index_settings(validate({}), notes, tmp_path / "n.sqlite"))
    assert hint.startswith("2 Markdown file(s) here are outside memory/") and "extraPaths" in hint
