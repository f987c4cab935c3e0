"""The one reader of memory files and transcripts: the sync, memory_get and the app's file view all open
and read a listed file here, under the access rule (engine/ingest/access.py).

`read_file_text` owns what every read shares: the file name must be valid UTF-8 (the sync cannot
index another), the file is opened by the access rule (no link at all with followSymlinks off, a
link only while it stays inside the roots, never blocking on a FIFO, only a regular file), the size
limit, the NUL check for binary files, the decoding and the byte-order mark. `read_db_session` reads
a live transcript from an OpenClaw 2026.9 agent's database and `flatten_transcript` turns a
transcript into the lines the index holds, with the settings the sync uses.

Each reader then says what a refusal means for it: the sync skips or defers the file (`read_source`,
`read_db_transcript`), memory_get refuses the path (memory_files.py) and the file view says why it
cannot show it (`read_indexed_file`). What they still choose differently, on purpose: the file view
shows bytes that are not UTF-8 (replaced) and binary or large files, since it shows the file as it is
now to the person who owns it; the sync and memory_get keep to what can be indexed.
"""

from __future__ import annotations

import errno
import os
from typing import TYPE_CHECKING

from .access import OutsideRoots, open_memory_file, settings_roots
from .openclaw_db import OpenClawDbError, read_consistent, read_session_jsonl
from .regular_file import open_regular_stat
from .sources import DB_SESSION_PREFIX, SourceFile, has_undecodable_name
from .transcripts import FlatSession, flatten_session

if TYPE_CHECKING:
    from pathlib import Path

    from ..settings import IndexSettings


class NameNotUtf8(Exception):
    """The file's name is not valid UTF-8: the index cannot name it, so nothing reads it as memory."""


class TooLarge(Exception):
    def __init__(self, limit: int) -> None:
        super().__init__(f"larger than {limit} bytes")
        self.limit = limit


class BinaryFile(Exception):
    """The file holds NUL bytes near its start."""


class NotUtf8(Exception):
    def __init__(self, byte: int) -> None:
        super().__init__(f"not valid UTF-8 (byte {byte})")
        self.byte = byte


class ChangedWhileRead(Exception):
    """The file's size or mtime changed while it was read (half-written)."""


def _read_up_to(fd: int, limit: int) -> bytes:
    """Up to `limit` bytes of the regular file open at `fd`: one read for a note (a read shorter than asked
    is the file's end), a few for a file past what one read returns (2 GiB on Linux)."""
    parts = []
    got = 0
    while got < limit:
        asked = min(limit - got, 1 << 30)
        part = os.read(fd, asked)
        parts.append(part)
        got += len(part)
        if len(part) < asked:
            break
    return parts[0] if len(parts) == 1 else b"".join(parts)


def read_file_text(path: str, roots: list[str] | None, follow_symlinks: bool, max_bytes: int | None = None, *,
                   stable: bool = False, strict: bool = True, refuse_binary: bool = True,
                   ) -> tuple[str, os.stat_result]:
    """The text of the regular file at `path` and its stat, opened by the access rule.

    `roots` None opens only as a regular file, following links (what `--check-files` reads by). The size
    limit applies to the opened file's stat; with `stable`, it is stat'ed again after the read and a
    change between the two raises ChangedWhileRead. `strict` refuses bytes that are not UTF-8
    (NotUtf8) instead of replacing them; `refuse_binary` refuses NUL bytes in the first 64 KiB.
    Raises NameNotUtf8, TooLarge, BinaryFile, NotUtf8, ChangedWhileRead, or the OSError of the open:
    FileNotFoundError, PermissionError, ELOOP for a link with links off, access.OutsideRoots,
    regular_file.NotRegularFile for a FIFO, device or folder.
    """
    if has_undecodable_name(path):
        raise NameNotUtf8()
    fd, opened = open_regular_stat(path) if roots is None else open_memory_file(path, roots, follow_symlinks)
    # stat'ed (once, as it was opened) and read through the descriptor, not the path: what was opened is what
    # is measured, and a first index of 10,000 notes spent a fifth of its reading in two path lookups and a
    # file object per note
    try:
        if max_bytes is not None and opened.st_size > max_bytes:
            raise TooLarge(max_bytes)
        # ask for what the file holds (+1 to notice growth), never for the limit itself (maxFileBytes = 1e11
        # was a MemoryError)
        data = _read_up_to(fd, opened.st_size + 1)
        st = opened
        if stable:  # written to while read (an editor saving in place, a transcript appended to): not now
            st = os.fstat(fd)
            if (opened.st_mtime_ns, opened.st_size) != (st.st_mtime_ns, st.st_size) or len(data) != st.st_size:
                raise ChangedWhileRead()
    finally:
        os.close(fd)
    if refuse_binary and b"\x00" in data[:65536]:
        raise BinaryFile()
    if strict:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise NotUtf8(exc.start) from None
    else:
        text = data.decode("utf-8", errors="replace")
    return text.removeprefix("\ufeff"), st


def read_db_session(db: Path, session_id: str) -> str:
    """A live transcript from an OpenClaw 2026.9 agent database as JSONL text (line N = event N, as
    OpenClaw maps it). Raises OpenClawDbError."""
    return read_consistent(db, lambda conn: read_session_jsonl(conn, session_id))


def flatten_transcript(text: str, settings: IndexSettings) -> FlatSession:
    """A transcript as the index holds it: masked, wrapped and filtered as the sync flattens it."""
    return flatten_session(text, redact=True, wrap_chars=settings.transcript_wrap_chars,
                           openclaw_filters=settings.chunker == "openclaw-v5")  # 2026.9 agents


