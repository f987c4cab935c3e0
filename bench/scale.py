"""A million chunks: search latency and memory, quantisation quality, status and counts at 10k/100k/1M.

    nice python3 bench/scale.py [--sizes 10000 100000 1000000] [--queries 40] [--real-dir /tmp/locomo-idx]
                                [--dims 512 --fit-use] [--skip-app]

No model is needed for the synthetic part. Vectors are 384-dim, shaped like multilingual-e5's: unit
vectors in a narrow cone (|mean| ≈ 0.93, pairwise cosine ≈ 0.87), a decaying spectrum and topic
clusters. When the LoCoMo dev indexes are at `--real-dir` (read only: opened immutable), the mean
and spectrum are fitted to their real e5 vectors, and real e5 question embeddings (local model)
are searched over the real vectors alone and mixed into the largest synthetic set.

`--dims 512 --fit-use` measures at the default model's size instead: the mean and spectrum are fitted to
USE vectors of real text (this repository's docs, README, changelog, the demo workspace and the
cross-lingual facts, embedded by the local model; USE's vectors spread far wider than e5's: |mean| ≈ 0.4,
pairwise cosine ≈ 0.17). `--skip-app` leaves out the app and `memtui status` runs.

Each size is built straight into an index file (chunks, keyword rows, vec0), then measured in a
fresh process so its RSS is the search's own: load of the in-memory matrix, search p50/p95 (keyword
+ vector legs + fetch, query embedding excluded: a fixed set of query vectors), top-10 overlap
with exact search, `status()` and `memtui status --json`. Writes bench/results/scale.json.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(Path(__file__).resolve().parent), str(ROOT)]  # this checkout's package, not an installed one
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH", "")]))
from _common import as_installed_env, memory_mb, table, write_json  # noqa: E402

from openclaw_memtui.core.config import index_settings, validate  # noqa: E402
from openclaw_memtui.engine.index import MemoryIndex  # noqa: E402
from openclaw_memtui.engine.store import Store  # noqa: E402
from openclaw_memtui.engine.sync.identity import compute_identity  # noqa: E402
from openclaw_memtui.engine.vectors import vector as vector_mod  # noqa: E402
from openclaw_memtui.engine.vectors.matrix import QuantizedMatrix  # noqa: E402
from openclaw_memtui.engine.vectors.matrix_file import matrix_path  # noqa: E402

DIMS = 384
MODEL = "bench-384"
VOCAB = [f"w{i}" for i in range(5000)]
BLOCK = 20_000


# -- synthetic e5-like vectors ----------------------------------------------------------------------
class Shape:
    """Mean, principal axes and spectrum of the vectors: e5's own when real vectors are at hand."""

    def __init__(self, real: np.ndarray | None) -> None:
        b = np.random.default_rng(12345)
        if real is not None and len(real) > 100:
            self.mean = real.mean(axis=0)
            centred = real - self.mean
            values, axes = np.linalg.eigh(np.cov(centred.T))
            order = np.argsort(values)[::-1]
            values = np.maximum(values[order], values[order][: len(real) - 1].min() * 0.5)  # fill the unseen tail
            self.axes, self.spectrum, self.fitted = axes[:, order], values, True
        else:
            direction = b.standard_normal(DIMS)
            self.mean = 0.93 * direction / np.linalg.norm(direction)
            self.axes = np.linalg.qr(b.standard_normal((DIMS, DIMS)))[0]
            spectrum = np.arange(1, DIMS + 1) ** -0.9
            self.spectrum, self.fitted = spectrum / spectrum.sum() * 0.13, False
        self.factor = self.axes * np.sqrt(self.spectrum)  # noise = z @ factor.T has the spectrum's covariance
        self.topics = b.standard_normal((4096, DIMS)) @ self.factor.T * 0.8

    def vectors(self, n: int, seed: int, noise: float = 0.6) -> np.ndarray:
        r = np.random.default_rng(seed)
        x = self.mean + self.topics[r.integers(0, len(self.topics), n)] + (r.standard_normal((n, DIMS)) @ self.factor.T) * noise
        return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def set_dims(dims: int) -> None:
    """Measure at `dims` dimensions (the module's figures default to e5's 384)."""
    global DIMS, MODEL
    DIMS, MODEL = dims, f"bench-{dims}"
    FixedQueryVectors.dims, FixedQueryVectors.model = DIMS, MODEL


