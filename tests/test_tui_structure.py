"""The TUI's structure: the app is not the search screen, and judging is an object the screen holds.
(Modules are kept apart by concept, not size: import-linter's no-circles contracts check the graph.)"""

from __future__ import annotations

from openclaw_memtui.tui.app import MemtuiApp
from openclaw_memtui.tui.judging import Judging
from openclaw_memtui.tui.search_screen import MainScreen


def test_the_search_screen_handles_the_search_and_the_app_does_not():
    for handler in ("on_search_done", "on_search_failed", "on_file_loaded", "on_judged_loaded", "on_metric_scored",
                    "on_tuning_panel_params_changed", "on_browse_loaded"):
        assert hasattr(MainScreen, handler) and not hasattr(MemtuiApp, handler), handler


def test_judging_is_held_not_mixed_in():
    assert not any(issubclass(cls, Judging) for cls in (MemtuiApp, MainScreen))
    assert not any("Judging" in cls.__name__ for cls in MemtuiApp.__mro__ + MainScreen.__mro__)
