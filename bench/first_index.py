"""Keyword-only first index against its floor: the same text written into a bare FTS5 table.

    python3 bench/first_index.py [--notes 10000] [--runs 5] [--dir DIR] [--in-process]

Whole processes, interleaved (floor, memtui, floor, memtui, ...) so the load of a shared machine falls
on both alike: the floor is a Python process that reads every note and inserts its text into one
`fts5(text)` table in one transaction (with memtui's `porter unicode61` tokenizer, and with plain
`unicode61`; on the standard library's sqlite3, and on the binding memtui runs on, whose SQLite is
newer); memtui is `python -m openclaw_memtui index --provider none` on a fresh index file.
`--in-process` adds the same two in one process each, timing only the work (no interpreter start,
no imports): the floor's read-and-insert loop against `MemoryIndex.sync()`.
Goal (#30): memtui's median within 2.5x of the floor's median (same tokenizer); the ratio is of
CPU seconds (a shared machine's load inflates wall time). Prints the table, writes
bench/results/<name>.json.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import as_installed_env, table, write_json  # noqa: E402
from sync import generate  # noqa: E402

FLOOR = r"""
import importlib, sys, time
from pathlib import Path
ws, db, tok, binding = Path(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
sqlite3 = importlib.import_module(binding)
cpu = time.process_time()
conn = sqlite3.connect(db)
conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(text, tokenize='{tok}')")
conn.execute("BEGIN")
conn.executemany("INSERT INTO t(text) VALUES (?)",
                 ((p.read_text(encoding="utf-8"),) for p in sorted(ws.rglob("*.md"))))
conn.execute("COMMIT")
conn.close()
if len(sys.argv) > 5:
    print(time.process_time() - cpu)
"""

# memtui's sync in one process, its work alone (the settings built and the imports done before the clock)
IN_PROCESS = r"""
import sys, time
from pathlib import Path
from openclaw_memtui.core.config import index_settings, validate
from openclaw_memtui.engine.index import MemoryIndex
settings = index_settings(validate({}), Path(sys.argv[1]), Path(sys.argv[2]))
index = MemoryIndex(settings, provider_name="none")
cpu = time.process_time()
index.sync()
print(time.process_time() - cpu)
index.close()
"""


def fresh(db: Path) -> None:
    for side in (db, Path(f"{db}-wal"), Path(f"{db}-shm"), Path(f"{db}.vectors")):
        side.unlink(missing_ok=True)


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child) of one whole process."""
    before = os.times()
    t = time.perf_counter()
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    after = os.times()
    return wall, (after.children_user - before.children_user) + (after.children_system - before.children_system)


def timed_inside(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds of the process, CPU seconds of its timed part as it prints them)."""
    t = time.perf_counter()
    out = subprocess.run(cmd, check=True, env=env, stdout=subprocess.PIPE, text=True).stdout
    return time.perf_counter() - t, float(out.split()[-1])


def binding_name() -> str:
    """The module memtui's store opens SQLite with (sqlean, pysqlite3 or the standard library)."""
    from openclaw_memtui.engine.store.backend import detect_backend

    return str(detect_backend().module.__name__)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--notes", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--dir", type=Path, help="keep the workspace here (generated once)")
    ap.add_argument("--name", default="first_index")
    ap.add_argument("--in-process", action="store_true", help="also time both inside one process (no start, no imports)")
    args = ap.parse_args()
    tmp = args.dir or Path(tempfile.mkdtemp(prefix="memtui-first-index-"))
    ws = tmp / "ws"
    if not (ws / "memory").is_dir():
        generate(ws, args.notes)
    env = as_installed_env()
    env["PYTHONPATH"] = str(Path(__file__).resolve().parent.parent)
    db = tmp / "index.sqlite"
    cfg = tmp / "empty.toml"
    cfg.write_text("")
    binding = binding_name()
    floor_name = "bare FTS5, porter unicode61"
    memtui_name = "memtui index --provider none"
    cmds = {
        floor_name: [sys.executable, "-c", FLOOR, str(ws), str(db), "porter unicode61", "sqlite3"],
        "bare FTS5, unicode61": [sys.executable, "-c", FLOOR, str(ws), str(db), "unicode61", "sqlite3"],
        memtui_name: [sys.executable, "-m", "openclaw_memtui", "index", "--provider", "none",
                      "--config", str(cfg), "--workspace", str(ws), "--db", str(db)],
    }
    if binding != "sqlite3":
        cmds[f"bare FTS5, porter unicode61, {binding}"] = [*cmds[floor_name][:-1], binding]
    inside = {}
    if args.in_process:
        inside = {f"in-process: bare FTS5, porter unicode61, {binding}": [*cmds[floor_name][:-1], binding, "timed"],
                  "in-process: MemoryIndex.sync()": [sys.executable, "-c", IN_PROCESS, str(ws), str(db)]}
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in [*cmds, *inside]}
    loads = []
    for _ in range(args.runs):
        for name, cmd in [*cmds.items(), *inside.items()]:
            fresh(db)
            loads.append(os.getloadavg()[0])
            runs[name].append(timed(cmd, env) if name in cmds else timed_inside(cmd, env))
    fresh(db)
    rows = []
    out = {}
    for name, got in runs.items():
        walls, cpus = [w for w, _ in got], [c for _, c in got]
        med, med_cpu = statistics.median(walls), statistics.median(cpus)
        out[name] = {"wall_s": walls, "cpu_s": cpus, "wall_median_s": med, "cpu_median_s": med_cpu}
    # each memtui row is compared with the floor measured the same way (whole process, or in-process)
    floor_of = {name: (f"in-process: bare FTS5, porter unicode61, {binding}" if name in inside else floor_name)
                for name in runs}
    for name in runs:
        floor, mine = out[floor_of[name]], out[name]
        rows.append([name, f"{mine['wall_median_s']:.2f} s (min {min(mine['wall_s']):.2f})",
                     f"{mine['cpu_median_s']:.2f} s (min {min(mine['cpu_s']):.2f})",
                     f"{mine['wall_median_s'] / floor['wall_median_s']:.2f}x",
                     f"{mine['cpu_median_s'] / floor['cpu_median_s']:.2f}x"])
    ratios = {"whole_process_cpu": out[memtui_name]["cpu_median_s"] / out[floor_name]["cpu_median_s"]}
    if inside:
        ratios["in_process_cpu"] = (out["in-process: MemoryIndex.sync()"]["cpu_median_s"]
                                    / out[f"in-process: bare FTS5, porter unicode61, {binding}"]["cpu_median_s"])
    print(table(rows, ["process", "wall median", "CPU median", "wall / floor", "CPU / floor"]))
    print(f"\n{args.notes} notes, {args.runs} interleaved runs each, load average "
          f"{min(loads):.1f}-{max(loads):.1f} on {os.cpu_count()} cores; in-process CPU is the timed part only")
    print("ratio (CPU medians, goal <= 2.5x): " + ", ".join(f"{k} {v:.2f}x" for k, v in ratios.items()))
    path = write_json(args.name, {"notes": args.notes, "binding": binding, "runs": out, "ratios": ratios,
                                  "load_average": loads})
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
