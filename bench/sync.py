"""Sync speed on a generated workspace of 10,000 notes (keywords only).

    python3 bench/sync.py [--notes 10000] [--chunks-per-note 1] [--name sync] [--dir DIR]

Prints a table and writes bench/results/<name>.json: full index, no-op re-sync, one-file change,
and the sync's peak RSS. Goals (issues #2, #17): first index of 10,000 notes ≤ 2 s; no-op re-sync
of 100,000 files ≤ 1 s; one-file change < 0.3 s; 1M chunks (`--notes 100000 --chunks-per-note 10`,
~1.6 GB of notes) first index ≤ 10 minutes with bounded memory. `--dir` keeps the workspace (generated once)
and the index there, so a 1M run need not write 1.6 GB of notes again; the index is always built afresh.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import table, write_json  # noqa: E402

from openclaw_memtui.core.config import index_settings, validate  # noqa: E402
from openclaw_memtui.engine.index import MemoryIndex  # noqa: E402

WORDS = ("deploy database migration token auth canary release roadmap budget meeting review incident latency cache "
         "replica postgres sqlite index search vector keyword memory agent session note decision people mobile").split()


def generate(root: Path, n: int, chunks_per_note: int = 1) -> None:
    if chunks_per_note > 1:
        return generate_long(root, n, chunks_per_note)
    rng = random.Random(7)
    for i in range(n):
        day = f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}"
        folder = root / "memory" / f"{day[:7]}"
        folder.mkdir(parents=True, exist_ok=True)
        lines = [f"# Note {i} ({day})", ""] + [" ".join(rng.choice(WORDS) for _ in range(12)) for _ in range(6)]
        (folder / f"{day}-note-{i:05d}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


def generate_long(root: Path, n: int, chunks: int) -> None:
    """Notes of about `chunks` full 400-token chunks each (1,600 characters a chunk, overlap aside),
    from a pool of lines so that 1.6 GB of text is written in a minute or two."""
    rng = random.Random(7)
    pool = [" ".join(rng.choice(WORDS) for _ in range(14)) + f" n{k}" for k in range(4000)]
    lines_per_note = chunks * 1280 // 100  # 1,280 new characters a chunk (1,600 less the 320 overlap)
    for i in range(n):
        day = f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}"
        folder = root / "memory" / f"{day[:7]}"
        folder.mkdir(parents=True, exist_ok=True)
        body = "\n".join(rng.choices(pool, k=lines_per_note))
        (folder / f"{day}-note-{i:06d}.md").write_text(f"# Note {i} ({day})\n\n{body}\n", encoding="utf-8")


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--notes", type=int, default=10_000)
    ap.add_argument("--chunks-per-note", type=int, default=1)
    ap.add_argument("--name", default="sync", help="results file: bench/results/<name>.json")
    ap.add_argument("--dir", type=Path, help="keep the workspace and index here (the workspace is generated once)")
    args = ap.parse_args()
    with contextlib.ExitStack() as stack:
        tmp = args.dir or Path(stack.enter_context(tempfile.TemporaryDirectory()))
        ws = tmp / "ws"
        t = time.perf_counter()
        if not (ws / "memory").is_dir():
            generate(ws, args.notes, args.chunks_per_note)
        gen_s = time.perf_counter() - t
        db = tmp / "index.sqlite"
        for side in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
            side.unlink(missing_ok=True)
        settings = index_settings(validate({}), ws, db)
        index = MemoryIndex(settings, provider_name="none")
        t = time.perf_counter()
        rss_before = peak_rss_mb()
        load_before = os.getloadavg()[0]
        cpu = time.process_time()
        usage = resource.getrusage(resource.RUSAGE_SELF)
        full = index.sync()
        full_s = time.perf_counter() - t
        full_cpu_s = time.process_time() - cpu  # this process's own CPU: load from others does not inflate it
        after = resource.getrusage(resource.RUSAGE_SELF)
        full_io = {"user_s": after.ru_utime - usage.ru_utime, "system_s": after.ru_stime - usage.ru_stime,
                   "written_mb": (after.ru_oublock - usage.ru_oublock) * 512 / 1e6,  # blocks of 512 bytes
                   "waits": after.ru_nvcsw - usage.ru_nvcsw, "preempted": after.ru_nivcsw - usage.ru_nivcsw,
                   "load_average": [load_before, os.getloadavg()[0]]}
        rss_sync = peak_rss_mb()
        noop = []
        noop_cpu = []
        for _ in range(3):
            t, cpu = time.perf_counter(), time.process_time()
            r = index.sync()
            noop.append(time.perf_counter() - t)
            noop_cpu.append(time.process_time() - cpu)
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
        ["full index (keywords only)", f"{full_s:.2f} s (own CPU {full_cpu_s:.2f} s)",
         f"{args.notes / full_s:.0f} files/s; {full_io['written_mb']:.0f} MB written, load {full_io['load_average'][0]:.1f}"],
        ["no-op re-sync (median of 3)", f"{sorted(noop)[1] * 1000:.0f} ms (own CPU {sorted(noop_cpu)[1] * 1000:.0f} ms)",
         "goal < 1000 ms"],
        ["one-file change (median of 3)", f"{sorted(one)[1] * 1000:.0f} ms", "goal < 300 ms"],
    ]
    print(table(rows, ["step", "time", "note"]))
    print(f"\n{args.notes} notes, {status.chunks} chunks, index {db_mb:.1f} MB (generation took {gen_s:.1f} s); "
          f"peak RSS {rss_before:.0f} MB before the first sync, {rss_sync:.0f} MB after it")
    path = write_json(args.name, {"notes": args.notes, "chunks": status.chunks, "db_mb": db_mb, "full_s": full_s,
                                  "full_cpu_s": full_cpu_s, "full_io": full_io, "noop_s": noop, "noop_cpu_s": noop_cpu,
                                  "one_file_s": one, "full_rebuild": full.full_rebuild,
                                  "peak_rss_mb_before": rss_before, "peak_rss_mb_after_first_sync": rss_sync})
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
