"""The headless figures of issue #17 at each size: `memtui status --json`, first index, no-op re-sync.

    nice python3 bench/headless.py --index 10k DB WS ... [--resync 10k DB WS ...] [--sync NAME ...] [--runs 9]
        [--check-files]

Each `--index LABEL DB WS` is an index built by `bench/sync.py --dir` (or `bench/scale.py`): the status
command runs on it as a whole process (`PYTHON -m openclaw_memtui` from this checkout, bytecode
cached), wall and own CPU (the child's rusage: what load from other processes does not inflate), with
the bounded dirty check `status` runs by default and, with `--check-files`, also with the full one.
The same interpreter's bare start (`PYTHON -c pass`) is timed beside it: a site hook of the machine
(this sandbox imports certifi from a .pth at every start, ~35 ms) is not memtui's. `--python` picks
the interpreter, e.g. a plain venv's (`python3 -m venv` + `pip install -e .`), as a user installs it.
`--resync LABEL DB WS` times a no-op re-sync of a keyword-only index built by `bench/sync.py --dir`,
then a one-file change (a line appended to one note, three times): it writes the index and that note,
so never give it a shared one. The first-index figures come from bench/results/<name>.json
of `bench/sync.py` runs named with `--sync NAME` (in size order).
Prints one table with each figure's growth exponent (1.0 = linear) and writes
bench/results/headless.json. Goals: status ≤ 100 ms at 1M chunks; no-op re-sync of 100,000 files ≤ 1 s;
first index of 10,000 notes ≤ 2 s and of 1M chunks ≤ 10 minutes.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's package, not an installed one
from _common import RESULTS, as_installed_env, table, write_json  # noqa: E402

CHECKOUT = Path(__file__).resolve().parents[1]


def child_env() -> dict[str, str]:
    """As installed (bytecode cached), with this checkout's package first whatever the interpreter."""
    env = as_installed_env()
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(CHECKOUT), env.get("PYTHONPATH", "")]))
    return env


def bare_start(python: str, runs: int) -> dict[str, float]:
    """p50 and min wall of `python -c pass`: what every process of this interpreter pays before memtui."""
    walls = []
    for _ in range(runs + 1):
        t = time.perf_counter()
        subprocess.run([python, "-c", "pass"], check=True, env=child_env())
        walls.append((time.perf_counter() - t) * 1000)
    return {"wall_p50_ms": statistics.median(walls[1:]), "wall_min_ms": min(walls[1:])}


