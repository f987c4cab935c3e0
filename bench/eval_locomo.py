"""Retrieval quality on the LoCoMo development split: keyword only, vector only, hybrid variants.

    python3 ../shared/eval/build_locomo.py --out /tmp/locomo-dev
    python3 bench/eval_locomo.py --root /tmp/locomo-dev [--provider local] [--model use]

Each conversation workspace is indexed once; every question is retrieved once (the pool), then
ranked under each setting — the same two-stage split the TUI uses for live tuning.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import table, write_json  # noqa: E402

from openclaw_memtui.core.config import index_settings, validate  # noqa: E402
from openclaw_memtui.engine.index import MemoryIndex  # noqa: E402
from openclaw_memtui.engine.search.rank import SearchParams  # noqa: E402
from openclaw_memtui.engine.tuning.evaluation import METRICS, load_queries, score_pool, summarize  # noqa: E402

BASE = SearchParams(min_score=0.0, max_results=10)
VARIANTS = {
    "hybrid default": ("hy", BASE),
    "hybrid default, as shown (minScore 0.35, maxResults 6)": ("hy", SearchParams()),
    "hybrid default, OpenClaw fusion (the default before coverage fusion)": ("hy", replace(BASE, fusion="openclaw")),
    "keyword only": ("kw", replace(BASE, vector_weight=0.0, text_weight=1.0)),
    "keyword only, chunk BM25 alone (lineWeight 0)": ("kw", replace(BASE, vector_weight=0.0, text_weight=1.0, line_weight=0.0)),
    "hybrid default, chunk BM25 alone (lineWeight 0)": ("hy", replace(BASE, line_weight=0.0)),
    "hybrid default, overlapping chunks not pushed down (overlapPenalty 0)": ("hy", replace(BASE, overlap_penalty=0.0)),
    "vector only": ("hy", replace(BASE, vector_weight=1.0, text_weight=0.0)),
    "hybrid openclaw 0.7/0.3": ("hy", replace(BASE, fusion="openclaw", vector_weight=0.7, text_weight=0.3, line_weight=0.0,
                                              overlap_penalty=0.0)),
    "hybrid normalized 0.5/0.5": ("hy", replace(BASE, fusion="normalized", vector_weight=0.5, text_weight=0.5)),
    "hybrid normalized 0.6/0.4": ("hy", replace(BASE, fusion="normalized", vector_weight=0.6, text_weight=0.4)),
    "hybrid normalized 0.4/0.6": ("hy", replace(BASE, fusion="normalized", vector_weight=0.4, text_weight=0.6)),
    "hybrid normalized 0.3/0.7": ("hy", replace(BASE, fusion="normalized", vector_weight=0.3, text_weight=0.7)),
    "hybrid openclaw 0.5/0.5": ("hy", replace(BASE, fusion="openclaw", vector_weight=0.5, text_weight=0.5)),
    "hybrid openclaw 0.4/0.6": ("hy", replace(BASE, fusion="openclaw", vector_weight=0.4, text_weight=0.6)),
    "hybrid openclaw 0.6/0.4": ("hy", replace(BASE, fusion="openclaw", vector_weight=0.6, text_weight=0.4)),
}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default="/tmp/locomo-dev")
    ap.add_argument("--provider", default="local")
    ap.add_argument("--model", help="a candidate model of bench/_models.py in place of the provider's")
    ap.add_argument("--db-dir", default="/tmp/locomo-idx")
    ap.add_argument("--keyword-mode", default="and-or")
    ap.add_argument("--tokens", type=int, default=400)
    ap.add_argument("--overlap", type=int, default=80)
    ap.add_argument("--stemming", default="porter", choices=["porter", "none"])
    ap.add_argument("--line-vectors", action=argparse.BooleanOptionalAction, default=True,
                    help="index with chunking.lineVectors, as memtui does by default (--no-line-vectors: chunk vectors only)")
    args = ap.parse_args()
    root = Path(args.root)
    if args.model:
        import _models

        _models.install(args.model)
        args.provider = f"local-{args.model}"  # names the index files and the results file
    scored: dict[str, list] = {name: [] for name in VARIANTS}
    index_seconds = 0.0
    index_bytes = 0
    chunks = 0
    for conv in sorted(p for p in root.iterdir() if (p / "workspace").is_dir()):
        cfg = validate({"chunking": {"tokens": args.tokens, "overlap": args.overlap, "lineVectors": args.line_vectors},
                        "query": {"keyword": {"stemming": args.stemming}}})
        lines = "-lines" if args.line_vectors else ""
        db = Path(args.db_dir) / f"{conv.name}-{args.provider}-{args.tokens}-{args.stemming}{lines}.sqlite"
        settings = index_settings(cfg, conv / "workspace", db)
        index = MemoryIndex(settings, provider_name="local" if args.model else args.provider)
        t = time.perf_counter()
        index.sync()
        index_seconds += time.perf_counter() - t
        chunks += index.status(check_dirty=False).chunks
        index_bytes += db.stat().st_size + sum(p.stat().st_size for p in db.parent.glob(db.name + "-wal"))
        for q in load_queries(conv / "queries.jsonl"):
            # time windows off: this measures the search itself (bench/eval_time.py measures windows)
            pools = {"hy": index.retrieve(q["question"], keyword_mode=args.keyword_mode, time_aware=False)}
            pools["kw"] = index.retrieve(q["question"], keyword_mode=args.keyword_mode, use_vectors=False, time_aware=False)
            for name, (which, params) in VARIANTS.items():
                _, m = score_pool(pools[which], params, q.get("targets"))
                if m is not None:
                    scored[name].append((q, m))
        index.close()
        print(f"{conv.name}: indexed", file=sys.stderr)
    out = {}
    rows = []
    for name, items in scored.items():
        summary = summarize(items)
        out[name] = summary
        for group, row in summary.items():
            rows.append([name, group, int(row["n"])] + [f"{row[k]:.3f}" for k in METRICS])
    print(table(rows, ["variant", "group", "n", *METRICS]))
    print(f"\nindexing: {index_seconds:.1f}s for {chunks} chunks ({args.provider}), index files {index_bytes / 1e6:.1f} MB")
    path = write_json(f"eval_locomo_{args.provider}_{args.stemming}{'_lines' if args.line_vectors else ''}",
                      {"provider": args.provider, "keyword_mode": args.keyword_mode, "stemming": args.stemming,
                       "index_seconds": index_seconds, "index_bytes": index_bytes, "chunks": chunks,
                       "line_vectors": args.line_vectors, "variants": out})
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
