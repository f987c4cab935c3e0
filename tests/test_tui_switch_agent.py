"""Switch agent inside the app: `:` (where nothing is typed) or the palette lists OpenClaw's agents as
`memtui agents` does; the one picked opens in the app's place, its index and settings, without the
command being typed again. A sync running or settings applied but not saved keep the app where it is."""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

import pytest
from textual.widgets import Input, OptionList

from openclaw_memtui.core.config import load_config
from openclaw_memtui.core.session import SessionOptions, open_session
from openclaw_memtui.tui import launch
from openclaw_memtui.tui.app import MemtuiApp
from openclaw_memtui.tui.screens.agent_picker import AgentPickerScreen

from .app_helpers import wait_for
from .helpers import use_openclaw_state

FIXTURE = Path(__file__).parent / "fixtures" / "openclaw-2026.9.6-recalls"


@pytest.fixture
def oc(tmp_path, monkeypatch) -> Path:
    return use_openclaw_state(FIXTURE, tmp_path, monkeypatch)


def picker_rows(app) -> list[str]:
    listing = app.screen.query_one("#agents", OptionList)
    return [str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count)]


async def test_colon_lists_the_agents_and_the_one_picked_ends_the_app_to_open_in_its_place(oc, tmp_path):
    session = open_session(SessionOptions(agent="main", provider="none"), load_config(None))
    app = MemtuiApp.from_session(session, watch=False)
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            assert await wait_for(pilot, lambda: not app.sync_running)
            query = app.query_one("#query", Input)
            query.value = "deploy"
            query.focus()
            await pilot.press("colon")  # typed into a query, it is a character
            assert query.value == "deploy:" and not isinstance(app.screen, AgentPickerScreen)
            query.value = ""
            await pilot.press("colon")
            assert await wait_for(pilot, lambda: isinstance(app.screen, AgentPickerScreen) and len(picker_rows(app)) == 2)
            rows = picker_rows(app)
            assert rows[0].startswith("main") and "open now" in rows[0] and "OpenClaw's default" in rows[0]
            assert rows[1].startswith("research") and "open now" not in rows[1]
            assert str(oc / "ws-research") in rows[1] and "builtin memory-core answers" in rows[1]
            await pilot.press("escape")
            assert await wait_for(pilot, lambda: not isinstance(app.screen, AgentPickerScreen))
            assert app.switch_to is None and app.is_running
            await pilot.press("colon")
            assert await wait_for(pilot, lambda: isinstance(app.screen, AgentPickerScreen) and len(picker_rows(app)) == 2)
            await pilot.press("enter")  # the highlight starts on an agent other than the one open
            assert await wait_for(pilot, lambda: not app.is_running)
        assert app.switch_to == "research"
    finally:
        session.close()


async def test_the_agent_open_now_unsaved_settings_and_a_running_sync_keep_the_app(oc, tmp_path):
    session = open_session(SessionOptions(agent="main", provider="none"), load_config(None))
    app = MemtuiApp.from_session(session, watch=False)
    toasts: list[str] = []
    real_notify = app.notify
    app.notify = lambda message, **kw: (toasts.append(str(message)), real_notify(message, **kw))[1]
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            assert await wait_for(pilot, lambda: not app.sync_running)
            app._agent_picked("main")
            assert app.switch_to is None and any("open already" in t for t in toasts)
            screen = app.search_screen
            screen.params = replace(screen.params, min_score=screen.params.min_score + 0.1)  # applied, not saved
            app._agent_picked("research")
            assert app.switch_to is None and any("not saved" in t for t in toasts)
            screen.params = screen.judging.saved_params
            app.sync_state = replace(app.sync_state, running=True)
            app._agent_picked("research")
            assert app.switch_to is None and any("A sync is running" in t for t in toasts)
            app.sync_state = replace(app.sync_state, running=False)
            app._agent_picked("research")
            assert app.switch_to == "research"
    finally:
        session.close()


def test_the_launcher_opens_the_picked_agent_and_falls_back_to_the_open_one_when_it_cannot(oc, tmp_path, monkeypatch):
    """run_tui's loop: each app's pick opens that agent (its workspace, its index); an agent that cannot be
    opened brings the one before back, with a toast saying why."""
    opened: list[tuple[str, str, list[str]]] = []
    picks = iter(["research", "ghost", None])

    def run(self, *a, **kw):  # stands for the app's run: records what it opened, then "picks" the next agent
        opened.append((self.agent.id, str(self.index.settings.workspace), list(self.index.notices)))
        self.switch_to = next(picks)

    from openclaw_memtui.tui import quit as quitting

    ended: list[int] = []
    monkeypatch.setattr(MemtuiApp, "run", run)
    monkeypatch.setattr(quitting, "end_process", ended.append)  # the real one ends the process (the test's too)
    args = argparse.Namespace(now=None, config=None, agent="main", provider="none", db=None, workspace=None,
                              workspace_arg=None, demo=False, model=None)
    assert launch.run_tui(args, load_config(None)) == 0
    assert ended == [0]  # once, when the last app ended: not at a switch
    assert [(agent, Path(ws).name) for agent, ws, _ in opened] == [("main", "ws-main"), ("research", "ws-research"),
                                                                  ("research", "ws-research")]
    assert not opened[1][2] and any("Agent ghost not opened" in n for n in opened[2][2])
    assert launch.switched(SessionOptions(agent="main", provider="none", db="x.sqlite", workspace="w"), "research") == \
        SessionOptions(agent="research", provider="none")


async def test_a_connect_in_another_terminal_shows_in_the_header_and_the_open_status_screen(oc, tmp_path, capsys):
    """After `memtui connect` the status screen (F2) kept saying OpenClaw's memory-core answers until a restart:
    the app stats OpenClaw's config every few seconds and reads the agent again when it changed."""
    from openclaw_memtui.cli.main import main as memtui_main

    from .app_helpers import open_status_screen, status_screen_text

    session = open_session(SessionOptions(agent="main", provider="none"), load_config(None))
    app = MemtuiApp.from_session(session, watch=False)
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            assert await wait_for(pilot, lambda: not app.sync_running)
            before = await open_status_screen(pilot, app)
            assert "builtin memory-core answers" in before and "connected" not in app.sub_title
            assert memtui_main(["connect", "--agent", "main", "--no-index", "--no-validate"]) == 0  # "another terminal"
            assert await wait_for(pilot, lambda: "answers from memtui" in status_screen_text(app))
            assert "[connected to OpenClaw]" in app.sub_title and app.agent.connected
            await pilot.press("escape")
            assert memtui_main(["disconnect", "--agent", "main", "--no-validate"]) == 0
            assert await wait_for(pilot, lambda: "connected" not in app.sub_title)
            assert not app.agent.connected
    finally:
        session.close()