def use_vectors() -> np.ndarray:
    """USE vectors of real text from this repository (docs, README, changelog, the demo, the
    cross-lingual facts), embedded by the local model: what `--fit-use` fits the shape to."""
    import re

    from openclaw_memtui.engine.embeddings.local_use import LocalUSEProvider
    from openclaw_memtui.paths import demo_workspace

    texts: list[str] = []
    files = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md", ROOT / "CHANGELOG.md",
             *sorted(demo_workspace().rglob("*.md"))]
    for path in files:
        texts += [t.strip() for t in re.split(r"\n\s*\n", path.read_text(encoding="utf-8")) if len(t.strip()) > 40]
    with open(ROOT / "bench" / "crosslingual_facts.jsonl", encoding="utf-8") as fh:
        texts += [json.loads(line)["note"] for line in fh if line.strip()]
    texts = list(dict.fromkeys(texts))
    provider = LocalUSEProvider()
    return np.vstack([provider.embed_batch(texts[i:i + 64]) for i in range(0, len(texts), 64)]).astype(np.float32)


def real_vectors(real_dir: str) -> np.ndarray | None:
    import sqlite3

    rows = []
    for path in sorted(glob.glob(os.path.join(real_dir, "*.sqlite"))):
        conn = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)  # never writes, never a -wal
        blobs = conn.execute("SELECT embedding FROM chunks WHERE length(embedding) > 0")
        rows += [np.frombuffer(b, dtype=np.float32) for (b,) in blobs]
        conn.close()
    return np.vstack(rows) if rows else None


def real_queries(queries_file: str, limit: int) -> np.ndarray | None:
    """The questions embedded by the local model (e5 "query:" vectors), kept beside the file once made."""
    if not os.path.exists(queries_file):
        return None
    cached = Path(tempfile.gettempdir()) / f"memtui-scale-queries-{limit}.npy"
    if cached.exists() and cached.stat().st_mtime >= os.stat(queries_file).st_mtime:
        return np.load(cached)
    from openclaw_memtui.engine.embeddings.registry import make_provider

    provider = make_provider("local")
    with open(queries_file, encoding="utf-8") as fh:
        questions = [json.loads(line)["question"] for line in fh if line.strip()][:limit]
    vectors = np.vstack([provider.embed_query(q) for q in questions]).astype(np.float32)
    np.save(cached, vectors)
    return vectors


# -- quality: the production pipeline (shortlist → int8 → exact rescore) against exact search -------
def pipeline_top(matrix: QuantizedMatrix, floats: np.ndarray, q: np.ndarray, k: int) -> np.ndarray:
    """What VectorSearcher does, with the float rows from memory instead of SQLite."""
    rowids, _ = matrix.search(q, k + vector_mod.RESCORE_EXTRA, shortlist=vector_mod.SHORTLIST)
    exact = floats[rowids] @ q
    return rowids[np.lexsort((rowids, -exact))][:k]


def exact_top(floats: np.ndarray, q: np.ndarray, k: int) -> np.ndarray:
    sims = floats @ q
    top = np.argpartition(-sims, k)[:k]
    return top[np.lexsort((top, -sims[top]))]


