"""What an index holds, for `status` and the app's status screen: the `Status` of a `MemoryIndex`
(`MemoryIndex.status` is the way in)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .embeddings.openclaw_cache import REUSED_META as OPENCLAW_REUSED_META
from .models import Status
from .scrub import scrub
from .store import check_integrity

if TYPE_CHECKING:
    from .index import MemoryIndex


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


def index_status(index: MemoryIndex, check_dirty: bool, dirty_budget_s: float | None, check_hashes: bool,
                 integrity_cache: IntegrityCache) -> Status:
    """See `MemoryIndex.status`."""
    reads = index.reads()
    dirty = index.check_dirty(dirty_budget_s, hashes=check_hashes) if check_dirty else None
    store, settings = index.store, index.settings
    dims_raw = store.get_meta("vectorDims")
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
    provider = index.provider
    integrity = integrity_cache.report(reads.conn, index.store_generation(), int(dims_raw) if dims_raw else None)
    stored_error = store.get_meta("provider_error") or ""
    # one meaning of dirty everywhere: files changed since the last sync, or chunks still waiting for a
    # vector of this model (a cancelled sync, a model change); `dirty_check` keeps what the files said
    unembedded = index.unembedded() if provider is not None and not store.missing else 0
    files_dirty = dirty.dirty if dirty is not None else False
    backend = store.backend
    fallback = index.fallback
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
        last_sync=store.get_meta("last_sync"),
        skipped=skipped,
        chunk_dates=dates,
        provider_error=scrub(index.provider_error or stored_error),  # an index written before scrubbing may hold a key
        fallback=fallback.to_dict() if fallback is not None else None,
        watcher=index.watcher_state,
        notices=list(index.notices),
        integrity=integrity,
        openclaw_cache_reused=int(store.get_meta(OPENCLAW_REUSED_META) or 0),
        unembedded=unembedded,
    )
