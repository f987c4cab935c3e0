"""One base for every error memtui phrases for its user, and one way to turn any error into a line.

`describe()` passes a `MemtuiError`'s text through unchanged and explains anything else, so an
error class only has to subclass this base to reach the user as its own one line. It lives in the
engine because the engine uses it too (a file that cannot be indexed is listed with the reason).
"""

from __future__ import annotations

from .scrub import scrub


class MemtuiError(Exception):
    """An error whose message is already one line a user can act on."""


def describe(exc: BaseException) -> str:
    """One line; API keys scrubbed out (an exception may quote a request or a URL with a key)."""
    return scrub(_describe(exc))


def _describe(exc: BaseException) -> str:
    name = type(exc).__name__
    text = " ".join(str(exc).split()) or name
    lowered = text.lower()
    if "database is locked" in lowered:
        # SQLite cannot say who holds the lock: a memtui sync, or any program with the file open
        return "the index is locked by another process (a memtui sync, or a program holding it open); wait and retry"
    if "readonly" in lowered or "read-only" in lowered:
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
