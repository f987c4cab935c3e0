"""The cross-process sync lock kept beside the index file."""

from __future__ import annotations

from pathlib import Path
from typing import IO

from .files import create_private_file, make_private_dirs


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
        self._fh = open(self.path, "a+")  # noqa: SIM115 - held open until release(): the lock lives as long as the handle
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
