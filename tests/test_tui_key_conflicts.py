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