def overlap(matrix: QuantizedMatrix, floats: np.ndarray, queries: np.ndarray, k: int = 10) -> dict:
    found = [len(set(pipeline_top(matrix, floats, q, k)) & set(exact_top(floats, q, k))) / k for q in queries]
    int8_only = []  # without the exact rescore: what the int8 order alone gets right
    for q in queries:
        rowids, _ = matrix.search(q, k, shortlist=vector_mod.SHORTLIST)
        int8_only.append(len(set(rowids) & set(exact_top(floats, q, k))) / k)
    return {"queries": len(queries), "top10_overlap": float(np.mean(found)), "worst": float(np.min(found)),
            "int8_order_only": float(np.mean(int8_only))}


def build_matrix(floats: np.ndarray) -> QuantizedMatrix:
    batches = ((np.arange(s, min(len(floats), s + BLOCK)), floats[s : s + BLOCK], None) for s in range(0, len(floats), BLOCK))
    matrix = QuantizedMatrix.from_batches(batches, capacity=len(floats))
    assert matrix is not None
    return matrix


# -- index files --------------------------------------------------------------------------------------
class FixedQueryVectors:
    """Stands in for the model: query vectors come from a list, so latency excludes embedding."""

    id, model, max_input_tokens, batch_max_items, batch_max_bytes, dims = "bench", MODEL, 512, 64, 1 << 20, DIMS

    def __init__(self, vectors: np.ndarray) -> None:
        self.vectors, self.i = vectors, 0

    def provider_key(self) -> str:
        return "bench"

    def embed_query(self, text: str) -> np.ndarray:
        self.i += 1
        return self.vectors[self.i % len(self.vectors)]

    def embed_batch(self, texts):  # pragma: no cover - never called: the index is built directly
        raise NotImplementedError


def build_index(db: Path, ws: Path, n: int, shape: Shape, queries: np.ndarray) -> list[list[int]]:
    """Write n chunks with keyword rows and vec0 rows; returns each query's exact top-10 rowids.

    No `files` rows: the workspace is empty and the index is up to date with it, so the app opened on
    it never starts a sync (which would delete every chunk)."""
    ws.mkdir(parents=True, exist_ok=True)
    settings = index_settings(validate({}), ws, db)
    store = Store(db)
    store.ensure_vec_table(DIMS)
    conn = store.conn
    pyrng = random.Random(0)
    best_ids = np.zeros((len(queries), 0), dtype=np.int64)
    best_sims = np.zeros((len(queries), 0), dtype=np.float32)
    for start in range(0, n, BLOCK):
        m = min(BLOCK, n - start)
        vecs = shape.vectors(m, seed=start + 1)
        conn.execute("BEGIN")
        rows = []
        for j in range(m):
            i = start + j
            text = " ".join(pyrng.choice(VOCAB) for _ in range(60))
            rows.append((i + 1, f"id{i}", f"memory/n{i // 10}.md", i % 10 * 5 + 1, i % 10 * 5 + 5, f"h{i}", text,
                         vecs[j].tobytes()))
        conn.executemany("INSERT INTO chunks(rowid, id, path, source, start_line, end_line, hash, model, text, embedding,"
                         f" updated_at) VALUES (?, ?, ?, 'memory', ?, ?, ?, '{MODEL}', ?, ?, 0)", rows)
        conn.executemany("INSERT INTO chunks_fts(rowid, text, id, path, source, model, start_line, end_line)"
                         f" VALUES (?, ?, ?, ?, 'memory', '{MODEL}', ?, ?)", [(r[0], r[6], r[1], r[2], r[3], r[4]) for r in rows])
        conn.executemany("INSERT INTO chunks_vec(id, embedding) VALUES (?, ?)", [(r[1], r[7]) for r in rows])
        conn.execute("COMMIT")
        sims = queries @ vecs.T  # running exact top-10 of every query
        ids = np.arange(start + 1, start + m + 1)
        best_sims = np.concatenate([best_sims, sims], axis=1)
        best_ids = np.concatenate([best_ids, np.broadcast_to(ids, sims.shape)], axis=1)
        keep = np.argsort(-best_sims, axis=1, kind="stable")[:, :10]
        best_sims = np.take_along_axis(best_sims, keep, axis=1)
        best_ids = np.take_along_axis(best_ids, keep, axis=1)
    store.set_identity(compute_identity(settings, FixedQueryVectors(queries)))
    store.set_meta("vectorDims", str(DIMS))
    store.bump_generation()
    store.close()
    return best_ids.tolist()


