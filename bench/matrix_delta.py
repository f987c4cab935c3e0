"""The saved vector matrix after a sync: patched with the changed rows instead of rebuilt.

    nice python3 bench/matrix_delta.py [--sizes 100000] [--index DB WS QUERIES.npy] [--touch 1000]

For each index (built with bench/scale.py's synthetic builder at `--sizes`, or a copy of a prebuilt
one given with `--index`; the file is changed, so never pass a shared original):

1. a current matrix file is made as the app makes it (warm-up: built from SQLite and saved);
2. `--touch` rows are changed in one transaction as a sync changes them (new chunk id and vector
   behind the same rowid: each is one dropped and one added row of the delta), generation bumped;
3. a fresh process starts on it and measures: the id scan (covering scan of the id index), the
   diff against the file's fingerprints, reading the changed rows' vectors, the whole mapping +
   patch (`map_saved_vectors`), the first vector search after opening the index (what the app's
   first results wait for on the vector side), search p50 with the delta and, for comparison,
   p50 after the merged file is saved (no delta).

Real chunk ids are sha256 hex digests; the synthetic builder writes short ones, so the ids of the
copy are rewritten as hex digests first (once). Writes bench/results/matrix_delta.json.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import scale  # noqa: E402  (puts this checkout first on sys.path)
from _common import memory_mb, table, write_json  # noqa: E402

from openclaw_memtui.core.config import index_settings, validate  # noqa: E402
from openclaw_memtui.engine.index import MemoryIndex  # noqa: E402
from openclaw_memtui.engine.store import Store  # noqa: E402
from openclaw_memtui.engine.store.reader import IndexReader  # noqa: E402
from openclaw_memtui.engine.vectors import matrix_cache  # noqa: E402
from openclaw_memtui.engine.vectors.matrix_delta import diff, fingerprints_of_scan  # noqa: E402
from openclaw_memtui.engine.vectors.matrix_file import load_matrix, matrix_path, saved_stamp  # noqa: E402


def open_index(db: Path, ws: Path, queries: np.ndarray) -> MemoryIndex:
    index = MemoryIndex(index_settings(validate({}), ws, db), provider_name="none")
    index._provider, index._provider_ready = scale.FixedQueryVectors(queries), True
    return index


def hex_ids(db: Path) -> None:
    """Give every chunk a sha256 hex id, as sync writes them (the synthetic builder writes 'id123')."""
    store = Store(db)
    conn = store.conn
    if conn.execute("SELECT length(id) = 64 FROM chunks LIMIT 1").fetchone()[0]:
        store.close()
        return
    conn.create_function("hexid", 1, lambda s: hashlib.sha256(s.encode()).hexdigest(), deterministic=True)
    conn.execute("BEGIN")
    conn.execute("UPDATE chunks SET id = hexid(id)")
    store.bump_generation()
    conn.execute("COMMIT")
    store.close()


def touch(db: Path, rows: int, seed: int, *, logged: bool = True) -> None:
    """`rows` chunks get another id and vector behind the same rowid, as re-chunked text does; with
    `logged`, the rows are logged with the new generation as a sync's writer logs them (without: as
    another writer, e.g. an older memtui, leaves them, and a patch scans every id)."""
    store = Store(db)
    conn = store.conn
    top = conn.execute("SELECT max(rowid) FROM chunks").fetchone()[0]
    rng = np.random.default_rng(seed)
    picked = sorted({int(r) for r in rng.integers(1, top + 1, rows * 2)})[:rows]
    vectors = rng.standard_normal((len(picked), scale.DIMS)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    conn.execute("BEGIN")
    conn.executemany("UPDATE chunks SET id = ?, embedding = ? WHERE rowid = ?",
                     [(hashlib.sha256(f"touched {seed} {r}".encode()).hexdigest(), v.tobytes(), r)
                      for r, v in zip(picked, vectors, strict=True)])
    store.bump_generation(picked if logged else None)
    conn.execute("COMMIT")
    store.close()


def measure(db: Path, ws: Path, queries_file: Path, queries: int, touched: int) -> dict:
    """In a fresh process: what a start after the sync costs, and search with the delta."""
    q = np.load(queries_file)
    out: dict = {}
    t = time.perf_counter()
    index = open_index(db, ws, q)
    reads = index.reads()
    stamp = saved_stamp(matrix_path(db))
    assert stamp is not None
    t0 = time.perf_counter()
    heads = IndexReader(reads.conn).chunk_id_heads()
    out["id_scan_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    scanned = fingerprints_of_scan(*heads)
    assert scanned is not None
    rowids, prints = scanned
    out["fingerprints_s"] = time.perf_counter() - t0
    base, _, _ = load_matrix(matrix_path(db), stamp)
    t0 = time.perf_counter()
    changes = diff(base.rowids, base.fingerprints, rowids, prints)
    out["diff_s"] = time.perf_counter() - t0
    out["delta_rows"] = changes.rows
    t0 = time.perf_counter()
    IndexReader(reads.conn).embeddings_of_rows(scale.MODEL, changes.fresh.tolist(), scale.DIMS * 4)
    out["read_delta_vectors_s"] = time.perf_counter() - t0
    del heads, prints, rowids, base
    index.close()
    # the start itself, measured alone: open, map + patch, first vector search
    t = time.perf_counter()
    index = open_index(db, ws, q)
    out["mapped_and_patched"] = index.map_saved_vectors()
    out["map_and_patch_s"] = time.perf_counter() - t
    out["start_patched_from"] = index.vector_searcher.patched_from
    index.retrieve("w1 w2 w3")
    out["first_results_s"] = time.perf_counter() - t
    searcher = index.vector_searcher
    out["path"], out["matrix"] = searcher.last_path, type(searcher._matrix).__name__
    out["p50_with_delta_ms"] = p50(index, queries)
    matrix_cache.MERGE_SAVE_ROWS = 1  # what the app does past 1,000 rows: merge and save, then no delta
    searcher._persist = True
    out["before_merge"] = memory_mb()
    sampler = PeakSampler()
    t0 = time.perf_counter()
    index.warm_up_vectors()
    searcher.join_merge()
    out["merge_and_save_s"] = time.perf_counter() - t0
    out["merge_peak"] = sampler.stop()
    out["load_average"] = os.getloadavg()[0]
    out["after_merge"] = memory_mb()
    out["p50_merged_ms"] = p50(index, queries)
    out["matrix_after_merge"] = type(searcher._matrix).__name__
    out["rss_after_merge_mb"], out["rss_peak_mb"] = scale.rss_mb()
    # the app after a watcher's sync: another connection writes, the next search patches the matrix in memory
    for logged in (True, False):
        touch(db, touched, seed=int(time.time()) + logged, logged=logged)
        t0 = time.perf_counter()
        index.retrieve("w1 w2 w3")
        key = "repatch_logged" if logged else "repatch_scanned"
        out[key] = {"search_s": time.perf_counter() - t0, "patch_s": searcher.patch_s, "by": searcher.patched_from,
                    "matrix": type(searcher._matrix).__name__}
    index.close()
    return out


class PeakSampler:
    """Samples memory_mb every `every` seconds on a thread; keeps the sample of the highest VmRSS.

    VmHWM is reset first (`/proc/self/clear_refs` 5), so the process's own peak covers exactly the
    sampled span even between samples."""

    def __init__(self, every: float = 0.01) -> None:
        self.every, self.peak = every, memory_mb()
        self._stop = threading.Event()
        try:
            Path("/proc/self/clear_refs").write_text("5")
            self.reset = True
        except OSError:
            self.reset = False
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            now = memory_mb()
            if now["VmRSS"] > self.peak["VmRSS"]:
                self.peak = now

    def stop(self) -> dict[str, float]:
        self._stop.set()
        self._thread.join()
        return {"rss_mb": self.peak["VmRSS"], "anon_mb": self.peak["RssAnon"], "file_mb": self.peak["RssFile"],
                "hwm_mb": memory_mb()["VmHWM"] if self.reset else float("nan")}


def p50(index: MemoryIndex, queries: int) -> float:
    pyrng = random.Random(3)
    times = []
    for i in range(queries + 1):
        index._provider.i = i - 1
        text = " ".join(pyrng.choice(scale.VOCAB) for _ in range(3))
        t = time.perf_counter()
        pool = index.retrieve(text)
        if i:
            times.append((time.perf_counter() - t) * 1000 - pool.timings_ms.get("embed", 0.0))
    return statistics.median(times)


def run(db: Path, ws: Path, queries_file: Path, args: argparse.Namespace) -> dict:
    hex_ids(db)
    index = open_index(db, ws, np.load(queries_file))
    t = time.perf_counter()
    merge_rows, matrix_cache.MERGE_SAVE_ROWS = matrix_cache.MERGE_SAVE_ROWS, 1  # any delta merged: the file is current
    index.warm_up_vectors()  # the app's warm-up: a current file (built from SQLite, or merged, if it was not)
    index.vector_searcher.join_merge()
    matrix_cache.MERGE_SAVE_ROWS = merge_rows
    prepared = {"chunks": index.reads().count_chunks(), "prepare_s": time.perf_counter() - t,
                "prepared_from": index.vector_searcher.loaded_from}
    index.close()
    touch(db, args.touch, seed=int(time.time()))
    done = subprocess.run([sys.executable, __file__, "--measure", str(db), str(ws), str(queries_file),
                           "--queries", str(args.queries), "--touch", str(args.touch)],
                          capture_output=True, text=True, check=True)
    return {**prepared, **json.loads(done.stdout.strip().splitlines()[-1])}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="*", default=[100_000])
    ap.add_argument("--index", nargs=3, metavar=("DB", "WS", "QUERIES"), help="a copy of a prebuilt index (changed!)")
    ap.add_argument("--touch", type=int, default=1000)
    ap.add_argument("--queries", type=int, default=40)
    ap.add_argument("--measure", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.measure:
        print(json.dumps(measure(Path(args.measure[0]), Path(args.measure[1]), Path(args.measure[2]), args.queries,
                                args.touch)))
        return 0
    results = []
    with tempfile.TemporaryDirectory(prefix="memtui-delta-") as tmp:
        for n in args.sizes:
            shape = scale.Shape(None)
            q = shape.vectors(40, seed=999_999)
            np.save(Path(tmp) / "q.npy", q)
            db = Path(tmp) / f"i{n}.sqlite"
            scale.build_index(db, Path(tmp) / f"ws{n}", n, shape, q)
            results.append(run(db, Path(tmp) / f"ws{n}", Path(tmp) / "q.npy", args))
        if args.index:
            results.append(run(Path(args.index[0]), Path(args.index[1]), Path(args.index[2]), args))
    rows = [[f"{r['chunks']:,}", f"{r['delta_rows']:,}", f"{r['id_scan_s']:.2f}", f"{r['fingerprints_s']:.2f}",
             f"{r['diff_s']:.3f}", f"{r['read_delta_vectors_s']:.3f}", f"{r['map_and_patch_s']:.2f}",
             f"{r['first_results_s']:.2f}", f"{r['p50_with_delta_ms']:.1f}", f"{r['merge_and_save_s']:.1f}",
             f"{r['p50_merged_ms']:.1f}", f"{r['rss_after_merge_mb']:.0f} / {r['rss_peak_mb']:.0f}"] for r in results]
    print(table(rows, ["chunks", "delta rows", "id scan s", "fingerprints s", "diff s", "read delta s", "map+patch s",
                       "first results s", "p50 delta ms", "merge+save s", "p50 merged ms",
                       "RSS after merge / peak MB"]))
    memory = [[f"{r['chunks']:,}", *(f"{r[k]['VmRSS']:.0f} ({r[k]['RssAnon']:.0f} / {r[k]['RssFile']:.0f})"
                                     for k in ("before_merge", "after_merge")),
               f"{r['merge_peak']['rss_mb']:.0f} ({r['merge_peak']['anon_mb']:.0f} / {r['merge_peak']['file_mb']:.0f})",
               f"{r['merge_peak']['hwm_mb']:.0f}"] for r in results]
    repatch = [[f"{r['chunks']:,}", r["start_patched_from"], f"{r['map_and_patch_s']:.2f}",
                *(f"{r[k]['patch_s']:.3f} ({r[k]['by']}) / {r[k]['search_s']:.2f}"
                  for k in ("repatch_logged", "repatch_scanned"))]
               for r in results]
    print(table(repatch, ["chunks", "start: rows found by", "start: map + patch s",
                          "after a logged sync: patch s / first search s", "after an unlogged write: patch s / search s"]))
    print(table(memory, ["chunks", "RSS before merge (anon / file) MB", "after merge", "sampled peak during merge",
                         "VmHWM of the merge MB"]))
    write_json("matrix_delta", {"touch": args.touch, "results": results})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
