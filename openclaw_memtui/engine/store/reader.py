"""Every statement the read path runs, behind typed methods (as sqlite-utils' Table does).

Search modules keep only their own FTS5 MATCH and vec0 KNN queries; everything else a search,
`status` or the dirty check reads from the index comes through an `IndexReader`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

# a random id set once per index file (with its first change): a rebuilt or replaced index has a new one, so
# files saved beside the index for one state of it (the vector matrix) never pass for another file's
INDEX_ID_KEY = "memtui_index_id"
# statements read rows in slices: SQLite caps the number of bound parameters
IN_CLAUSE_LIMIT = 500


class ChunkRow(NamedTuple):
    """One `chunks` row as retrieval needs it."""

    rowid: int
    id: str
    path: str
    source: str
    start_line: int
    end_line: int
    text: str
    ts_ms: float | None
    date_source: str
    embedding: bytes


class SkippedFile(NamedTuple):
    path: str
    source: str
    reason: str


class SourceCounts(NamedTuple):
    source: str
    chunks: int
    embedded: int


def _varint(buf: bytes) -> int:
    """SQLite's variable-length integer (FTS5 uses the same): 7 bits a byte, big-endian; a 9th byte has 8."""
    value = 0
    for byte in buf[:8]:
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value
    return (value << 8) | buf[8]


def _marks(n: int) -> str:
    return ",".join("?" * n)


