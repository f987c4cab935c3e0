"""Which index files memtui made, proven without reading them: a record per index in memtui's own folder.

memtui moves an untrusted index aside only when it made the file. The file's own header (memtui's
application id) says so while the first page is whole; garbage written over it (a torn write, a bad
disk) erases that proof, and memtui used to refuse its own index forever. So each index a writer
opens is also recorded outside the file: the device and inode it lives on and the user who owns
it, in a private folder of memtui's (the data dir's `index-records/`). The damaged content is never
trusted; a file is ours when it is still the very inode memtui recorded at that path.

The record is trusted only in a folder memtui's user owns that no one else can write, and only
when the record itself is that user's regular file (not a link): another user of a shared machine
can neither write such a record nor make our user's inode sit at a path of their choosing.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import tempfile
from pathlib import Path

from .files import FILE_MODE, make_private_dirs

RECORD_SUFFIX = ".json"


def record_index(records: Path | None, path: Path) -> None:
    """Remember that the regular file now at `path` is an index memtui made (best effort: a read-only
    data dir only means a damaged index there will not be recognised without its header)."""
    if records is None:
        return
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            return
        wanted = _record(path, st)
        target = _record_path(records, path)
        if _read(target) == wanted:
            return  # nothing changed: no write at every open
        make_private_dirs(records)
        if not _private_folder(records):
            return
        fd, name = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=records)
        try:
            os.fchmod(fd, FILE_MODE)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(wanted, fh)
            os.replace(name, target)
        except BaseException:
            Path(name).unlink(missing_ok=True)
            raise
    except (OSError, ValueError):
        return


def recorded_as_ours(records: Path | None, path: Path) -> bool:
    """The file at `path` is the one memtui recorded creating there (same path, device, inode and owner).
    Reads only the record and the file's metadata, never its bytes."""
    if records is None:
        return False
    try:
        if not _private_folder(records):
            return False
        target = _record_path(records, path)
        st_record = os.lstat(target)
        if not stat.S_ISREG(st_record.st_mode) or st_record.st_uid != _uid():
            return False
        st = os.stat(path)
    except (OSError, ValueError):
        return False
    return stat.S_ISREG(st.st_mode) and st.st_uid == _uid() and _read(target) == _record(path, st)


def _record(path: Path, st: os.stat_result) -> dict[str, object]:
    return {"path": os.path.abspath(path), "dev": st.st_dev, "ino": st.st_ino, "uid": st.st_uid}


def _record_path(records: Path, path: Path) -> Path:
    digest = hashlib.sha256(os.path.abspath(path).encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return records / f"{digest}{RECORD_SUFFIX}"


def _read(target: Path) -> object:
    try:
        with open(target, encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return None


def _private_folder(folder: Path) -> bool:
    """A folder (not a link) this user owns that no other user can write."""
    try:
        st = os.lstat(folder)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == _uid() and not st.st_mode & 0o022


def _uid() -> int:
    getuid = getattr(os, "getuid", None)
    return getuid() if getuid is not None else -1
