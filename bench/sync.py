"""Sync speed on a generated workspace of 10,000 notes (keywords only).

    python3 bench/sync.py [--notes 10000]

Prints a table and writes bench/results/sync.json: full index, no-op re-sync, one-file change.
Goals (issue #2): no-op re-sync of 10,000 files < 1 s, one-file change < 0.3 s on 2 cores.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import table, write_json  # noqa: E402

from openclaw_memtui.config import index_settings, validate  # noqa: E402
from openclaw_memtui.engine.index import MemoryIndex  # noqa: E402

WORDS = ("deploy database migration token auth canary release roadmap budget meeting review incident latency cache "
         "replica postgres sqlite index search vector keyword memory agent session note decision people mobile").split()


def generate(root: Path, n: int) -> None:
    rng = random.Random(7)
    for i in range(n):
        day = f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}"
        folder = root / "memory" / f"{day[:7]}"
        folder.mkdir(parents=True, exist_ok=True)
        lines = [f"# Note {i} ({day})", ""] + [" ".join(rng.choice(WORDS) for _ in range(12)) for _ in range(6)]
        (folder / f"{day}-note-{i:05d}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--notes", type=int, default=10_000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "ws"
        t = time.perf_counter()
        generate(ws, args.notes)
        gen_s = time.perf_counter() - t
        settings = index_settings(validate({}), ws, Path(tmp) / "index.sqlite")
        index = MemoryIndex(settings, provider_name="none")
        t = time.perf_counter()
        full = index.sync()
        full_s = time.perf_counter() - t
        noop = []
        for _ in range(3):
            t = time.perf_counter()
            r = index.sync()
            noop.append(time.perf_counter() - t)
            assert r.files_indexed == 0
        target = sorted((ws / "memory").rglob("*.md"))[len(noop) * 1000 % args.notes]
        one = []
        for k in range(3):
            target.write_text(target.read_text() + f"\nedit {k}\n", encoding="utf-8")
            t = time.perf_counter()
            r = index.sync()
            one.append(time.perf_counter() - t)
            assert r.files_indexed == 1
        status = index.status(check_dirty=False)
        db_mb = settings.db_path.stat().st_size / 1e6
    rows = [
        ["full index (keywords only)", f"{full_s:.2f} s", f"{args.notes / full_s:.0f} files/s"],
        ["no-op re-sync (median of 3)", f"{sorted(noop)[1] * 1000:.0f} ms", "goal < 1000 ms"],
        ["one-file change (median of 3)", f"{sorted(one)[1] * 1000:.0f} ms", "goal < 300 ms"],
    ]
    print(table(rows, ["step", "time", "note"]))
    print(f"\n{args.notes} notes, {status.chunks} chunks, index {db_mb:.1f} MB (generation took {gen_s:.1f} s)")
    path = write_json("sync", {"notes": args.notes, "chunks": status.chunks, "db_mb": db_mb, "full_s": full_s,
                               "noop_s": noop, "one_file_s": one, "full_rebuild": full.full_rebuild})
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