# -- measuring, in a fresh process ----------------------------------------------------------------
def rss_mb() -> tuple[float, float]:
    """(current, peak) resident set size of this process, MB."""
    memory = memory_mb()
    return memory["VmRSS"], memory["VmHWM"]


def measure(args: argparse.Namespace) -> int:
    spec = json.loads(Path(args.measure).read_text())
    set_dims(spec.get("dims", DIMS))
    db, ws = Path(spec["db"]), Path(spec["ws"])
    queries = np.array(spec["queries"], dtype=np.float32)
    settings = index_settings(validate({"store": {"vector": {"exact": spec["exact"]}}}), ws, db)
    out: dict = {"rss_start_mb": rss_mb()[0]}
    t = time.perf_counter()
    index = MemoryIndex(settings, provider_name="none")
    index._provider, index._provider_ready = FixedQueryVectors(queries), True
    status = index.status(check_dirty=False)
    out["status_first_ms"] = (time.perf_counter() - t) * 1000
    t = time.perf_counter()
    index.status(check_dirty=False)
    out["status_again_ms"] = (time.perf_counter() - t) * 1000
    out["chunks"] = status.chunks
    t, cpu = time.perf_counter(), time.process_time()
    searcher = index.vector_searcher
    if spec.get("from_file"):  # a later start: the matrix file the first measure saved is mapped in
        out["mapped"] = index.map_saved_vectors()
        out["matrix_file_problem"] = searcher.file_problem
    else:  # built from SQLite, then saved beside the index (as the app's warm-up does)
        index.warm_up_vectors()
        out["matrix_save_s"] = searcher.save_s
        file = matrix_path(db)
        out["matrix_file_mb"] = file.stat().st_size / 1e6 if file.exists() else None
    out["matrix_from"] = searcher.loaded_from
    out["matrix_load_s"] = searcher.load_s if searcher.loaded_from else None  # the load alone, without the save
    out["matrix_load_and_save_s"] = time.perf_counter() - t
    out["matrix_load_cpu_s"] = time.process_time() - cpu
    out["rss_after_load_mb"], out["rss_peak_load_mb"] = rss_mb()
    pyrng = random.Random(3)
    times, cpu_times, legs, found = [], [], {"keyword": [], "vector": [], "fetch": []}, []
    for i in range(args.queries + 1):
        text = " ".join(pyrng.choice(VOCAB) for _ in range(3))
        index._provider.i = i - 1  # query i gets vector i
        t, cpu = time.perf_counter(), time.process_time()
        pool = index.retrieve(text)
        total = (time.perf_counter() - t) * 1000 - pool.timings_ms.get("embed", 0.0)
        cpu_ms = (time.process_time() - cpu) * 1000  # this process's own CPU: what load from others does not inflate
        if i == 0:
            continue  # warm-up
        times.append(total)
        cpu_times.append(cpu_ms)
        for leg in legs:
            legs[leg].append(pool.timings_ms.get(leg, 0.0))
        by_vector = sorted((c for c in pool.candidates if c.vector_score is not None), key=lambda c: (-c.vector_score, c.rowid))
        expected = spec["exact_top10"][i % len(queries)]
        found.append(len({c.rowid for c in by_vector[:10]} & set(expected)) / 10)
    out["path"] = index.vector_searcher.last_path
    times.sort()
    out["p50_ms"], out["p95_ms"] = statistics.median(times), times[int(0.95 * (len(times) - 1))]
    out["cpu_p50_ms"] = statistics.median(cpu_times)
    out["legs_p50_ms"] = {leg: statistics.median(v) for leg, v in legs.items()}
    out["top10_overlap"] = statistics.mean(found)
    out["rss_mb"], out["rss_peak_mb"] = rss_mb()
    index.close()
    print(json.dumps(out))
    return 0


