"""What a source of the index is: a listed file (SourceFile) and its stamp, workspace-relative and
displayable paths, the listing's time budget, and which notes never age.

The listings are memory_listing (notes), session_listing (transcripts) and listing (both, as a sync
sees them); a transcript becomes text in transcripts.
"""

from __future__ import annotations

import os
import re
import time
from datetime import date
from pathlib import Path
from typing import NamedTuple

IGNORED_DIRS = frozenset(
    {".git", ".hg", ".svn", "node_modules", ".pnpm-store", ".venv", "venv", ".tox", "__pycache__", ".mypy_cache",
     ".pytest_cache", ".cache", ".dreams"}
)
_DATED_NOTE = re.compile(r"(?:^|/)memory/(?:[^/]+/)*(\d{4})-(\d{2})-(\d{2})(?:-[^/]*)?\.md$")


class SourceFile(NamedTuple):
    """One file to index. A NamedTuple: built per listed file on every sync, it costs a third of a frozen dataclass."""

    abs_path: str  # a plain string: 10,000 Path objects cost more than the whole no-op sync
    path: str  # workspace-relative with "/" (sessions: "sessions/<name>", 2026.9: "sessions/<agent>/<id>.jsonl")
    source: str  # "memory" | "sessions"
    # (mtime ms, size) as listed: the stat the walk took of a file, or what OpenClaw's database says of
    # a transcript kept there (its abs_path is then `openclaw-db:<session id>`, see DB_SESSION_PREFIX);
    # None when the stat failed: whoever needs it stats the file again
    stamp: tuple[float, int] | None = None

    @property
    def in_database(self) -> bool:
        return self.abs_path.startswith(DB_SESSION_PREFIX)


def rel_path(workspace: Path | str, target: Path | str) -> str:
    ws, t = str(workspace), str(target)
    if t.startswith(ws) and t[len(ws) : len(ws) + 1] == os.sep:  # the common case, without os.path.relpath's cost
        rel = t[len(ws) + 1 :]
        return rel if os.sep == "/" else rel.replace(os.sep, "/")
    return os.path.relpath(t, ws).replace(os.sep, "/")


def display_path(path: str) -> str:
    """`path` as valid text: undecodable file-name bytes (kept by Python as lone surrogates) become `\\xff`.

    SQLite, JSON and the terminal all refuse lone surrogates, so a raw one stops a whole sync.
    """
    if path.isascii():
        return path
    try:
        path.encode("utf-8")
        return path
    except UnicodeEncodeError:
        pass
    try:
        return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a surrogate that is not an escaped byte
        return path.encode("utf-8", "backslashreplace").decode("utf-8")


def has_undecodable_name(path: str) -> bool:
    return display_path(path) != path


def stat_stamp(path: str) -> tuple[float, int] | None:
    """(mtime ms, size) of a file whose listing could not stat it; None when it still cannot be."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns / 1e6, st.st_size


class ListingBudget:
    """A time limit on a listing (`status`'s bounded dirty check): the walk stops once it is spent and
    the listing is then partial, which `exhausted` says, so nobody mistakes it for all the files."""

    __slots__ = ("deadline", "exhausted")

    def __init__(self, seconds: float) -> None:
        self.deadline = time.monotonic() + seconds
        self.exhausted = False

    def spent(self) -> bool:
        if not self.exhausted and time.monotonic() >= self.deadline:
            self.exhausted = True
        return self.exhausted

    def spent_at(self, entry: int) -> bool:
        """`spent`, looked at only every _BUDGET_STRIDE entries of a folder (`entry`: the index of the
        one about to be handled; never before the first)."""
        return bool(entry) and not entry % _BUDGET_STRIDE and self.spent()


# how many folder entries the walk handles between two looks at the clock: ~50 µs of work with the files
# in the kernel's cache, a few ms when each stat waits for the disk
_BUDGET_STRIDE = 16


class Unreadable(NamedTuple):
    """A folder the listing could not read: its files are missing from the list, not deleted."""

    path: str  # workspace-relative, ending in "/"
    source: str
    reason: str


def _note_unreadable(unreadable: list[Unreadable] | None, exc: OSError, path: str, source: str) -> None:
    # a folder removed or replaced while walked is simply gone; only one that is there and cannot be read is said
    if unreadable is not None and not isinstance(exc, (FileNotFoundError, NotADirectoryError)):
        unreadable.append(Unreadable(display_path(path), source, exc.strerror or type(exc).__name__))


DEFAULT_ROOT_FILES = ("MEMORY.md", "memory.md", "USER.md")


DB_SESSION_PREFIX = "openclaw-db:"


def note_date_ms(path: str) -> float | None:
    """Epoch ms (UTC midnight) of a dated note `memory/**/YYYY-MM-DD[-topic].md`, else None."""
    m = _DATED_NOTE.search(path.replace("\\", "/").removeprefix("./"))
    if not m:
        return None
    try:
        days = date(int(m.group(1)), int(m.group(2)), int(m.group(3))).toordinal() - _EPOCH_ORDINAL
    except ValueError:
        return None
    return days * 86_400_000.0  # UTC midnight: a third of an aware datetime's timestamp() (once per note)


_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()


def is_evergreen(path: str, source: str) -> bool:
    """MEMORY.md, memory.md, USER.md and undated files under memory/ never age."""
    p = path.replace("\\", "/").removeprefix("./")
    if source != "memory":
        return False
    if p in DEFAULT_ROOT_FILES:
        return True
    return (p.startswith("memory/") or "/memory/" in p) and note_date_ms(p) is None