def status_process(python: str, db: str, ws: str, runs: int, *extra: str) -> dict[str, Any]:
    """p50 and min of wall and own CPU of `memtui status --json`, after one warm-up run."""
    cmd = [python, "-m", "openclaw_memtui", "status", "--json", "--provider", "none", "--db", db, "--workspace", ws,
           *extra]
    dirty: list[str] = []
    walls, cpus = [], []
    for i in range(runs + 1):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        done = subprocess.run(cmd, capture_output=True, check=True, env=child_env())  # run 0 writes the .pyc
        wall = (time.perf_counter() - t) * 1000
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        status = json.loads(done.stdout)
        check = status.get("dirty_check") or {}
        dirty.append({True: "yes", False: "no", None: f"unknown ({check.get('checked', 0):,} checked)"}[status["dirty"]])
        if i == 0:
            continue
        walls.append(wall)
        cpus.append((after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000)
    return {"wall_p50_ms": statistics.median(walls), "wall_min_ms": min(walls), "cpu_p50_ms": statistics.median(cpus),
            "cpu_min_ms": min(cpus), "chunks": status["chunks"], "files": status["files"],
            "dirty": dirty[1:], "load_average": os.getloadavg()[0]}


def resync(db: str, ws: str, runs: int) -> dict[str, Any]:
    """Median and min of wall and own CPU of a no-op re-sync, in this process, after one warm-up sync;
    then of a one-file change (three times a line appended to the same note)."""
    from openclaw_memtui.core.config import index_settings, validate
    from openclaw_memtui.engine.index import MemoryIndex

    index = MemoryIndex(index_settings(validate({}), Path(ws), Path(db)), provider_name="none")
    first = index.sync()
    assert first is not None and not first.full_rebuild, "not a keyword-only index of this workspace"
    walls, cpus = [], []
    for _ in range(runs):
        t, cpu = time.perf_counter(), time.process_time()
        report = index.sync()
        walls.append((time.perf_counter() - t) * 1000)
        cpus.append((time.process_time() - cpu) * 1000)
        assert report is not None and report.files_indexed == 0
    target = min(Path(ws, "memory").rglob("*.md"))
    one = []
    for k in range(3):
        with open(target, "a", encoding="utf-8") as fh:
            fh.write(f"\nedit {k} at {time.time()}\n")
        t = time.perf_counter()
        changed = index.sync()
        one.append((time.perf_counter() - t) * 1000)
        assert changed is not None and changed.files_indexed == 1
    index.close()
    return {"wall_median_ms": statistics.median(walls), "wall_min_ms": min(walls), "cpu_median_ms": statistics.median(cpus),
            "cpu_min_ms": min(cpus), "files": report.files_total, "one_file_ms": one, "load_average": os.getloadavg()[0]}


def growth(values: list[float], sizes: list[float]) -> str:
    if len(values) < 2 or min(values) <= 0 or sizes[0] == sizes[-1]:
        return "-"
    return f"n^{math.log(values[-1] / values[0]) / math.log(sizes[-1] / sizes[0]):.2f}"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--index", nargs=3, action="append", default=[], metavar=("LABEL", "DB", "WS"))
    ap.add_argument("--resync", nargs=3, action="append", default=[], metavar=("LABEL", "DB", "WS"))
    ap.add_argument("--sync", action="append", default=[], metavar="NAME", help="a bench/sync.py results name")
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--python", default=sys.executable, help="the interpreter the commands run with (default: this one)")
    ap.add_argument("--check-files", action="store_true", help="also time `status --check-files` (every file stat-ed)")
    args = ap.parse_args()
    bare = bare_start(args.python, args.runs) if args.index else {}
    statuses = {label: status_process(args.python, db, ws, args.runs) for label, db, ws in args.index}
    full = ({label: status_process(args.python, db, ws, args.runs, "--check-files") for label, db, ws in args.index}
            if args.check_files else {})
    resyncs = {label: resync(db, ws, args.runs) for label, db, ws in args.resync}
    syncs = {name: json.loads((RESULTS / f"{name}.json").read_text()) for name in args.sync}
    rows = []
    if statuses:
        s = list(statuses.values())
        sizes = [max(v["chunks"], 1) for v in s]
        rows.append(["status --json, whole process: wall p50 (min)",
                     *(f"{v['wall_p50_ms']:.0f} ({v['wall_min_ms']:.0f}) ms" for v in s),
                     growth([v["wall_p50_ms"] for v in s], sizes)])
        rows.append(["  own CPU p50 (min)", *(f"{v['cpu_p50_ms']:.0f} ({v['cpu_min_ms']:.0f}) ms" for v in s),
                     growth([v["cpu_p50_ms"] for v in s], sizes)])
        rows.append(["  of which the bare interpreter (`-c pass`) p50 (min)",
                     *(f"{bare['wall_p50_ms']:.0f} ({bare['wall_min_ms']:.0f}) ms" for _ in s), ""])
        rows.append(["  dirty (last run)", *(v["dirty"][-1] for v in s), ""])
        if full:
            f = list(full.values())
            rows.append(["status --json --check-files: wall p50 (min)",
                         *(f"{v['wall_p50_ms']:.0f} ({v['wall_min_ms']:.0f}) ms" for v in f), ""])
            rows.append(["  own CPU p50 (min)", *(f"{v['cpu_p50_ms']:.0f} ({v['cpu_min_ms']:.0f}) ms" for v in f), ""])
        rows.append(["  chunks / files / load average",
                     *(f"{v['chunks']:,} / {v['files']:,} / {v['load_average']:.1f}" for v in s), ""])
        print(f"interpreter: {args.python}")
        print(table(rows, ["figure", *statuses, "grows (by chunks)"]))
    if resyncs:
        r = list(resyncs.values())
        files = [v["files"] for v in r]
        rrows = [["no-op re-sync: wall median (min)", *(f"{v['wall_median_ms']:.0f} ({v['wall_min_ms']:.0f}) ms" for v in r),
                  growth([v["wall_median_ms"] for v in r], files)],
                 ["  own CPU median (min)", *(f"{v['cpu_median_ms']:.0f} ({v['cpu_min_ms']:.0f}) ms" for v in r),
                  growth([v["cpu_median_ms"] for v in r], files)],
                 ["one-file change: wall median", *(f"{statistics.median(v['one_file_ms']):.0f} ms" for v in r),
                  growth([statistics.median(v["one_file_ms"]) for v in r], files)],
                 ["  files / load average", *(f"{v['files']:,} / {v['load_average']:.1f}" for v in r), ""]]
        print()
        print(table(rrows, ["figure", *resyncs, "grows (by files)"]))
    if syncs:
        s = list(syncs.values())
        chunks = [v["chunks"] for v in s]
        srows = [
            ["first index, keywords only: wall", *(f"{v['full_s']:.1f} s" for v in s), growth([v["full_s"] for v in s], chunks)],
            ["  own CPU", *(f"{v['full_cpu_s']:.1f} s" for v in s), growth([v["full_cpu_s"] for v in s], chunks)],
            ["  written / peak RSS",
             *(f"{v.get('full_io', {}).get('written_mb', 0):,.0f} MB / {v['peak_rss_mb_after_first_sync']:.0f} MB"
               for v in s), ""],
            ["  load average", *(f"{v.get('full_io', {}).get('load_average', [0])[0]:.1f}" for v in s), ""],
            ["notes / chunks", *(f"{v['notes']:,} / {v['chunks']:,}" for v in s), ""],
        ]
        print()
        print(table(srows, ["figure", *syncs, "grows (by chunks)"]))
    path = write_json("headless", {"python": args.python, "bare_start": bare, "status": statuses, "status_check_files": full,
                                   "resync": resyncs, "sync": syncs})
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