def measure_in_subprocess(spec: dict, queries: int, tmp: Path) -> dict:
    path = tmp / f"spec-{time.monotonic_ns()}.json"
    path.write_text(json.dumps(spec))
    # OpenBLAS on one thread from the start, as in every memtui process (engine/embeddings/blas.py): on a
    # busy machine a second BLAS thread spinning for the shortlist's small products is most of a search
    env = {**os.environ, "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS", "1")}
    done = subprocess.run([sys.executable, __file__, "--measure", str(path), "--queries", str(queries)],
                          capture_output=True, text=True, check=True, env=env)
    return json.loads(done.stdout.strip().splitlines()[-1])


def app_in_subprocess(db: Path, ws: Path, vectors: Path) -> dict:
    """bench/tui.py on this index: launch → first results, the status screen, loop gaps while the matrix loads."""
    done = subprocess.run([sys.executable, str(Path(__file__).parent / "tui.py"), "--index", str(db), str(ws), str(vectors)],
                          capture_output=True, text=True, env=as_installed_env())
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1:] }
    return json.loads(done.stdout.strip().splitlines()[-1])


def cli_status_ms(db: Path, ws: Path) -> float:
    """Median wall time of `memtui status --json` as a whole process, bytecode cached (one warm-up run)."""
    runs = []
    for _ in range(4):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "openclaw_memtui", "status", "--json", "--provider", "none", "--db", str(db),
                        "--workspace", str(ws)], capture_output=True, check=True, env=as_installed_env())
        runs.append((time.perf_counter() - t) * 1000)
    return statistics.median(runs[1:])


