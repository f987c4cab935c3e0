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

import errno
import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..settings import IndexSettings


def allowed_roots(workspace: Path | str, extra_paths: tuple[str, ...] | list[str] = (),
                  sessions_dir: Path | str | None = None) -> list[str]:
    """Real paths of the folders (and single extra files) memory may come from."""
    ws = Path(workspace)
    roots = [os.path.realpath(ws)]
    for raw in extra_paths:
        if raw.strip():
            p = Path(os.path.expanduser(raw.strip()))
            roots.append(os.path.realpath(p if p.is_absolute() else ws / p))
    if sessions_dir is not None:
        roots.append(os.path.realpath(sessions_dir))
    return roots


class _Pin:
    """What one sync pass judges files by: the roots resolved at its start and the folder it is reading
    from, opened once (`open_beneath`)."""

    __slots__ = ("settings", "roots", "folder", "folder_fd", "folder_real", "folder_inside")

    def __init__(self, settings: IndexSettings, roots: tuple[str, ...]) -> None:
        self.settings, self.roots = settings, roots
        self.folder: str | None = None  # the path of the folder open at folder_fd (None: none yet)
        self.folder_fd: int | None = None  # None: that folder could not be opened (files are opened by path)
        self.folder_real = ""
        self.folder_inside = False  # the folder itself lies inside a root, and so does each of its entries

    def open_beneath(self, path: str) -> tuple[int, os.stat_result] | None:
        """The regular file at `path` opened beneath its folder's descriptor without following a link,
        with its stat, when that folder's real path puts the file inside the roots; None when the file
        must be judged by the path it resolves to (the folder cannot be opened here, lies outside the
        roots, or the file is a link).

        Why: a file opened by name beneath a folder's descriptor, with O_NOFOLLOW, is that folder's
        own entry, not a link; so its real path is the folder's real path and its name, and one
        /proc look-up per folder replaces one per file (a third of a first index's reading; each
        look-up builds the whole path in the kernel). The folder's descriptor is what was opened,
        whatever is swapped in at its path later: a folder replaced by a link to elsewhere after it
        was judged is not followed. Files are read in path order, so one folder is open at a time.
        Raises the open's OSError (ELOOP for a link with links off, FileNotFoundError, ...).
        """
        from .regular_file import open_regular_stat

        folder, _, name = path.rpartition(os.sep)
        if folder != self.folder:
            self.close_folder()
            self.folder = folder
            try:
                self.folder_fd = os.open(folder, os.O_RDONLY | _O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
                self.folder_real = _opened_path(self.folder_fd, folder)
                self.folder_inside = inside(self.folder_real, list(self.roots))
            except OSError:  # not readable as a folder (search-only permission, gone): each file by its path
                self.close_folder()
                self.folder = folder
        if self.folder_fd is None or not name or name in (".", ".."):
            return None
        # a folder outside every root may still hold a root itself (an extra path naming one file)
        if not self.folder_inside and not inside(os.path.join(self.folder_real, name), list(self.roots)):
            return None
        try:
            return open_regular_stat(name, follow_symlinks=False, dir_fd=self.folder_fd)
        except OSError as exc:
            if exc.errno == errno.ELOOP and self.settings.follow_symlinks:
                return None  # a link, followed by the settings: judged by where it leads
            raise

    def close_folder(self) -> None:
        if self.folder_fd is not None:
            os.close(self.folder_fd)
        self.folder, self.folder_fd, self.folder_real, self.folder_inside = None, None, "", False


# opening beneath a folder needs openat (dir_fd) and O_DIRECTORY; elsewhere every file is judged by its path
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_BENEATH = bool(_O_DIRECTORY) and os.open in os.supports_dir_fd

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
    access rule with those roots open files beneath their folder's descriptor (`_Pin.open_beneath`)."""
    pin = _Pin(settings, tuple(settings_roots(settings)))
    token = _PINNED.set(pin)
    try:
        yield
    finally:
        _PINNED.reset(token)
        pin.close_folder()


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
    if _BENEATH and pin is not None and pin.settings.follow_symlinks == follow_symlinks and pin.roots == tuple(roots):
        opened = pin.open_beneath(path)
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
    ws = os.path.realpath(settings.workspace)
    folders = [os.path.join(ws, "memory")]
    files = [os.path.join(ws, name) for name in settings.root_files]
    for raw in settings.extra_paths:
        if raw.strip():
            p = Path(os.path.expanduser(raw.strip()))
            real = os.path.realpath(p if p.is_absolute() else Path(ws) / p)
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
