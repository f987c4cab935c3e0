"""The vector leg: cosine top-k from an in-memory matrix, or a sqlite-vec KNN query.

Paths (bench/scale.py, README "Scale" has the figures):

* `numpy` below `EXACT_MATRIX_BYTES` of float32 vectors (default on a typical memory, ~40k chunks at
  384 dims): the float32 matrix, exact; at this size a full scan costs less than a rescore from SQLite.
* `numpy-int8` (above it): a `QuantizedMatrix` (sign bits + int8 codes, 441 bytes a row instead of
  1,536) picks and orders a shortlist; the best `k + RESCORE_EXTRA` rows are rescored exactly from
  their float32 vectors in SQLite. 1M × 384 in ~440 MB, top-10 identical to exact search on e5 vectors.
* `numpy` at any size with `store.vector.exact = true`: the float32 matrix, 1.5 GB at 1M × 384.
* `sqlite-vec`: vec0 KNN, exact, vectors stay on disk; used when the in-memory matrix would not fit
  `store.vector.memoryBudgetMB`, and while a large matrix is still loading (see `warm_up`).

The matrix is loaded once per index generation, streamed in batches (no 1.5 GB bytes join). A
quantised matrix saved for an older generation, or held in memory from one, is brought up to date
with only the rows changed since (`matrix_delta`: a scan of the chunk ids, then the changed rows'
vectors), unless so many changed that a rebuild is cheaper.
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
from .matrix_delta import PatchedMatrix, diff, diff_touched, fingerprints, fingerprints_of_scan, patch_limit
from .matrix_file import MatrixStamp, UnusableMatrixFile, load_matrix, save_matrix, saved_stamp, write_matrix

Key = tuple[tuple[int, int], str]  # (index generation, model)
VectorMatrix = QuantizedMatrix | FloatMatrix | PatchedMatrix

# rows beyond the `k` asked for that are rescored exactly: the int8 order near the cut can differ
# from the exact one by a few places (measured: 30 rescored rows give the exact top-10)
RESCORE_EXTRA = 50
# sign-bit shortlist scored with int8 codes. Measured at 1M (README "Scale"): real e5 questions over 1M
# e5-shaped vectors find 0.85 of the exact top-10 with 4,096, 0.93 with 8,192, 0.97 with 16,384 rows,
# for about the same CPU up to 8,192 (+15 ms at 16,384)
SHORTLIST = 8192
# up to this many vectors a search loads the matrix itself (~0.3 s); above, it serves from sqlite-vec
# unless the matrix is loaded: a one-shot CLI search never pays for loading 1M vectors, and a
# long-lived process (the app) calls `warm_up` once, after which changes are patched in (`matrix_delta`)
# or, past its limit, reloaded in the background
LOAD_INLINE_ROWS = 50_000
# up to this many bytes of float32 vectors the exact matrix is kept (64 MiB: 43k rows of 384 dims): at
# 10k chunks its whole scan is ~1 ms, where the quantised path's shortlist + SQLite rescore cost ~8 ms
# (bench/search.py: vector leg p50 14 ms -> see README "Scale")
EXACT_MATRIX_BYTES = 64 * 1024 * 1024
LOAD_BATCH_ROWS = 1024  # each numpy call of a batch holds the GIL briefly: the app's event loop keeps its turns
# bytes an in-memory row costs: sign bits, int8 codes, rowid and label
QUANTIZED_ROW_BYTES = 17  # + dims (int8) + dims / 8 (bits): rowid, label, fingerprint
# a long-lived writer (the app) saves base + delta as one file once the delta holds this many rows: the
# next start then maps a file that needs no delta, and a watcher's small syncs do not each rewrite
# ~440 MB (1M rows); below it, the next start applies the delta again (an id scan + these rows' vectors)
MERGE_SAVE_ROWS = 1000


@dataclass(frozen=True)
class _Base:
    """A quantised matrix with fingerprints that later states of the index are patched from."""

    matrix: QuantizedMatrix
    labels: dict[str, int]
    stamp: MatrixStamp


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


class VectorSearcher:
    def __init__(self, backend: str = "auto", memory_budget_mb: int = 1024, *, exact: bool = False,
                 open_reader: Callable[[], Any] | None = None, exact_up_to_bytes: int = EXACT_MATRIX_BYTES,
                 matrix_file: Path | None = None) -> None:
        """`exact` keeps float32 vectors in memory (no quantisation). `open_reader` opens a new read
        connection; with it, `warm_up` can load the matrix on a thread of its own. `matrix_file` is
        where the quantised matrix is saved beside the index (`matrix_file.py`): any search may map
        a current one in; only a process that called `warm_up(persist=True)` writes it."""
        self.backend = backend
        self.exact = exact
        self.exact_up_to_bytes = exact_up_to_bytes  # smaller float32 matrices stay exact (0: quantise all)
        self.budget_bytes = memory_budget_mb * 1024 * 1024
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
        self._base: _Base | None = None  # what a later state's delta is computed against
        self._rebuild_at: MatrixStamp | None = None  # a state whose delta was too large: rebuild, do not rescan
        self._merge_thread: threading.Thread | None = None
        self._saved: MatrixStamp | None = None  # the state this process last saved a file for
        self._loading: Key | None = None  # the key a warm-up or background thread is loading
        self._background = False  # set by warm_up: reload in the background when the index changes
        self._persist = False  # set by warm_up(persist=True): save each matrix built from SQLite
        self.last_path = ""
        self.loaded_from = ""  # "file" or "sqlite": where the matrix in memory came from
        self.file_problem = ""  # why the matrix file was not used or not written, last time
        self.save_problem = ""  # why the last save of the matrix file failed ("" after one that worked)
        self.load_s = self.save_s = 0.0  # the last load (file or SQLite) and save took, wall seconds
        self.patched_from = ""  # how the last patch found the changed rows: "log" (the writes' record) or "scan"
        self.patch_s = 0.0  # and how long it took, wall seconds

    # -- which path ------------------------------------------------------------------------------
    def keeps_floats(self, count: int, dims: int) -> bool:
        """Exact float32 rows: asked for, or small enough that quantising buys nothing."""
        return self.exact or count * dims * 4 <= self.exact_up_to_bytes

    def matrix_bytes(self, count: int, dims: int) -> int:
        if self.keeps_floats(count, dims):
            return count * (dims * 4 + 9)
        return count * (dims + (dims + 63) // 64 * 8 + QUANTIZED_ROW_BYTES)

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
        if self._patches_from_log(conn, stamp):
            return False  # the matrix in memory, patched from the writes' log in milliseconds
        # a file of an older generation counts as pending: patching it costs a checksum, maybe an id scan
        return saved_stamp(self.matrix_file) != stamp

    def lacks_file(self, conn: Any, model: str, count: int) -> bool:
        """Would a long-lived process build this index's matrix from SQLite at its first start? True for
        a large index (over LOAD_INLINE_ROWS vectors, quantised, kept in memory) with no matrix file of
        this index, model and vector size beside it. A file of an older state of this same index does
        not count: the app patches it with the rows changed since, in milliseconds to ~2 s at 1M."""
        if count <= LOAD_INLINE_ROWS or self.matrix_file is None or self.exact:
            return False
        stamp = self._stamp(conn, model)
        if stamp is None or self.keeps_floats(count, stamp.dims) or self.choose(conn, True, count, stamp.dims) == "sqlite-vec":
            return False
        saved = saved_stamp(self.matrix_file)
        return saved is None or (saved.index_id, saved.model, saved.dims) != (stamp.index_id, stamp.model, stamp.dims)

    @property
    def saved(self) -> MatrixStamp | None:
        """The index state this process last saved a matrix file for."""
        return self._saved

    def _patches_from_log(self, conn: Any, stamp: MatrixStamp) -> bool:
        """Whether the base in memory reaches `stamp` through the change log with few enough rows that
        the patch is sure (each logged row at most one dropped and one added row; the app after a
        watcher's sync; a row logged by several steps, as inserted then embedded, counts once). A start
        with an older file stays pending even so: its keyword ranking shows while the file's checksum is
        read (measured at 1M under load: hybrid first waited 1.0–3.0 s, keyword-first showed 0.9–1.0 s)."""
        with self._lock:
            base = self._base
        if base is None or (base.stamp.index_id, base.stamp.model, base.stamp.dims) != (stamp.index_id, stamp.model, stamp.dims):
            return False
        touched = self._changed_since(IndexReader(conn), base, stamp)
        if touched is None:
            return False
        return 2 * len(touched) + base.matrix.unfitted_rows <= patch_limit(base.matrix.size)

    # -- loading ---------------------------------------------------------------------------------
    def _matrix_for(self, conn: Any, key: Key, count: int, may_defer: bool) -> tuple[VectorMatrix, dict[str, int]] | None:
        """The matrix of this generation and its source labels; None when a large one is not loaded
        yet and `may_defer` (then, in a long-lived process, a background thread loads it).

        A large matrix saved beside the index for this very state is mapped in at once even when
        deferring: that costs a checksum of the file (~0.25 s at 1M rows), not a rebuild."""
        with self._lock:
            if self._key == key and self._matrix is not None:
                return self._matrix, self._labels
        if may_defer and count > LOAD_INLINE_ROWS:
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
                self._base = _Base(matrix, loaded.labels, loaded.stamp)

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
                base = _Base(matrix, labels, MatrixStamp(stamp.index_id, generation, model, stamp.dims))
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

    def _patch(self, conn: Any, base: _Base, stamp: MatrixStamp) -> tuple[PatchedMatrix, dict[str, int]] | None:
        """`base` brought to `stamp`: its rows whose (rowid, id) left the index are dropped, the index's
        rows it lacks are read from SQLite into an exact delta. None when that is too large a change.

        The rows to compare come from the index's change log when every write since the base logged
        the chunks it touched (a sync's watcher run: milliseconds); otherwise from a scan of every
        chunk id (another memtui's writes, a pruned log: 0.6–1.6 s at 1M, the GIL free)."""
        matrix = base.matrix
        if matrix.fingerprints is None:
            return None
        started = time.perf_counter()
        reads = IndexReader(conn)
        base_rowids, base_prints = matrix.rowids[: matrix.size], matrix.fingerprints[: matrix.size]
        vector_bytes = stamp.dims * 4
        touched = self._changed_since(reads, base, stamp)
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
            if scanned is None:  # some id is not a sha256 hex digest: each id on its own (~2 s more at 1M)
                ids = reads.chunk_ids()
                scanned = np.fromiter((r for r, _ in ids), dtype=np.int64, count=len(ids)), fingerprints(i for _, i in ids)
                del ids
            changes = diff(base_rowids, base_prints, *scanned)
            unembedded = reads.count_chunks() - reads.count_embedded(stamp.model)  # kept counts: no scan
        self.patched_from = "log" if touched is not None else "scan"
        if changes.too_large(matrix.size, unembedded=unembedded, unfitted=matrix.unfitted_rows):
            merged = f" (and {matrix.unfitted_rows} merged in since its fit)" if matrix.unfitted_rows else ""
            self.file_problem = f"{changes.counted(unembedded)} rows changed since the matrix was built{merged}: rebuilding"
            return None
        labels = dict(base.labels)
        if rows is None:
            rows = reads.embeddings_of_rows(stamp.model, changes.fresh.tolist(), vector_bytes)
        fresh_rows = FloatMatrix(stamp.dims, capacity=len(rows))
        if rows:
            label_of = labels.setdefault
            row_labels = [label_of(r[1], len(labels) + 1) for r in rows]
            if max(row_labels) > 255:
                return None
            fresh_rows.add(np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows)),
                           np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float32).reshape(len(rows), stamp.dims),
                           np.array(row_labels, dtype=np.uint8))
        fresh_prints = fingerprints(r[3] for r in rows)
        self.patch_s = time.perf_counter() - started
        return PatchedMatrix(matrix, changes.alive, fresh_rows, fresh_prints), labels

    def _changed_since(self, reads: IndexReader, base: _Base, stamp: MatrixStamp) -> np.ndarray | None:
        """The rowids (int64, ascending, each once) of every row that may differ between `base` and the
        index at `stamp`, from the change log; None when the log does not tell.

        The log may reach back only to the matrix in memory, itself `base` patched (by an id scan at a
        start after another process's writes, or from the log before it was pruned): the rows that
        patch dropped and added, plus those logged since, are then the rows changed since `base`. So
        after one scan the app's next watcher syncs patch from the log, merge or no merge."""
        logged = reads.changed_rowids(base.stamp.generation, stamp.generation)
        if logged is not None:
            return _logged_rowids(logged)
        with self._lock:
            loaded = self._loaded
        if (loaded is None or loaded.stamp is None or not isinstance(loaded.matrix, PatchedMatrix)
                or loaded.matrix.base is not base.matrix):
            return None
        since = reads.changed_rowids(loaded.stamp.generation, stamp.generation)
        if since is None:
            return None
        patched = loaded.matrix
        dropped = base.matrix.rowids[: base.matrix.size][~patched.alive]
        added = patched.fresh.rowids[: patched.fresh.size]
        return _logged_rowids(b"".join([since, dropped.astype("<i8").tobytes(), added.astype("<i8").tobytes()]))

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
                self._base = _Base(merged, loaded.labels, loaded.stamp)
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
            # one batch joined (~1.5 MB), never the whole matrix: a copy per row cost 3x more
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
            found = self._matrix_for(conn, (generation, model), count, may_defer=vec_loaded and self.backend == "auto")
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


