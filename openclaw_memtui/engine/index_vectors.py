"""The vector matrix of a `MemoryIndex`: its searcher, loading it at a long-lived process's launch,
the matrix file saved beside the index, and whether a search would wait for it. `MemoryIndex`'s
methods of the same names are the way in (their docstrings say what each promises)."""

from __future__ import annotations

import contextlib
import os
import stat
from typing import TYPE_CHECKING

from .settings import IndexSettings
from .store import Store
from .store.reader import IndexReader

if TYPE_CHECKING:
    from .index import MemoryIndex
    from .search.vector import VectorSearcher


def new_searcher(settings: IndexSettings, store: Store) -> VectorSearcher:
    """The index's searcher, as its settings ask; no matrix file (nor reader) for an index not on disk."""
    from .search.matrix_file import matrix_path
    from .search.vector import VectorSearcher

    missing = store.missing
    return VectorSearcher(settings.vector_backend, settings.vector_memory_budget_mb, exact=settings.vector_exact,
                          open_reader=None if missing else store.open_reader,
                          matrix_file=None if missing else matrix_path(settings.db_path))


def warm_up(index: MemoryIndex) -> None:
    provider = index.provider
    if provider is None or index.store.missing:
        return
    persist = not index.read_only
    conn = index.store.open_reader()  # its own connection: the caller's thread may search meanwhile
    try:
        reads = IndexReader(conn)
        if persist and not reads.index_id():
            index._ensure_index_id()
        generation = (index._epoch, reads.generation())
        embedded = reads.count_embedded(provider.model)
        if embedded:
            index.vector_searcher.warm_up(conn, generation, provider.model, embedded, persist=persist)
    finally:
        conn.close()


def lacks_file(index: MemoryIndex) -> bool:
    provider = index.provider
    if provider is None or index.store.missing or index.read_only:
        return False
    conn = index.store.open_reader()
    try:
        return index.vector_searcher.lacks_file(conn, provider.model, IndexReader(conn).count_embedded(provider.model))
    finally:
        conn.close()


def save_file(index: MemoryIndex) -> bool:
    searcher = index.vector_searcher
    searcher.save_problem = ""
    path = searcher.matrix_file
    with contextlib.suppress(OSError):  # nothing there: the usual case
        if path is not None and stat.S_ISDIR(os.lstat(path).st_mode):
            searcher.save_problem = f"a folder is in its place ({path.name}): move it away"
            return False
    index.warm_up_vectors()
    saved = searcher.saved
    return saved is not None and saved.generation == index.reads().generation()


def map_saved(index: MemoryIndex) -> bool:
    provider = index.provider
    if provider is None or index.store.missing:
        return False
    conn = index.store.open_reader()
    try:
        reads = IndexReader(conn)
        generation = (index._epoch, reads.generation())
        embedded = reads.count_embedded(provider.model)
        return bool(embedded) and index.vector_searcher.map_file(conn, (generation, provider.model), embedded) is not None
    finally:
        conn.close()


def pending(index: MemoryIndex) -> bool:
    provider = index.provider
    if provider is None or index.store.missing:
        return False
    generation = index.store_generation()
    embedded, _ = index.chunk_counts(provider.model, generation)
    return index.vector_searcher.would_defer(index.reader(), (generation, provider.model), embedded, index.store.vec_loaded)
