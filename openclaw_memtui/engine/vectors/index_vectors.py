"""The vector matrix of an index, one held object (`IndexVectors`, `MemoryIndex.vectors`): its searcher,
loading it at a long-lived process's launch, the matrix file saved beside the index, and whether a
search would wait for it. It is given what it needs (the store, the settings, the provider's model, the
index's epoch) rather than the whole index; `MemoryIndex`'s methods of the same names are the way in
(their docstrings say what each promises)."""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..settings import IndexSettings
from ..store import Store
from ..store.reader import IndexReader

if TYPE_CHECKING:
    from .matrix_file import MatrixStamp
    from .vector import VectorSearcher


class IndexVectors:
    def __init__(self, settings: IndexSettings, store: Store, read_only: bool,
                 ensure_index_id: Callable[[], None]) -> None:
        """`ensure_index_id` gives an index an older memtui built the id its matrix file is saved under."""
        self.settings = settings
        self.store = store
        self.read_only = read_only
        self._ensure_index_id = ensure_index_id
        self._searcher: VectorSearcher | None = None

    @property
    def searcher(self) -> VectorSearcher:
        """The index's searcher, as its settings ask; no matrix file (nor reader) for an index not on disk."""
        if self._searcher is None:
            from .matrix_file import matrix_path
            from .vector import VectorSearcher

            missing = self.store.missing
            self._searcher = VectorSearcher(
                self.settings.vector_backend, self.settings.vector_memory_budget_mb, exact=self.settings.vector_exact,
                open_reader=None if missing else self.store.open_reader,
                matrix_file=None if missing else matrix_path(self.settings.db_path))
        return self._searcher

    def warm_up(self, model: str | None, epoch: int) -> None:
        if model is None or self.store.missing:
            return
        persist = not self.read_only
        conn = self.store.open_reader()  # its own connection: the caller's thread may search meanwhile
        try:
            reads = IndexReader(conn)
            if persist and not reads.index_id():
                self._ensure_index_id()
            generation = (epoch, reads.generation())
            embedded = reads.count_embedded(model)
            if embedded:
                self.searcher.warm_up(conn, generation, model, embedded, persist=persist)
        finally:
            conn.close()

    def lacks_file(self, model: str | None) -> bool:
        if model is None or self.store.missing or self.read_only:
            return False
        conn = self.store.open_reader()
        try:
            return self.searcher.lacks_file(conn, model, IndexReader(conn).count_embedded(model))
        finally:
            conn.close()

    def save_file(self, model: str | None, epoch: int) -> MatrixStamp | None:
        """Build and save the matrix file; the saved file's record (None when none was saved, and
        `save_problem` says why when it was refused before the build)."""
        searcher = self.searcher
        searcher.save_problem = ""
        path = searcher.matrix_file
        with contextlib.suppress(OSError):  # nothing there: the usual case
            if path is not None and stat.S_ISDIR(os.lstat(path).st_mode):
                searcher.save_problem = f"a folder is in its place ({path.name}): move it away"
                return None
        self.warm_up(model, epoch)
        return searcher.saved

    @property
    def save_problem(self) -> str:
        return self.searcher.save_problem

    def map_saved(self, model: str | None, epoch: int) -> bool:
        if model is None or self.store.missing:
            return False
        conn = self.store.open_reader()
        try:
            reads = IndexReader(conn)
            generation = (epoch, reads.generation())
            embedded = reads.count_embedded(model)
            return bool(embedded) and self.searcher.map_file(conn, (generation, model), embedded) is not None
        finally:
            conn.close()

    def pending(self, model: str | None, conn: Any, generation: tuple[int, int], embedded: int) -> bool:
        if model is None or self.store.missing:
            return False
        return self.searcher.would_defer(conn, (generation, model), embedded, self.store.vec_loaded)
