"""Issue 31: the palette's Screenshot failed without ~/Downloads; it goes to the current folder (or
the data dir) as a private file, and the toast says where."""

from __future__ import annotations

import stat

from openclaw_memtui.tui.screenshot import save_screenshot, screenshot_folder

from .app_helpers import copy_demo, make_app, wait_for


async def test_a_screenshot_without_downloads_goes_to_the_current_folder_as_a_private_file(tmp_path, monkeypatch):
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    monkeypatch.setattr("platformdirs.user_downloads_path", lambda: tmp_path / "no-downloads")
    app = make_app(copy_demo(tmp_path), tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        app.deliver_screenshot()  # what the palette's Screenshot calls
        assert await wait_for(pilot, lambda: any("Screenshot saved to" in t for _, t in app.toasts))
    shots = list(here.glob("*.svg"))
    assert len(shots) == 1 and shots[0].read_text(encoding="utf-8").startswith("<svg")
    assert stat.S_IMODE(shots[0].stat().st_mode) == 0o600
    assert not (tmp_path / "no-downloads").exists()


def test_the_folder_falls_back_to_the_data_dir_and_a_name_taken_is_never_overwritten(tmp_path):
    data = tmp_path / "data"
    assert screenshot_folder(tmp_path / "none", tmp_path / "gone", data) == data and data.is_dir()
    assert screenshot_folder(tmp_path, tmp_path / "gone", data) == tmp_path
    first = save_screenshot("<svg/>", data, "shot.svg")
    second = save_screenshot("<svg>2</svg>", data, "shot.svg")
    assert first.read_text() == "<svg/>" and second.name == "shot (2).svg"
