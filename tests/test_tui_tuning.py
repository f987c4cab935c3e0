"""The tuning panel's keyword line weight and overlap penalty: moved live, they re-rank; the panel
keeps every control and its buttons on screen at 120×36 and at 80×24."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from textual.widgets import Button, Input

from openclaw_memtui.tui.widgets.slider import Slider
from openclaw_memtui.tui.widgets.tuning import SLIDERS, TuningPanel

from .app_helpers import copy_demo, make_app, wait_for
from .helpers import write
from .test_tui_daily import settled_search


def kayak_workspace(tmp_path):
    """Small chunks sharing their edge lines (as the chunker's overlap makes them), another file
    matching the same words, and unrelated notes so those words are rare enough to score."""
    ws = tmp_path / "ws"
    write(ws / "memory" / "trip.md", "Kayak trip notes.\nThe kayak trip on the lake.\nKayak rental was cheap.\n"
          "Lunch by the lake after the kayak trip.\nDrove home late.\n")
    write(ws / "memory" / "other.md", "Another kayak trip is planned for the lake in May.\n")
    for i in range(8):
        write(ws / "memory" / f"list-{i}.md", f"Grocery list {i}: bread, milk and eggs.\nCall the plumber.\n")
    return ws


def where(app):
    return [(r.path, r.start_line, r.end_line) for r in app.search_screen.results]


async def test_overlap_penalty_and_line_weight_sliders_rerank_and_save(tmp_path):
    config = tmp_path / "memtui.toml"
    app = make_app(kayak_workspace(tmp_path), tmp_path, cfg={"chunking": {"tokens": 20, "overlap": 10}},
                   config_path=config)
    async with app.run_test(size=(120, 36)) as pilot:
        await settled_search(pilot, app, "kayak trip lake")
        await pilot.press("ctrl+t")
        shipped = where(app)
        assert app.search_screen.params.overlap_penalty == 0.5
        # lines 2-4 repeat two of the three lines of 1-3 listed just above: other.md goes between them
        assert shipped.index(("memory/other.md", 1, 2)) < shipped.index(("memory/trip.md", 2, 4))

        app.query_one("#sl-overlap_penalty", Slider).focus()
        await pilot.press("home")
        assert await wait_for(pilot, lambda: app.search_screen.params.overlap_penalty == 0.0 and where(app) != shipped)
        assert where(app)[:2] == [("memory/trip.md", 1, 3), ("memory/trip.md", 2, 4)]  # score order: the same lines twice
        assert app.query_one("#in-overlap_penalty", Input).value == "0.00"

        scores = {(r.path, r.start_line): r.text_score for r in app.search_screen.results}
        app.query_one("#sl-line_weight", Slider).focus()
        await pilot.press("end")
        assert await wait_for(pilot, lambda: app.search_screen.params.line_weight == 1.0)
        assert await wait_for(pilot, lambda: {(r.path, r.start_line): r.text_score for r in app.search_screen.results} != scores)
        # the exact input takes a value too, with the shared range rule
        box = app.query_one("#in-line_weight", Input)
        box.focus()
        box.value = "0.3"
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: app.search_screen.params.line_weight == 0.3)
        assert app.query_one("#sl-line_weight", Slider).value == 0.3
        box.value = "1.5"
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: any("line weight must be a number from 0 to 1" in t for _, t in app.toasts))
        assert app.search_screen.params.line_weight == 0.3 and box.value == "0.30"

        app.query_one("#save", Button).press()
        assert await wait_for(pilot, lambda: config.exists())
        # Reset now goes back to what was just saved, not to the settings the app started with
        app.query_one("#sl-line_weight", Slider).focus()
        await pilot.press("end")
        assert await wait_for(pilot, lambda: app.search_screen.params.line_weight == 1.0)
        app.query_one("#reset", Button).press()
        assert await wait_for(pilot, lambda: app.search_screen.params.line_weight == 0.3
                              and app.search_screen.params.overlap_penalty == 0.0)
        assert app.query_one("#in-line_weight", Input).value == "0.30"
    query = tomllib.loads(config.read_text(encoding="utf-8"))["query"]
    assert query["overlapPenalty"] == 0.0 and query["keyword"]["lineWeight"] == 0.3


async def test_presets_and_reset_move_the_new_sliders(tmp_path):
    app = make_app(copy_demo(tmp_path), tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("ctrl+t")
        app.search_screen.apply_preset("openclaw")  # OpenClaw scores whole chunks and lists overlaps in score order
        assert await wait_for(pilot, lambda: app.search_screen.params.line_weight == 0.0
                              and app.search_screen.params.overlap_penalty == 0.0)
        assert app.query_one("#sl-line_weight", Slider).value == 0.0
        assert app.query_one("#in-overlap_penalty", Input).value == "0.00"
        app.query_one("#reset", Button).press()
        assert await wait_for(pilot,
                              lambda: app.search_screen.params.line_weight == app.query_one(TuningPanel).defaults.line_weight)
        assert app.query_one("#sl-overlap_penalty", Slider).value == app.query_one(TuningPanel).defaults.overlap_penalty


async def test_the_preset_box_names_the_preset_the_settings_are_after_reset_too(tmp_path):
    from textual.widgets import Select

    from openclaw_memtui.tui.widgets.tuning import PRESETS

    app = make_app(copy_demo(tmp_path), tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("ctrl+t")
        box = app.query_one("#preset", Select)
        app.search_screen.apply_preset("openclaw")
        assert await wait_for(pilot, lambda: box.value == "openclaw")
        app.query_one("#reset", Button).press()
        defaults = app.query_one(TuningPanel).defaults
        named = next((k for k, v in PRESETS.items() if v == defaults), None)
        # it named "openclaw" still after Reset
        assert await wait_for(pilot, lambda: app.search_screen.params == defaults and (box.is_blank() if named is None
                                                                                       else box.value == named))
        assert app.search_screen.params == defaults  # naming it changed nothing


@pytest.mark.parametrize("size", [(120, 36), (80, 24)])
async def test_every_control_and_the_buttons_are_on_screen(tmp_path, size):
    app = make_app(copy_demo(tmp_path), tmp_path)
    async with app.run_test(size=size) as pilot:
        await pilot.press("ctrl+t")
        await pilot.pause()
        panel = app.query_one(TuningPanel)
        bottom = app.screen.size.height - 1  # the footer's row
        shown = [f"#sl-{field}" for field, *_ in SLIDERS] + [f"#in-{field}" for field, *_ in SLIDERS]
        shown += ["#sw-mmr", "#sw-decay", "#time-mode", "#preset", "#reset", "#save", "#export"]
        for selector in shown:
            region = app.query_one(selector).region  # clipped to what is on screen
            assert region.height >= 1 and region.width >= 1, selector
            assert region.y < bottom and region.right <= panel.region.right, selector


@pytest.mark.parametrize("size", [(120, 36), (80, 24)])
async def test_export_toast_names_what_the_older_openclaw_will_not_honour(tmp_path, size):
    import json

    from textual.widgets._toast import Toast

    from openclaw_memtui.paths import config_dir

    app = make_app(copy_demo(tmp_path), tmp_path,  # no OpenClaw installed: the older layout's block
                   cfg={"query": {"keyword": {"cjk": "bigram", "orFallback": True}}})
    async with app.run_test(size=size, notifications=True) as pilot:
        await pilot.press("ctrl+t")
        app.query_one("#sl-overlap_penalty", Slider).focus()
        await pilot.press("end")
        assert await wait_for(pilot, lambda: app.search_screen.params.overlap_penalty == 1.0)
        app.query_one("#export", Button).press()
        assert await wait_for(pilot, lambda: any("not honour" in t for _, t in app.toasts))
        # one toast, where it wrote first, whole on screen (the full list as a second toast pushed it off at 80×24)
        assert await wait_for(pilot, lambda: len(app.screen.query("Toast.-warning")) > 0)
        await pilot.pause()
        toasts = [t for t in app.screen.query(Toast) if "xported" in (m := str(t._notification.message)) or "honour" in m]
        for toast in toasts:
            region = toast.region  # clipped to the screen: cut when smaller than the toast
            assert region.y >= 0 and region.bottom < app.screen.region.bottom and region.height == toast.outer_size.height
        assert len(toasts) == 1 and toasts[0].has_class("-warning")
        # where the copy went is said apart (tui/clipboard.py), once the clipboard route answered
        assert await wait_for(pilot, lambda: any(t.startswith("The settings block ") for _, t in app.toasts))
    warning = next(t for s, t in app.toasts if "not honour" in t)
    target = config_dir() / "openclaw-memorySearch.json"
    assert warning.startswith(f"Exported memorySearch.query to {target}. ")
    assert "line weight 0.50, overlap penalty 1.00, time words boost and 4 more" in warning
    assert "openclaw-memorySearch.not-honoured.txt" in warning
    notes = (config_dir() / "openclaw-memorySearch.not-honoured.txt").read_text(encoding="utf-8")
    assert "- overlap penalty 1.00 (query.overlapPenalty" in notes and "- line weight 0.50 (query.keyword.lineWeight" in notes
    assert "- CJK bigrams (query.keyword.cjk" in notes  # the config's keyword settings too
    assert "- OR when AND finds nothing" in notes
    exported = json.loads(target.read_text(encoding="utf-8"))
    query = exported["memorySearch"]["query"]
    assert set(query) == {"maxResults", "minScore", "hybrid"}  # only keys OpenClaw's schema knows
    assert set(query["hybrid"]) == {"vectorWeight", "textWeight", "candidateMultiplier", "mmr", "temporalDecay"}


async def test_an_export_openclaw_takes_whole_leaves_no_stale_list(tmp_path):
    from openclaw_memtui.engine.search.rank import SearchParams
    from openclaw_memtui.paths import config_dir
    from openclaw_memtui.tui.settings_actions import export_settings

    notes = config_dir() / "openclaw-memorySearch.not-honoured.txt"
    export_settings(SearchParams(overlap_penalty=0.5), None, 100)
    assert notes.exists()
    outcome = export_settings(SearchParams(overlap_penalty=0.0, line_weight=0.0, time_mode="off", fusion="openclaw"), None, 100)
    assert not notes.exists()
    assert [t.severity for t in outcome.toasts] == ["information"] and "not honour" not in outcome.toasts[0].text


async def test_a_refused_number_shows_the_value_in_effect_not_the_sliders_end(tmp_path):
    """400 days is valid past the slider's 365 end; a refused entry after it must show 400 again in
    every number box (the value Save writes), not the slider's clamped 365."""
    config = tmp_path / "memtui.toml"
    app = make_app(copy_demo(tmp_path), tmp_path, config_path=config)
    past_the_end = {"half_life_days": ("400", 400.0), "max_results": ("60", 60)}
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("ctrl+t")
        for field, *_ in SLIDERS:
            box = app.query_one(f"#in-{field}", Input)
            typed, expected = past_the_end.get(field, ("0.40", 0.4))
            box.focus()
            box.value = typed
            await pilot.press("enter")
            assert await wait_for(pilot, lambda f=field, e=expected: getattr(app.search_screen.params, f) == e), field
            for refused in ("x", "-3"):
                box.value = refused
                await pilot.press("enter")
                await pilot.pause()
                assert getattr(app.search_screen.params, field) == expected, (field, refused)
                assert box.value == TuningPanel._fmt(field, float(expected)), (field, refused, box.value)
        app.query_one("#save", Button).press()
        assert await wait_for(pilot, lambda: config.exists())
    assert tomllib.loads(config.read_text(encoding="utf-8"))["query"]["hybrid"]["temporalDecay"]["halfLifeDays"] == 400


async def test_the_judging_hint_and_the_stale_count_share_one_line(tmp_path):
    """At 120 columns the panel wrapped '+ / - in the result list judges  1' / 'stale' onto two lines."""
    from openclaw_memtui.tui.state import MetricView
    from openclaw_memtui.tui.widgets.metric import MetricBox

    from .app_helpers import rendered_lines, settle

    app = make_app(copy_demo(tmp_path), tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("ctrl+t")
        # the app's own judged-question load sets this box as it progresses: let it finish first, or it
        # overwrites the views set below (under load it often had not by now)
        judging = app.search_screen.judging
        assert await wait_for(pilot, lambda: judging.judged is not None, 30)
        await settle(pilot, app)
        box = app.query_one(MetricBox)
        for view, words in ((MetricView(stale=1), ("judges", "1 stale")), (MetricView(stale=12), ("judges", "12 stale")),
                            (MetricView(stale=3, loading="retrieving 12/24"), ("12/24", "3 stale"))):
            box.view = view
            await pilot.pause()
            lines = [line for line in rendered_lines(box) if line.strip()]
            assert len(lines) == 1 and all(w in lines[0] for w in words), lines


def openclaw_with_agent(tmp_path, ws):
    """A 2026.9 OpenClaw state whose agent `main` (workspace `ws`) sets maxResults, and minScore globally."""
    import json
    import os

    state = Path(os.environ["OPENCLAW_STATE_DIR"])
    state.mkdir(parents=True, exist_ok=True)
    (state / "openclaw.json").write_text(json.dumps({
        "meta": {"lastTouchedVersion": "2026.9.6"},
        "agents": {"entries": {"main": {"default": True, "workspace": str(ws),
                                        "memory": {"search": {"query": {"maxResults": 4}}}}}},
        "memory": {"search": {"query": {"minScore": 0.2}}}}), encoding="utf-8")
    return state / "openclaw.json"


async def test_a_save_browsing_an_agent_says_which_saved_values_its_openclaw_settings_replace(tmp_path, capsys):
    """The agent's openclaw.json values win over memtui's config whenever memtui opens that agent, so a
    saved maxResults 8 came back as 4 at the next launch while the toast only said "Saved"."""
    import argparse

    from openclaw_memtui.cli.main import main
    from openclaw_memtui.core.config import load_config, search_params
    from openclaw_memtui.core.session import apply_agent
    from openclaw_memtui.engine.search.rank import SearchParams
    from openclaw_memtui.interop.agents import find_agent

    ws = copy_demo(tmp_path)
    openclaw_with_agent(tmp_path, ws)
    config = tmp_path / "memtui.toml"
    app = make_app(ws, tmp_path, config_path=config, agent=find_agent("main"))
    app.default_params = app.search_screen.params = SearchParams(max_results=4, min_score=0.2)  # as the agent's launch ranks
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+t")
        app.query_one("#save", Button).press()  # the agent's own values: nothing is replaced
        assert await wait_for(pilot, lambda: any("Saved search settings" in t for _, t in app.toasts))
        assert not any(s == "warning" for s, _ in app.toasts)
        box = app.query_one("#in-max_results", Input)
        box.focus()
        box.value = "8"
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: app.search_screen.params.max_results == 8)
        app.query_one("#save", Button).press()
        assert await wait_for(pilot, lambda: any(s == "warning" for s, _ in app.toasts))
    warning = next(t for s, t in app.toasts if s == "warning")
    assert warning.startswith("Agent main's OpenClaw settings set maxResults 4, which win when memtui opens that agent")
    assert "minScore" not in warning
    command = warning.split("`")[1]
    assert command == "memtui export-settings --agent main --write --max-results 8"
    # what the warning says is true: opening the agent ranks with its maxResults, not the saved one
    saved = load_config(config, explicit=True)
    assert saved.to_tree()["query"]["maxResults"] == 8
    args = argparse.Namespace(agent="main")
    assert search_params(apply_agent(args.agent, saved)[0]).max_results == 4
    # and its command puts the saved value there
    assert main([*command.split()[1:], "--config", str(config)]) == 0
    capsys.readouterr()
    assert search_params(apply_agent(args.agent, saved)[0]).max_results == 8
