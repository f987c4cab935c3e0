"""The TUI's structure (#29 item 4): the app is not the search screen, judging is an object the screen
holds, and no module of tui/ grows past 450 lines."""

from __future__ import annotations

from pathlib import Path

import openclaw_memtui.tui as tui
from openclaw_memtui.tui.app import MemtuiApp
from openclaw_memtui.tui.judging import Judging
from openclaw_memtui.tui.search_screen import MainScreen

MAX_LINES = 450


def test_no_tui_module_is_over_450_lines():
    root = Path(tui.__file__).parent
    sizes = {str(p.relative_to(root)): len(p.read_text(encoding="utf-8").splitlines()) for p in root.rglob("*.py")}
    assert {name: n for name, n in sizes.items() if n > MAX_LINES} == {}


def test_the_search_screen_handles_the_search_and_the_app_does_not():
    for handler in ("on_search_done", "on_search_failed", "on_file_loaded", "on_judged_loaded", "on_metric_scored",
                    "on_tuning_panel_params_changed", "on_browse_loaded"):
        assert hasattr(MainScreen, handler) and not hasattr(MemtuiApp, handler), handler


def test_judging_is_held_not_mixed_in():
    assert not any(issubclass(cls, Judging) for cls in (MemtuiApp, MainScreen))
    assert not any("Judging" in cls.__name__ for cls in MemtuiApp.__mro__ + MainScreen.__mro__)
