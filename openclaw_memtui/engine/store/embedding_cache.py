"""The embedding cache table: vectors by content hash, kept across rebuilds so unchanged text is never paid for twice."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, NamedTuple


class CacheScope(NamedTuple):
    """Whose vectors: a cached vector is reused only for the same provider, model and settings key."""

    provider: str
    model: str
    provider_key: str


class CachedVector(NamedTuple):
    hash: str
    blob: bytes  # float32
    dims: int


class EmbeddingCache:
    """Typed statements over `embedding_cache` on one connection."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn

    def lookup(self, scope: CacheScope, hashes: Sequence[str]) -> dict[str, bytes]:
        """The cached blob of each hash that has one (an empty blob is no vector)."""
        marks = ",".join("?" * len(hashes))
        rows = self.conn.execute(
            "SELECT hash, embedding FROM embedding_cache WHERE provider = ? AND model = ? AND provider_key = ?"
            f" AND hash IN ({marks})", (*scope, *hashes))
        return {h: blob for h, blob in rows if blob}

    def put(self, scope: CacheScope, vectors: Iterable[CachedVector], now_ms: int) -> None:
        self.conn.executemany(
            "INSERT OR REPLACE INTO embedding_cache(provider, model, provider_key, hash, embedding, dims, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(*scope, v.hash, v.blob, v.dims, now_ms) for v in vectors],
        )

    def touch(self, scope: CacheScope, hashes: Iterable[str], now_ms: int) -> None:
        """Mark hits as used now, so pruning drops the least recently used rows first."""
        self.conn.executemany(
            "UPDATE embedding_cache SET updated_at = ? WHERE provider = ? AND model = ? AND provider_key = ? AND hash = ?",
            [(now_ms, *scope, h) for h in hashes],
        )

    def drop_other_sizes(self, scope: CacheScope, keep_dims: int) -> None:
        """Forget this scope's vectors of another size than `keep_dims` (or of unknown size)."""
        self.conn.execute(
            "DELETE FROM embedding_cache WHERE provider = ? AND model = ? AND provider_key = ?"
            " AND (dims IS NULL OR dims != ?)", (*scope, keep_dims))

    def prune(self, max_entries: int) -> None:
        """Keep at most `max_entries` rows, dropping the least recently used."""
        (count,) = self.conn.execute("SELECT count(*) FROM embedding_cache").fetchone()
        if count > max_entries:
            self.conn.execute(
                "DELETE FROM embedding_cache WHERE rowid IN (SELECT rowid FROM embedding_cache ORDER BY updated_at ASC LIMIT ?)",
                (count - max_entries,))

    def is_empty(self) -> bool:
        return self.conn.execute("SELECT 1 FROM embedding_cache LIMIT 1").fetchone() is None

    def copy_from(self, index_path: Path) -> None:
        """Copy another index file's cache into this one (a rebuild keeps the live file's vectors)."""
        self.conn.execute("ATTACH DATABASE ? AS live", (str(index_path),))
        self.conn.execute("INSERT OR IGNORE INTO embedding_cache SELECT * FROM live.embedding_cache")
        self.conn.execute("DETACH DATABASE live")
