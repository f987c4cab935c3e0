"""The one rule for which files memtui may read as memory: the sync, memory_get and the file view all ask here.

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


def settings_roots(settings: IndexSettings) -> list[str]:
    return allowed_roots(settings.workspace, settings.extra_paths, settings.sessions_dir)


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


def open_memory_file(path: str, roots: list[str], follow_symlinks: bool) -> int:
    """A read-only descriptor of the regular file at `path`, by the rule above, never blocking on a FIFO.

    Raises OSError: ELOOP for a link when links are not followed, OutsideRoots when the real path of
    what was opened lies outside `roots`, regular_file.NotRegularFile for a FIFO, device or folder.
    """
    from .regular_file import open_regular_fd

    fd = open_regular_fd(path, follow_symlinks)
    try:
        if not inside(_opened_path(fd, path), roots):
            raise OutsideRoots(0, "it resolves outside the workspace, its extra paths and the sessions folder",
                               str(path))
        return fd
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
