"""`Store`: the writer's connection to one index file, with the schema in place, its meta rows and vec table."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from array import array
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

from .backend import detect_backend, load_vec, ro_uri
from .files import (
    check_regular_file,
    create_private_file,
    make_private,
    make_private_dirs,
    move_aside,
    refuse_links_beside,
    remove_temp_files,
    side_files,
)
from .lock import SyncLock
from .ownership import record_index, recorded_as_ours
from .reader import INDEX_ID_KEY
from .schema import (
    APPLICATION_ID,
    FILL_COUNTS_SQL,
    META_KEY,
    SCHEMA_KEY,
    SCHEMA_VERSION,
    InvalidIndex,
    holds_index,
    made_by_memtui,
    schema_script,
)


class Store:
    """A connection to one index file with the memtui schema in place."""

    def __init__(self, path: Path, *, readonly: bool = False, notice: Callable[[str], None] | None = None,
                 fresh: bool = False, tokenize: str = "unicode61", repair: bool = True,
                 records: Path | None = None) -> None:
        """`fresh` opens a new file we just named (a rebuild's temp file): nothing to validate or clean.

        `readonly` never creates, moves or changes a file: an absent or empty index reads as an
        empty one held in memory (`missing`), an invalid one raises InvalidIndex. Writers with
        `repair` (memtui index, the app) move an invalid file aside and start afresh; without it
        (search) they raise too: only an explicit index may move a file the user pointed us at.
        `records`: memtui's folder of ownership records (see ownership.py), so a damaged index it made
        is still known as its own when its header is gone; None keeps no record.
        """
        self.path = Path(path)
        self.records = None if fresh else records
        self.backend = detect_backend()
        self.readonly = readonly
        self.tokenize = tokenize  # FTS5 tokenizer for a newly created chunks_fts
        self.notice = notice or (lambda _msg: None)
        self.vec_loaded = False
        self.missing = False
        check_regular_file(self.path)
        refuse_links_beside(self.path)  # before anything (SQLite included) opens a neighbour file
        if readonly:
            try:
                self.missing = not holds_index(self.path)
            except InvalidIndex as exc:
                raise _refusal(self.path, exc, self.records) from None
        elif not fresh:
            try:
                holds_index(self.path)
                problem = None
            except InvalidIndex as exc:
                if not repair or not _ours(self.path, self.records):  # before anything is created beside it
                    raise _refusal(self.path, exc, self.records) from None
                problem = exc
            make_private_dirs(self.path.parent)
            self._cleanup_temp_files()
            if problem is not None:
                aside = move_aside(self.path)
                self.notice(f"index {self.path} was not trusted: {problem}; moved it to {aside} "
                            "and rebuilding from the workspace")
        if not readonly:
            make_private_dirs(self.path.parent)
            create_private_file(self.path)
            for side in side_files(self.path):
                make_private(side)
        if self.missing:  # nothing on disk to read: an empty index in memory, so status has zeros to show
            self.conn = self._connect_memory()
        else:
            self.conn = self._connect(self.path, self.readonly)
        self.inode = self.file_inode()
        if not readonly:
            self.ensure_schema()
            record_index(self.records, self.path)

    def file_inode(self) -> int | None:
        """The inode now at our path: differs from `self.inode` once another process swapped the file."""
        try:
            return self.path.stat().st_ino
        except OSError:
            return None

    # -- connections -------------------------------------------------------------------------
    def open_reader(self) -> Any:
        """A new read-only connection to the live file (WAL lets it read while a sync writes)."""
        return self._connect(self.path, readonly=True)

    def reopen(self) -> None:
        """Follow the file at our path after another process (or our own rebuild) replaced it."""
        self.close()
        self.conn = self._connect(self.path, self.readonly)
        self.inode = self.file_inode()
        if not self.readonly:
            self.ensure_schema()
            record_index(self.records, self.path)  # a rebuild swapped in: a new inode at our path

    def recreate(self) -> None:
        """Start an empty index at our path after the file was deleted under us (`rm` of the data dir
        while `memtui mcp` serves): the old connection reads and writes the unlinked inode, and every
        new reader failed with "unable to open database file". Created private, as at first."""
        self.close()
        make_private_dirs(self.path.parent)
        create_private_file(self.path)
        self.conn = self._connect(self.path, self.readonly)
        for side in side_files(self.path):
            make_private(side)
        self.inode = self.file_inode()
        self.ensure_schema()
        record_index(self.records, self.path)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.conn.close()

    def _connect_memory(self) -> Any:
        conn = self.backend.module.connect(":memory:", check_same_thread=False, isolation_level=None)
        if self.backend.vector_available:  # so status reports sqlite-vec as it will be used
            try:
                load_vec(conn)
                self.vec_loaded = True
            except Exception:
                pass
        conn.executescript(schema_script(self.tokenize))
        return conn

    def _connect(self, path: Path, readonly: bool) -> Any:
        mod = self.backend.module
        if readonly:
            conn = mod.connect(ro_uri(path), uri=True, check_same_thread=False, isolation_level=None)
        else:
            conn = mod.connect(str(path), check_same_thread=False, isolation_level=None)
        conn.execute("PRAGMA busy_timeout = 5000")
        if self.backend.vector_available:
            try:
                load_vec(conn)
                self.vec_loaded = True
            except Exception:
                self.vec_loaded = False
        if not readonly:
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
        return conn

    def ensure_schema(self) -> None:
        had_counts = self.conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'chunk_counts'").fetchone() is not None
        if had_counts:
            self.conn.executescript(schema_script(self.tokenize))
        else:  # the tables, their triggers and the one scan that fills them land together
            self.conn.executescript("BEGIN;" + schema_script(self.tokenize) + FILL_COUNTS_SQL + "COMMIT;")
        if self.get_meta(SCHEMA_KEY) is None:
            self.set_meta(SCHEMA_KEY, str(SCHEMA_VERSION))
        if self.conn.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID:
            self.conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")  # so a damaged one is still known as ours

    def _cleanup_temp_files(self) -> None:
        """Remove half-built rebuilds left by a process that died mid-way (never another's live one)."""
        lock = SyncLock(self.path)
        if not lock.acquire(wait=False):
            return  # another process is syncing: its temp file is in use
        try:
            remove_temp_files(self.path)
        finally:
            lock.release()

    # -- meta ----------------------------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        try:
            row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        except Exception:
            return None
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def delete_meta(self, key: str) -> None:
        self.conn.execute("DELETE FROM meta WHERE key = ?", (key,))

    def get_identity(self) -> dict[str, Any] | None:
        raw = self.get_meta(META_KEY)
        if not raw:
            return None
        try:
            value = json.loads(raw)
        except ValueError:
            return None
        return value if isinstance(value, dict) else None

    def set_identity(self, identity: dict[str, Any]) -> None:
        self.set_meta(META_KEY, json.dumps(identity, separators=(",", ":")))

    def bump_generation(self, changed: Collection[int] | None = None) -> None:
        """Tell caches (the vector matrix in memory and its file beside the index) that chunks or vectors
        changed; `changed`, when known, the rowids of the chunks that did (see `bump_generation`)."""
        bump_generation(self.conn, changed)

    def ensure_index_id(self) -> str:
        """The index's random id, set now if an older memtui built it (one autocommitted row)."""
        self.conn.execute("INSERT OR IGNORE INTO meta(key, value) VALUES (?, ?)", (INDEX_ID_KEY, _new_index_id()))
        return self.get_meta(INDEX_ID_KEY) or ""

    def generation(self) -> int:
        return int(self.get_meta("generation") or 0)

    # -- vectors ------------------------------------------------------------------------------
    def vec_dims(self) -> int | None:
        row = self.conn.execute("SELECT sql FROM sqlite_master WHERE name = 'chunks_vec'").fetchone()
        if not row:
            return None
        sql = row[0] or ""
        start = sql.find("float[")
        return int(sql[start + 6 : sql.index("]", start)]) if start >= 0 else None

    def ensure_vec_table(self, dims: int) -> bool:
        """Create `chunks_vec` for `dims`; a different dimension drops and recreates it."""
        if not self.vec_loaded:
            return False
        current = self.vec_dims()
        if current == dims:
            return True
        if current is not None:
            self.drop_vec_table()
        self.conn.execute("CREATE VIRTUAL TABLE chunks_vec USING vec0(id TEXT PRIMARY KEY,"
                          f" embedding float[{int(dims)}] distance_metric=cosine)")
        return True

    def drop_vec_table(self) -> None:
        self.conn.execute("DROP TABLE chunks_vec")


def _ours(path: Path, records: Path | None) -> bool:
    """memtui made the file at `path`: its header says so, or (the header overwritten) its record does."""
    return made_by_memtui(path) or recorded_as_ours(records, path)


def _refusal(path: Path, problem: InvalidIndex, records: Path | None = None) -> InvalidIndex:
    """One line for an index path that cannot be used: a damaged index of ours can be rebuilt by
    `memtui index` (which sets it aside); any other file is never moved, replaced or chmodded."""
    if _ours(path, records):
        return InvalidIndex(f"not a memtui index: {path}: {problem}; run `memtui index` to rebuild")
    return InvalidIndex(f"not a memtui index: {path}: {problem}; memtui will not move or replace a file it did not "
                        "create: pass --db (or [store] path) a new file, or an index memtui built")


def bump_generation(conn: Any, changed: Collection[int] | None = None) -> None:
    """Give the index a new generation, in the caller's transaction; the first change of a file also
    gives it its random id.

    A generation is a count of changes (the high bits, so a later state compares larger) and 24
    random bits. The count alone repeats when an index is restored from a backup and changed as
    many times again (or deleted and built again), and a matrix saved for the old state would be
    taken for the new one; the random bits make that a one-in-16-million chance per restore.

    `changed`: the rowids of every chunk the transaction inserted, deleted or gave a vector (a
    superset is fine), logged with the step in `chunk_changes` in the same transaction; None when
    not known. Past `CHANGE_LOG_ROWS` the step is logged as too large to list.
    """
    previous = conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
    token = int.from_bytes(os.urandom(3), "little")
    conn.execute("INSERT INTO meta(key, value) VALUES ('generation', ?) ON CONFLICT(key) DO UPDATE SET"
                 f" value = (((CAST(value AS INTEGER) >> {_TOKEN_BITS}) + 1) << {_TOKEN_BITS}) | ?",
                 ((1 << _TOKEN_BITS) | token, token))
    conn.execute("INSERT OR IGNORE INTO meta(key, value) VALUES (?, ?)", (INDEX_ID_KEY, _new_index_id()))
    if changed is not None:
        _log_changes(conn, int(previous[0]) if previous else 0, changed)


CHANGE_LOG_ROWS = 50_000  # matrix_delta.REBUILD_ROWS: a step larger than that rebuilds the matrix anyway
CHANGE_LOG_STEPS = 64  # steps kept: a matrix older than that is patched by a scan of the ids


def _log_changes(conn: Any, previous: int, changed: Collection[int]) -> None:
    (generation,) = conn.execute("SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'generation'").fetchone()
    rowids = None
    if len(changed) <= CHANGE_LOG_ROWS:
        listed = array("q", sorted(changed))
        if sys.byteorder != "little":
            listed.byteswap()
        rowids = listed.tobytes()
    conn.execute("INSERT OR REPLACE INTO chunk_changes(generation, previous, rowids) VALUES (?, ?, ?)",
                 (generation, previous, rowids))
    conn.execute("DELETE FROM chunk_changes WHERE generation NOT IN"
                 " (SELECT generation FROM chunk_changes ORDER BY generation DESC LIMIT ?)", (CHANGE_LOG_STEPS,))


_TOKEN_BITS = 24


def _new_index_id() -> str:
    """128 random bits as hex (not uuid: importing it loads `platform`, and `status` opens a Store)."""
    return os.urandom(16).hex()