def _why_not_saved(exc: OSError | ValueError) -> str:
    """One line for a failed save: the system's words ("No space left on device"), not the temp name."""
    return (exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)) or type(exc).__name__


def _logged_rowids(logged: bytes) -> np.ndarray:
    """The change log's rowids (int64s, little-endian, repeats possible) ascending, each once."""
    return np.unique(np.frombuffer(logged, dtype="<i8")).astype(np.int64)


def _trim_heap() -> None:
    """Hand the memory a merge freed back to the system. glibc keeps the freed blocks of a thread's
    heap for reuse (its mmap threshold rises with each large block freed): after a merge at 1M rows
    that was ~60 MB of the process's RSS for good, measured (bench/matrix_delta.py). A C library
    without `malloc_trim` (musl, macOS): nothing."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None).malloc_trim(0)


def rescore(reads: IndexReader, rowids: np.ndarray, q: np.ndarray, k: int) -> list[tuple[int, float]]:
    """The exact cosine of each row from its stored float32 vector; the best `k`, best first."""
    blobs = reads.embeddings_by_rowid(int(r) for r in rowids)
    scored = [(rid, float(np.frombuffer(blob, dtype=np.float32) @ q)) for rid, blob in blobs.items()
              if len(blob) == 4 * len(q)]
    scored.sort(key=lambda item: (-item[1], item[0]))
    return scored[:k]