# -- the sync ------------------------------------------------------------------------------------


class Skip(Exception):
    """This file cannot be indexed now; the reason is shown in `status`."""


class ReadFailed(Skip):
    """The file could not be read now (an I/O error, OpenClaw's database busy or damaged). Unlike a
    Skip for what a file holds (too large, binary, not UTF-8), this says nothing about its content:
    the rows indexed from it are kept, and its stamp is left as it was, so the next sync reads it again.
    A read failure is never a deletion."""


class Deferred(Exception):
    """The file changed while it was being read (half-written): try again next sync."""


def read_source(sf: SourceFile, max_bytes: int, settings: IndexSettings | None = None) -> tuple[str, os.stat_result]:
    """A listed file's text and stat. With `settings`, opened under the access rule (engine/ingest/access.py):
    a file swapped for a link since the listing (outside the roots, or at all without followSymlinks)
    is not read, so the index never holds what memory_get would refuse."""
    if not sf.abs_path:  # listed only to keep its rows: the listing could not tell what it is now
        raise ReadFailed("not read now: OpenClaw's record of forgotten sessions cannot be read")
    roots = settings_roots(settings) if settings is not None else None
    follow = settings.follow_symlinks if settings is not None else True
    try:
        return read_file_text(sf.abs_path, roots, follow, max_bytes, stable=True)
    except NameNotUtf8:
        raise Skip("file name is not valid UTF-8; rename the file to index it") from None
    except TooLarge:
        raise Skip(f"larger than {max_bytes} bytes (raise store.maxFileBytes to index it)") from None
    except (FileNotFoundError, ChangedWhileRead):
        raise Deferred() from None
    except PermissionError as exc:
        raise ReadFailed(f"unreadable: permission denied ({exc.strerror})") from None
    except OSError as exc:
        if isinstance(exc, OutsideRoots):  # not a read failure: the file may not be indexed, so its old rows go
            raise Skip(f"not read: {exc.strerror}") from None
        if exc.errno == errno.ELOOP:
            raise Skip("not read: it is a symbolic link and followSymlinks is off") from None
        raise ReadFailed(f"unreadable: {exc.strerror or exc}") from None
    except BinaryFile:
        raise Skip("binary file (contains NUL bytes)") from None
    except NotUtf8 as exc:
        raise Skip(f"not valid UTF-8 (byte {exc.byte}); save it as UTF-8 to index it") from None


class _DbStamp:
    """The part of an os.stat_result the sync uses, for a transcript kept in a database."""

    def __init__(self, mtime_ms: float, size: int) -> None:
        # kept as given: mtime_ms -> ns -> ms is not exact in floating point (1796079440762 came back
        # as 1796079440761.9998), and a stored stamp that never equals the listed one made every live
        # transcript "changed": status always dirty, every search warned, every sync re-read it
        self.mtime_ms = mtime_ms
        self.st_mtime_ns = int(round(mtime_ms * 1e6))
        self.st_size = size


def read_db_transcript(sf: SourceFile, db: Path | None, max_bytes: int) -> tuple[str, _DbStamp]:
    """A live transcript from OpenClaw's database as JSONL text (line N = event N, as OpenClaw maps it)."""
    assert sf.stamp is not None
    if db is None:
        raise Skip("transcript database not configured")
    if sf.stamp[1] > max_bytes:
        raise Skip(f"larger than {max_bytes} bytes (raise store.maxFileBytes to index it)")
    try:
        text = read_db_session(db, sf.abs_path[len(DB_SESSION_PREFIX):])
    except OpenClawDbError as exc:
        raise ReadFailed(f"unreadable OpenClaw database: {exc}") from None
    return text, _DbStamp(*sf.stamp)


# -- the file view ---------------------------------------------------------------------------------


def read_indexed_file(settings: IndexSettings, path: str, source: str) -> str:
    """The current text of an indexed file, by its index path (for showing it whole).

    Transcripts named `<sessions prefix>/<id>.jsonl` come from OpenClaw's database when that is
    where they live; other transcripts from the sessions folder; memory files from the workspace
    (extra paths outside it are stored relative to it). Both are opened by the access rule. Raises
    FileNotFoundError when it is gone, another OSError (with a `strerror` to show) when it may not
    be read.
    """
    if source == "sessions":
        from .forgotten import is_forgotten, settings_forgotten

        if is_forgotten(path, source, settings.sessions_prefix, settings_forgotten(settings)):
            raise FileNotFoundError(f"{path}: OpenClaw was told to forget this conversation")
        name = path.removeprefix(settings.sessions_prefix + "/")
        if settings.transcripts_db is not None and name.endswith(".jsonl") and settings.transcripts_db.is_file():
            try:
                text = read_db_session(settings.transcripts_db, name[: -len(".jsonl")])
            except OpenClawDbError as exc:
                raise FileNotFoundError(str(exc)) from None
            if text:
                return text
        if settings.sessions_dir is None:
            raise FileNotFoundError(path)
        target = os.path.normpath(settings.sessions_dir / name)
    else:
        target = os.path.normpath(settings.workspace / path)
    try:
        text, _ = read_file_text(target, settings_roots(settings), settings.follow_symlinks,
                                 strict=False, refuse_binary=False)
    except NameNotUtf8:
        raise FileNotFoundError(path) from None
    except OSError as exc:
        if exc.errno == errno.ELOOP and not settings.follow_symlinks:
            raise OSError(errno.ELOOP, "it is a symbolic link and followSymlinks is off", path) from None
        raise
    return text.replace("\r\n", "\n").replace("\r", "\n")  # newlines as read_text gave them (universal mode)
