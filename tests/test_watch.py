import threading
import time

from conftest import write

from openclaw_memtui.engine.watch import MemoryWatcher


def _wait(event, seconds=10):
    return event.wait(seconds)


def test_native_watcher_sees_memory_edits(workspace, make_settings):
    seen: list[set[str]] = []
    fired = threading.Event()

    def on_change(paths):
        seen.append(paths)
        fired.set()

    watcher = MemoryWatcher(make_settings(workspace, watch_debounce_ms=200), on_change)
    watcher.start()
    try:
        time.sleep(0.3)
        write(workspace / "memory" / "2026-11-03.md", "# New day\n")
        assert _wait(fired)
        assert any(p.endswith("2026-11-03.md") for batch in seen for p in batch)
        assert watcher.state == "watching"
    finally:
        watcher.stop()


def test_ignored_folders_do_not_fire(workspace, make_settings):
    fired = threading.Event()
    watcher = MemoryWatcher(make_settings(workspace, watch_debounce_ms=200), lambda _p: fired.set())
    watcher.start()
    try:
        time.sleep(0.3)
        write(workspace / "memory" / "node_modules" / "x" / "README.md", "dependency")
        assert not fired.wait(1.0)
    finally:
        watcher.stop()


def test_polling_fallback_reports_itself(workspace, make_settings):
    fired = threading.Event()
    watcher = MemoryWatcher(make_settings(workspace, poll_seconds=0.2), lambda _p: fired.set(), force_polling=True)
    watcher.start()
    try:
        assert watcher.state.startswith("polling")
        time.sleep(0.3)
        write(workspace / "MEMORY.md", "# Memory\nchanged\n")
        assert _wait(fired)
    finally:
        watcher.stop()
