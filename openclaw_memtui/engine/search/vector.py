"""The vector leg: exact cosine top-k from an in-memory numpy matrix or a sqlite-vec KNN query.

Measured (bench/search.py): numpy over an in-memory float32 matrix is an order of magnitude faster
than a vec0 scan, but costs RAM; vec0 keeps vectors on disk. `auto` uses numpy while the matrix
fits the memory budget and sqlite-vec beyond it. Both return the same top-k (tested).
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from ..reads import IndexReader


class VectorSearcher:
    def __init__(self, backend: str = "auto", memory_budget_mb: int = 1024) -> None:
        self.backend = backend
        self.budget_bytes = memory_budget_mb * 1024 * 1024
        self._lock = threading.Lock()
        self._key: tuple[tuple[int, int], str] | None = None
        self._rowids: np.ndarray | None = None
        self._matrix: np.ndarray | None = None
        self.last_path = ""

    def choose(self, conn: Any, vec_loaded: bool, count: int, dims: int) -> str:
        if self.backend == "numpy" or not vec_loaded:
            return "numpy"
        if self.backend == "sqlite-vec":
            return "sqlite-vec"
        return "numpy" if count * dims * 4 <= self.budget_bytes else "sqlite-vec"

    def _load_matrix(self, conn: Any, generation: tuple[int, int], model: str) -> tuple[np.ndarray, np.ndarray]:
        key = (generation, model)
        with self._lock:
            if self._key != key or self._matrix is None:
                rows = IndexReader(conn).embeddings(model)
                if rows:
                    dims = len(rows[0][1]) // 4
                    rows = [r for r in rows if len(r[1]) == dims * 4]
                    matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), dims)
                    rowids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
                else:
                    matrix, rowids = np.zeros((0, 0), dtype=np.float32), np.zeros(0, dtype=np.int64)
                self._matrix, self._rowids, self._key = matrix, rowids, key
            return self._rowids, self._matrix  # type: ignore[return-value]

    def search(self, conn: Any, query_vec: np.ndarray, k: int, *, generation: tuple[int, int], model: str, vec_loaded: bool,
               sources: tuple[str, ...], count: int) -> list[tuple[int, float]]:
        """Top-k (chunk rowid, cosine similarity), best first."""
        if k <= 0 or not np.any(query_vec):
            return []
        q = np.asarray(query_vec, dtype=np.float32)
        q = q / (np.linalg.norm(q) or 1.0)
        path = self.choose(conn, vec_loaded, count, len(q))
        self.last_path = path
        if path == "sqlite-vec":
            return self._sqlite_vec(conn, q, k, model, sources)
        rowids, matrix = self._load_matrix(conn, generation, model)
        if matrix.shape[0] == 0 or matrix.shape[1] != len(q):
            return []
        sims = matrix @ q
        if len(sources) < 2:
            allowed = self._rowids_for_sources(conn, sources)
            sims = np.where(np.isin(rowids, allowed), sims, -np.inf)
        k = min(k, len(sims))
        top = np.argpartition(-sims, k - 1)[:k]
        top = top[np.argsort(-sims[top], kind="stable")]
        return [(int(rowids[i]), float(sims[i])) for i in top if np.isfinite(sims[i])]

    @staticmethod
    def _rowids_for_sources(conn: Any, sources: tuple[str, ...]) -> np.ndarray:
        return np.fromiter(IndexReader(conn).rowids_of_sources(sources), dtype=np.int64)

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
