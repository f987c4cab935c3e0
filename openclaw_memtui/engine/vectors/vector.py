"""The vector leg: which path a search takes, and the search: cosine top-k from an in-memory matrix,
or a sqlite-vec KNN query. The matrix itself (loading, patching, saving) is `matrix_cache`'s.

Paths (bench/scale.py, README "Scale" has the figures):

* `numpy` below `EXACT_MATRIX_BYTES` of float32 vectors (default on a typical memory, ~40k chunks at
  384 dims): the float32 matrix, exact; at this size a full scan costs less than a rescore from SQLite.
* `numpy-int8` (above it; the name is kept from when its codes were 8-bit): a `QuantizedMatrix` (sign bits +
  4-bit codes, 321 bytes a row at 512 dims instead of 2,048) picks and orders a shortlist; the best
  `k + RESCORE_EXTRA` rows are rescored exactly from their float32 vectors in SQLite.
* `numpy` at any size with `store.vector.exact = true`: the float32 matrix, 1.5 GB at 1M × 384.
* `sqlite-vec`: vec0 KNN, exact, vectors stay on disk; used when the in-memory matrix would not fit
  `store.vector.memoryBudgetMB`, and while a large matrix is still loading (see `warm_up`).

The matrix is loaded once per index generation (`matrix_cache.MatrixCache`); a one-shot search of a
large index does not wait for it to load (`LOAD_INLINE_ROWS`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ..store.reader import IndexReader
from .matrix import FloatMatrix, code_bytes, sign_bits
from .matrix_cache import Key, MatrixCache, VectorMatrix
from .matrix_delta import PatchedMatrix
from .matrix_file import saved_stamp

# rows beyond the `k` asked for that are rescored exactly: the int8 order near the cut can differ
# from the exact one by a few places (measured: 30 rescored rows give the exact top-10)
RESCORE_EXTRA = 50
# sign-bit shortlist scored with int8 codes. Measured at 1M (README "Scale"): real e5 questions over 1M
# e5-shaped vectors find 0.85 of the exact top-10 with 4,096, 0.93 with 8,192, 0.97 with 16,384 rows,
# for about the same CPU up to 8,192 (more past it)
SHORTLIST = 8192
# up to this many vectors a search loads the matrix itself (a short wait); above, it serves from sqlite-vec
# unless the matrix is loaded: a one-shot CLI search never pays for loading 1M vectors, and a
# long-lived process (the app) calls `warm_up` once, after which changes are patched in (`matrix_delta`)
# or, past its limit, reloaded in the background
LOAD_INLINE_ROWS = 50_000
# up to this many bytes of float32 vectors the exact matrix is kept (64 MiB: 43k rows of 384 dims): at
# this size its whole scan costs less than the quantised path's shortlist + SQLite rescore
# (bench/search.py; docs/benchmarks.md has the figures)
EXACT_MATRIX_BYTES = 64 * 1024 * 1024
# bytes an in-memory row costs: sign bits, 4-bit codes, rowid and label
QUANTIZED_ROW_BYTES = 17  # + dims / 2 (codes) + sign_bits(dims) / 8 (bits): rowid, label, fingerprint


class VectorSearcher(MatrixCache):
    """The matrix cache (its base class) and the search over it: the searcher decides, per search,
    whether the matrix, a sqlite-vec KNN or, for a large index not loaded yet, sqlite-vec meanwhile."""

    def __init__(self, backend: str = "auto", memory_budget_mb: int = 1024, *, exact: bool = False,
                 open_reader: Callable[[], Any] | None = None, exact_up_to_bytes: int = EXACT_MATRIX_BYTES,
                 matrix_file: Path | None = None) -> None:
        """`backend` is "auto", "numpy" or "sqlite-vec" (`store.vector.backend`); an in-memory matrix
        over `memory_budget_mb` makes "auto" use sqlite-vec. The rest is the matrix cache's (`MatrixCache`)."""
        super().__init__(exact=exact, exact_up_to_bytes=exact_up_to_bytes, open_reader=open_reader, matrix_file=matrix_file)
        self.backend = backend
        self.budget_bytes = memory_budget_mb * 1024 * 1024
        self.last_path = ""

    def matrix_bytes(self, count: int, dims: int) -> int:
        if self.keeps_floats(count, dims):
            return count * (dims * 4 + 9)
        return count * (code_bytes(dims) + (sign_bits(dims) + 63) // 64 * 8 + QUANTIZED_ROW_BYTES)

    def choose(self, conn: Any, vec_loaded: bool, count: int, dims: int) -> str:
        in_memory = "numpy" if self.keeps_floats(count, dims) else "numpy-int8"
        if self.backend == "numpy" or not vec_loaded:
            return in_memory
        if self.backend == "sqlite-vec":
            return "sqlite-vec"
        return in_memory if self.matrix_bytes(count, dims) <= self.budget_bytes else "sqlite-vec"

    def would_defer(self, conn: Any, key: Key, count: int, vec_loaded: bool) -> bool:
        """Would a search now wait seconds for its vector leg over a large index, because its matrix is
        neither in memory nor saved for this very state (a sqlite-vec KNN, or patching an older matrix
        with the rows changed since)? (A front end may show keyword results first.)"""
        if count <= LOAD_INLINE_ROWS or not vec_loaded or self.backend != "auto" or self.exact:
            return False
        with self._lock:
            if self._key == key and self._matrix is not None:
                return False
        dims = IndexReader(conn).vector_dims() or 0
        if not dims or self.choose(conn, vec_loaded, count, dims) == "sqlite-vec":
            return False  # over the memory budget: sqlite-vec is the path, not a wait
        stamp = self._stamp(conn, key[1])
        if stamp is None or self.matrix_file is None:
            return True
        if self.patches_from_log(conn, stamp):
            return False  # the matrix in memory, patched from the writes' log in milliseconds
        # a file of an older generation counts as pending: patching it costs a checksum, maybe an id scan
        return saved_stamp(self.matrix_file) != stamp

    def lacks_file(self, conn: Any, model: str, count: int) -> bool:
        """Would a long-lived process build this index's matrix from SQLite at its first start? True for
        a large index (over LOAD_INLINE_ROWS vectors, quantised, kept in memory) with no matrix file of
        this index, model and vector size beside it. A file of an older state of this same index does
        not count: the app patches it with the rows changed since, far sooner than a rebuild."""
        if count <= LOAD_INLINE_ROWS or self.matrix_file is None or self.exact:
            return False
        stamp = self._stamp(conn, model)
        if stamp is None or self.keeps_floats(count, stamp.dims) or self.choose(conn, True, count, stamp.dims) == "sqlite-vec":
            return False
        saved = saved_stamp(self.matrix_file)
        return saved is None or (saved.index_id, saved.model, saved.dims) != (stamp.index_id, stamp.model, stamp.dims)

    # -- searching -------------------------------------------------------------------------------
    def search(self, conn: Any, query_vec: np.ndarray, k: int, *, generation: tuple[int, int], model: str, vec_loaded: bool,
               sources: tuple[str, ...], count: int) -> list[tuple[int, float]]:
        """Top-k (chunk rowid, cosine similarity), best first."""
        if k <= 0 or not np.any(query_vec):
            return []
        q = np.asarray(query_vec, dtype=np.float32)
        q = q / (np.linalg.norm(q) or 1.0)
        path = self.choose(conn, vec_loaded, count, len(q))
        matrix: VectorMatrix | None = None
        source_labels: dict[str, int] = {}
        if path != "sqlite-vec":
            # with sqlite-vec at hand a large matrix never makes a search wait for it to load
            may_defer = vec_loaded and self.backend == "auto" and count > LOAD_INLINE_ROWS
            found = self.matrix_for(conn, (generation, model), count, may_defer=may_defer)
            if found is None:
                path = "sqlite-vec"
            else:
                matrix, source_labels = found
        if isinstance(matrix, FloatMatrix):
            path = "numpy"  # what was loaded decides: the count may have crossed the threshold since
        self.last_path = path
        if matrix is None:
            return self._sqlite_vec(conn, q, k, model, sources)
        if matrix.size == 0 or matrix.dims != len(q):
            return []
        labels = None if len(sources) >= 2 else tuple(source_labels.get(s, 0) for s in sources)
        if isinstance(matrix, FloatMatrix):
            rowids, scores = matrix.search(q, k, labels=labels)
            return [(int(r), float(s)) for r, s in zip(rowids, scores, strict=True)]
        if isinstance(matrix, PatchedMatrix):
            return rescore(IndexReader(conn), matrix.candidates(q, k + RESCORE_EXTRA, SHORTLIST, labels), q, k)
        rowids, _ = matrix.search(q, k + RESCORE_EXTRA, shortlist=SHORTLIST, labels=labels)
        return rescore(IndexReader(conn), rowids, q, k)

    @staticmethod
    def _sqlite_vec(conn: Any, q: np.ndarray, k: int, model: str, sources: tuple[str, ...]) -> list[tuple[int, float]]:
        # KNN over vec0 (MATCH … AND k), then map ids to chunk rows; over-fetch when filtering.
        fetch = k if len(sources) >= 2 else k * 4
        rows = conn.execute(
            "SELECT c.rowid, v.distance, c.source FROM (SELECT id, distance FROM chunks_vec WHERE embedding MATCH ? AND k = ?) v"
            " JOIN chunks c ON c.id = v.id WHERE c.model = ? ORDER BY v.distance",
            (q.tobytes(), fetch, model),
        ).fetchall()
        return [(rowid, 1.0 - float(dist)) for rowid, dist, source in rows if source in sources][:k]


def rescore(reads: IndexReader, rowids: np.ndarray, q: np.ndarray, k: int) -> list[tuple[int, float]]:
    """The exact cosine of each row from its stored float32 vector; the best `k`, best first."""
    blobs = reads.embeddings_by_rowid(int(r) for r in rowids)
    scored = [(rid, float(np.frombuffer(blob, dtype=np.float32) @ q)) for rid, blob in blobs.items()
              if len(blob) == 4 * len(q)]
    scored.sort(key=lambda item: (-item[1], item[0]))
    return scored[:k]
