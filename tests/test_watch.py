"""The file watcher, native and polling: each test waits for the callback, never for a fixed time."""

import threading
import time

from openclaw_memtui.engine.sync.watch import MemoryWatcher

from .helpers import write


class Recorder:
    """Collects the watcher's callbacks; `fired` is set on each one."""

    def __init__(self) -> None:
        self.seen: list[set[str]] = []
        self.fired = threading.Event()

    def __call__(self, paths: set[str]) -> None:
        self.seen.append(paths)
        self.fired.set()

    def reset(self) -> None:
        self.seen.clear()
        self.fired.clear()


def write_until_fired(recorder: Recorder, edit, seconds: float = 10.0) -> bool:
    """Repeat `edit(attempt)` until the watcher calls back (a watcher that has just started may miss the first
    write); bounded by `seconds`."""
    deadline = time.monotonic() + seconds
    attempt = 0
    while time.monotonic() < deadline:
        edit(attempt)
        attempt += 1
        if recorder.fired.wait(0.5):
            return True
    return False


def test_native_watcher_sees_memory_edits(workspace, make_settings):
    recorder = Recorder()
    watcher = MemoryWatcher(make_settings(workspace, watch_debounce_ms=200), recorder)
    watcher.start()
    try:
        note = workspace / "memory" / "2026-11-03.md"
        assert write_until_fired(recorder, lambda n: write(note, f"# New day\n{n}\n"))
        assert any(p.endswith("2026-11-03.md") for batch in recorder.seen for p in batch)
        assert watcher.state == "watching"
    finally:
        watcher.stop()


def test_ignored_folders_do_not_fire(workspace, make_settings):
    recorder = Recorder()
    watcher = MemoryWatcher(make_settings(workspace, watch_debounce_ms=200), recorder)
    watcher.start()
    try:
        ready = workspace / "memory" / "ready.md"
        assert write_until_fired(recorder, lambda n: write(ready, f"ready {n}\n"))  # the watcher is live
        recorder.reset()
        write(workspace / "memory" / "node_modules" / "x" / "README.md", "dependency")
        write(workspace / "memory" / "marker.md", "after the dependency\n")  # changes arrive in order

        def marker_seen() -> bool:
            return any(p.endswith("marker.md") for batch in list(recorder.seen) for p in batch)

        deadline = time.monotonic() + 10
        while not marker_seen() and time.monotonic() < deadline:
            recorder.fired.clear()
            recorder.fired.wait(0.5)
        assert marker_seen()
        assert not any("node_modules" in p for batch in recorder.seen for p in batch), recorder.seen
    finally:
        watcher.stop()


def test_polling_fallback_reports_itself(workspace, make_settings):
    recorder = Recorder()
    watcher = MemoryWatcher(make_settings(workspace, poll_seconds=0.2), recorder, force_polling=True)
    watcher.start()
    try:
        assert watcher.state.startswith("polling")
        memory = workspace / "MEMORY.md"
        assert write_until_fired(recorder, lambda n: write(memory, "# Memory\nchanged\n" + "x" * n))
        assert any(p.endswith("MEMORY.md") for batch in recorder.seen for p in batch)
    finally:
        watcher.stop()


def test_an_extra_file_is_watched_without_watching_everything_below_its_folder(tmp_path, workspace, make_settings):
    """extraPaths = ["~/notes.md"] watched the note's folder recursively: an inotify watch on every
    folder of $HOME, and a callback (then a sync) for any note anywhere below it."""
    home = tmp_path / "home"
    extra = home / "notes.md"  # not there yet when the app starts: its creation is seen too
    deep = home / "projects" / "repo" / "docs"
    write(deep / "unrelated.md", "not memory\n")
    recorder = Recorder()
    watcher = MemoryWatcher(make_settings(workspace, extra_paths=(str(extra),), watch_debounce_ms=200), recorder)
    assert home not in watcher._recursive_roots()
    watcher.start()
    try:
        assert write_until_fired(recorder, lambda n: write(extra, f"team notes {n}\n"))  # the extra file is live
        recorder.reset()
        write(deep / "unrelated.md", "still not memory\n")
        write(home / "other.md", "a note beside it that is not an extra path\n")
        write(extra, "the marker edit\n")  # changes arrive in order: once this is seen, the others were not sent

        def marker_seen() -> bool:
            return any(p == str(extra) for batch in list(recorder.seen) for p in batch)

        deadline = time.monotonic() + 10
        while not marker_seen() and time.monotonic() < deadline:
            recorder.fired.clear()
            recorder.fired.wait(0.5)
        assert marker_seen()
        assert all(p == str(extra) for batch in recorder.seen for p in batch), recorder.seen
    finally:
        watcher.stop()
