"""Open a path for reading only when it is a regular file, without ever blocking on what is not one.

A plain `open()` of a FIFO waits for a writer forever: a note swapped for a FIFO between the listing
and the read hung the whole sync (holding the index lock), and a FIFO where memtui keeps its
judgements hung `eval`, `judgements list` and the app's launch. Opening with O_NONBLOCK returns at
once for a FIFO (and has no effect on a regular file), and `fstat` of the opened descriptor says
what was really opened, so a swap after any earlier `stat` cannot slip through.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO


class NotRegularFile(OSError):
    """The path names a FIFO, socket, device or folder; `strerror` says which, for a one-line message."""


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def open_regular_stat(path: str | Path, follow_symlinks: bool = True) -> tuple[int, os.stat_result]:
    """A read-only descriptor of the regular file at `path` and the stat of what it opened, never blocking
    on a FIFO; NotRegularFile when it is anything else, the usual OSError (ELOOP for a link when
    `follow_symlinks` is off) when it cannot be opened. The caller owns the descriptor."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if not follow_symlinks:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = _kind(st.st_mode)
            raise NotRegularFile(0, f"{kind}, not a regular file" if kind != "not a regular file" else kind, str(path))
        return fd, st
    except BaseException:
        os.close(fd)
        raise


def open_regular_fd(path: str | Path, follow_symlinks: bool = True) -> int:
    """A read-only descriptor of the regular file at `path`, as open_regular_stat checks it."""
    return open_regular_stat(path, follow_symlinks)[0]


def open_regular(path: str | Path, follow_symlinks: bool = True) -> BinaryIO:
    """`path` opened for binary reading, as open_regular_fd checks it."""
    return os.fdopen(open_regular_fd(path, follow_symlinks), "rb")


def read_regular(path: str | Path, follow_symlinks: bool = True) -> bytes:
    """The whole of a regular file (see open_regular)."""
    with open_regular(path, follow_symlinks) as fh:
        return fh.read()