class IndexReader:
    """Typed reads over one connection (a thread's read connection, or the writer's own)."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn

    # -- meta ------------------------------------------------------------------------------------
    def meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def generation(self) -> int:
        """Bumped by every write that changes chunks or vectors: the key of in-memory caches."""
        return int(self.meta("generation") or 0)

    def index_id(self) -> str:
        """The index file's random id ("" for one an older memtui built and nothing changed since)."""
        return self.meta(INDEX_ID_KEY) or ""

    def vector_dims(self) -> int | None:
        raw = self.meta("vectorDims")
        return int(raw) if raw else None

    # -- files -----------------------------------------------------------------------------------
    def is_empty(self) -> bool:
        return self.conn.execute("SELECT 1 FROM chunks LIMIT 1").fetchone() is None

    def file_stamps(self, source: str | None = None) -> dict[str, tuple[float, int]]:
        """(mtime ms, size) of every known file (of `source` when given), in one read, as a listing's
        SourceFile.stamp has them. Plain tuples: 100,000 named records cost more than the stats they are
        compared with."""
        if source is not None:
            return {path: (m, s) for path, m, s in self.conn.execute(
                "SELECT path, mtime, size FROM files WHERE source = ?", (source,))}
        return {path: (m, s) for path, m, s in self.conn.execute("SELECT path, mtime, size FROM files")}

    def file_hashes(self) -> dict[str, str]:
        """The content hash of every known file (`--check-files` compares them with the files now)."""
        return {path: digest for path, digest in self.conn.execute("SELECT path, hash FROM files")}

    def file_stamps_of(self, paths: list[str]) -> dict[str, tuple[float, int]]:
        """`file_stamps` of these paths only (a partial listing's), read by primary key."""
        out: dict[str, tuple[float, int]] = {}
        for start in range(0, len(paths), IN_CLAUSE_LIMIT):
            part = paths[start : start + IN_CLAUSE_LIMIT]
            out.update((path, (m, s)) for path, m, s in self.conn.execute(
                f"SELECT path, mtime, size FROM files WHERE path IN ({_marks(len(part))})", part))
        return out

    def count_files(self) -> int:
        return sum(self.files_per_source().values())

    def skipped(self) -> list[SkippedFile]:
        return [SkippedFile(*row) for row in self.conn.execute("SELECT path, source, reason FROM skipped ORDER BY path")]

    def retry_skipped_paths(self) -> set[str]:
        """Skipped files the dirty check ignores: all but those skipped for malformed lines."""
        return {p for (p,) in self.conn.execute("SELECT path FROM skipped WHERE reason NOT LIKE '%malformed%'")}

    def has_counts(self) -> bool:
        """The index keeps its counts in `chunk_counts`/`file_counts` (every index this memtui wrote;
        a read-only look at an older one counts rows instead)."""
        return self.conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'chunk_counts'").fetchone() is not None

    def files_per_source(self) -> dict[str, int]:
        sql = ("SELECT source, n FROM file_counts WHERE n > 0" if self.has_counts()
               else "SELECT source, count(*) FROM files GROUP BY source")
        return {s: int(n) for s, n in self.conn.execute(sql)}

    # -- chunks ----------------------------------------------------------------------------------
    def _chunk_counts(self) -> str:
        """A relation (source, date_source, model, vector_bytes, n): the kept counts, or a scan of an old index."""
        if self.has_counts():
            return "(SELECT * FROM chunk_counts WHERE n > 0)"
        return ("(SELECT source, date_source, model, length(embedding) AS vector_bytes, count(*) AS n"
                " FROM chunks GROUP BY 1, 2, 3, 4)")

    def chunks_per_source(self, vector_bytes: int) -> list[SourceCounts]:
        """Chunks and embedded chunks per source; a vector of another size than `vector_bytes`
        (when known, else 0) does not count as embedded."""
        return [SourceCounts(s, int(n), int(e or 0)) for s, n, e in self.conn.execute(
            "SELECT source, sum(n), sum(CASE WHEN vector_bytes > 0 AND (? = 0 OR vector_bytes = ?) THEN n ELSE 0 END)"
            f" FROM {self._chunk_counts()} GROUP BY source",
            (vector_bytes, vector_bytes))]

    def chunk_dates(self) -> dict[str, int]:
        return {k: int(v) for k, v in self.conn.execute(
            f"SELECT date_source, sum(n) FROM {self._chunk_counts()} GROUP BY date_source")}

    def count_chunks(self) -> int:
        return int(self.conn.execute(f"SELECT coalesce(sum(n), 0) FROM {self._chunk_counts()}").fetchone()[0])

    def count_embedded(self, model: str) -> int:
        return int(self.conn.execute(
            f"SELECT coalesce(sum(n), 0) FROM {self._chunk_counts()} WHERE vector_bytes > 0 AND model = ?",
            (model,)).fetchone()[0])

    def vector_models(self) -> dict[str, int]:
        """Chunks with a vector, by the model that made it (from the kept counts: no scan)."""
        return {str(m): int(n) for m, n in self.conn.execute(
            f"SELECT model, sum(n) FROM {self._chunk_counts()} WHERE vector_bytes > 0 GROUP BY model")}

    def count_unembedded(self, model: str) -> int:
        return int(self.conn.execute(
            f"SELECT coalesce(sum(n), 0) FROM {self._chunk_counts()} WHERE vector_bytes = 0 AND model = ?",
            (model,)).fetchone()[0])

    def count_vectors_of_other_size(self, vector_bytes: int) -> int:
        return int(self.conn.execute(
            f"SELECT coalesce(sum(n), 0) FROM {self._chunk_counts()} WHERE vector_bytes > 0 AND vector_bytes != ?",
            (vector_bytes,)).fetchone()[0])

    def count_fts_rows(self) -> int:
        """Keyword rows, from the total FTS5 keeps for BM25 (its averages record), not a scan."""
        try:
            row = self.conn.execute("SELECT block FROM chunks_fts_data WHERE id = 1").fetchone()
        except Exception:  # pragma: no cover - an FTS5 build without a data table
            row = None
        if row is None or not row[0]:
            return int(self.conn.execute("SELECT count(*) FROM chunks_fts").fetchone()[0])
        return _varint(bytes(row[0]))

    def chunks_by_rowid(self, rowids: Iterable[int]) -> dict[int, ChunkRow]:
        wanted = list(rowids)
        rows: dict[int, ChunkRow] = {}
        for start in range(0, len(wanted), IN_CLAUSE_LIMIT):
            part = wanted[start : start + IN_CLAUSE_LIMIT]
            for row in self.conn.execute(
                "SELECT rowid, id, path, source, start_line, end_line, text, ts, date_source, embedding"
                f" FROM chunks WHERE rowid IN ({_marks(len(part))})", part,
            ):
                rows[row[0]] = ChunkRow(*row)
        return rows

    def chunks_at(self, places: Iterable[tuple[str, int, int]]) -> dict[tuple[str, int, int], ChunkRow]:
        """The chunks at exactly these (path, start_line, end_line): the hits another engine returned."""
        found: dict[tuple[str, int, int], ChunkRow] = {}
        for path, start, end in places:
            row = self.conn.execute(
                "SELECT rowid, id, path, source, start_line, end_line, text, ts, date_source, embedding FROM chunks"
                " WHERE path = ? AND start_line = ? AND end_line = ? LIMIT 1", (path, start, end)).fetchone()
            if row is not None:
                found[(path, start, end)] = ChunkRow(*row)
        return found

    def chunk_spans(self, paths: Iterable[str]) -> dict[str, list[tuple[int, int, str]]]:
        """(start_line, end_line, text hash) of every chunk of these paths: what judgements are checked against."""
        wanted = list(paths)
        spans: dict[str, list[tuple[int, int, str]]] = {}
        for start in range(0, len(wanted), IN_CLAUSE_LIMIT):
            part = wanted[start : start + IN_CLAUSE_LIMIT]
            for path, s, e, h in self.conn.execute(
                    f"SELECT path, start_line, end_line, hash FROM chunks WHERE path IN ({_marks(len(part))})", part):
                spans.setdefault(path, []).append((int(s), int(e), str(h)))
        return spans

    def first_chunk_texts(self, paths: list[str]) -> dict[str, str]:
        """The text of each path's first chunk (lowest start line): a transcript's opening, for its title."""
        firsts: dict[str, str] = {}
        for start in range(0, len(paths), IN_CLAUSE_LIMIT):
            part = paths[start : start + IN_CLAUSE_LIMIT]
            for path, text in self.conn.execute(
                    f"SELECT path, text FROM chunks WHERE path IN ({_marks(len(part))})"
                    " AND start_line = (SELECT min(c2.start_line) FROM chunks c2 WHERE c2.path = chunks.path)", part):
                firsts.setdefault(str(path), str(text))
        return firsts

    def chunks_of_path(self, path: str) -> list[tuple[str, int, int, str]]:
        """(id, start_line, end_line, text) of every chunk of one file, in line order: the whole file
        as the index holds it, which a snippet is masked against before it is cut."""
        return [(str(i), int(s), int(e), str(t)) for i, s, e, t in self.conn.execute(
            "SELECT id, start_line, end_line, text FROM chunks WHERE path = ? ORDER BY start_line, end_line", (path,))]

    def rowids_dated_between(self, start_ms: float, end_ms: float, sources: tuple[str, ...], limit: int) -> list[int]:
        """Newest first: chunks dated inside [start, end) from the given sources."""
        return [r[0] for r in self.conn.execute(
            f"SELECT rowid FROM chunks WHERE ts >= ? AND ts < ? AND source IN ({_marks(len(sources))}) ORDER BY ts DESC LIMIT ?",
            (start_ms, end_ms, *sources, limit))]

    def newest_chunks(self, sources: tuple[str, ...], limit: int, offset: int = 0) -> list[tuple[ChunkRow, float]]:
        """Chunks of these sources newest first, a page at a time: (row, when in ms). A dated chunk is
        as old as its date; an undated one (MEMORY.md, USER.md) as its file's last change. Ties keep
        a file's chunks in line order. One sort, no vectors read."""
        if not sources:
            return []
        rows = self.conn.execute(
            "SELECT c.rowid, c.id, c.path, c.source, c.start_line, c.end_line, c.text, c.ts, c.date_source, x'',"
            " coalesce(c.ts, f.mtime, 0) AS at FROM chunks c LEFT JOIN files f ON f.path = c.path"
            f" WHERE c.source IN ({_marks(len(sources))}) ORDER BY at DESC, c.path, c.start_line LIMIT ? OFFSET ?",
            (*sources, limit, offset)).fetchall()
        return [(ChunkRow(*row[:10]), float(row[10])) for row in rows]

    def embedding_batches(self, model: str, batch_rows: int) -> Iterator[list[tuple[int, str, bytes, str]]]:
        """(rowid, source, float32 blob, chunk id) of every chunk embedded with `model`, `batch_rows`
        at a time: 1M vectors are 1.5 GB, so they are streamed, never read into one list."""
        cur = self.conn.execute(
            "SELECT rowid, source, embedding, id FROM chunks WHERE length(embedding) > 0 AND model = ?", (model,))
        while rows := cur.fetchmany(batch_rows):
            yield rows

    def chunk_id_heads(self) -> tuple[int, int, str, str]:
        """(chunks, chunks whose id has 64 characters, every rowid comma-separated, the first 16
        characters of every id joined), in one order: one covering scan of the id index aggregated by
        SQLite, so 1M rows cost no Python object each (and the GIL is free meanwhile)."""
        count, long_ids, rowids, heads = self.conn.execute(
            "SELECT count(*), coalesce(sum(length(id) = 64), 0), coalesce(group_concat(rowid, ','), ''),"
            " coalesce(group_concat(substr(id, 1, 16), ''), '') FROM chunks").fetchone()
        return int(count), int(long_ids), str(rowids), str(heads)

    def changed_rowids(self, since: int, now: int) -> bytes | None:
        """The rowids of the chunks changed from generation `since` to `now` (int64s, little-endian,
        repeats possible), when `chunk_changes` logs every step between the two; None when it does
        not (a step an older memtui wrote, one pruned or too large to list, an index without the log)."""
        if since == now:
            return b""
        if self.conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'chunk_changes'").fetchone() is None:
            return None
        steps = {g: (p, listed) for g, p, listed in
                 self.conn.execute("SELECT generation, previous, rowids IS NOT NULL FROM chunk_changes")}
        chain, at = [], now
        while at != since:
            step = steps.pop(at, None)  # popped: a loop in the log ends the walk
            if step is None or not step[1]:
                return None
            chain.append(at)
            at = step[0]
        blobs = []
        for start in range(0, len(chain), IN_CLAUSE_LIMIT):
            part = chain[start : start + IN_CLAUSE_LIMIT]
            blobs += [bytes(b) for (b,) in self.conn.execute(
                f"SELECT rowids FROM chunk_changes WHERE generation IN ({_marks(len(part))})", part)]
        return b"".join(blobs)

    def chunk_ids(self) -> list[tuple[int, str]]:
        """(rowid, id) of every chunk: a covering scan of the id index (EXPLAIN QUERY PLAN: SCAN
        chunks USING COVERING INDEX sqlite_autoindex_chunks_1), never the table and its vectors."""
        rows: list[tuple[int, str]] = self.conn.execute("SELECT rowid, id FROM chunks").fetchall()
        return rows

    def embeddings_of_rows(self, model: str, rowids: Iterable[int], vector_bytes: int) -> list[tuple[int, str, bytes, str]]:
        """(rowid, source, float32 blob, chunk id) of these rows, those embedded with `model` at this size."""
        wanted = list(rowids)
        out: list[tuple[int, str, bytes, str]] = []
        for start in range(0, len(wanted), IN_CLAUSE_LIMIT):
            part = wanted[start : start + IN_CLAUSE_LIMIT]
            out += self.conn.execute(
                f"SELECT rowid, source, embedding, id FROM chunks WHERE rowid IN ({_marks(len(part))})"
                " AND model = ? AND length(embedding) = ? ORDER BY rowid", (*part, model, vector_bytes)).fetchall()
        return out

    def embeddings_by_rowid(self, rowids: Iterable[int]) -> dict[int, bytes]:
        """The float32 blob of each row (an exact rescore of a shortlist)."""
        wanted = list(rowids)
        out: dict[int, bytes] = {}
        for start in range(0, len(wanted), IN_CLAUSE_LIMIT):
            part = wanted[start : start + IN_CLAUSE_LIMIT]
            out.update(self.conn.execute(
                f"SELECT rowid, embedding FROM chunks WHERE rowid IN ({_marks(len(part))})", part).fetchall())
        return out
