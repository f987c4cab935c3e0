"""Time-aware retrieval, measured two ways (docs/ranking.md, "Time words").

1. LoCoMo dev with "now" fixed just after each conversation's last session: questions without time
   words must score exactly as before; questions with a detected window are reported apart.
2. Our own judged relative-time questions on the bundled demo workspace (bench/time_queries.jsonl,
   written for this project; now = 2026-11-30T12:00Z), time windows on vs off.

    python3 bench/eval_time.py [--root /tmp/locomo-dev] [--provider local]
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import table, write_json  # noqa: E402

from openclaw_memtui.core.config import index_settings, search_params, validate  # noqa: E402
from openclaw_memtui.engine.index import MemoryIndex  # noqa: E402
from openclaw_memtui.engine.tuning.evaluation import load_queries, score_pool, summarize  # noqa: E402
from openclaw_memtui.paths import demo_workspace  # noqa: E402

PARAMS = replace(search_params(validate({})), min_score=0.0, max_results=10)  # the shipped defaults
DEMO_NOW = 1796040000000.0  # 2026-11-30T12:00:00Z


def run(index, queries, now_ms):
    on, off, windowed = [], [], []
    for q in queries:
        pool_on = index.retrieve(q["question"], now_ms=now_ms, time_aware=True)
        pool_off = index.retrieve(q["question"], now_ms=now_ms, time_aware=False)
        _, m_on = score_pool(pool_on, PARAMS, q["targets"])
        _, m_off = score_pool(pool_off, PARAMS, q["targets"])
        if m_on is None:
            continue
        on.append((q, m_on))
        off.append((q, m_off))
        windowed.append(pool_on.time_window is not None)
    return on, off, windowed


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default="/tmp/locomo-dev")
    ap.add_argument("--provider", default="local")
    ap.add_argument("--db-dir", default="/tmp/locomo-idx")
    args = ap.parse_args()
    out: dict = {}
    rows = []
    root = Path(args.root)
    if root.is_dir():
        all_on, all_off, all_w = [], [], []
        for conv in sorted(p for p in root.iterdir() if (p / "workspace").is_dir()):
            notes = sorted((conv / "workspace" / "memory").glob("*.md"))
            last = max(re.match(r"(\d{4}-\d{2}-\d{2})", n.name).group(1) for n in notes)
            now_ms = (datetime.fromisoformat(last).replace(tzinfo=UTC) + timedelta(days=1)).timestamp() * 1000
            db = Path(args.db_dir) / f"{conv.name}-{args.provider}-400.sqlite"
            settings = index_settings(validate({}), conv / "workspace", db)
            index = MemoryIndex(settings, provider_name=args.provider)
            index.sync()
            on, off, w = run(index, load_queries(conv / "queries.jsonl"), now_ms)
            all_on += on
            all_off += off
            all_w += w
            index.close()
        plain = [i for i, w in enumerate(all_w) if not w]
        timed = [i for i, w in enumerate(all_w) if w]
        same = all(all_on[i][1] == all_off[i][1] for i in plain)
        groups = (("LoCoMo, no time words", plain), ("LoCoMo, time window detected", timed), ("LoCoMo, all", range(len(all_w))))
        for label, idx in groups:
            if not idx:
                continue
            s_off = summarize([all_off[i] for i in idx])["all"]
            s_on = summarize([all_on[i] for i in idx])["all"]
            out[label] = {"n": len(idx), "off": s_off, "on": s_on}
            rows.append([label, len(idx), f"{s_off['recall@5']:.3f} → {s_on['recall@5']:.3f}",
                         f"{s_off['mrr@10']:.3f} → {s_on['mrr@10']:.3f}", f"{s_off['ndcg@10']:.3f} → {s_on['ndcg@10']:.3f}"])
        out["locomo_no_time_identical"] = same
        examples = [q["question"] for i, (q, _m) in enumerate(all_on) if all_w[i]][:8]
        out["locomo_windowed_examples"] = examples
    with tempfile.TemporaryDirectory() as tmp:
        settings = index_settings(validate({}), demo_workspace(), Path(tmp) / "demo.sqlite")
        index = MemoryIndex(settings, provider_name=args.provider)
        index.sync()
        queries = load_queries(Path(__file__).with_name("time_queries.jsonl"))
        on, off, w = run(index, queries, DEMO_NOW)
        s_off, s_on = summarize(off)["all"], summarize(on)["all"]
        out["demo_time_queries"] = {"n": len(on), "windows_detected": sum(w), "off": s_off, "on": s_on,
                                    "per_query": {q["qid"]: {"off": mo["ndcg@10"], "on": mn["ndcg@10"]}
                                                  for (q, mn), (_, mo) in zip(on, off, strict=True)}}
        rows.append(["demo, our relative-time questions", len(on), f"{s_off['recall@5']:.3f} → {s_on['recall@5']:.3f}",
                     f"{s_off['mrr@10']:.3f} → {s_on['mrr@10']:.3f}", f"{s_off['ndcg@10']:.3f} → {s_on['ndcg@10']:.3f}"])
    print(table(rows, ["set", "n", "recall@5 off → on", "MRR@10 off → on", "nDCG@10 off → on"]))
    if "locomo_no_time_identical" in out:
        print(f"\nLoCoMo questions without time words score identically with windows on: {out['locomo_no_time_identical']}")
        print("windowed LoCoMo examples: " + " | ".join(out["locomo_windowed_examples"][:5]))
    print(f"demo: windows detected in {out['demo_time_queries']['windows_detected']}/{out['demo_time_queries']['n']} questions")
    print(f"wrote {write_json('eval_time', out)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
