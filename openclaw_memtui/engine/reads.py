"""Every statement the read path runs, behind typed methods (as sqlite-utils' Table does).

Search modules keep only their own FTS5 MATCH and vec0 KNN queries; everything else a search,
`status` or the dirty check reads from the index comes through an `IndexReader`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

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


class FileStamp(NamedTuple):
    """What the index recorded of a file the last time it read it."""

    mtime_ms: float
    size: int


class SkippedFile(NamedTuple):
    path: str
    source: str
    reason: str


class SourceCounts(NamedTuple):
    source: str
    chunks: int
    embedded: int


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

    def vector_dims(self) -> int | None:
        raw = self.meta("vectorDims")
        return int(raw) if raw else None

    # -- files -----------------------------------------------------------------------------------
    def is_empty(self) -> bool:
        return self.conn.execute("SELECT 1 FROM chunks LIMIT 1").fetchone() is None

    def file_stamps(self) -> dict[str, FileStamp]:
        return {p: FileStamp(float(m), int(s)) for p, m, s in self.conn.execute("SELECT path, mtime, size FROM files")}

    def skipped(self) -> list[SkippedFile]:
        return [SkippedFile(*row) for row in self.conn.execute("SELECT path, source, reason FROM skipped ORDER BY path")]

    def retry_skipped_paths(self) -> set[str]:
        """Skipped files the dirty check ignores: all but those skipped for malformed lines."""
        return {p for (p,) in self.conn.execute("SELECT path FROM skipped WHERE reason NOT LIKE '%malformed%'")}

    def files_per_source(self) -> dict[str, int]:
        return {s: int(n) for s, n in self.conn.execute("SELECT source, count(*) FROM files GROUP BY source")}

    # -- chunks ----------------------------------------------------------------------------------
    def chunks_per_source(self, vector_bytes: int) -> list[SourceCounts]:
        """Chunks and embedded chunks per source; a vector of another size than `vector_bytes`
        (when known, else 0) does not count as embedded."""
        return [SourceCounts(s, int(n), int(e or 0)) for s, n, e in self.conn.execute(
            "SELECT source, count(*), sum(length(embedding) > 0 AND (? = 0 OR length(embedding) = ?))"
            " FROM chunks GROUP BY source",
            (vector_bytes, vector_bytes))]

    def chunk_dates(self) -> dict[str, int]:
        return {k: int(v) for k, v in self.conn.execute("SELECT date_source, count(*) FROM chunks GROUP BY date_source")}

    def count_chunks(self) -> int:
        return int(self.conn.execute("SELECT count(*) FROM chunks").fetchone()[0])

    def count_embedded(self, model: str) -> int:
        return int(self.conn.execute(
            "SELECT count(*) FROM chunks WHERE length(embedding) > 0 AND model = ?", (model,)).fetchone()[0])

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

    def rowids_dated_between(self, start_ms: float, end_ms: float, sources: tuple[str, ...], limit: int) -> list[int]:
        """Newest first: chunks dated inside [start, end) from the given sources."""
        return [r[0] for r in self.conn.execute(
            f"SELECT rowid FROM chunks WHERE ts >= ? AND ts < ? AND source IN ({_marks(len(sources))}) ORDER BY ts DESC LIMIT ?",
            (start_ms, end_ms, *sources, limit))]

    def rowids_of_sources(self, sources: tuple[str, ...]) -> list[int]:
        return [r[0] for r in self.conn.execute(
            f"SELECT rowid FROM chunks WHERE source IN ({_marks(len(sources))})", sources)]

    def embedding_batches(self, model: str, batch_rows: int) -> Iterator[list[tuple[int, str, bytes]]]:
        """(rowid, source, float32 blob) of every chunk embedded with `model`, `batch_rows` at a time:
        1M vectors are 1.5 GB, so they are streamed, never read into one list."""
        cur = self.conn.execute(
            "SELECT rowid, source, embedding FROM chunks WHERE length(embedding) > 0 AND model = ?", (model,))
        while rows := cur.fetchmany(batch_rows):
            yield rows

    def embeddings_by_rowid(self, rowids: Iterable[int]) -> dict[int, bytes]:
        """The float32 blob of each row (an exact rescore of a shortlist)."""
        wanted = list(rowids)
        out: dict[int, bytes] = {}
        for start in range(0, len(wanted), IN_CLAUSE_LIMIT):
            part = wanted[start : start + IN_CLAUSE_LIMIT]
            out.update(self.conn.execute(
                f"SELECT rowid, embedding FROM chunks WHERE rowid IN ({_marks(len(part))})", part).fetchall())
        return out
