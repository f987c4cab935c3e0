"""Rewrite a file for the user safely: a temporary file beside it, fsync, a backup of the original,
its owner and mode kept, an atomic rename. memtui's config (core/settings_io.py) and OpenClaw's
openclaw.json (export --write, connect) are written through here."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
import time
from pathlib import Path

from ..engine.errors import MemtuiError


class RewriteError(MemtuiError):
    """A config file could not be rewritten; the original is unchanged. One line for the user."""


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _fsync_dir(folder: Path) -> None:
    """Make the rename itself durable: without it a crash can bring back the old name's content."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _keep_owner(fd: int, st: os.stat_result) -> None:
    """Give the file open at `fd` the owner and group of `st` when they are not ours: possible as root
    (sudo memtui); otherwise the file stays ours."""
    if (st.st_uid, st.st_gid) != (os.getuid(), os.getgid()):
        with contextlib.suppress(PermissionError):
            os.fchown(fd, st.st_uid, st.st_gid)


def _backup(target: Path, st: os.stat_result) -> Path:
    """Copy `target` to `<name>.bak-<time>` (then `-2`, `-3`…): O_EXCL, so a backup is never replaced.
    It gets the original's mode and, when it can, owner: a backup of another user's config, which
    holds their keys, must not become root's file that they can neither read nor remove."""
    mode = stat.S_IMODE(st.st_mode)
    data = target.read_bytes()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    n = 1
    while True:
        backup = target.with_name(f"{target.name}.bak-{stamp}" + (f"-{n}" if n > 1 else ""))
        try:
            fd = os.open(backup, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
            break
        except FileExistsError:
            n += 1
    try:
        os.fchmod(fd, mode)  # the original's mode, not the umask's: a 0600 config keeps a 0600 backup
        _keep_owner(fd, st)
        _write_all(fd, data)
        os.fsync(fd)
    except OSError:
        os.close(fd)
        backup.unlink(missing_ok=True)  # never leave a truncated backup that looks like a good one
        raise
    os.close(fd)
    return backup


def rewrite_file(path: Path, text: str, expected: bytes | None = None, backup: bool = True) -> Path | None:
    """Replace a config file's content safely; return the backup of the original (None if new).

    - a symlink is written through: its target changes and the link stays a link;
    - the original's mode and owner are kept (0600 stays 0600); a new file is created 0600;
    - the original is copied to a backup that never overwrites an earlier one;
    - the new text goes to a temp file in the same folder, is fsynced and renamed over the
      original in one step, so a reader sees the old file or the new one, never half of one;
    - on any write failure (a full disk) the temp file and the backup are removed and the original
      is left as it was; RewriteError says so in one line;
    - with `expected` (the bytes the caller read and edited), the file is replaced only if it still
      holds them, compared just before the rename: an edit made meanwhile (OpenClaw, the user) is
      never written over, RewriteError says so and nothing changes.
    """
    from ..engine.store import make_private_dirs

    target = Path(os.path.realpath(path))
    data = text.encode("utf-8")
    try:
        st: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise RewriteError(f"cannot write {path}: {exc.strerror}") from None
    mode = stat.S_IMODE(st.st_mode) if st is not None else 0o600
    made: Path | None = None
    tmp: Path | None = None
    try:
        if st is None:
            make_private_dirs(target.parent)
        elif backup:
            made = _backup(target, st)
        fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        tmp = Path(name)
        try:
            os.fchmod(fd, mode)
            if st is not None:
                _keep_owner(fd, st)
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        if expected is not None and _current(target) != expected:
            raise _Changed()
        os.replace(tmp, target)
        tmp = None
        _fsync_dir(target.parent)
    except (OSError, _Changed) as exc:
        if tmp is not None:
            tmp.unlink(missing_ok=True)
        if made is not None:
            made.unlink(missing_ok=True)  # the original is intact, so this copy of it is not needed
        if isinstance(exc, _Changed):
            raise RewriteError(f"{path} changed while memtui was preparing its edit (OpenClaw or someone else wrote "
                               "it); nothing was written: run the command again") from None
        state = "the original is unchanged" if st is not None else "nothing was written"
        raise RewriteError(f"cannot write {path}: {exc.strerror or exc}; {state}") from None
    return made


class _Changed(Exception):
    """The file no longer holds what the caller read."""


def _current(target: Path) -> bytes | None:
    try:
        return target.read_bytes()
    except FileNotFoundError:
        return None
