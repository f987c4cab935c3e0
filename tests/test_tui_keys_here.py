"""Keys where you are: the footer shows every key of the focused pane (as remapped), the palette names each
command's key, `?` opens help unless it is being typed, help lists the keys of every other pane and screen,
Suggest settings is a button of the tuning panel, and the MMR and decay switches say their state in words."""

from __future__ import annotations

from textual.command import CommandPalette
from textual.widgets import Button, Input, Label, OptionList, Switch
from textual.widgets._footer import FooterKey, FooterLabel

from openclaw_memtui.tui.screens.help import HelpScreen
from openclaw_memtui.tui.widgets.slider import Slider

from .app_helpers import copy_demo, make_app, rendered_lines, settled_search, wait_for


def footer(app) -> list[tuple[str, str]]:
    return [(k.key_display, k.description) for k in app.screen.query(FooterKey) if k.display]


async def test_the_footer_shows_every_key_of_the_focused_list_as_remapped_at_80_columns(tmp_path):
    app = make_app(copy_demo(tmp_path), tmp_path, cfg={"tui": {"keys": {"results.copy_json": "k"}}})
    async with app.run_test(size=(80, 24)) as pilot:
        await settled_search(pilot, app)
        app.query_one(OptionList).focus()
        await pilot.pause()
        assert await wait_for(pilot, lambda: ("k", "Copy JSON") in footer(app))
        shown = footer(app)
        for wanted in [("e", "Edit"), ("c", "Copy"), ("+", ""), ("-", ""), ("x", ""), ("^q", "Quit"), ("f1", "Help")]:
            assert wanted in shown, (wanted, shown)
        assert "Judge" in [str(label.render()) for label in app.screen.query(FooterLabel)]
        keys = [k for k in app.screen.query(FooterKey) if k.display]
        assert all(k.region.width > 0 and k.region.right <= 80 for k in keys)
        assert ("^t", "Tuning") not in shown  # no room at 80 columns beside the list's own keys: help has it
        await pilot.press("ctrl+t")  # a slider has the focus: its keys
        assert await wait_for(pilot, lambda: isinstance(app.focused, Slider) and ("←", "Less") in footer(app))
        assert ("→", "More") in footer(app)
    app = make_app(copy_demo(tmp_path / "wide"), tmp_path / "wide")
    async with app.run_test(size=(120, 36)) as pilot:
        await settled_search(pilot, app)
        app.query_one(OptionList).focus()
        assert await wait_for(pilot, lambda: ("j", "Copy JSON") in footer(app) and ("^t", "Tuning") in footer(app))


async def test_the_palette_names_each_commands_key_as_remapped(tmp_path):
    app = make_app(copy_demo(tmp_path), tmp_path, cfg={"tui": {"keys": {"sync": "f9"}}})
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("ctrl+p")
        assert await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"sync now")

        def hits() -> str:
            return "\n".join(str(o.prompt) for o in app.screen.query_one("CommandList").options)

        assert await wait_for(pilot, lambda: "key: f9" in hits())
        commands = {c.title: c.help for c in app.get_system_commands(app.screen)}
        assert "key: ctrl+o" in commands["Agent searches"] and "key: c" in commands["Copy snippet"]
        assert "tuning panel" in commands["Suggest settings"]


async def test_question_mark_opens_help_unless_it_is_being_typed(tmp_path):
    app = make_app(copy_demo(tmp_path), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        assert await wait_for(pilot, lambda: not app.sync_running)
        query = app.query_one("#query", Input)
        assert app.focused is query and not query.value
        await pilot.press("question_mark")  # an empty query box: help
        assert await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        assert query.value == ""
        await pilot.press("question_mark")  # closes it again
        assert await wait_for(pilot, lambda: not isinstance(app.screen, HelpScreen))
        await pilot.press(*"why", "question_mark")  # inside a query it is a character
        assert await wait_for(pilot, lambda: query.value == "why?")
        assert not isinstance(app.screen, HelpScreen)


async def test_help_lists_the_keys_of_the_sliders_the_file_view_the_status_screen_and_suggest(tmp_path):
    app = make_app(copy_demo(tmp_path), tmp_path, cfg={"tui": {"keys": {"slider.less": "comma", "file.find": "ctrl+f",
                                                                        "syncscreen.rebuild": "r"}}})
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("f1")
        assert await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        text = [" ".join(line.split()) for line in rendered_lines(app.screen.query_one("#help-text"))]
        for title in ("On a tuning slider", "In the file view (Enter on a result)", "On the status screen (f2)",
                      "In Suggest settings"):
            assert title in text, title
        for row in (", Less", "^f Find", "n Next", "N Previous", "f Follow", "r Full rebuild", "s Sync now",
                    "a Apply", "s Apply and save", "pgup More ×10"):
            assert row in text, row
        assert "← h Less" not in text  # remapped: comma only
    app = make_app(copy_demo(tmp_path / "b"), tmp_path / "b")
    async with app.run_test(size=(120, 36)) as pilot:  # asked on the status screen: its keys are the keys here
        await pilot.press("f2")
        assert await wait_for(pilot, lambda: app.screen.__class__.__name__ == "SyncScreen")
        await pilot.press("question_mark")
        assert await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        text = [" ".join(line.split()) for line in rendered_lines(app.screen.query_one("#help-text"))]
        assert "f Full rebuild" in text and not any(line.startswith("On the status screen") for line in text)


async def test_suggest_is_a_button_of_the_tuning_panel_and_the_switches_say_on_or_off(tmp_path):
    app = make_app(copy_demo(tmp_path), tmp_path)
    opened = []
    async with app.run_test(size=(120, 36)) as pilot:
        await settled_search(pilot, app)
        app.search_screen.judging.action_suggest_settings = lambda: opened.append(1)
        await pilot.press("ctrl+t")
        panel = app.query_one("#tuning")
        button = panel.query_one("#suggest", Button)
        assert button.region.width > 0
        await pilot.click(button)
        assert await wait_for(pilot, lambda: opened == [1])
        mmr, state = panel.query_one("#sw-mmr", Switch), panel.query_one("#sw-mmr-state", Label)
        was = app.search_screen.params.mmr
        assert str(state.render()) == ("on" if was else "off")
        mmr.toggle()
        assert await wait_for(pilot, lambda: app.search_screen.params.mmr != was and str(state.render()) == ("off" if was
                                                                                                             else "on"))
        app.search_screen.apply_preset("recent-first")  # decay on: set by a preset, said too
        assert await wait_for(pilot, lambda: str(panel.query_one("#sw-decay-state", Label).render()) == "on")
