"""Whether an index's keyword rows and vectors agree with its chunks: read-only, `status` reports it."""

from __future__ import annotations

from typing import Any

# up to this many chunks every status joins keyword rows with chunks (it reads every row); above, only
# when the kept counts disagree (a sync repairs keyword rows, and heals the join's cases too)
DEEP_CHECK_CHUNKS = 10_000


def check_integrity(conn: Any, dims: int | None) -> dict[str, Any]:
    """Do the keyword rows and vectors match the chunks? Read-only; `status` reports it.

    `ok` is False when an FTS row has no chunk (or another chunk's id), a chunk has no FTS row,
    or a stored vector has another size than the index's `dims`. Counts come from the kept
    counts and FTS5's own total, so a 1M-chunk index answers at once; the row-by-row join
    runs when they disagree or the index is small (`deep` says whether it ran).
    """
    from .reader import IndexReader

    reads = IndexReader(conn)
    chunks, fts_rows = reads.count_chunks(), reads.count_fts_rows()
    orphans = unindexed = 0
    deep = chunks != fts_rows or chunks <= DEEP_CHECK_CHUNKS
    if deep:
        # FTS5 keeps its rows in the shadow table `<name>_content` (id = rowid, c1 = our `id` column):
        # joining that plain table is about 3x faster than scanning the virtual table
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'chunks_fts_content'").fetchone():
            fts, rowid, fts_id = "chunks_fts_content", "id", "c1"
        else:  # pragma: no cover - an FTS5 build without a content table
            fts, rowid, fts_id = "chunks_fts", "rowid", "id"
        (orphans,) = conn.execute(
            f"SELECT count(*) FROM {fts} f WHERE NOT EXISTS"
            f" (SELECT 1 FROM chunks c WHERE c.rowid = f.{rowid} AND c.id = f.{fts_id})"
        ).fetchone()
        (unindexed,) = conn.execute(
            f"SELECT count(*) FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM {fts} f WHERE f.{rowid} = c.rowid)"
        ).fetchone()
    other_size = reads.count_vectors_of_other_size(4 * int(dims)) if dims else 0
    return {"ok": fts_rows == chunks and not orphans and not unindexed and not other_size,
            "chunks": chunks, "fts_rows": fts_rows, "orphan_fts_rows": orphans, "chunks_without_fts_row": unindexed,
            "vectors_of_other_size": other_size, "deep": deep}


def describe_integrity(report: dict[str, Any]) -> str:
    """`ok`, or what does not match and how to mend it (a sync repairs keyword rows, --force all)."""
    if report.get("ok"):
        return f"ok ({report['fts_rows']} keyword rows for {report['chunks']} chunks)"
    problems = []
    if report["fts_rows"] != report["chunks"]:
        problems.append(f"{report['fts_rows']} keyword rows for {report['chunks']} chunks")
    if report["orphan_fts_rows"]:
        problems.append(f"{report['orphan_fts_rows']} keyword rows without a chunk")
    if report["chunks_without_fts_row"]:
        problems.append(f"{report['chunks_without_fts_row']} chunks without a keyword row")
    if report["vectors_of_other_size"]:
        problems.append(f"{report['vectors_of_other_size']} vectors of another size")
    return "PROBLEM: " + "; ".join(problems) + " (run memtui index to repair, or memtui index --force)"
