"""Bringing a quantised matrix of an older index state up to date with only the rows changed since.

`matrix_cache.MatrixCache` holds the matrices; this module finds the changed rows (from the index's
change log, or a scan of every chunk id) and reads them into the exact delta of a `PatchedMatrix`
(`matrix_delta`), or says the change is too large and a rebuild is cheaper.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..store.reader import IndexReader
from .matrix import FloatMatrix, QuantizedMatrix
from .matrix_delta import PatchedMatrix, diff, diff_touched, fingerprints, fingerprints_of_scan
from .matrix_file import MatrixStamp


@dataclass(frozen=True)
class PatchBase:
    """A quantised matrix with fingerprints that later states of the index are patched from."""

    matrix: QuantizedMatrix
    labels: dict[str, int]
    stamp: MatrixStamp


@dataclass(frozen=True)
class Patch:
    """What `patch` made of a base: the patched matrix and its labels, or None and maybe why."""

    matrix: PatchedMatrix | None  # None: too large a change (`problem` says so) or too many sources to label
    labels: dict[str, int]
    via: str  # how the changed rows were found: "log" (the writes' record) or "scan"
    problem: str = ""


def changed_since(reads: IndexReader, base: PatchBase, stamp: MatrixStamp,
                  in_memory: PatchedMatrix | None, in_memory_stamp: MatrixStamp | None) -> np.ndarray | None:
    """The rowids (int64, ascending, each once) of every row that may differ between `base` and the
    index at `stamp`, from the change log; None when the log does not tell.

    The log may reach back only to the matrix in memory (`in_memory`, read at `in_memory_stamp`),
    itself `base` patched (by an id scan at a start after another process's writes, or from the log
    before it was pruned): the rows that patch dropped and added, plus those logged since, are then
    the rows changed since `base`. So after one scan the app's next watcher syncs patch from the log,
    merge or no merge."""
    logged = reads.changed_rowids(base.stamp.generation, stamp.generation)
    if logged is not None:
        return logged_rowids(logged)
    if in_memory is None or in_memory_stamp is None or in_memory.base is not base.matrix:
        return None
    since = reads.changed_rowids(in_memory_stamp.generation, stamp.generation)
    if since is None:
        return None
    dropped = base.matrix.rowids[: base.matrix.size][~in_memory.alive]
    added = in_memory.fresh.rowids[: in_memory.fresh.size]
    return logged_rowids(b"".join([since, dropped.astype("<i8").tobytes(), added.astype("<i8").tobytes()]))


def patch(reads: IndexReader, base: PatchBase, stamp: MatrixStamp, touched: np.ndarray | None) -> Patch:
    """`base` (with fingerprints) brought to `stamp`: its rows whose (rowid, id) left the index are
    dropped, the index's rows it lacks are read from SQLite into an exact delta.

    The rows to compare are `touched` (from `changed_since`) when the change log told them (a
    sync's watcher run); otherwise (None: another memtui's writes, a pruned log) every chunk id is
    scanned, with the GIL free."""
    matrix = base.matrix
    assert matrix.fingerprints is not None
    base_rowids, base_prints = matrix.rowids[: matrix.size], matrix.fingerprints[: matrix.size]
    vector_bytes = stamp.dims * 4
    rows: list[tuple[int, str, bytes, str]] | None = None
    if touched is not None:
        rows = reads.embeddings_of_rows(stamp.model, touched.tolist(), vector_bytes)  # those with a vector
        changes = diff_touched(base_rowids, base_prints, touched,
                               np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows)),
                               fingerprints(r[3] for r in rows))
        unembedded = 0  # `rows` holds no chunk without a vector
        fresh = set(changes.fresh.tolist())
        rows = [r for r in rows if r[0] in fresh]
    else:
        scanned = fingerprints_of_scan(*reads.chunk_id_heads())
        if scanned is None:  # some id is not a sha256 hex digest: each id on its own, in Python
            ids = reads.chunk_ids()
            scanned = np.fromiter((r for r, _ in ids), dtype=np.int64, count=len(ids)), fingerprints(i for _, i in ids)
            del ids
        changes = diff(base_rowids, base_prints, *scanned)
        unembedded = reads.count_chunks() - reads.count_embedded(stamp.model)  # kept counts: no scan
    via = "log" if touched is not None else "scan"
    if changes.too_large(matrix.size, unembedded=unembedded, unfitted=matrix.unfitted_rows):
        merged = f" (and {matrix.unfitted_rows} merged in since its fit)" if matrix.unfitted_rows else ""
        return Patch(None, base.labels, via,
                     f"{changes.counted(unembedded)} rows changed since the matrix was built{merged}: rebuilding")
    labels = dict(base.labels)
    if rows is None:
        rows = reads.embeddings_of_rows(stamp.model, changes.fresh.tolist(), vector_bytes)
    fresh_rows = FloatMatrix(stamp.dims, capacity=len(rows))
    if rows:
        label_of = labels.setdefault
        row_labels = [label_of(r[1], len(labels) + 1) for r in rows]
        if max(row_labels) > 255:
            return Patch(None, labels, via)
        fresh_rows.add(np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows)),
                       np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float32).reshape(len(rows), stamp.dims),
                       np.array(row_labels, dtype=np.uint8))
    fresh_prints = fingerprints(r[3] for r in rows)
    return Patch(PatchedMatrix(matrix, changes.alive, fresh_rows, fresh_prints), labels, via)


def logged_rowids(logged: bytes) -> np.ndarray:
    """The change log's rowids (int64s, little-endian, repeats possible) ascending, each once."""
    return np.unique(np.frombuffer(logged, dtype="<i8")).astype(np.int64)
