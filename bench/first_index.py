"""Keyword-only first index against its floor: the same text written into a bare FTS5 table.

    python3 bench/first_index.py [--notes 10000] [--runs 5] [--dir DIR]

Whole processes, interleaved (floor, memtui, floor, memtui, ...) so the load of a shared machine falls
on both alike: the floor is a Python process that reads every note and inserts its text into one
`fts5(text)` table in one transaction (with memtui's `porter unicode61` tokenizer, and with plain
`unicode61`); memtui is `python -m openclaw_memtui index --provider none` on a fresh index file.
Goal (#30): memtui's median within 2.5x of the floor's median (same tokenizer). Prints the table,
writes bench/results/<name>.json.
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
import sqlite3, sys
from pathlib import Path
ws, db, tok = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
conn = sqlite3.connect(db)
conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(text, tokenize='{tok}')")
conn.execute("BEGIN")
conn.executemany("INSERT INTO t(text) VALUES (?)",
                 ((p.read_text(encoding="utf-8"),) for p in sorted(ws.rglob("*.md"))))
conn.execute("COMMIT")
conn.close()
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


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--notes", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--dir", type=Path, help="keep the workspace here (generated once)")
    ap.add_argument("--name", default="first_index")
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
    cmds = {
        "bare FTS5, porter unicode61": [sys.executable, "-c", FLOOR, str(ws), str(db), "porter unicode61"],
        "bare FTS5, unicode61": [sys.executable, "-c", FLOOR, str(ws), str(db), "unicode61"],
        "memtui index --provider none": [sys.executable, "-m", "openclaw_memtui", "index", "--provider", "none",
                                         "--config", str(cfg), "--workspace", str(ws), "--db", str(db)],
    }
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in cmds}
    loads = []
    for _ in range(args.runs):
        for name, cmd in cmds.items():
            fresh(db)
            loads.append(os.getloadavg()[0])
            runs[name].append(timed(cmd, env))
    fresh(db)
    floor = statistics.median(w for w, _ in runs["bare FTS5, porter unicode61"])
    floor_cpu = statistics.median(c for _, c in runs["bare FTS5, porter unicode61"])
    rows = []
    out = {}
    for name, got in runs.items():
        walls, cpus = [w for w, _ in got], [c for _, c in got]
        med, med_cpu = statistics.median(walls), statistics.median(cpus)
        out[name] = {"wall_s": walls, "cpu_s": cpus, "wall_median_s": med, "cpu_median_s": med_cpu}
        rows.append([name, f"{med:.2f} s (min {min(walls):.2f})", f"{med_cpu:.2f} s (min {min(cpus):.2f})",
                     f"{med / floor:.2f}x", f"{med_cpu / floor_cpu:.2f}x"])
    print(table(rows, ["process", "wall median", "CPU median", "wall / floor", "CPU / floor"]))
    print(f"\n{args.notes} notes, {args.runs} interleaved runs each, load average "
          f"{min(loads):.1f}-{max(loads):.1f} on {os.cpu_count()} cores")
    path = write_json(args.name, {"notes": args.notes, "runs": out, "load_average": loads})
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
