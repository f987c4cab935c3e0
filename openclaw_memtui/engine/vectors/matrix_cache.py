"""The matrix a vector search scans, kept in memory for one index generation: its life cycle.

The matrix is loaded once per index generation, streamed in batches (no 1.5 GB bytes join). A
quantised matrix saved for an older generation, or held in memory from one, is brought up to date
with only the rows changed since (`matrix_delta`: a scan of the chunk ids, then the changed rows'
vectors), unless so many changed that a rebuild is cheaper. A long-lived writer (the app, after
`warm_up(persist=True)`) saves what it built beside the index (`matrix_file`), and merges a patched
matrix into one file once its delta is large enough. Which path a search takes, and the search
itself, are `vector.VectorSearcher`'s.
"""

from __future__ import annotations

import contextlib
import ctypes
import itertools
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..store.reader import IndexReader
from .matrix import FloatMatrix, QuantizedMatrix
from .matrix_delta import PatchedMatrix, fingerprints, patch_limit
from .matrix_file import MatrixStamp, UnusableMatrixFile, load_matrix, save_matrix, write_matrix
from .matrix_patch import PatchBase, changed_since, patch

Key = tuple[tuple[int, int], str]  # (index generation, model)
VectorMatrix = QuantizedMatrix | FloatMatrix | PatchedMatrix

LOAD_BATCH_ROWS = 1024  # each numpy call of a batch holds the GIL briefly: the app's event loop keeps its turns
# a long-lived writer (the app) saves base + delta as one file once the delta holds this many rows: the
# next start then maps a file that needs no delta, and a watcher's small syncs do not each rewrite
# ~440 MB (1M rows); below it, the next start applies the delta again (an id scan + these rows' vectors)
MERGE_SAVE_ROWS = 1000

@dataclass(frozen=True)
class _Loaded:
    matrix: VectorMatrix
    labels: dict[str, int]  # source -> the label its rows carry
    stamp: MatrixStamp | None  # the index state it was read from (None: no matrix file for this index)
    from_file: bool = False
    seconds: float = 0.0  # how long loading it took


@contextlib.contextmanager
def _snapshot(conn: Any) -> Iterator[None]:
    """One read transaction: every statement inside sees the same state of the index (WAL)."""
    if conn.in_transaction:
        yield
        return
    conn.execute("BEGIN")
    try:
        yield
    finally:
        conn.execute("COMMIT")  # nothing was written: this only ends the snapshot


