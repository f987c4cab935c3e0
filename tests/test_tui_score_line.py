"""Issue 31 item 5: at 80×24 the tuning panel floats over the score pane; a one-line score summary of the
selected result stays in sight there, and follows the sliders and the selection."""

from __future__ import annotations

from dataclasses import replace

from textual.widgets import Input

from openclaw_memtui.tui.widgets.tuning import TuningPanel

from .app_helpers import copy_demo, make_app, rendered_lines, wait_for


def summary_on_screen(app) -> str:
    """The summary line as drawn, "" when it is hidden or something covers it."""
    found = app.query("#tuning-score")
    if not found:
        return ""
    label = found.first()
    region = label.region
    if not label.display or region.height < 1 or not app.screen.region.contains_region(region):
        return ""
    if app.screen.get_widget_at(region.x, region.y)[0] is not label:
        return ""
    return rendered_lines(label)[0]


async def test_a_one_line_score_summary_stays_visible_with_the_tuning_panel_open_at_80x24(tmp_path):
    app = make_app(copy_demo(tmp_path), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        assert await wait_for(pilot, lambda: not app.sync_running)
        app.query_one("#query", Input).value = "database migration"
        app.search_screen.start_search()
        assert await wait_for(pilot, lambda: app.search_screen.pool is not None and len(app.search_screen.results) > 1)
        await pilot.press("ctrl+t")
        assert await wait_for(pilot, lambda: app.query_one(TuningPanel).has_class("visible"))
        await pilot.pause()
        first = app.search_screen.selected()
        line = summary_on_screen(app)
        assert line.startswith(f"#{first.rank} {first.score:.3f}:") and f"kw {first.text_score:.2f}" in line
        assert "decay" in line and len(line) <= 37

        app.query_one(TuningPanel).apply(replace(app.search_screen.params, decay=True, half_life_days=1.0))
        assert await wait_for(pilot, lambda: app.search_screen.ranked.params.decay)
        await pilot.pause()
        now = app.search_screen.selected()
        assert summary_on_screen(app).startswith(f"#{now.rank} {now.score:.3f}:")
        assert f"decay {now.decay:.2f}" in summary_on_screen(app)

        app.query_one("#results").highlighted = 1  # the selection moves: the summary follows
        await pilot.pause()
        second = app.search_screen.selected()
        assert second.id != now.id and summary_on_screen(app).startswith(f"#{second.rank} {second.score:.3f}:")
