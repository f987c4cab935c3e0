"""One base for every error memtui phrases for its user, and one way to turn any error into a line.

`describe()` passes a `MemtuiError`'s text through unchanged and explains anything else, so an
error class only has to subclass this base to reach the user as its own one line. It lives in the
engine because the engine uses it too (a file that cannot be indexed is listed with the reason).
"""

from __future__ import annotations

import errno

from .scrub import scrub


class MemtuiError(Exception):
    """An error whose message is already one line a user can act on."""


def describe(exc: BaseException) -> str:
    """One line; API keys scrubbed out (an exception may quote a request or a URL with a key)."""
    return scrub(_describe(exc))


class DiskFull(MemtuiError):
    """A write to the index failed because its disk is full; the message says where and what to do."""


# how SQLite and sqlite-vec say that a write failed: SQLITE_FULL's text, and vec0's blob write (which
# fails with SQLITE_FULL underneath when the disk fills during a vector insert)
_FULL_TEXTS = ("database or disk is full", "could not write to vector blob", "no space left on device")
_SQLITE_FULL = 13


def is_disk_full(exc: BaseException) -> bool:
    """`exc` is (or may well be) a write that failed for want of space."""
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", -1)):
        return True
    if getattr(exc, "sqlite_errorcode", None) == _SQLITE_FULL:
        return True
    lowered = str(exc).lower()
    return any(t in lowered for t in _FULL_TEXTS)


def disk_full(folder: str, exc: BaseException) -> DiskFull:
    """One line for a full disk under the index: where, how much is left, what to do."""
    import os

    try:
        st = os.statvfs(folder)
        free = f"{st.f_bavail * st.f_frsize // 1024} KB free"
    except OSError:
        free = "free space unknown"
    return DiskFull(f"the disk holding the index folder {folder} is full ({free}); the index is kept as it was "
                    "before this sync: free some space there, or pass --db a file on another disk, then run "
                    "`memtui index` again")


def _read_only_place(exc: OSError) -> str:
    """A write refused by a read-only file system, naming the folder it was in: the file may be an index's
    lock, an OpenClaw config's temp copy or a judgements file, so the line never guesses which (it said
    "the index file is read-only" for OpenClaw's state folder, and for an index that could be read)."""
    import os

    where = os.fsdecode(exc.filename) if exc.filename else ""
    if not where:
        return f"the file system is read-only ({exc.strerror or exc}): memtui cannot write there"
    folder, name = os.path.split(where)
    return f"{folder or '.'} is on a read-only file system: memtui cannot write {name} there"


def _describe(exc: BaseException) -> str:
    name = type(exc).__name__
    text = " ".join(str(exc).split()) or name
    lowered = text.lower()
    if is_disk_full(exc) and not isinstance(exc, (MemtuiError, OSError)):  # SQLite's: a write to the index
        return ("the disk is full: writing the index failed (" + text + "); free some space on the disk of the index "
                "(or pass --db a file on another disk) and try again")
    if "database is locked" in lowered:
        # SQLite cannot say who holds the lock: a memtui sync, or any program with the file open
        return "the index is locked by another process (a memtui sync, or a program holding it open); wait and retry"
    if isinstance(exc, OSError) and exc.errno == errno.EROFS:
        return _read_only_place(exc)
    if "readonly" in lowered or "read-only" in lowered:  # SQLite's "attempt to write a readonly database"
        return f"the index file is read-only ({text}); pass --db to a writable location"
    if isinstance(exc, PermissionError):
        return f"permission denied: {getattr(exc, 'filename', '') or text}"
    if isinstance(exc, FileNotFoundError):
        return f"file not found: {getattr(exc, 'filename', '') or text}"
    if isinstance(exc, (FileExistsError, NotADirectoryError)):
        return f"{getattr(exc, 'filename', '') or text} is a file, not a folder; choose another --db or workspace path"
    if isinstance(exc, OSError):
        where = getattr(exc, "filename", "") or ""
        return f"{exc.strerror or text} ({where})" if where else exc.strerror or text  # never a bare "()"
    if isinstance(exc, MemtuiError):
        return text
    return f"{text} ({name}; rerun with MEMTUI_DEBUG=1 for details)"