class MatrixCache:
    """The matrix of one index generation and model, and where it came from: built from SQLite,
    mapped from the file saved beside the index, or an older one patched with the rows changed since."""

    def __init__(self, *, exact: bool, exact_up_to_bytes: int, open_reader: Callable[[], Any] | None,
                 matrix_file: Path | None) -> None:
        """`exact` keeps float32 vectors in memory (no quantisation). `open_reader` opens a new read
        connection; with it, `warm_up` can load the matrix on a thread of its own. `matrix_file` is
        where the quantised matrix is saved beside the index (`matrix_file.py`): any search may map
        a current one in; only a process that called `warm_up(persist=True)` writes it."""
        self.exact = exact
        self.exact_up_to_bytes = exact_up_to_bytes  # smaller float32 matrices stay exact (0: quantise all)
        self.open_reader = open_reader
        self.matrix_file = matrix_file
        self._lock = threading.Lock()
        self._key: Key | None = None
        self._matrix: VectorMatrix | None = None
        self._labels: dict[str, int] = {}  # source -> the label its rows carry in `_matrix`
        self._inline = threading.Lock()
        self._saving = threading.Lock()
        self._file_lock = threading.Lock()  # one mapping of the matrix file at a time
        self._loaded: _Loaded | None = None  # what `_matrix` and `_labels` came from
        self._base: PatchBase | None = None  # what a later state's delta is computed against
        self._rebuild_at: MatrixStamp | None = None  # a state whose delta was too large: rebuild, do not rescan
        self._merge_thread: threading.Thread | None = None
        self._saved: MatrixStamp | None = None  # the state this process last saved a file for
        self._loading: Key | None = None  # the key a warm-up or background thread is loading
        self._background = False  # set by warm_up: reload in the background when the index changes
        self._persist = False  # set by warm_up(persist=True): save each matrix built from SQLite
        self.loaded_from = ""  # "file" or "sqlite": where the matrix in memory came from
        self.file_problem = ""  # why the matrix file was not used or not written, last time
        self.save_problem = ""  # why the last save of the matrix file failed ("" after one that worked)
        self.load_s = self.save_s = 0.0  # the last load (file or SQLite) and save took, wall seconds
        self.patched_from = ""  # how the last patch found the changed rows: "log" (the writes' record) or "scan"
        self.patch_s = 0.0  # and how long it took, wall seconds

    def keeps_floats(self, count: int, dims: int) -> bool:
        """Exact float32 rows: asked for, or small enough that quantising buys nothing."""
        return self.exact or count * dims * 4 <= self.exact_up_to_bytes

    @property
    def saved(self) -> MatrixStamp | None:
        """The index state this process last saved a matrix file for."""
        return self._saved

    def patches_from_log(self, conn: Any, stamp: MatrixStamp) -> bool:
        """Whether the base in memory reaches `stamp` through the change log with few enough rows that
        the patch is sure (each logged row at most one dropped and one added row; the app after a
        watcher's sync; a row logged by several steps, as inserted then embedded, counts once). A start
        with an older file stays pending even so: its keyword ranking shows while the file's checksum is
        read, sooner than the hybrid ranking would (measured at 1M: docs/benchmarks.md, "Scale")."""
        with self._lock:
            base = self._base
        if base is None or (base.stamp.index_id, base.stamp.model, base.stamp.dims) != (stamp.index_id, stamp.model, stamp.dims):
            return False
        touched = self._changed_since(IndexReader(conn), base, stamp)
        if touched is None:
            return False
        return 2 * len(touched) + base.matrix.unfitted_rows <= patch_limit(base.matrix.size)

    def matrix_for(self, conn: Any, key: Key, count: int, may_defer: bool) -> tuple[VectorMatrix, dict[str, int]] | None:
        """The matrix of this generation and its source labels; None when it is not loaded yet and
        `may_defer` (the searcher's call for a large matrix: then, in a long-lived process, a
        background thread loads it).

        A large matrix saved beside the index for this very state is mapped in at once even when
        deferring: that costs a checksum of the file, not a rebuild."""
        with self._lock:
            if self._key == key and self._matrix is not None:
                return self._matrix, self._labels
        if may_defer:
            found = self.map_file(conn, key, count)  # waits for a mapping under way, never for a rebuild
            if found is not None:
                return found
            with self._lock:
                if self._background and self._loading is None:
                    self._loading = key
                    threading.Thread(target=self._load_in_background, args=(key, count),
                                     name="memtui-vector-load", daemon=True).start()
            return None
        with self._inline:  # one inline load at a time; a search waiting here gets the result
            with self._lock:
                if self._key == key and self._matrix is not None:
                    return self._matrix, self._labels
                self._matrix, self._key = None, None  # the old matrix is freed before the new one is built
            loaded = self._load(conn, key[1], count)
            self._publish(loaded, key)
        self._save(conn, loaded)
        return loaded.matrix, loaded.labels

    def map_file(self, conn: Any, key: Key, count: int) -> tuple[VectorMatrix, dict[str, int]] | None:
        """Map in the matrix file saved for the index's state now, unless a matrix of this key is in
        memory already; None when there is no usable file. A long-lived process may call it at
        launch on a worker thread, so its first search finds the matrix there."""
        with self._file_lock:  # a second caller waits for the first's mapping (a checksum) and reuses it
            with self._lock:
                if self._key == key and self._matrix is not None:
                    return self._matrix, self._labels
            loaded = self._from_file(conn, key[1], count)
            if loaded is None:
                return None
            self._publish(loaded, key)
        self._save(conn, loaded)
        return loaded.matrix, loaded.labels

    def _publish(self, loaded: _Loaded, key: Key) -> None:
        self.load_s = loaded.seconds
        with self._lock:
            self._matrix, self._labels, self._key, self._loaded = loaded.matrix, loaded.labels, key, loaded
            self.loaded_from = "file" if loaded.from_file else "sqlite"
            matrix = loaded.matrix
            if isinstance(matrix, QuantizedMatrix) and matrix.fingerprints is not None and loaded.stamp is not None:
                self._base = PatchBase(matrix, loaded.labels, loaded.stamp)

    def _stamp(self, conn: Any, model: str) -> MatrixStamp | None:
        """The index state as a matrix file names it; None without a file to use (no path, an
        index that has no id yet, no vectors)."""
        if self.matrix_file is None:
            return None
        reads = IndexReader(conn)
        index_id, dims = reads.index_id(), reads.vector_dims()
        if not index_id or not dims:
            return None
        return MatrixStamp(index_id, reads.generation(), model, dims)

    def _from_file(self, conn: Any, model: str, count: int) -> _Loaded | None:
        """The matrix for the index's state now without a rebuild: the file saved for it, or the
        file or the matrix in memory of an older state with the rows changed since patched in.
        None (and why, in `file_problem`) when there is neither or the change is too large."""
        with _snapshot(conn):  # the stamp, the id scan and the changed rows from one state of the index
            stamp = self._stamp(conn, model)
            if (stamp is None or self.matrix_file is None or self.keeps_floats(count, stamp.dims)
                    or stamp == self._rebuild_at):
                return None
            started = time.perf_counter()
            self.file_problem = ""  # this load's reason only: an earlier one ("no matrix file") is history
            base = held = self._base
            if base is None or (base.stamp.index_id, base.stamp.model, base.stamp.dims) != (stamp.index_id, model, stamp.dims):
                try:
                    matrix, labels, generation = load_matrix(self.matrix_file, stamp, any_generation=True)
                except UnusableMatrixFile as exc:
                    self.file_problem = str(exc)
                    return None
                base = PatchBase(matrix, labels, MatrixStamp(stamp.index_id, generation, model, stamp.dims))
            if base.stamp == stamp:
                return _Loaded(base.matrix, base.labels, stamp, from_file=True, seconds=time.perf_counter() - started)
            patched = self._patch(conn, base, stamp)
            if patched is None:
                self._rebuild_at = stamp
                return None
            with self._lock:
                if self._base is held:  # not if a merge finished meanwhile: its base is newer than this one
                    self._base = base
            return _Loaded(patched[0], patched[1], stamp, from_file=True, seconds=time.perf_counter() - started)

    def _patch(self, conn: Any, base: PatchBase, stamp: MatrixStamp) -> tuple[PatchedMatrix, dict[str, int]] | None:
        """`base` brought to `stamp` (`matrix_patch.patch`); None when that is too large a change. The
        changed rows come from the change log when every write since the base logged the chunks it
        touched, else from a scan of every chunk id (`patched_from` says which)."""
        if base.matrix.fingerprints is None:
            return None
        started = time.perf_counter()
        reads = IndexReader(conn)
        patched = patch(reads, base, stamp, self._changed_since(reads, base, stamp))
        self.patched_from = patched.via
        if patched.problem:
            self.file_problem = patched.problem
        if patched.matrix is None:
            return None
        self.patch_s = time.perf_counter() - started
        return patched.matrix, patched.labels

    def _changed_since(self, reads: IndexReader, base: PatchBase, stamp: MatrixStamp) -> np.ndarray | None:
        """The rows that may differ between `base` and the index at `stamp` (`matrix_patch.changed_since`)."""
        with self._lock:
            loaded = self._loaded
        in_memory = loaded.matrix if loaded is not None and isinstance(loaded.matrix, PatchedMatrix) else None
        return changed_since(reads, base, stamp, in_memory, loaded.stamp if loaded is not None else None)

    def _load(self, conn: Any, model: str, count: int) -> _Loaded:
        with _snapshot(conn):  # the stamp and the rows are read from one state of the index
            with self._file_lock:
                loaded = self._from_file(conn, model, count)
            if loaded is not None:
                return loaded
            self._base = None  # a rebuild: the old base is freed, memory never holds two matrices
            started = time.perf_counter()
            stamp = self._stamp(conn, model)
            labels: dict[str, int] = {}
            prints: list[np.ndarray] = []
            batches = self._batches(conn, model, labels, prints)
            first = next(batches, None)
            if first is None:
                return _Loaded(FloatMatrix(0), labels, stamp, seconds=time.perf_counter() - started)
            batches = itertools.chain([first], batches)
            matrix: VectorMatrix | None
            if self.keeps_floats(count, first[1].shape[1]):
                matrix = FloatMatrix.from_batches(batches, capacity=count)
            else:
                matrix = QuantizedMatrix.from_batches(batches, capacity=count)
                if matrix is not None:
                    matrix.fingerprints = np.concatenate(prints)
        return _Loaded(matrix if matrix is not None else FloatMatrix(0), labels, stamp, seconds=time.perf_counter() - started)

    def _save(self, conn: Any, loaded: _Loaded) -> None:
        """Write a matrix just built from SQLite beside the index, when this process may (`warm_up`
        with persist) and the index has not changed meanwhile (a newer state needs a newer file);
        a patched one is merged and written on a thread once its delta is worth it (`MERGE_SAVE_ROWS`)."""
        if isinstance(loaded.matrix, PatchedMatrix):
            self._merge_later(loaded)
            return
        if (not self._persist or loaded.from_file or loaded.stamp is None or self.matrix_file is None
                or not isinstance(loaded.matrix, QuantizedMatrix) or loaded.matrix.size == 0):
            return
        with self._saving:
            if self._saved == loaded.stamp:
                return
            try:
                if self._stamp(conn, loaded.stamp.model) != loaded.stamp:
                    return
                started = time.perf_counter()
                save_matrix(self.matrix_file, loaded.matrix, loaded.labels, loaded.stamp)
                self._saved, self.save_s, self.save_problem = loaded.stamp, time.perf_counter() - started, ""
            except (OSError, ValueError) as exc:  # a full disk or a read-only folder: the next start rebuilds
                self.save_problem = _why_not_saved(exc)
                self.file_problem = f"not saved: {self.save_problem}"

    def _merge_later(self, loaded: _Loaded) -> None:
        matrix = loaded.matrix
        if (not self._persist or self.matrix_file is None or loaded.stamp is None or not isinstance(matrix, PatchedMatrix)
                or matrix.delta_rows < MERGE_SAVE_ROWS):
            return
        with self._lock:
            if self._merge_thread is not None and self._merge_thread.is_alive():
                return  # one merge at a time; a later patch merges what this one would have
            self._merge_thread = threading.Thread(target=self._merge_and_save, args=(loaded,),
                                                  name="memtui-matrix-merge", daemon=True)
            self._merge_thread.start()

    def _merge_and_save(self, loaded: _Loaded) -> None:
        """Base + delta as one quantised matrix, saved for the patched state; in memory it replaces
        the patched one (same rows) if the index has not moved on, and becomes the next base."""
        assert isinstance(loaded.matrix, PatchedMatrix) and loaded.stamp is not None and self.matrix_file is not None
        with self._saving:
            try:
                started = time.perf_counter()
                rows = loaded.matrix.merged()  # streamed from the base into the file, never a copy in memory
                write_matrix(self.matrix_file, loaded.stamp, loaded.labels, rows.rows, rows.unfitted_rows, rows.arrays())
                del rows
                self._saved, self.save_s = loaded.stamp, time.perf_counter() - started
                # the saved file mapped in place of the patched matrix; its pages come in as searches touch them
                merged = load_matrix(self.matrix_file, loaded.stamp)[0]
            except (OSError, ValueError, UnusableMatrixFile) as exc:
                self.file_problem = f"not saved: {exc}"
                return  # the patched matrix stays in use; the next patch past the limit merges again
        with self._lock:
            if self._loaded is loaded:
                self._matrix = merged
                self._loaded = _Loaded(merged, loaded.labels, loaded.stamp, from_file=True, seconds=loaded.seconds)
            if self._base is not None and self._base.stamp.generation <= loaded.stamp.generation:
                self._base = PatchBase(merged, loaded.labels, loaded.stamp)
        _trim_heap()

    def join_merge(self, timeout: float | None = None) -> None:
        """Wait for a merge-and-save under way (tests, benchmarks, a clean exit)."""
        thread = self._merge_thread
        if thread is not None:
            thread.join(timeout)

    def _batches(self, conn: Any, model: str, labels: dict[str, int],
                 prints: list[np.ndarray] | None = None) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """(rowids, float32 vectors, source labels) in batches; vectors of another size than the
        first are left out (a changed provider; `status` counts them). `labels` gets each source's
        label; `prints`, when given, gets each batch's chunk-id fingerprints (`matrix_delta`)."""
        dims = 0
        for rows in IndexReader(conn).embedding_batches(model, LOAD_BATCH_ROWS):
            if not dims:
                dims = len(rows[0][2]) // 4
            rows = [r for r in rows if len(r[2]) == dims * 4]
            if not rows:
                continue
            # one batch joined (about 1.5 MB), never the whole matrix: a copy per row cost 3x more
            vectors = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float32).reshape(len(rows), dims)
            rowids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
            label_of = labels.setdefault
            ids = np.fromiter((label_of(r[1], len(labels) + 1) for r in rows), dtype=np.uint8, count=len(rows))
            if prints is not None:
                prints.append(fingerprints(r[3] for r in rows))
            yield rowids, vectors, ids

    def warm_up(self, conn: Any, generation: tuple[int, int], model: str, count: int, *, persist: bool = False) -> None:
        """Load the matrix now (call it on a worker thread) and keep it current from then on: when
        the index changes, searches use sqlite-vec while a background thread reloads it. Searches
        running meanwhile use sqlite-vec too; they never wait for this load. With `persist` (a
        long-lived writer: the app), each matrix built from SQLite is saved beside the index."""
        key = (generation, model)
        with self._lock:
            self._background = self.open_reader is not None
            self._persist = persist
            current = self._loaded if self._key == key and self._matrix is not None else None
            busy = self._loading is not None
            if current is None and not busy:
                self._loading = key
                self._matrix, self._key = None, None
        if current is not None:  # a search loaded it already: save it if it was built from SQLite
            self._save(conn, current)
            return
        if busy:
            return
        try:
            with self._inline:  # a search that cannot use sqlite-vec waits for this load instead of its own
                loaded = self._load(conn, model, count)
                self._publish(loaded, key)
            self._save(conn, loaded)
        finally:
            with self._lock:
                self._loading = None

    def _load_in_background(self, key: Key, count: int) -> None:
        assert self.open_reader is not None
        try:
            with self._lock:
                self._matrix, self._key = None, None  # stale: free it first, so memory never holds two
            conn = self.open_reader()
            try:
                with self._inline:
                    loaded = self._load(conn, key[1], count)
                    self._publish(loaded, key)
                self._save(conn, loaded)
            finally:
                conn.close()
        finally:
            with self._lock:
                self._loading = None

    @property
    def loaded_key(self) -> Key | None:
        return self._key


def _why_not_saved(exc: OSError | ValueError) -> str:
    """One line for a failed save: the system's words ("No space left on device"), not the temp name."""
    return (exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)) or type(exc).__name__


def _trim_heap() -> None:
    """Hand the memory a merge freed back to the system. glibc keeps the freed blocks of a thread's
    heap for reuse (its mmap threshold rises with each large block freed): after a merge at 1M rows
    that was ~60 MB of the process's RSS for good, measured (bench/matrix_delta.py). A C library
    without `malloc_trim` (musl, macOS): nothing."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None).malloc_trim(0)