def growth(values: list[float], sizes: list[int]) -> str:
    """How a figure grows from the smallest to the largest size, as an exponent: 1.0 is linear."""
    if len(values) < 2 or values[0] <= 0 or values[-1] <= 0:
        return "-"
    return f"n^{np.log(values[-1] / values[0]) / np.log(sizes[-1] / sizes[0]):.2f}"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--queries", type=int, default=40)
    ap.add_argument("--real-dir", default="/tmp/locomo-idx")
    ap.add_argument("--real-queries", default="/tmp/locomo-dev/queries_all.jsonl")
    ap.add_argument("--real-limit", type=int, default=760, help="how many of the questions to embed")
    ap.add_argument("--skip-quality", action="store_true", help="leave out the in-memory overlap runs at the largest size")
    ap.add_argument("--dims", type=int, default=DIMS, help="vector size (the default model's is 512)")
    ap.add_argument("--fit-use", action="store_true", help="fit the vectors' shape to USE vectors of real text")
    ap.add_argument("--skip-app", action="store_true", help="leave out the app and `memtui status` runs")
    ap.add_argument("--name", default="scale", help="results file: bench/results/<name>.json")
    ap.add_argument("--measure", help=argparse.SUPPRESS)
    ap.add_argument("--report", metavar="JSON", help="print the tables of a results file written before")
    args = ap.parse_args()
    if args.measure:
        return measure(args)
    if args.report:
        saved = json.loads(Path(args.report).read_text())
        saved["by_size"] = {int(n): row for n, row in saved["by_size"].items()}
        report(saved)
        return 0
    started = time.perf_counter()
    set_dims(args.dims)
    if args.fit_use:
        shape, real = Shape(use_vectors()), None  # the e5 LoCoMo vectors and questions are 384-dim: not these
    else:
        real = real_vectors(args.real_dir)
        if real is not None and real.shape[1] != args.dims:  # indexes of another model: not this shape
            real = None
        shape = Shape(real)
    out: dict = {"sizes": args.sizes, "dims": DIMS, "fitted_to": "use" if args.fit_use else "e5" if shape.fitted else None,
                 "fitted_to_e5": shape.fitted and not args.fit_use, "shortlist": vector_mod.SHORTLIST,
                 "rescored": f"k + {vector_mod.RESCORE_EXTRA}", "quality": {}, "by_size": {}}
    queries = shape.vectors(max(args.queries, 40) + 1, seed=999_999, noise=0.9)  # noisier than the chunks
    rq = real_queries(args.real_queries, args.real_limit) if real is not None else None
    if real is not None and rq is not None:
        out["quality"][f"real e5: {len(real)} LoCoMo chunks, {len(rq)} questions"] = overlap(build_matrix(real), real, rq)
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        for n in args.sizes:
            t = time.perf_counter()
            db, ws = tmp / f"scale{n}.sqlite", tmp / f"ws{n}"
            exact = build_index(db, ws, n, shape, queries)
            built_s = time.perf_counter() - t
            spec = {"db": str(db), "ws": str(ws), "queries": queries.tolist(), "exact_top10": exact, "exact": False,
                    "dims": DIMS}
            row: dict = {"build_s": built_s, "int8": measure_in_subprocess(spec, args.queries, tmp)}
            row["int8_file"] = measure_in_subprocess({**spec, "from_file": True}, args.queries, tmp)
            if n <= 100_000:
                row["exact_float"] = measure_in_subprocess({**spec, "exact": True}, args.queries, tmp)
            if not args.skip_app:
                row["cli_status_json_ms"] = cli_status_ms(db, ws)
                np.save(tmp / "queries.npy", queries)
                row["app"] = app_in_subprocess(db, ws, tmp / "queries.npy")  # with the matrix file the measures saved
                matrix_path(db).unlink(missing_ok=True)
                row["app_no_file"] = app_in_subprocess(db, ws, tmp / "queries.npy")  # builds it from SQLite, saves it
            matrix_path(db).unlink(missing_ok=True)
            row["db_mb"] = db.stat().st_size / 1e6
            out["by_size"][n] = row
            print(f"{n:,}: built in {built_s:.0f} s, {json.dumps(row['int8'])}", file=sys.stderr)
            db.unlink()
        largest = max(args.sizes)
        if args.skip_quality:
            report(out)
            print(f"wrote {write_json(args.name, out)}")
            return 0
        floats = np.vstack([shape.vectors(min(BLOCK, largest - s), seed=s + 1) for s in range(0, largest, BLOCK)])
        matrix = build_matrix(floats)
        kind = "USE-like" if args.fit_use else "e5-like"
        out["quality"][f"synthetic {kind}, {DIMS} dims: {largest:,} vectors"] = overlap(matrix, floats, queries[: args.queries])
        if real is not None and rq is not None:
            mixed = np.vstack([floats, real])
            name = f"real e5 questions over {largest:,} synthetic + 612 real"
            out["quality"][name] = overlap(build_matrix(mixed), mixed, rq[:200])
    report(out)
    out["seconds"] = time.perf_counter() - started
    print(f"wrote {write_json(args.name, out)}")
    return 0


