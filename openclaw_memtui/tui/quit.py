"""Quitting at once, whatever runs in the background.

Textual runs a thread worker in the event loop's default executor, and `asyncio.run` ends by joining
that executor's threads: ctrl+q left a blank terminal for as long as the slowest worker still had to
run (a model load and the judged questions' embedding took 11–18 s on a busy machine), and none of
that work can be interrupted. The app's loop gets an executor whose threads are daemons and whose
shutdown does not wait; when the app has ended, `exit_now_if_busy` ends the process at once if any
of them still runs, and `end_process` ends it once the index is closed otherwise (no module-by-module
teardown). Nothing is lost that the next start does not redo: the index is SQLite (a write
not committed is rolled back), a sync resumes with the notes it had not embedded, and the app's
files (settings, judgements, the prepared model) are written to a temporary file and renamed.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import logging
import os
import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


class DaemonThreads(concurrent.futures.ThreadPoolExecutor):
    """One daemon thread per task, and a shutdown that never waits for them (asyncio accepts only a
    ThreadPoolExecutor as a loop's default: the pool itself is never used)."""

    def __init__(self) -> None:
        super().__init__(max_workers=1, thread_name_prefix="memtui-worker")
        self._running: set[threading.Thread] = set()
        self._running_lock = threading.Lock()

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> concurrent.futures.Future[T]:
        future: concurrent.futures.Future[T] = concurrent.futures.Future()

        def run() -> None:
            try:
                if future.set_running_or_notify_cancel():
                    try:
                        result = fn(*args, **kwargs)
                    except BaseException as exc:  # handed to whoever awaits the future, as the pool does
                        future.set_exception(exc)
                    else:
                        future.set_result(result)
            finally:
                with self._running_lock:
                    self._running.discard(threading.current_thread())

        thread = threading.Thread(target=run, name="memtui-worker", daemon=True)
        with self._running_lock:
            self._running.add(thread)
        thread.start()
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Never waits: what still runs is abandoned (see the module's docstring)."""

    def busy(self) -> bool:
        """Whether a task still runs."""
        with self._running_lock:
            return any(thread.is_alive() for thread in self._running)


def exit_now_if_busy(executor: DaemonThreads | None, code: int) -> None:
    """After the app ended: if a worker still runs, end the process now with `code`, instead of closing
    the index under that worker or letting the interpreter tear down the modules the worker is using."""
    if executor is not None and executor.busy():
        end_process(code)


def end_process(code: int) -> None:
    """End the process now with `code`, its output flushed and its logs closed: the app has ended and
    its index is closed (or abandoned to SQLite's rollback, see above). The interpreter's own teardown,
    module by module, took 0.2–0.7 s of a quit with nothing left running (Textual, numpy, the model's
    modules) on a loaded machine: a quit a person waits on."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed or broken stream: nothing left to flush
            stream.flush()
    logging.shutdown()
    os._exit(code)
