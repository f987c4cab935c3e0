"""The app's status screen reads the index's status on a worker thread every second while a sync runs.
A rebuild swaps a new file in and reopens the store's connection on the sync's thread: a status read
through that connection from another thread at that moment crashed the app (a segmentation fault in
SQLite, once in a loaded run of the suite), and a reader's own connection closed under it by a later
read of the same thread failed it ("Cannot operate on a closed database"). Run in a child process, so
a crash is a failed test, not a lost test worker."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from .helpers import env_for_subprocess

SCRIPT = textwrap.dedent("""
    import shutil, sys, tempfile, threading
    from pathlib import Path
    from openclaw_memtui.core.config import index_settings, validate
    from openclaw_memtui.engine.index import MemoryIndex
    from openclaw_memtui.paths import demo_workspace

    tmp = Path(sys.argv[1])
    ws = tmp / "demo"
    shutil.copytree(demo_workspace(), ws)
    index = MemoryIndex(index_settings(validate({}), ws, tmp / "i.sqlite"), provider_name="none")
    index.sync()
    stop, reads, failures = threading.Event(), [0], []

    def read_status():
        while not stop.is_set():
            try:
                assert index.status(check_dirty=False).chunks > 0
                reads[0] += 1
            except Exception as exc:
                failures.append(repr(exc))

    reader = threading.Thread(target=read_status)
    reader.start()
    for _ in range(40):  # each one a rebuild beside the live file, swapped in
        index.sync(force=True)
    stop.set()
    reader.join()
    print(reads[0], failures[:3])
""")


def test_status_read_on_another_thread_while_rebuilds_swap_the_file_in(tmp_path):
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path)], capture_output=True, text=True,
                          env=env_for_subprocess(), timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    reads, failures = done.stdout.split(" ", 1)
    assert int(reads) > 0 and failures.strip() == "[]", done.stdout


def test_closing_the_index_waits_for_a_sync_running_on_another_thread(tmp_path, workspace, make_settings):
    """Closing the store's connection under a sync still writing through it crashed the process (a
    segmentation fault in SQLite: a test closed the index while the app's launch sync ran); close() now
    waits for that sync to end, and only then closes."""
    import threading

    from openclaw_memtui.engine.index import MemoryIndex

    index = MemoryIndex(make_settings(workspace), provider_name="none")
    in_sync, go_on = threading.Event(), threading.Event()
    order: list[str] = []
    reports: list[object] = []

    def hold(p) -> None:
        if p.phase == "index" and not in_sync.is_set():
            in_sync.set()
            go_on.wait(30)

    def sync() -> None:
        reports.append(index.sync(progress=hold))
        order.append("sync ended")

    syncing = threading.Thread(target=sync)
    syncing.start()
    assert in_sync.wait(30)
    closing = threading.Thread(target=lambda: (index.close(), order.append("closed")))
    closing.start()
    go_on.set()
    syncing.join(30)
    closing.join(30)
    assert order == ["sync ended", "closed"]
    assert reports and reports[0].files_indexed >= 4
