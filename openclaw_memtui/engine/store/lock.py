"""The cross-process sync lock kept beside the index file."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import IO

from .files import FILE_MODE, create_private_file, make_private_dirs
from .schema import InvalidIndex


class SyncLock:
    """A cross-process lock beside the index file: one sync (and one temp-file cleanup) at a time.

    A second memtui (the CLI while the app syncs) must neither start a competing rebuild nor delete
    the other's half-built file. POSIX `flock`; where it does not exist the lock is a no-op.
    """

    def __init__(self, db_path: Path) -> None:
        self.path = Path(f"{db_path}.lock")
        self._fh: IO[str] | None = None

    def acquire(self, wait: bool = True) -> bool:
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
        self._fh = os.fdopen(fd, "a+")
        try:
            fcntl.flock(self._fh.fileno(), fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            self._fh.close()
            self._fh = None
            return False
        return True

    def release(self) -> None:
        if self._fh is not None:
            import fcntl

            fcntl.flock(self._fh.fileno(), fcntl.LOCK_UN)
            self._fh.close()
            self._fh = None
