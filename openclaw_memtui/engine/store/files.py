"""The index file and its neighbours on disk: private modes, -wal/-shm, rebuild temp files, set-aside copies;
and the one way memtui writes any other private file whole (judgements, history, caches).

The index holds the text of private notes: only its owner may read it, whatever the umask says.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from .schema import InvalidIndex

DIR_MODE = 0o700
FILE_MODE = 0o600


def make_private_dirs(folder: Path) -> None:
    """Create `folder` and any missing parents 0700. Folders that already exist are left alone:
    they may be shared on purpose (a --db in /tmp), and they are not ours to change."""
    missing: list[Path] = []
    current = Path(folder)
    while not current.exists():
        missing.append(current)
        if current.parent == current:
            break
        current = current.parent
    for path in reversed(missing):
        try:
            os.mkdir(path, DIR_MODE)
        except FileExistsError:
            continue  # created meanwhile by another process
        os.chmod(path, DIR_MODE)  # mkdir's mode is filtered by the umask


@contextlib.contextmanager
def private_atomic_writer(path: Path) -> Iterator[BinaryIO]:
    """A binary file to write `path`'s new content into: a 0600 temporary file in the same folder (its
    missing folders made 0700), fsynced and renamed over `path` when the block ends, removed when it
    raises. A crash leaves the old file or the new one, never half of one; a reader sees one or the
    other. A symlink is written through: its target changes and the link stays (a dotfiles repo)."""
    path = Path(os.path.realpath(path))
    make_private_dirs(path.parent)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)  # never an existing file
    try:
        os.fchmod(fd, FILE_MODE)
        with os.fdopen(fd, "wb") as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        os.replace(name, path)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise


def write_private_atomic(path: Path, text: str | bytes) -> None:
    """`text` (str: as UTF-8) into `path` 0600, whole or not at all (see private_atomic_writer)."""
    with private_atomic_writer(path) as out:
        out.write(text.encode("utf-8") if isinstance(text, str) else text)


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def create_private_file(path: Path) -> None:
    """Create `path` empty with mode 0600 unless it exists, so SQLite (which gives its -wal and
    -shm the mode of the main file) and the lock never start out world-readable. O_EXCL never
    follows a link at `path`: whatever is there is left as it is."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, FILE_MODE)
    except FileExistsError:
        return
    try:
        os.fchmod(fd, FILE_MODE)
    finally:
        os.close(fd)


def make_private(path: Path) -> None:
    """Best effort 0600 on a regular file we own (an index created by an older memtui was 0644).

    Never through a link: a link another user put beside the index must not make memtui chmod its
    target, so the file is opened with O_NOFOLLOW and the descriptor is what is checked and chmodded."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except (OSError, AttributeError):  # gone, a link (ELOOP), or not ours to open
        return
    try:
        st = os.fstat(fd)
        if stat.S_ISREG(st.st_mode) and st.st_uid == os.getuid() and stat.S_IMODE(st.st_mode) & 0o077:
            os.fchmod(fd, stat.S_IMODE(st.st_mode) & ~0o077)
    except (OSError, AttributeError):  # no getuid (Windows)
        pass
    finally:
        os.close(fd)


# what memtui keeps beside an index file `<db>`: SQLite's -wal/-shm/-journal, the sync lock, the vector matrix
NEIGHBOUR_SUFFIXES = ("-wal", "-shm", "-journal", ".lock", ".matrix")  # .matrix: vectors/matrix_file.SUFFIX


def refuse_links_beside(path: Path) -> None:
    """Refuse an index whose neighbour files (see NEIGHBOUR_SUFFIXES) are symbolic links.

    memtui never makes a link there. In a shared folder another user's link at `<db>-journal` or
    `<db>.lock` would make SQLite or memtui create, write or chmod the link's target, a file of that
    user's choosing. A link at the index path itself is the user's own choice only when they own it.
    """
    for candidate in [path, *(Path(f"{path}{suffix}") for suffix in NEIGHBOUR_SUFFIXES)]:
        try:
            st = os.lstat(candidate)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise InvalidIndex(f"index file {candidate} cannot be checked: {exc.strerror}") from None
        if stat.S_ISLNK(st.st_mode):
            if candidate == path and st.st_uid == os.getuid():
                continue
            raise InvalidIndex(f"{candidate} is a symbolic link; memtui never follows a link beside its index (another "
                               "user may have put it there): remove it, or keep the index in a folder only you can write")


def check_regular_file(path: Path) -> None:
    """Refuse an index path that exists but is not a regular file (/dev/null, a folder, a FIFO):
    SQLite would create `/dev/null-journal` beside it, and reading a FIFO blocks forever."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise InvalidIndex(f"index path {path} cannot be used: {exc.strerror}") from None
    if not stat.S_ISREG(mode):
        kind = ("a folder" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
                else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a regular file")
        raise InvalidIndex(f"index path {path} is {kind}, not a regular file; pass --db a file path")


def fsync_path(path: Path) -> None:
    """Flush a file's (or a folder's: a rename in it) data to the disk. Raises OSError where a folder
    cannot be opened for it (Windows)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def side_files(path: Path) -> list[Path]:
    """The index file and the -wal/-shm (the live index) or -journal (a rebuild's scratch file) SQLite keeps beside it."""
    return [path, Path(f"{path}-wal"), Path(f"{path}-shm"), Path(f"{path}-journal")]


def remove_side_files(path: Path, *, keep_main: bool = False) -> None:
    for side in side_files(path)[1 if keep_main else 0 :]:
        with contextlib.suppress(FileNotFoundError):
            side.unlink()


def move_aside(path: Path) -> Path:
    """Rename an untrusted index (and its -wal/-shm) out of the way; nothing is deleted."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = Path(f"{path}.invalid-{stamp}")
    n = 1
    while any(Path(str(target) + suffix).exists() for suffix in ("", "-wal", "-shm")):
        n += 1  # a second invalid file within the same second must not replace the first
        target = Path(f"{path}.invalid-{stamp}-{n}")
    for src in side_files(path):
        if os.path.lexists(src):  # a link is renamed as a link, never followed
            dest = Path(str(target) + str(src)[len(str(path)) :])
            os.replace(src, dest)
            make_private(dest)  # it may hold private text, whoever wrote it
    return target


def temp_path_beside(path: Path) -> Path:
    """A fresh name for a rebuild of `path`, in the same folder so the swap is one rename (48 random bits:
    not uuid, whose import loads `platform`, 2 ms of every `memtui index`)."""
    return Path(f"{path}.tmp-{os.urandom(6).hex()}")


def remove_temp_files(path: Path) -> None:
    """Delete every rebuild temp file of `path`; the caller holds the sync lock, so none is live."""
    for leftover in path.parent.glob(path.name + ".tmp-*"):
        with contextlib.suppress(OSError):
            leftover.unlink()
