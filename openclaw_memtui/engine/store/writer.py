"""Every statement a sync writes the index with, behind typed methods (as sqlite-utils' Table does).

The syncer decides what to write; this module is the only place that knows how. It also holds the
few reads that decide a write (which files are known, which chunks still need a vector), because
they run on the writer's connection inside the sync's transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, NamedTuple

from .connection import CHANGE_LOG_ROWS, bump_generation
from .reader import IndexReader, SkippedFile
from .schema import LINE_BITS


class FileRecord(NamedTuple):
    """What the index recorded of a file: its content hash and the stat it was read at."""

    hash: str
    mtime_ms: float
    size: int


class NewChunk(NamedTuple):
    """One chunk to write; `ts` None means evergreen (never decays)."""

    id: str
    path: str
    source: str
    start_line: int
    end_line: int
    hash: str
    model: str
    text: str
    updated_at_ms: int
    ts: float | None
    date_source: str


class PendingChunk(NamedTuple):
    """A chunk without a vector yet."""

    rowid: int
    id: str
    hash: str
    text: str


_INSERT_LINE = "INSERT INTO lines_fts(rowid, text) VALUES (?, ?)"
# lines_fts is contentless (schema.LINES_FTS_SQL): a row goes by FTS5's 'delete' command, given the text it was
# inserted with, so the terms it added are the ones taken out
_DELETE_LINE = "INSERT INTO lines_fts(lines_fts, rowid, text) VALUES ('delete', ?, ?)"
_INSERT_FTS = ("INSERT INTO chunks_fts(rowid, text, id, path, source, model, start_line, end_line)"
               " VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
_COPY_FTS = ("INSERT INTO chunks_fts(rowid, text, id, path, source, model, start_line, end_line)"
             " SELECT rowid, text, id, path, source, model, start_line, end_line FROM chunks WHERE rowid BETWEEN ? AND ?")


def line_rows(chunk_rowid: int, fts_text: str) -> list[tuple[int, str]]:
    """(row id, text) of each non-empty line of a chunk for `lines_fts` (see schema.LINE_BITS); lines
    past the last slot share it, so a chunk with more lines than slots still has all its words."""
    lines = [line for line in fts_text.split("\n") if line.strip()]
    slots = 1 << LINE_BITS
    if len(lines) > slots:
        lines = lines[: slots - 1] + ["\n".join(lines[slots - 1 :])]
    base = chunk_rowid << LINE_BITS
    return [(base + i, line) for i, line in enumerate(lines)]


class IndexWriter:
    """Typed writes over the writer's connection (autocommit mode: transactions are explicit)."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self._changed = False  # this transaction wrote chunks or vectors: commit gives a new generation
        # the rowids of the chunks it inserted, deleted or gave a vector (None: too many to list, or all):
        # logged with the new generation, so the vector matrix is patched from them (`chunk_changes`)
        self._touched: set[int] | None = set()

    # -- transactions ----------------------------------------------------------------------------
    def begin(self) -> None:
        self.conn.execute("BEGIN")
        self._changed, self._touched = False, set()

    def commit(self) -> None:
        """Commit; a transaction that changed chunks or vectors also changes the index's generation in
        it, so no write path (a batch committed mid-sync, a cancelled or failed sync keeping what it
        wrote) can leave a cached matrix taken for current."""
        if self._changed:
            bump_generation(self.conn, self._touched)
            self._changed, self._touched = False, set()
        self.conn.execute("COMMIT")

    def rollback(self) -> None:
        self.conn.execute("ROLLBACK")
        self._changed, self._touched = False, set()

    def _touch(self, rowids: Iterable[int]) -> None:
        """Record chunk rows this transaction changes (a savepoint rolled back leaves a superset: harmless)."""
        if self._touched is not None:
            self._touched.update(rowids)
            if len(self._touched) > CHANGE_LOG_ROWS:
                self._touched = None  # too many to list: the step goes unlogged, so a reader scans every id

    @property
    def in_transaction(self) -> bool:
        return bool(self.conn.in_transaction)

    @contextmanager
    def savepoint(self, name: str) -> Iterator[None]:
        """Undo the block's writes if it raises an Exception, so one bad file is rolled back whole."""
        self.conn.execute(f"SAVEPOINT {name}")
        try:
            yield
        except Exception:
            self.conn.execute(f"ROLLBACK TO {name}")
            raise
        finally:
            self.conn.execute(f"RELEASE {name}")

    # -- files -----------------------------------------------------------------------------------
    def file_stamps(self) -> dict[str, tuple[float, int]]:
        """(mtime ms, size) of every known file, in one read: what a re-sync compares with a stat."""
        return IndexReader(self.conn).file_stamps()

    def file_record(self, path: str) -> FileRecord | None:
        row = self.conn.execute("SELECT hash, mtime, size FROM files WHERE path = ?", (path,)).fetchone()
        return None if row is None else FileRecord(row[0], float(row[1]), int(row[2]))

    def upsert_files(self, rows: Sequence[tuple[str, str, str, float, int]]) -> None:
        """Insert or update these files' rows in one statement: (path, source, content hash, mtime ms, size)."""
        self.conn.executemany(
            "INSERT INTO files(path, source, hash, mtime, size) VALUES (?, ?, ?, ?, ?) ON CONFLICT(path) DO UPDATE SET"
            " source = excluded.source, hash = excluded.hash, mtime = excluded.mtime, size = excluded.size", rows)

    def touch_file(self, path: str, mtime_ms: float, size: int) -> None:
        """Record a new stat for a file whose content did not change."""
        self.conn.execute("UPDATE files SET mtime = ?, size = ? WHERE path = ?", (mtime_ms, size, path))

    def delete_file(self, path: str, *, has_vec_table: bool, fts_text: Callable[[str], str]) -> None:
        """Remove a file with its chunks, their keyword rows and (when the vec table exists) their vectors.

        `fts_text`: what the sync indexes a chunk's text as (CJK segmented or not), so each line row
        is deleted with the text it was inserted with (`lines_fts` keeps no copy to delete by)."""
        self._changed = True
        if has_vec_table:
            self.conn.execute("DELETE FROM chunks_vec WHERE id IN (SELECT id FROM chunks WHERE path = ?)", (path,))
        self.conn.execute("DELETE FROM chunks_fts WHERE rowid IN (SELECT rowid FROM chunks WHERE path = ?)", (path,))
        rows = self.conn.execute("SELECT rowid, text FROM chunks WHERE path = ?", (path,)).fetchall()
        self._touch(r for r, _ in rows)
        self.conn.executemany(_DELETE_LINE, [line for rowid, text in rows for line in line_rows(rowid, fts_text(text))])
        self.conn.execute("DELETE FROM chunks WHERE path = ?", (path,))
        self.conn.execute("DELETE FROM files WHERE path = ?", (path,))

    def replace_skipped(self, skipped: Iterable[SkippedFile]) -> None:
        """The skipped list is rewritten whole each sync: a file no longer skipped drops off it."""
        self.conn.execute("DELETE FROM skipped")
        self.conn.executemany("INSERT OR REPLACE INTO skipped(path, source, reason) VALUES (?, ?, ?)", skipped)

    # -- chunks and keyword rows -----------------------------------------------------------------
    def refill_lines(self, fts_text: Callable[[str], str]) -> int:
        """Rewrite `lines_fts` from every chunk (an index written before it existed, or one whose
        keyword rows were repaired); returns how many chunks were written."""
        self.conn.execute("INSERT INTO lines_fts(lines_fts) VALUES ('delete-all')")  # contentless: no DELETE
        n = 0
        for rowid, text in self.conn.execute("SELECT rowid, text FROM chunks").fetchall():
            self.conn.executemany(_INSERT_LINE, line_rows(rowid, fts_text(text)))
            n += 1
        return n

    def insert_chunks(self, chunks: Sequence[tuple[NewChunk, str]]) -> None:
        """The chunks and their keyword rows (each sharing its chunk's rowid; the text is what FTS5 tokenizes),
        in two statements: rowids are given out here (one past the largest, as
        SQLite would), so each keyword row shares its chunk's rowid without a lastrowid per row."""
        if not chunks:
            return
        self._changed = True
        (top,) = self.conn.execute("SELECT coalesce(max(rowid), 0) FROM chunks").fetchone()
        rowids = range(top + 1, top + 1 + len(chunks))
        self._touch(rowids)
        self.conn.executemany(
            "INSERT INTO chunks(rowid, id, path, source, start_line, end_line, hash, model, text, embedding,"
            " updated_at, ts, date_source) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, x'', ?, ?, ?)",
            [(rowid, *chunk) for rowid, (chunk, _) in zip(rowids, chunks, strict=True)])
        if all(fts_text is c.text for c, fts_text in chunks):
            # each keyword row indexes its chunk's own text (nothing CJK-segmented): copied inside SQLite from
            # the rows just written, not bound again from Python (0.007 s of 10,000 notes' 0.08 s)
            self.conn.execute(_COPY_FTS, (rowids.start, rowids.stop - 1))
        else:
            self.conn.executemany(_INSERT_FTS, [(rowid, fts_text, c.id, c.path, c.source, c.model, c.start_line,
                                                 c.end_line) for rowid, (c, fts_text) in zip(rowids, chunks, strict=True)])
        self.conn.executemany(_INSERT_LINE, [line for rowid, (_, fts_text) in zip(rowids, chunks, strict=True)
                                             for line in line_rows(rowid, fts_text)])

    def repair_fts(self, fts_text: Callable[[str], str]) -> int:
        """Make `chunks_fts` hold exactly one row per chunk; returns how many rows were fixed.

        Indexes written before chunk ids were unique per file hold orphan FTS rows whose rowids later
        collide; they are removed and missing rows re-added, so the old index heals on the next sync.
        Cheap when healthy: two kept counts.
        """
        reads = IndexReader(self.conn)
        if reads.count_chunks() == reads.count_fts_rows():  # kept counts: no scan of 1M rows per sync
            return 0
        removed = self.conn.execute(
            "DELETE FROM chunks_fts WHERE rowid IN (SELECT f.rowid FROM chunks_fts f WHERE NOT EXISTS"
            " (SELECT 1 FROM chunks c WHERE c.rowid = f.rowid AND c.id = f.id))"
        ).rowcount
        missing = self.conn.execute(
            "SELECT rowid, text, id, path, source, model, start_line, end_line FROM chunks c"
            " WHERE NOT EXISTS (SELECT 1 FROM chunks_fts f WHERE f.rowid = c.rowid)"
        ).fetchall()
        self.conn.executemany(_INSERT_FTS, [(r[0], fts_text(r[1]), *r[2:]) for r in missing])
        return int(max(removed, 0)) + len(missing)

    # -- vectors ---------------------------------------------------------------------------------
    def chunks_to_embed(self, model: str, after_rowid: int = 0, limit: int = -1) -> list[PendingChunk]:
        """Chunks of `model` without a vector, oldest first, from `after_rowid` on (`limit` -1: all)."""
        return [PendingChunk(*row) for row in self.conn.execute(
            "SELECT rowid, id, hash, text FROM chunks WHERE rowid > ? AND length(embedding) = 0 AND model = ?"
            " ORDER BY rowid LIMIT ?", (after_rowid, model, limit))]

    def write_vectors(self, vectors: Sequence[tuple[PendingChunk, bytes]], *, into_vec_table: bool) -> None:
        """Store each chunk's float32 blob, and (with sqlite-vec) replace its row in `chunks_vec`."""
        self._changed = True
        if into_vec_table:
            self.conn.executemany("DELETE FROM chunks_vec WHERE id = ?", [(chunk.id,) for chunk, _ in vectors])
            self.conn.executemany("INSERT INTO chunks_vec(id, embedding) VALUES (?, ?)",
                                  [(chunk.id, blob) for chunk, blob in vectors])
        self.conn.executemany("UPDATE chunks SET embedding = ? WHERE rowid = ?", [(blob, chunk.rowid) for chunk, blob in vectors])
        self._touch(chunk.rowid for chunk, _ in vectors)

    def clear_vectors(self) -> None:
        """Forget every chunk's vector (the provider's vector size changed): each will be embedded again."""
        self._changed, self._touched = True, None  # every row: not worth listing
        self.conn.execute("UPDATE chunks SET embedding = x'' WHERE length(embedding) > 0")
