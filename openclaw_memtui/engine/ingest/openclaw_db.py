"""Read an OpenClaw 2026.9 agent database (`openclaw-agent.sqlite`) without leaving a trace.

OpenClaw 2026.9 keeps an agent's memory index *and* its live chat transcripts in one WAL-mode
SQLite file, `<state>/agents/<id>/agent/openclaw-agent.sqlite`. memtui reads it and never writes it.

Why not a plain `mode=ro` open: in WAL mode even a read-only connection maps the `-shm` index and
writes its read marks there, and creates `-shm` when it is missing. So:

* WAL absent or empty (OpenClaw checkpoints after each write burst, so this is the common case):
  the main file is complete on its own and is opened with `immutable=1`, which takes no locks and
  opens neither `-wal` nor `-shm`. The file's size and mtime are compared before and after the read;
  if OpenClaw wrote meanwhile the read is retried.
* WAL with frames: the database and its WAL are copied into a private folder (0700) and the copy is
  opened; SQLite replays the WAL into the copy only. The copy is checked the same way and removed.

Either way OpenClaw's files keep their bytes and mtimes, nothing is checkpointed, and no file is
created beside them (tested).

Transcripts: `transcript_events(session_id, seq, event_json | event_zstd, event_utf8_bytes, ...)`
holds the same event objects as the older `sessions/*.jsonl` files, one row per line. Rows larger
than 1 KiB may be stored as a zstd frame (`event_zstd`, with `event_json` NULL); they are decoded
with `zstandard` (python-zstandard: maintained, wheels for every platform, the reference binding).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from ..errors import MemtuiError
from ..store import SQLITE_HEADER, detect_backend

AGENT_DB_NAME = "openclaw-agent.sqlite"
# the largest event OpenClaw stores (its schema CHECKs event_utf8_bytes BETWEEN 1 AND 4194304)
MAX_EVENT_BYTES = 1 << 22
# a busy OpenClaw checkpoints now and then; a few more attempts ride over it (each costs one read)
_ATTEMPTS = 6
T = TypeVar("T")


class OpenClawDbError(MemtuiError, ValueError):
    """OpenClaw's database cannot be read; the message says what to do."""


@dataclass(frozen=True, slots=True)
class SessionStat:
    """What OpenClaw itself uses to decide whether a live transcript changed."""

    session_id: str
    events: int
    size: int  # bytes of the transcript as JSONL (events joined by newlines), as OpenClaw counts it
    updated_ms: float  # session_windows.updated_at (OpenClaw's `mtime` for the session)
    revision_ms: float  # session_windows.transcript_updated_at (OpenClaw's hash prefix `sqlite:<rev>:`)


def _stamp(path: Path) -> tuple[int, int, int, int]:
    st = os.stat(path)
    try:
        wal = os.stat(f"{path}-wal")
        wal_stamp = (wal.st_size, wal.st_mtime_ns)
    except FileNotFoundError:
        wal_stamp = (-1, -1)
    return (st.st_size, st.st_mtime_ns, *wal_stamp)


def _check_header(path: Path) -> None:
    if not path.is_file():
        raise OpenClawDbError(f"no OpenClaw database at {path}")
    try:
        with open(path, "rb") as fh:
            head = fh.read(16)
    except OSError as exc:
        raise OpenClawDbError(f"cannot read {path}: {exc.strerror}") from None
    if head != SQLITE_HEADER:
        raise OpenClawDbError(f"{path} is not an SQLite database (corrupt, or not OpenClaw's)")


def _connect_uri(path: Path, immutable: bool) -> Any:
    module = detect_backend().module
    flags = "mode=ro&immutable=1" if immutable else "mode=ro"
    conn = module.connect(f"file:{urllib.parse.quote(str(path))}?{flags}", uri=True, check_same_thread=False)
    conn.execute("PRAGMA query_only = 1")
    return conn


