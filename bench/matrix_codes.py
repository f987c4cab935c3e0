"""The quantised matrix at the default model's 512 dims against e5's 384: memory, search CPU, top-10 after the rescore.

    OPENBLAS_NUM_THREADS=1 python3 bench/matrix_codes.py [--rows 1000000] [--queries 40] [--rounds 3]
                                                         [--before DIR]

In one process, so every variant meets the same machine: vectors shaped like USE's (fitted to USE vectors
of this repository's text, bench/scale.py `--fit-use`) at 512 dims and like e5's at 384 (bench/scale.py's
synthetic shape), a matrix built over each, and the same queries searched in every matrix in turn, round by
round: `matrix.search` for k + RESCORE_EXTRA rows from the 8,192-row shortlist (the vector leg's work before
its SQLite rescore), its CPU time, and the top-10 after rescoring those rows exactly against the exact top-10.
Variants: 4-bit codes with sign bits of 384 chosen dims (as shipped), of all 512 dims, and at 384 dims; with
`--before DIR` (a checkout of memtui before 4-bit codes) also that code's 8-bit matrix at 384 dims. Writes
bench/results/matrix_codes.json.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]
import scale  # noqa: E402
from _common import table, write_json  # noqa: E402

from openclaw_memtui.engine.vectors import matrix as matrix_mod  # noqa: E402
from openclaw_memtui.engine.vectors import vector as vector_mod  # noqa: E402


def build(cls: Any, floats: np.ndarray) -> Any:
    n, block = len(floats), 20_000
    return cls.from_batches(((np.arange(s, min(n, s + block)), floats[s:s + block], None) for s in range(0, n, block)),
                            capacity=n)


def vectors_of(shape: scale.Shape, dims: int, rows: int) -> np.ndarray:
    scale.set_dims(dims)
    return np.vstack([shape.vectors(min(20_000, rows - s), seed=s + 1) for s in range(0, rows, 20_000)])


def exact_top10(floats: np.ndarray, q: np.ndarray) -> set[int]:
    sims = floats @ q
    return set(np.argpartition(-sims, 10)[:10].tolist())


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--queries", type=int, default=40)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--before", type=Path, help="a checkout of memtui with the 8-bit matrix, for its row")
    args = ap.parse_args()
    started = time.perf_counter()
    scale.set_dims(512)
    use = scale.Shape(scale.use_vectors())
    f512, q512 = vectors_of(use, 512, args.rows), use.vectors(args.queries, seed=999_999, noise=0.9)
    scale.set_dims(384)
    e5 = scale.Shape(None)
    f384, q384 = vectors_of(e5, 384, args.rows), e5.vectors(args.queries, seed=999_999, noise=0.9)
    truth = {512: [exact_top10(f512, q) for q in q512], 384: [exact_top10(f384, q) for q in q384]}
    data = {512: (f512, q512), 384: (f384, q384)}
    variants: dict[str, tuple[Any, int]] = {}
    shipped = matrix_mod.SIGN_BITS
    name = f"512 dims (USE-like), 4-bit codes, sign bits of {shipped} dims (shipped)"
    variants[name] = (build(matrix_mod.QuantizedMatrix, f512), 512)
    matrix_mod.SIGN_BITS = 512
    variants["512 dims (USE-like), 4-bit codes, sign bits of all 512"] = (build(matrix_mod.QuantizedMatrix, f512), 512)
    matrix_mod.SIGN_BITS = shipped
    variants["384 dims (e5-like), 4-bit codes"] = (build(matrix_mod.QuantizedMatrix, f384), 384)
    if args.before:
        spec = importlib.util.spec_from_file_location("matrix_before", args.before / "openclaw_memtui/engine/vectors/matrix.py")
        assert spec is not None and spec.loader is not None
        before = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(before)
        variants["384 dims (e5-like), 8-bit codes (before)"] = (build(before.QuantizedMatrix, f384), 384)
    k = 10 + vector_mod.RESCORE_EXTRA
    cpu: dict[str, list[float]] = {name: [] for name in variants}
    found: dict[str, list[float]] = {name: [] for name in variants}
    for round_no in range(args.rounds):
        for i in range(args.queries):
            for name, (matrix, dims) in variants.items():
                floats, queries = data[dims]
                t = time.process_time()
                rowids, _ = matrix.search(queries[i], k, shortlist=vector_mod.SHORTLIST)
                cpu[name].append(time.process_time() - t)
                if round_no == 0:
                    exact = floats[rowids] @ queries[i]
                    top = rowids[np.argsort(-exact, kind="stable")][:10]
                    found[name].append(len(set(top.tolist()) & truth[dims][i]) / 10)
    out = {name: {"cpu_p50_ms": statistics.median(cpu[name]) * 1000, "top10_overlap": statistics.mean(found[name]),
                  "worst": min(found[name]), "matrix_mb": matrix.nbytes / 1e6}
           for name, (matrix, _) in variants.items()}
    print(table([[name, f"{m['cpu_p50_ms']:.1f}", f"{m['top10_overlap']:.4f}", f"{m['worst']:.1f}", f"{m['matrix_mb']:.0f}"]
                 for name, m in out.items()],
                [f"{args.rows:,} rows", "search CPU p50 ms", "top-10 overlap after rescore", "worst", "matrix MB"]))
    print(f"{args.queries} queries x {args.rounds} rounds, interleaved; OPENBLAS_NUM_THREADS="
          f"{os.environ.get('OPENBLAS_NUM_THREADS', '(unset)')}; load average {os.getloadavg()[0]:.1f}")
    saved = {"rows": args.rows, "queries": args.queries, "variants": out, "seconds": time.perf_counter() - started}
    print(f"wrote {write_json('matrix_codes', saved)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
