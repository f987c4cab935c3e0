"""SVG snapshots of the main screens at a fixed size, clock and theme (pytest-textual-snapshot).

Regenerate after an intended visual change with: python3 -m pytest tests/test_snapshots.py --snapshot-update
"""

from __future__ import annotations

import shutil

import pytest

from openclaw_memtui.paths import demo_workspace

from .app_helpers import make_app, wait_for


@pytest.fixture
def demo_app(tmp_path):
    ws = tmp_path / "demo"
    shutil.copytree(demo_workspace(), ws)
    return lambda **kw: make_app(ws, tmp_path, **kw)


@pytest.fixture(autouse=True)
def no_cursor_blink(monkeypatch):
    """A blinking cursor is captured on or off at random: freeze it (as Harlequin's tests do)."""
    from textual.widgets import Input

    monkeypatch.setattr(Input, "cursor_blink", False)


async def _settle(pilot, query: str):
    app = pilot.app
    await wait_for(pilot, lambda: not app.sync_running)
    app.sub_title = "demo workspace"
    app.query_one("#query").value = query
    app.search_screen.start_search()
    assert await wait_for(pilot, lambda: app.search_screen.pool is not None and app.search_screen.pool.query == query)
    app.clear_notifications()
    await _quiet(pilot)


async def _quiet(pilot):
    """Wait until workers are done and nothing is scheduled, then until the messages they posted are handled."""
    await pilot.app.workers.wait_for_complete()
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


def test_main_screen(snap_compare, demo_app):
    async def run_before(pilot):
        await _settle(pilot, "database migration")

    assert snap_compare(demo_app(), terminal_size=(120, 36), run_before=run_before)


def test_tuning_panel_light_theme(snap_compare, demo_app):
    async def run_before(pilot):
        await _settle(pilot, "鉴权")
        await pilot.press("ctrl+t")
        await _quiet(pilot)

    assert snap_compare(demo_app(cfg={"tui": {"theme": "memtui-light"}}), terminal_size=(120, 36), run_before=run_before)


def test_small_terminal(snap_compare, demo_app):
    async def run_before(pilot):
        await _settle(pilot, "database migration")
        assert pilot.app.search_screen.results  # the stored screen must show results at 80x24, not "0 of 0 candidates"

    assert snap_compare(demo_app(), terminal_size=(80, 24), run_before=run_before)


def test_small_terminal_tuning_panel_floats(snap_compare, demo_app):
    async def run_before(pilot):
        await _settle(pilot, "database migration")
        assert pilot.app.search_screen.results
        await pilot.press("ctrl+t")
        await _quiet(pilot)

    assert snap_compare(demo_app(), terminal_size=(80, 24), run_before=run_before)