def read_consistent(path: Path, read: Callable[[Any], T]) -> T:
    """Run `read(conn)` on a read-only, consistent view of OpenClaw's database (see the module doc).

    `read` may run more than once: when OpenClaw wrote during the read, the result is dropped and
    the read is repeated on a fresh view, so it must only read from this one database.
    """
    path = Path(path)
    _check_header(path)
    errors = _module_errors()
    for _attempt in range(_ATTEMPTS):
        before = _stamp(path)
        if before[2] <= 0:  # no WAL frames: the main file alone is the whole database
            conn = _connect_uri(path, immutable=True)
            try:
                result = read(conn)
            except errors as exc:
                if _stamp(path) == before:
                    raise OpenClawDbError(damaged(path, exc)) from None
                continue  # a torn read while OpenClaw wrote: read again
            finally:
                conn.close()
            if _stamp(path) == before:
                return result
            continue
        with _private_copy(path, before) as copy:
            if copy is None:
                continue  # OpenClaw wrote while we copied: copy again
            conn = _connect_uri(copy, immutable=False)
            try:
                return read(conn)
            except errors as exc:
                raise OpenClawDbError(damaged(path, exc)) from None
            finally:
                conn.close()
    raise OpenClawDbError(f"{path} kept changing while being read; try again when OpenClaw is idle")


def _module_errors() -> tuple[type[BaseException], ...]:
    # UnicodeDecodeError: text a bit-rotted page turned into bytes that are not UTF-8, where a binding
    # decodes it itself instead of raising its own error
    return (detect_backend().module.DatabaseError, UnicodeDecodeError)


def damaged(path: Path, exc: BaseException) -> str:
    """One line for a database that cannot be read: what SQLite said, never the text of the row it
    quotes (a decode error shows the row, which may be an agent's private words)."""
    reason = str(exc).split(" with text ", 1)[0]
    if isinstance(exc, UnicodeDecodeError):
        reason = "text that is not UTF-8"
    return f"{path} cannot be read ({reason[:160]}); it may be corrupt"


WAL_HEADER_BYTES = 32


def _wal_header(path: Path) -> bytes:
    try:
        with open(f"{path}-wal", "rb") as fh:
            return fh.read(WAL_HEADER_BYTES)
    except OSError:
        return b""


def _copy_is_consistent(path: Path, before: tuple[int, int, int, int], header: bytes) -> bool:
    """Whether the database and WAL copied since `before` form one consistent state.

    A writer in WAL mode only appends frames to the WAL until a checkpoint; frames are checksummed
    and salted, so SQLite replays a copy up to its last whole commit and ignores a frame torn by
    the copy. So appended frames do not spoil a copy (OpenClaw commits hundreds of times a second
    while it works: demanding an unchanged WAL made every copy fail, "kept changing while being
    read", and the sync deleted the live session). Nor does a checkpoint during the copy: it writes
    into the main file only pages whose frames are still in the WAL, and replaying the copied WAL
    rewrites every one of them. What does: a WAL restarted from its start (a new salt in its 32-byte
    header, or a shorter file), or a main file that changed size (grown or truncated).
    """
    now = _stamp(path)
    return now[0] == before[0] and now[2] >= before[2] and _wal_header(path) == header


@contextlib.contextmanager
def _private_copy(path: Path, before: tuple[int, int, int, int]) -> Iterator[Path | None]:
    folder = Path(tempfile.mkdtemp(prefix="memtui-openclaw-"))  # mkdtemp: 0700, ours alone
    try:
        header = _wal_header(path)
        copy = folder / path.name
        shutil.copyfile(path, copy)
        shutil.copyfile(f"{path}-wal", f"{copy}-wal")
        for name in (copy, Path(f"{copy}-wal")):
            os.chmod(name, 0o600)
        consistent = len(header) == WAL_HEADER_BYTES and _copy_is_consistent(path, before, header)
        yield copy if consistent else None
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# -- what is in it --------------------------------------------------------------------------------

def table_names(conn: Any) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}


