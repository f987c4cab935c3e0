"""Coverage fusion's constants, chosen held out: topics left out on the cross-lingual set, conversations left
out on LoCoMo dev.

    python3 ../shared/eval/build_locomo.py --out /tmp/locomo-dev
    python3 bench/fusion_cv.py [--root /tmp/locomo-dev] [--db-dir /tmp/memtui-fusion-cv]

Every question is retrieved once (the shipped retrieval: time words read against a fixed clock for the
cross-lingual set, off for LoCoMo as bench/eval_locomo.py does), then ranked under each grid point of
(FULL_SAY, KEYWORD_DAMP, vectorLead). Cross-lingual: the 12 topics split in two halves; each half is ranked
with the grid point the other half scores best on (nDCG@10 as shown, across languages plus same language).
LoCoMo: each conversation with the point the other four score best on (nDCG@10, depth 10). Prints both and
the shipped point's figures; writes bench/results/fusion_cv.json.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import crosslingual as xl  # noqa: E402
from _common import table, write_json  # noqa: E402

import openclaw_memtui.engine.search.rank as rank_module  # noqa: E402
from openclaw_memtui.core.config import index_settings, validate  # noqa: E402
from openclaw_memtui.engine.index import MemoryIndex  # noqa: E402
from openclaw_memtui.engine.search.rank import SearchParams  # noqa: E402
from openclaw_memtui.engine.tuning.evaluation import load_queries, score_pool  # noqa: E402

GRID = list(itertools.product((0.5, 0.7), (0.3, 0.5, 0.7), (0.8, 0.9, 1.0)))  # full say, damp, lead
SHIPPED = (rank_module.FULL_SAY, rank_module.KEYWORD_DAMP, SearchParams().vector_lead)


def ranked(point: tuple[float, float, float], items: list[tuple[dict[str, Any], Any]],
           params: SearchParams) -> list[float]:
    rank_module.FULL_SAY, rank_module.KEYWORD_DAMP = point[0], point[1]
    out = []
    for q, pool in items:
        _, m = score_pool(pool, replace(params, vector_lead=point[2]), q.get("targets"))
        out.append(m["ndcg@10"] if m else 0.0)
    return out


def mean(xs: list[float]) -> float:
    return sum(xs) / len(xs) if xs else 0.0


def locomo_items(root: Path, db_dir: Path, line_vectors: bool = False) -> list[tuple[str, dict[str, Any], Any]]:
    out = []
    for conv in sorted(p for p in root.iterdir() if (p / "workspace").is_dir()):
        cfg = validate({"chunking": {"tokens": 400, "overlap": 80, "lineVectors": line_vectors}})
        db = db_dir / f"{conv.name}{'-lines' if line_vectors else ''}.sqlite"
        index = MemoryIndex(index_settings(cfg, conv / "workspace", db), provider_name="local")
        try:
            index.sync()
            out += [(conv.name, q, index.retrieve(q["question"], time_aware=False))
                    for q in load_queries(conv / "queries.jsonl") if q.get("targets")]
        finally:
            index.close()
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", type=Path, default=Path("/tmp/locomo-dev"))
    ap.add_argument("--db-dir", type=Path, default=Path("/tmp/memtui-fusion-cv"))
    ap.add_argument("--seeds", type=Path, default=xl.HERE.parent.parent.parent / "shared" / "seeds")
    ap.add_argument("--line-vectors", action=argparse.BooleanOptionalAction, default=True,
                    help="index with chunking.lineVectors, as memtui does by default (--no-line-vectors: chunk vectors only)")
    args = ap.parse_args()
    args.db_dir.mkdir(parents=True, exist_ok=True)
    facts = xl.load_facts()
    ws = xl.build_workspace(args.db_dir, args.seeds, facts)
    queries = xl.all_queries(xl.HERE / "crosslingual.jsonl", ws, facts)
    pools = xl.pools("use", ws, args.db_dir, queries, args.line_vectors)
    topic = {f["fid"]: f["topic"] for f in facts}
    topics = sorted(set(topic.values()))
    halves = (set(topics[0::2]), set(topics[1::2]))
    fact_items = [(q, p[0]) for q, p in zip(queries, pools, strict=True) if q["qid"].split("-")[0] in topic]
    shown = SearchParams()
    per_point = {pt: ranked(pt, fact_items, shown) for pt in GRID}
    half_of = [0 if topic[q["qid"].split("-")[0]] in halves[0] else 1 for q, _ in fact_items]
    held, chosen_xl = [0.0] * len(fact_items), []
    for h in (0, 1):
        train = [i for i, x in enumerate(half_of) if x != h]
        best = max(GRID, key=lambda pt: mean([per_point[pt][i] for i in train]))
        chosen_xl.append(best)
        for i, x in enumerate(half_of):
            if x == h:
                held[i] = per_point[best][i]
    across = [i for i, (q, _) in enumerate(fact_items) if q["kind"] in ("en-zh", "zh-en")]
    same = [i for i, (q, _) in enumerate(fact_items) if q["kind"] in ("zh-zh", "en-en")]
    loc = locomo_items(args.root, args.db_dir / "locomo", args.line_vectors)
    depth10 = replace(SearchParams(), min_score=0.0, max_results=10)
    loc_points = {pt: ranked(pt, [(q, p) for _, q, p in loc], depth10) for pt in GRID}
    convs = sorted({c for c, _, _ in loc})
    loc_held, chosen_loc = [0.0] * len(loc), {}
    for c in convs:
        train = [i for i, (cc, _, _) in enumerate(loc) if cc != c]
        best = max(GRID, key=lambda pt: mean([loc_points[pt][i] for i in train]))
        chosen_loc[c] = best
        for i, (cc, _, _) in enumerate(loc):
            if cc == c:
                loc_held[i] = loc_points[best][i]
    rows = [["cross-lingual facts, topics held out", f"{mean([held[i] for i in across]):.3f}",
             f"{mean([held[i] for i in same]):.3f}", "—", " / ".join(map(str, chosen_xl))],
            ["cross-lingual facts, shipped point", f"{mean([per_point[SHIPPED][i] for i in across]):.3f}",
             f"{mean([per_point[SHIPPED][i] for i in same]):.3f}", "—", str(SHIPPED)],
            ["LoCoMo dev, conversations held out", "—", "—", f"{mean(loc_held):.3f}",
             ", ".join(f"{c[-2:]}→{p}" for c, p in chosen_loc.items())],
            ["LoCoMo dev, shipped point", "—", "—", f"{mean(loc_points[SHIPPED]):.3f}", str(SHIPPED)]]
    header = ["set", "across languages (as shown)", "same language (as shown)", "LoCoMo nDCG@10", "(fullSay, damp, lead)"]
    print(table(rows, header))
    name = "fusion_cv_lines" if args.line_vectors else "fusion_cv"
    print(f"wrote {write_json(name, {'line_vectors': args.line_vectors, 'rows': rows, 'grid': [list(p) for p in GRID]})}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
