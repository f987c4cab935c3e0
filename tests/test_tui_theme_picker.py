"""Issue 31 item 9: moving through the theme picker previews without writing; a confirm writes once; a
session leaves one backup of config.toml; cancelling restores the theme from before the picker."""

from __future__ import annotations

import tomllib

from textual.command import CommandPalette

from .app_helpers import copy_demo, make_app, wait_for


def backups(config):
    return sorted(p.name for p in config.parent.glob(config.name + ".bak-*"))


async def open_picker(pilot, app):
    app.action_change_theme()
    assert await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette) and app.screen.query("CommandList")
                          and app.screen.query_one("CommandList").option_count > 1)


async def test_moving_through_themes_previews_and_only_a_confirm_writes_once(tmp_path):
    config = tmp_path / "memtui.toml"
    original = "# mine\n[tui]\ntheme = 'memtui-dark'\n"
    config.write_text(original, encoding="utf-8")
    app = make_app(copy_demo(tmp_path), tmp_path, config_path=config, cfg={"tui": {"theme": "memtui-dark"}})
    async with app.run_test(size=(80, 24)) as pilot:
        assert await wait_for(pilot, lambda: not app.sync_running)
        await open_picker(pilot, app)
        seen = set()
        for _ in range(3):
            await pilot.press("down")
            await pilot.pause()
            seen.add(app.theme)
        assert len(seen) == 3 and "memtui-dark" not in seen  # each highlighted theme is shown...
        assert config.read_text(encoding="utf-8") == original and backups(config) == []  # ...and nothing written
        picked = app.theme
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: not isinstance(app.screen, CommandPalette))
        assert await wait_for(pilot, lambda: tomllib.loads(config.read_text(encoding="utf-8"))["tui"]["theme"] == picked)
        assert app.theme == picked and len(backups(config)) == 1
        first_backup = backups(config)
        assert (config.parent / first_backup[0]).read_text(encoding="utf-8") == original

        await open_picker(pilot, app)  # a second pick in the same session: written, no second backup
        await pilot.press("down", "down")
        await pilot.pause()
        second = app.theme
        assert second != picked
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: tomllib.loads(config.read_text(encoding="utf-8"))["tui"]["theme"] == second)
        assert backups(config) == first_backup
        assert config.read_text(encoding="utf-8").startswith("# mine")

        written = config.read_text(encoding="utf-8")
        await open_picker(pilot, app)  # cancelled: the theme from before the picker is back, nothing written
        await pilot.press("down")
        await pilot.pause()
        assert app.theme != second
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: not isinstance(app.screen, CommandPalette) and app.theme == second)
        await pilot.pause()
        assert config.read_text(encoding="utf-8") == written and backups(config) == first_backup