def schema_meta(conn: Any) -> dict[str, Any]:
    """OpenClaw's own record of which version wrote the file (`schema_meta`), if it has one."""
    if "schema_meta" not in table_names(conn):
        return {}
    # one row per `meta_key`: `primary` is the database's own (role agent, the version that wrote it);
    # OpenClaw adds others (`openclaw doctor --fix` records its migration phase, `{"phase":"complete"}`,
    # in `app_version` of a later row), so "the newest row" was a migration marker, not a version
    columns = {r[1] for r in conn.execute("PRAGMA table_info(schema_meta)")}
    select = "SELECT schema_version, app_version, agent_id FROM schema_meta"
    row = None
    if "meta_key" in columns:
        row = conn.execute(f"{select} WHERE meta_key = 'primary'").fetchone()
    if row is None and "meta_key" not in columns:  # an older shape without keys: its one row
        row = conn.execute(f"{select} ORDER BY updated_at DESC LIMIT 1").fetchone()
    if not row:
        return {}
    return {"schema_version": row[0], "app_version": row[1], "agent_id": row[2]}


def has_transcripts(conn: Any) -> bool:
    return "transcript_events" in table_names(conn)


def list_sessions(conn: Any) -> list[SessionStat]:
    """Every session with transcript rows, with the stamps OpenClaw compares (size, times)."""
    if not has_transcripts(conn):
        return []
    windows = "session_windows" in table_names(conn)
    join = ("LEFT JOIN session_windows w ON w.session_id = e.session_id" if windows else "")
    updated = "coalesce(w.updated_at, max(e.created_at))" if windows else "max(e.created_at)"
    revision = "coalesce(w.transcript_updated_at, max(e.created_at))" if windows else "max(e.created_at)"
    sql = (f"SELECT e.session_id, count(*), sum(coalesce(e.event_utf8_bytes, length(CAST(e.event_json AS BLOB)))),"
           f" {updated}, {revision} FROM transcript_events e {join} GROUP BY e.session_id ORDER BY e.session_id")
    out = []
    for sid, count, size, upd, rev in conn.execute(sql):
        if not isinstance(sid, str) or not sid:
            continue
        # JSONL size: the events' bytes plus one newline between each pair, as OpenClaw counts it
        out.append(SessionStat(sid, int(count), int(size or 0) + max(0, int(count) - 1), float(upd or 0), float(rev or 0)))
    return out


def read_session_jsonl(conn: Any, session_id: str) -> str:
    """The session's events as JSONL text: line N is the event at position N (OpenClaw's line map)."""
    lines = []
    # one row whose text is not UTF-8 (bit rot, another writer) must not hide the whole session:
    # each is decoded on its own, its bad bytes as U+FFFD (then it is a malformed line, counted as such)
    text_factory = conn.text_factory
    conn.text_factory = bytes
    try:
        rows = conn.execute("SELECT event_json, event_zstd, event_utf8_bytes FROM transcript_events"
                            " WHERE session_id = ? ORDER BY seq", (session_id,)).fetchall()
    finally:
        conn.text_factory = text_factory
    for event_json, event_zstd, size in rows:
        if event_json is not None:
            text = event_json.decode("utf-8", "replace") if isinstance(event_json, bytes) else str(event_json)
            lines.append(text.replace("\n", " "))  # one event, one line, whatever it holds
        elif event_zstd is not None:
            lines.append(_decode_zstd(bytes(event_zstd), size))
        else:
            lines.append("")  # an empty row keeps the following line numbers aligned with OpenClaw's
    return "\n".join(lines)


def _decode_zstd(blob: bytes, size: int | None) -> str:
    import zstandard

    try:
        limit = max(int(size or 0), MAX_EVENT_BYTES)
        # max_output_size binds only frames that do not state their size: one that does is decoded to
        # whatever it states (a 32 KB row stating 1 GiB of text took 1 GiB, then 3 as str and copies)
        if zstandard.frame_content_size(blob) > limit:
            return "{malformed compressed event}"
        raw = zstandard.ZstdDecompressor().decompress(blob, max_output_size=limit)
        return raw.decode("utf-8").replace("\n", " ")
    except (zstandard.ZstdError, UnicodeDecodeError, ValueError):
        return "{malformed compressed event}"  # not JSON: counted as a malformed line, the rest is kept
