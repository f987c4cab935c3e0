"""The one rule for which files memtui may read as memory: the sync, memory_get and the file view all ask here
(through the one reader, engine/ingest/reading.py).

A file is memory when its real path (every link resolved) lies inside an allowed root: the
workspace, a configured extra path, or the sessions folder. With `followSymlinks` off no link is
opened at all (the listing skips them, and the open refuses one swapped in since); with it on, a link
is followed only while it stays inside a root: `memory/passwd.md -> /etc/passwd`, a linked folder
outside, a chain of links that ends outside, are never listed, indexed, read or shown. Before this
module the listing followed any link and only memory_get checked the real path, so `memory_search`
returned the text of files `memory_get` refused.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING

from .no_links import open_no_links

if TYPE_CHECKING:
    from ..settings import IndexSettings


def _root_paths(workspace: Path | str, extra_paths: tuple[str, ...] | list[str] = (),
                sessions_dir: Path | str | None = None) -> list[Path]:
    """The roots as configured (not resolved): the workspace, each extra path, the sessions folder."""
    ws = Path(workspace)
    paths = [ws]
    for raw in extra_paths:
        if raw.strip():
            p = Path(os.path.expanduser(raw.strip()))
            paths.append(p if p.is_absolute() else ws / p)
    if sessions_dir is not None:
        paths.append(Path(sessions_dir))
    return paths


def allowed_roots(workspace: Path | str, extra_paths: tuple[str, ...] | list[str] = (),
                  sessions_dir: Path | str | None = None) -> list[str]:
    """Real paths of the folders (and single extra files) memory may come from."""
    return [os.path.realpath(p) for p in _root_paths(workspace, extra_paths, sessions_dir)]


class _Pin:
    """What one sync pass judges files by: the roots resolved at its start (`open_listed` opens a file
    listed under one of them by its real path, through no link)."""

    __slots__ = ("settings", "roots", "bases")

    def __init__(self, settings: IndexSettings, roots: tuple[str, ...]) -> None:
        self.settings, self.roots = settings, roots
        # (a root as the listing's paths start with it, its real path), longest first
        listed = [os.path.normpath(p) for p in _root_paths(settings.workspace, settings.extra_paths,
                                                           settings.sessions_dir)]
        self.bases = sorted(zip(listed, roots, strict=True), key=lambda pair: -len(pair[0]))

    def open_listed(self, path: str) -> tuple[int, os.stat_result] | None:
        """The regular file listed at `path` and its stat, opened by its path under the real root it is
        listed under with no link in any component (no_links.open_no_links): so its real path is that
        path, inside the root, with no /proc look-up of its own. None when the file must be judged the
        ordinary way: not under a root folder, a `..` in its path, a link anywhere in it (followed or
        refused by the settings there), gone, not a regular file, or openat2 unavailable."""
        for listed, root in self.bases:
            if path.startswith(listed) and path[len(listed):len(listed) + 1] == os.sep:
                relative = path[len(listed) + 1:]
                real = root + os.sep + relative  # inside `root` by its very string: no link and no `..` in it
                break
        else:
            return None
        if ".." in relative and ".." in relative.split(os.sep):
            return None
        fd = open_no_links(real)
        if fd is None:
            return None
        try:
            st = os.fstat(fd)
        except OSError:
            os.close(fd)
            return None
        if not stat.S_ISREG(st.st_mode):  # a FIFO, device or folder: the ordinary open says which
            os.close(fd)
            return None
        return fd, st


# The roots one sync pass judges every file by (`roots_pinned`), per thread: the app's other threads
# (memory_get, the file view) still resolve them at each call
_PINNED: ContextVar[_Pin | None] = ContextVar("memtui_pinned_roots", default=None)


def settings_roots(settings: IndexSettings) -> list[str]:
    pin = _PINNED.get()
    if pin is not None and pin.settings is settings:
        return list(pin.roots)
    return allowed_roots(settings.workspace, settings.extra_paths, settings.sessions_dir)


@contextmanager
def roots_pinned(settings: IndexSettings) -> Iterator[None]:
    """Within the block (in this thread), `settings_roots(settings)` gives the roots resolved at its
    start: a sync's listing and every read of it judge files by the same roots, and the roots' real
    paths are not resolved again for each of 10,000 files (a third of reading them). Reads under the
    access rule with those roots open a listed file by its real path through no link (`_Pin.open_listed`)."""
    pin = _Pin(settings, tuple(settings_roots(settings)))
    token = _PINNED.set(pin)
    try:
        yield
    finally:
        _PINNED.reset(token)


def inside(real: str, roots: list[str]) -> bool:
    """`real` (a resolved path) is one of `roots` or below one."""
    return any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in roots)


def may_read(path: str, roots: list[str]) -> bool:
    """The file (or folder) at `path` resolves to somewhere inside `roots`."""
    return inside(os.path.realpath(path), roots)


def _opened_path(fd: int, path: str) -> str:
    """The real path of what `fd` opened: /proc says it exactly (a link swapped after the open cannot
    change it); elsewhere the path resolved now."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return os.path.realpath(path)


class OutsideRoots(OSError):
    """The path resolves outside every allowed root (a link swapped in since the listing)."""


def open_memory_file(path: str, roots: list[str], follow_symlinks: bool) -> tuple[int, os.stat_result]:
    """A read-only descriptor of the regular file at `path` and its stat, by the rule above, never
    blocking on a FIFO.

    Raises OSError: ELOOP for a link when links are not followed, OutsideRoots when the real path of
    what was opened lies outside `roots`, regular_file.NotRegularFile for a FIFO, device or folder.
    """
    from .regular_file import open_regular_stat

    pin = _PINNED.get()
    if pin is not None and pin.settings.follow_symlinks == follow_symlinks and pin.roots == tuple(roots):
        opened = pin.open_listed(path)
        if opened is not None:
            return opened
    fd, st = open_regular_stat(path, follow_symlinks)
    try:
        if not inside(_opened_path(fd, path), roots):
            raise OutsideRoots(0, "it resolves outside the workspace, its extra paths and the sessions folder",
                               str(path))
        return fd, st
    except BaseException:
        os.close(fd)
        raise


def index_in_memory(settings: IndexSettings) -> str | None:
    """Why the index path may not be used because it lies where memory lives (None when it may).

    An index (and the -wal, -shm, .lock, temp and matrix files beside it) inside `memory/`, the
    sessions folder or an extra path folder, or named like a root file (`MEMORY.md`, a daily note not
    written yet), would be taken for a note, or have a note written over it later.
    """
    db = os.path.realpath(settings.db_path)
    ws, *extras = (os.path.realpath(p) for p in _root_paths(settings.workspace, settings.extra_paths))
    folders = [os.path.join(ws, "memory")]
    files = [os.path.join(ws, name) for name in settings.root_files]
    for real in extras:
        (folders if not real.endswith(".md") or os.path.isdir(real) else files).append(real)
    if settings.sessions_dir is not None:
        folders.append(os.path.realpath(settings.sessions_dir))
    if db in files:
        return "it is one of the files the index is built from"
    for folder in folders:
        if folder != ws and inside(db, [folder]):  # an extra path "." is the whole workspace: only notes count there
            return f"it is inside {folder}, where memory files live"
    if os.path.dirname(db) == ws and db.endswith(".md"):
        return "it is a note's name at the workspace root"
    return None
