"""What an index holds, for `status` and the app's status screen: a `Status` built from the index's
parts (its reader, store, settings, provider and dirty check), not from the whole `MemoryIndex`
(`MemoryIndex.status` is the way in)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .embeddings.openclaw_cache import REUSED_META as OPENCLAW_REUSED_META
from .models import Status
from .scrub import scrub
from .store import check_integrity

if TYPE_CHECKING:
    from .embeddings.base import EmbeddingProvider
    from .embeddings.choice import FallbackRecord
    from .models import DirtyCheck
    from .settings import IndexSettings
    from .store import Store
    from .store.reader import IndexReader


class IntegrityCache:
    """check_integrity, cached until the index changes: the app's status screen refreshes every
    second during a sync, and the check reads every row."""

    def __init__(self) -> None:
        self._cached: tuple[tuple[tuple[int, int], int | None], dict[str, Any]] | None = None

    def report(self, conn: Any, generation: tuple[int, int], dims: int | None) -> dict[str, Any]:
        key = (generation, dims)
        cached = self._cached
        if cached is None or cached[0] != key:
            self._cached = cached = (key, check_integrity(conn, dims))
        return dict(cached[1])


def index_status(reads: IndexReader, store: Store, settings: IndexSettings, provider: EmbeddingProvider | None,
                 dirty: DirtyCheck | None, unembedded: int, integrity: dict[str, Any], provider_error: str,
                 fallback: FallbackRecord | None, watcher: str, notices: list[str]) -> Status:
    """The `Status` of an index from its parts (see `MemoryIndex.status`): `dirty` is the files' check
    (None: not checked), `unembedded` the chunks waiting for a vector of `provider`'s model. Everything is
    read through `reads` (the calling thread's own connection): the store's connection is the sync's, which
    a rebuild closes and reopens on its thread, and a read through it from another thread at that moment
    crashed the process (a segmentation fault in SQLite)."""
    dims_raw = reads.meta("vectorDims")
    # a vector of another size than the index's is not usable: it does not count as embedded
    vec_bytes = 4 * int(dims_raw) if dims_raw else 0
    sources: dict[str, dict[str, int]] = {}
    for source, files in reads.files_per_source().items():
        sources.setdefault(source, {"files": 0, "chunks": 0, "embedded": 0})["files"] = files
    for counts in reads.chunks_per_source(vec_bytes):
        entry = sources.setdefault(counts.source, {"files": 0, "chunks": 0, "embedded": 0})
        entry["chunks"], entry["embedded"] = counts.chunks, counts.embedded
    dates = reads.chunk_dates()
    skipped = [row._asdict() for row in reads.skipped()]
    stored_error = reads.meta("provider_error") or ""
    # one meaning of dirty everywhere: files changed since the last sync, or chunks still waiting for a
    # vector of this model (a cancelled sync, a model change); `dirty_check` keeps what the files said
    files_dirty = dirty.dirty if dirty is not None else False
    backend = store.backend
    return Status(
        workspace=str(settings.workspace),
        db_path=str(settings.db_path),
        sqlite_binding=backend.name,
        sqlite_version=backend.sqlite_version,
        sqlite_vec_version=backend.vec_version if store.vec_loaded else None,
        vector_backend="sqlite-vec" if store.vec_loaded else "numpy",
        fts=True,
        provider=provider.id if provider else "none",
        model=provider.model if provider else "fts-only",
        dims=int(dims_raw) if dims_raw else (provider.dims if provider else None),
        files=sum(v["files"] for v in sources.values()),
        chunks=sum(v["chunks"] for v in sources.values()),
        embedded=sum(v["embedded"] for v in sources.values()),
        sources=sources,
        dirty=True if unembedded else files_dirty,
        dirty_check=dirty.to_dict() if dirty is not None else {},
        last_sync=reads.meta("last_sync"),
        skipped=skipped,
        chunk_dates=dates,
        provider_error=scrub(provider_error or stored_error),  # an index written before scrubbing may hold a key
        fallback=fallback.to_dict() if fallback is not None else None,
        watcher=watcher,
        notices=list(notices),
        integrity=integrity,
        openclaw_cache_reused=int(reads.meta(OPENCLAW_REUSED_META) or 0),
        unembedded=unembedded,
    )
