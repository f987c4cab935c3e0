"""Search latency at 10,000 and 100,000 chunks of 384-dim vectors, rank() cost, and whole-process CLI time.

    python3 bench/search.py [--sizes 10000 100000] [--queries 50]

Latency excludes the query embedding (a fixed random query vector stands in for the model), so it
measures the keyword leg + vector leg + row fetch. Both vector paths (numpy in memory, sqlite-vec
KNN) are measured. Goals (issue #3): p50 ≤ 10 ms at 10k, ≤ 30 ms at 100k; rank() on 200 candidates
with MMR ≤ 2 ms; `memtui search` as a process ≤ 0.5 s (local model) and ≤ 0.15 s (keywords only).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import as_installed_env, table, write_json  # noqa: E402

from openclaw_memtui.core.config import index_settings, validate  # noqa: E402
from openclaw_memtui.engine.embeddings.base import normalize_rows  # noqa: E402
from openclaw_memtui.engine.index import MemoryIndex  # noqa: E402
from openclaw_memtui.engine.search.rank import Candidate, Pool, SearchParams, rank  # noqa: E402
from openclaw_memtui.engine.store import Store  # noqa: E402
from openclaw_memtui.engine.store.writer import line_rows  # noqa: E402
from openclaw_memtui.engine.sync.identity import compute_identity  # noqa: E402

DIMS = 384
VOCAB = [f"w{i}" for i in range(5000)] + "deploy database migration token auth canary release roadmap".split()


class FixedQueryVectors:
    """Stands in for the model at query time so latency excludes embedding."""

    id, model, max_input_tokens, batch_max_items, batch_max_bytes, dims = "bench", "bench-384", 512, 64, 1 << 20, DIMS

    def __init__(self) -> None:
        self.rng = np.random.default_rng(1)

    def provider_key(self) -> str:
        return "bench"

    def embed_query(self, text: str) -> np.ndarray:
        return normalize_rows(self.rng.standard_normal(DIMS))[0]

    def embed_batch(self, texts):
        return normalize_rows(self.rng.standard_normal((len(texts), DIMS)))


def build(db: Path, ws: Path, n: int) -> MemoryIndex:
    ws.mkdir(parents=True, exist_ok=True)
    settings = index_settings(validate({}), ws, db)
    store = Store(db)
    rng = np.random.default_rng(0)
    pyrng = random.Random(0)
    store.ensure_vec_table(DIMS)
    conn = store.conn
    conn.execute("BEGIN")
    for start in range(0, n, 5000):
        rows = []
        vecs = normalize_rows(rng.standard_normal((min(5000, n - start), DIMS)))
        for j, v in enumerate(vecs):
            i = start + j
            words = [pyrng.choice(VOCAB) for _ in range(60)]
            # lines of ~7 words: a LoCoMo chunk holds about 9 lines (one row each in lines_fts)
            text = "\n".join(" ".join(words[k : k + 7]) for k in range(0, 60, 7))
            rows.append((f"id{i}", f"memory/n{i // 10}.md", i % 10 * 5 + 1, i % 10 * 5 + 5, f"h{i}", text, v.tobytes()))
        for r in rows:
            cur = conn.execute("INSERT INTO chunks(id, path, source, start_line, end_line, hash, model, text, embedding,"
                               " updated_at) VALUES (?, ?, 'memory', ?, ?, ?, 'bench-384', ?, ?, 0)", r)
            conn.execute("INSERT INTO chunks_fts(rowid, text, id, path, source, model, start_line, end_line)"
                         " VALUES (?, ?, ?, ?, 'memory', 'bench-384', ?, ?)", (cur.lastrowid, r[5], r[0], r[1], r[2], r[3]))
            conn.executemany("INSERT INTO lines_fts(rowid, text) VALUES (?, ?)", line_rows(cur.lastrowid, r[5]))
        conn.executemany("INSERT INTO chunks_vec(id, embedding) VALUES (?, ?)", [(r[0], r[6]) for r in rows])
    provider = FixedQueryVectors()
    store.set_identity(compute_identity(settings, provider))
    conn.execute("COMMIT")
    store.close()
    index = MemoryIndex(settings, provider_name="none")
    index._provider, index._provider_ready = provider, True
    return index


def measure(index: MemoryIndex, backend: str, queries: int) -> dict:
    index.vector_searcher.backend = backend
    index.vector_searcher._matrix = None
    pyrng = random.Random(3)
    index.retrieve("warm up query")  # loads the numpy matrix once
    times = []
    lines = []
    for _ in range(queries):
        q = " ".join(pyrng.choice(VOCAB) for _ in range(4))
        t = time.perf_counter()
        pool = index.retrieve(q)
        total = (time.perf_counter() - t) * 1000
        times.append(total - pool.timings_ms.get("embed", 0.0))
        lines.append(pool.timings_ms.get("lines", 0.0))
    times.sort()
    return {"p50": statistics.median(times), "p95": times[int(0.95 * (len(times) - 1))], "path": index.vector_searcher.last_path,
            "lines_p50": statistics.median(lines)}


def rank_cost() -> dict:
    rng = np.random.default_rng(5)
    pyrng = random.Random(5)
    cands = []
    for i in range(200):
        text = " ".join(pyrng.choice(VOCAB[:400]) for _ in range(80))
        cands.append(Candidate(i, f"id{i}", f"memory/{i}.md", "memory", 1, 5, text, float(rng.random()), float(rng.random()),
                               -1.0, None, "evergreen"))
    pool = Pool("q", cands, time.time() * 1000, "hybrid")
    params = SearchParams(mmr=True, min_score=0, max_results=10)
    t = time.perf_counter()
    rank(pool, params)
    first = (time.perf_counter() - t) * 1000  # includes the one-off pairwise Jaccard of this pool
    times = []
    for k in range(50):
        t = time.perf_counter()
        rank(pool, SearchParams(mmr=True, mmr_lambda=0.5 + k / 100, min_score=0, max_results=10))
        times.append((time.perf_counter() - t) * 1000)
    return {"first_ms": first, "p50_ms": statistics.median(times)}


def cli_runs(args: list[str], n: int = 5) -> float:
    """Median wall time of the whole process, as installed: bytecode cached, one warm-up run."""
    env = as_installed_env()
    subprocess.run([sys.executable, "-m", "openclaw_memtui", *args], capture_output=True, env=env, check=True)
    times = []
    for _ in range(n):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "openclaw_memtui", *args], capture_output=True, env=env, check=True)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def _bare_interpreter() -> float:
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - t


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--queries", type=int, default=50)
    args = ap.parse_args()
    rows, out = [], {"latency": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            t = time.perf_counter()
            index = build(Path(tmp) / f"b{n}.sqlite", Path(tmp) / f"ws{n}", n)
            build_s = time.perf_counter() - t
            for backend in ("numpy", "sqlite-vec"):
                m = measure(index, backend, args.queries)
                out["latency"][f"{n}/{backend}"] = m
                rows.append([f"{n:,}", backend, f"{m['p50']:.1f}", f"{m['p95']:.1f}", f"{m['lines_p50']:.1f}"])
            index.vector_searcher.backend = "auto"
            out["latency"][f"{n}/auto"] = index.vector_searcher.choose(None, True, n, DIMS)
            index.close()
            print(f"built {n:,} chunks in {build_s:.1f}s", file=sys.stderr)
    print(table(rows, ["chunks", "vector path", "p50 ms", "p95 ms", "of which best lines, p50 ms"]))
    rc = rank_cost()
    out["rank_200_mmr"] = rc
    print(f"\nrank() on 200 candidates with MMR: {rc['p50_ms']:.2f} ms (first call with Jaccard matrix {rc['first_ms']:.2f} ms)")
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["MEMTUI_DATA_DIR"] = tmp
        subprocess.run([sys.executable, "-m", "openclaw_memtui", "index", "--demo"], capture_output=True, check=True)
        subprocess.run([sys.executable, "-m", "openclaw_memtui", "index", "--demo", "--provider", "none",
                        "--db", f"{tmp}/kw.sqlite"], capture_output=True, check=True)
        local = cli_runs(["search", "what did we decide about API auth", "--demo", "--json"])
        keyword = cli_runs(["search", "what did we decide about API auth", "--demo", "--json", "--provider", "none",
                            "--db", f"{tmp}/kw.sqlite"])
    bare = statistics.median(_bare_interpreter() for _ in range(5))
    out["cli_process_s"] = {"local": local, "keywords_only": keyword, "bare_python": bare}
    print(f"`memtui search` whole process on the demo: {local:.2f} s with the local model, {keyword:.2f} s keywords only "
          f"(a bare `python3 -c pass` takes {bare:.2f} s here)")
    print(f"wrote {write_json('search', out)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
