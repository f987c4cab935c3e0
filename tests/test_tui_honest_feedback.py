"""Honest feedback: quitting with settings applied but unsaved asks first and says which; a copy says where it
went (the system clipboard, tmux's paste buffer, the terminal by OSC 52) or that it went nowhere and to which file."""

from __future__ import annotations

import os
import stat
import tomllib
from pathlib import Path

from textual.widgets import OptionList, Static

from openclaw_memtui.engine.search.rank import SearchParams
from openclaw_memtui.tui.clipboard import Route, choose_route
from openclaw_memtui.tui.screens.confirm_quit import ConfirmQuitScreen, unsaved_changes

from .app_helpers import copy_demo, make_app, settled_search, wait_for

# -- quitting ----------------------------------------------------------------------------------------------

def test_unsaved_changes_names_each_setting_that_differs():
    saved = SearchParams(vector_weight=0.1, text_weight=0.9)
    assert unsaved_changes(saved, saved) == []
    lines = unsaved_changes(saved, SearchParams(vector_weight=0.3, text_weight=0.9, max_results=8, mmr=True))
    assert "vector weight 0.10 → 0.30" in lines and any(line.startswith("MMR off → on") for line in lines)
    assert any(line.startswith("max results") for line in lines) and len(lines) == 3


async def test_quitting_with_applied_settings_asks_says_which_and_s_saves_them(tmp_path):
    config = tmp_path / "config.toml"
    app = make_app(copy_demo(tmp_path), tmp_path, config_path=config)
    async with app.run_test(size=(80, 24)) as pilot:
        await settled_search(pilot, app)
        app.search_screen.apply_preset("keyword-heavy")
        assert await wait_for(pilot, lambda: app.search_screen.params.text_weight == 0.8)
        await pilot.press("ctrl+q")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmQuitScreen))
        told = str(app.screen.query_one("#quit-changes", Static).render())
        assert "text weight" in told and "→ 0.80" in told
        await pilot.press("escape")  # stay: nothing lost
        assert await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmQuitScreen))
        assert app.is_running and app.search_screen.params.text_weight == 0.8
        await pilot.press("ctrl+q")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmQuitScreen))
        await pilot.press("s")
        assert await wait_for(pilot, lambda: not app.is_running)
    saved = tomllib.loads(config.read_text())
    assert saved["query"]["hybrid"]["textWeight"] == 0.8


async def test_quit_again_on_the_question_quits_without_saving(tmp_path):
    config = tmp_path / "config.toml"
    app = make_app(copy_demo(tmp_path), tmp_path, config_path=config)
    async with app.run_test(size=(120, 36)) as pilot:
        await settled_search(pilot, app)
        app.search_screen.apply_preset("semantic-heavy")
        assert await wait_for(pilot, lambda: app.search_screen.params.vector_weight == 0.9)
        await pilot.press("ctrl+q")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmQuitScreen))
        await pilot.press("ctrl+q")
        assert await wait_for(pilot, lambda: not app.is_running)
    assert not config.exists()


# -- copying ---------------------------------------------------------------------------------------------

def test_the_route_is_one_memtui_can_vouch_for():
    tools = {"xclip": "/usr/bin/xclip", "tmux": "/usr/bin/tmux", "pbcopy": None}
    which = tools.get
    assert choose_route({"DISPLAY": ":0"}, which, True) == Route("system", ["/usr/bin/xclip", "-selection", "clipboard"])
    # xclip without a display cannot reach a clipboard: inside tmux, its paste buffer
    assert choose_route({"TMUX": "/tmp/t,1,0", "TERM": "screen"}, which, True) == \
        Route("tmux", ["/usr/bin/tmux", "load-buffer", "-"])
    assert choose_route({"TERM": "xterm-256color"}, which, True) == Route("osc52")
    assert choose_route({"TERM": "xterm-256color"}, which, False) == Route("file")
    assert choose_route({"TERM": "dumb"}, lambda _: None, True) == Route("file")


def fake_tmux(tmp_path, set_clipboard: str):
    """A `tmux` on PATH that keeps what load-buffer reads and answers show-options with `set_clipboard`."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    buffer = tmp_path / "tmux-buffer"
    script = bin_dir / "tmux"
    script.write_text(f"""#!/bin/sh
case "$1" in
  load-buffer) /bin/cat > {buffer} ;;
  show-options) echo {set_clipboard} ;;
esac
""")
    script.chmod(0o755)
    return bin_dir, buffer


async def test_c_under_tmux_says_tmuxs_paste_buffer_and_it_holds_the_snippet(tmp_path, monkeypatch):
    bin_dir, buffer = fake_tmux(tmp_path, "external")
    monkeypatch.setenv("PATH", str(bin_dir))  # no xclip, wl-copy, pbcopy: only tmux
    monkeypatch.setenv("TMUX", "/tmp/tmux-0/default,1,0")
    app = make_app(copy_demo(tmp_path), tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await settled_search(pilot, app)
        app.query_one(OptionList).focus()
        await pilot.press("c")
        assert await wait_for(pilot, lambda: any("Snippet copied to tmux's paste buffer" in t for _, t in app.toasts))
        told = next(t for _, t in app.toasts if "Snippet" in t)
        assert "OSC 52" not in told  # set-clipboard external: tmux keeps an application's OSC 52 to itself
        assert buffer.read_text() == app.search_screen.selected().snippet


async def test_with_no_clipboard_j_says_so_and_names_a_private_file(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.delenv("TMUX", raising=False)
    monkeypatch.setenv("TERM", "dumb")
    app = make_app(copy_demo(tmp_path), tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await settled_search(pilot, app)
        app.query_one(OptionList).focus()
        await pilot.press("j")
        assert await wait_for(pilot, lambda: any("Result as JSON not copied" in t for _, t in app.toasts))
        severity, told = next((s, t) for s, t in app.toasts if "Result as JSON" in t)
        assert severity == "warning" and "copied to" not in told
        path = told.rsplit("saved to ", 1)[1]
        assert os.path.dirname(path) == os.environ["MEMTUI_DATA_DIR"]
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
        assert app.search_screen.selected().path in Path(path).read_text()
