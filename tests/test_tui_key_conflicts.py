"""Issue 31: a remap that takes another binding's key is refused, naming both; documented ids are known."""

from __future__ import annotations

from .app_helpers import copy_demo, make_app, wait_for


async def test_a_remap_onto_quit_is_refused_with_a_toast_naming_both(tmp_path):
    app = make_app(copy_demo(tmp_path), tmp_path, cfg={"tui": {"keys": {"toggle_tuning": "ctrl+q", "sync": "f6"}}})
    quits = []
    async with app.run_test(size=(80, 24)) as pilot:
        app.action_quit = lambda: quits.append(1)
        assert await wait_for(pilot, lambda: any("toggle_tuning" in t and "quit" in t for _, t in app.toasts))
        assert app.key_for("toggle_tuning") == "ctrl+t" and app.key_for("sync") == "f6"  # the other remap applies
        await pilot.press("ctrl+q")
        assert await wait_for(pilot, lambda: quits == [1])


async def test_the_result_lists_ids_are_known_and_a_swap_is_no_conflict(tmp_path):
    keys = {"results.mark_relevant": "r", "results.edit": "c", "results.copy": "e"}  # edit and copy swapped
    app = make_app(copy_demo(tmp_path), tmp_path, cfg={"tui": {"keys": keys}})
    async with app.run_test(size=(80, 24)) as pilot:
        assert await wait_for(pilot, lambda: not app.sync_running)
        await pilot.pause()
        assert not [t for _, t in app.toasts if t.startswith("tui.keys")], app.toasts
        assert app.key_for("results.mark_relevant") == "r" and app.key_for("results.edit") == "c"


async def test_a_remap_onto_a_result_list_key_is_refused(tmp_path):
    app = make_app(copy_demo(tmp_path), tmp_path, cfg={"tui": {"keys": {"results.copy": "e"}}})
    async with app.run_test(size=(80, 24)) as pilot:
        assert await wait_for(pilot, lambda: any("results.copy" in t and "results.edit" in t for _, t in app.toasts))
        assert app.key_for("results.copy") == "c"


async def test_help_opens_with_the_keys_as_remapped_and_no_textual_internal_keys(tmp_path):
    """F1 opened with prose: at 80x24 not one key was visible; the input's own keys were mixed in."""
    from .app_helpers import rendered_lines

    app = make_app(copy_demo(tmp_path), tmp_path, cfg={"tui": {"keys": {"toggle_tuning": "f5"}}})
    async with app.run_test(size=(80, 24)) as pilot:
        assert await wait_for(pilot, lambda: not app.sync_running)
        await pilot.press("f1")
        assert await wait_for(pilot, lambda: app.screen.__class__.__name__ == "HelpScreen")
        await pilot.pause()
        scroll = app.screen.query_one("VerticalScroll")
        visible = "\n".join(rendered_lines(app.screen.query_one("#help-text"))[: scroll.scrollable_content_region.height])
        assert visible.lstrip().startswith("Keys") and "f5" in visible and "Tuning" in visible
        everything = "\n".join(rendered_lines(app.screen.query_one("#help-text")))
        for internal in ("Go to end", "Delete", "Copy selected text", "Paste"):
            assert internal not in everything, internal
        assert "Command palette" in everything