def report(out: dict) -> None:
    sizes = out["sizes"]
    rows_by: dict[str, list] = {}

    def add(name: str, values: list[float | None], fmt: str, group: str = "") -> None:
        shown = [fmt.format(v) if v is not None else "-" for v in values]
        nums = [v for v in values if v is not None]
        rows_by[group + name] = [name, *shown, growth(nums, sizes[: len(nums)]) if len(nums) == len(values) else "-"]

    by = [out["by_size"][n] for n in sizes]
    add("search p50 ms (int8 + rescore)", [r["int8"]["p50_ms"] for r in by], "{:.1f}")
    add("search p95 ms (int8 + rescore)", [r["int8"]["p95_ms"] for r in by], "{:.1f}")
    add("  its own CPU p50 ms", [r["int8"].get("cpu_p50_ms") for r in by], "{:.1f}")
    for leg in ("keyword", "vector", "fetch"):
        add(f"  {leg} leg p50 ms", [r["int8"]["legs_p50_ms"][leg] for r in by], "{:.1f}")
    add("top-10 overlap with exact", [r["int8"]["top10_overlap"] for r in by], "{:.3f}")
    add("RSS after searches MB", [r["int8"]["rss_mb"] for r in by], "{:.0f}")
    add("peak RSS MB", [r["int8"]["rss_peak_mb"] for r in by], "{:.0f}")
    add("matrix built from SQLite s (wall)", [r["int8"]["matrix_load_s"] for r in by], "{:.2f}")
    add("  with the save, its own CPU s", [r["int8"].get("matrix_load_cpu_s") for r in by], "{:.2f}")
    add("matrix file: save s", [r["int8"].get("matrix_save_s") for r in by], "{:.2f}")
    add("matrix file: size MB", [r["int8"].get("matrix_file_mb") for r in by], "{:.0f}")
    add("matrix file: mapped in s (a later start)", [r.get("int8_file", {}).get("matrix_load_s") for r in by], "{:.2f}")
    add("  search p50 ms over the mapped matrix", [r.get("int8_file", {}).get("p50_ms") for r in by], "{:.1f}")
    add("  RSS after searches MB", [r.get("int8_file", {}).get("rss_mb") for r in by], "{:.0f}")
    add("exact float search p50 ms", [r.get("exact_float", {}).get("p50_ms") for r in by], "{:.1f}")
    add("exact float RSS MB", [r.get("exact_float", {}).get("rss_mb") for r in by], "{:.0f}")
    add("status() ms (first call)", [r["int8"]["status_first_ms"] for r in by], "{:.0f}")
    add("memtui status --json ms (process)", [r.get("cli_status_json_ms") for r in by], "{:.0f}")
    add("index file MB", [r["db_mb"] for r in by], "{:.0f}")
    for key, label in (("app", "app, matrix file"), ("app_no_file", "app, no matrix file")):
        app = [r.get(key, {}) for r in by]
        for name, field, fmt in (
            (f"{label}: launch → first results (any) s", "first_any_results_s", "{:.2f}"),
            ("  launch → first hybrid results s", "first_results_s", "{:.2f}"),
            ("  the same since the process started s", "first_results_since_process_start_s", "{:.2f}"),
            ("  loop's longest gap to first results ms", "launch_max_gap_ms", "{:.0f}"),
            ("  its own CPU ms", "launch_max_gap_cpu_ms", "{:.0f}"),
            ("  F2 → status screen shown ms", "status_screen_shown_ms", "{:.0f}"),
            ("  F2 → status screen with its counts ms", "status_screen_ms", "{:.0f}"),
            ("  loop's longest gap, status screen ms", "status_max_gap_ms", "{:.0f}"),
            ("  matrix in memory after launch s", "matrix_loaded_s", "{:.1f}"),
            ("  F2 → counts shown while it loads ms", "status_screen_while_loading_ms", "{:.0f}"),
            ("  loop's longest gap while it loads ms", "loading_max_gap_ms", "{:.0f}"),
            ("  its own CPU ms", "loading_max_gap_cpu_ms", "{:.0f}"),
            ("  RSS MB", "rss_mb", "{:.0f}"),
        ):
            add(name, [a.get(field) for a in app], fmt, group=key + field)
    print(table(list(rows_by.values()), ["figure", *[f"{n:,}" for n in sizes], "growth"]))
    print()
    print(table([[k, v["queries"], f"{v['top10_overlap']:.4f}", f"{v['worst']:.2f}", f"{v['int8_order_only']:.4f}"]
                 for k, v in out["quality"].items()],
                ["vectors searched", "queries", "top-10 overlap", "worst query", "int8 order alone"]))


if __name__ == "__main__":
    raise SystemExit(main())
