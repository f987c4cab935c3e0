"""The cross-process sync lock kept beside the index file."""

from __future__ import annotations

import errno
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Protocol

from ..errors import MemtuiError
from .files import FILE_MODE, create_private_file, make_private_dirs
from .schema import InvalidIndex

POLL_S = 0.1  # how often a bounded wait tries the lock again (flock itself cannot time out)


class _Flag(Protocol):
    def is_set(self) -> bool: ...


class SyncLockTimeout(MemtuiError):
    """Another process held the sync lock for the whole wait. The CLI exits 75 (EX_TEMPFAIL) on it."""

    def __init__(self, path: Path, waited_s: float) -> None:
        self.path, self.waited_s = path, waited_s
        super().__init__(f"gave up after {waited_s:g}s waiting for the sync lock {path}: another process "
                         "is syncing this index")


class SyncLock:
    """A cross-process lock beside the index file: one sync (and one temp-file cleanup) at a time.

    A second memtui (the CLI while the app syncs) must neither start a competing rebuild nor delete
    the other's half-built file. POSIX `flock`; where it does not exist the lock is a no-op.
    """

    def __init__(self, db_path: Path) -> None:
        self.path = Path(f"{db_path}.lock")
        self._fh: IO[str] | None = None

    def acquire(self, wait: bool = True, timeout: float | None = None, cancel: _Flag | None = None,
                sleep: Callable[[float], None] = time.sleep) -> bool:
        """Take the lock. `wait` False: only if it is free now. Waiting, `timeout` bounds it (None:
        until it is free) and `cancel` ends it; both return False. A blocking flock could be ended by
        neither, so a bounded or cancellable wait tries again every POLL_S."""
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows
            return True
        make_private_dirs(self.path.parent)
        create_private_file(self.path)
        # O_NOFOLLOW: a link swapped in at <db>.lock must not make memtui create or open its target
        flags = os.O_RDWR | os.O_CREAT | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        try:
            fd = os.open(self.path, flags, FILE_MODE)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise InvalidIndex(f"{self.path} is a symbolic link; memtui never follows a link beside its index: "
                                   "remove it, or keep the index in a folder only you can write") from None
            raise
        self._fh = os.fdopen(fd, "a+")  # held open until release(): the lock lives as long as the handle
        if wait and timeout is None and cancel is None:
            fcntl.flock(self._fh.fileno(), fcntl.LOCK_EX)
            return True
        deadline = None if timeout is None else time.monotonic() + max(timeout, 0.0)
        while True:
            try:
                fcntl.flock(self._fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                return True
            except BlockingIOError:
                pass
            left = None if deadline is None else deadline - time.monotonic()
            if not wait or (left is not None and left <= 0) or (cancel is not None and cancel.is_set()):
                self._fh.close()
                self._fh = None
                return False
            sleep(POLL_S if left is None else min(POLL_S, left))

    def release(self) -> None:
        if self._fh is not None:
            import fcntl

            fcntl.flock(self._fh.fileno(), fcntl.LOCK_UN)
            self._fh.close()
            self._fh = None
