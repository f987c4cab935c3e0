"""Nothing a person waits on in the app loads the model first: the model warms in the background from the
start, the first query shows its keyword results at once (said as such) and re-ranks them in place when
the query's vector arrives, a working indicator names what runs, and ctrl+q never waits for a worker."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import textwrap
import threading

from openclaw_memtui.tui.quit import DaemonThreads
from openclaw_memtui.tui.search_screen import VECTORS_FOLLOW_QUERY
from openclaw_memtui.tui.widgets.info_bar import InfoBar

from .app_helpers import copy_demo, make_app, rendered_lines, wait_for
from .helpers import env_for_subprocess


class GatedLoad:
    """Holds the local model's load until released (or `limit` seconds), as a slow first load would."""

    def __init__(self, provider, limit: float = 30.0) -> None:
        self.entered, self.release = threading.Event(), threading.Event()
        real = provider._make_engine

        def make():
            self.entered.set()
            self.release.wait(limit)
            return real()

        provider._make_engine = make


def info_text(app) -> str:
    return " ".join(rendered_lines(app.query_one(InfoBar)))


async def test_the_first_query_shows_keywords_at_once_then_re_ranks_in_place_when_the_vector_arrives(tmp_path):
    app = make_app(copy_demo(tmp_path), tmp_path, provider="local")  # the demo's passages are replayed
    gate = GatedLoad(app.index.provider)
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            assert await wait_for(pilot, gate.entered.is_set)  # the model warms from the start, unasked
            assert await wait_for(pilot, lambda: not app.sync_running, 60)
            assert "loading the model" in info_text(app)  # the working indicator names it
            app.query_one("#query").value = "what did we decide about API auth"  # searched after the debounce
            # (until the index is built the app browses the memory, newest first)
            query = "what did we decide about API auth"
            assert await wait_for(pilot, lambda: app.search_screen.pool is not None and app.search_screen.pool.query == query
                                  and app.search_screen.results)
            first = app.search_screen.pool
            assert first.mode == "keyword" and VECTORS_FOLLOW_QUERY in first.warnings
            assert "keywords only" in info_text(app) and not gate.release.is_set()
            keyword_ids = [r.id for r in app.search_screen.results]
            gate.release.set()
            assert await wait_for(pilot, lambda: app.search_screen.pool is not None and app.search_screen.pool.mode == "hybrid",
                                  60)
            # the same query, re-ranked in place: every result's move is against the keyword ranking
            assert app.search_screen.pool.query == first.query and app.search_screen.results
            assert set(app.search_screen.moves) == {r.id for r in app.search_screen.results}
            for result in app.search_screen.results:
                if result.id in keyword_ids:
                    assert app.search_screen.moves[result.id] == keyword_ids.index(result.id) - (result.rank - 1)
                else:
                    assert app.search_screen.moves[result.id] is None  # found by its vector alone
            await app.workers.wait_for_complete()
            assert await wait_for(pilot, lambda: "⋯" not in info_text(app))  # nothing runs: no indicator
            # the next query finds the model loaded: no keyword-first step
            app.query_one("#query").value = "oolong tea"
            assert await wait_for(pilot, lambda: app.search_screen.pool is not None
                                  and app.search_screen.pool.query == "oolong tea")
            assert app.search_screen.pool.mode == "hybrid" and VECTORS_FOLLOW_QUERY not in app.search_screen.pool.warnings
    finally:
        gate.release.set()


async def test_ctrl_q_while_the_model_loads_ends_the_app_without_waiting_for_it(tmp_path):
    import asyncio

    app = make_app(copy_demo(tmp_path), tmp_path, provider="local")
    gate = GatedLoad(app.index.provider, limit=20)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            assert await wait_for(pilot, gate.entered.is_set)
            await pilot.press("ctrl+q")
        assert app.return_code == 0
        executor = app.executor
        assert isinstance(executor, DaemonThreads) and executor.busy()  # the load still runs, abandoned
        # what asyncio.run does as the app's process ends: it joined every worker thread (11–18 s)
        await asyncio.get_running_loop().shutdown_default_executor()
        assert not gate.release.is_set() and executor.busy()  # returned while the load was still held
    finally:
        gate.release.set()


def test_the_process_ends_at_once_when_a_worker_still_runs(tmp_path):
    """The launch's exit: with a worker still running after the app ended, the process exits with the
    app's code at once (the lines after it never run), not when the worker is done."""
    script = textwrap.dedent("""
        import sys, threading
        from openclaw_memtui.tui.quit import DaemonThreads, exit_now_if_busy
        executor, release = DaemonThreads(), threading.Event()
        executor.submit(release.wait, 60)
        exit_now_if_busy(executor, 3)
        print("still here")
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env_for_subprocess(),
                          timeout=50)
    assert done.returncode == 3 and "still here" not in done.stdout
    idle = subprocess.run([sys.executable, "-c", script.replace("executor.submit(release.wait, 60)", "")],
                          capture_output=True, text=True, env=env_for_subprocess(), timeout=50)
    assert idle.returncode == 0 and "still here" in idle.stdout  # nothing running: the normal exit


def test_ctrl_q_ends_the_real_app_with_its_index_closed_and_no_interpreter_teardown(tmp_path):
    """`memtui` in a terminal (a pty): ctrl+q ends the process once the session is closed (its -wal
    checkpointed away), without the interpreter's module-by-module teardown (an atexit hook never runs),
    which took 0.2–0.7 s of a quit with nothing left running on a loaded machine."""
    import os
    import pty
    import select
    import time

    ws = copy_demo(tmp_path)
    db = tmp_path / "i.sqlite"
    hook = tmp_path / "hook"
    hook.mkdir()
    marker = tmp_path / "torn-down"
    (hook / "sitecustomize.py").write_text(
        f"import atexit\natexit.register(lambda: open({str(marker)!r}, 'w').close())\n", encoding="utf-8")
    env = env_for_subprocess()
    env.update(PYTHONPATH=os.pathsep.join(p for p in (str(hook), env.get("PYTHONPATH", "")) if p), TERM="xterm-256color")
    main, child = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "openclaw_memtui", "--workspace", str(ws), "--db", str(db),
                             "--provider", "none"], stdin=child, stdout=child, stderr=child, env=env, close_fds=True)
    os.close(child)
    screen = b""
    try:
        deadline = time.monotonic() + 120
        while b"MEMORY.md" not in screen:  # the memory listed: the app is up and idle soon after
            assert time.monotonic() < deadline and proc.poll() is None, screen[-2000:]
            if select.select([main], [], [], 0.5)[0]:
                screen += os.read(main, 65536)
        os.write(main, b"\x11")  # ctrl+q
        while proc.poll() is None:
            assert time.monotonic() < deadline, "the app did not end"
            if select.select([main], [], [], 0.2)[0]:
                with contextlib.suppress(OSError):  # EIO once the child side is closed
                    screen += os.read(main, 65536)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        os.close(main)
    assert proc.returncode == 0
    assert db.exists() and not (tmp_path / "i.sqlite-wal").exists()  # closed before the exit, not abandoned
    assert not marker.exists()  # the process ended at once: no interpreter teardown ran
