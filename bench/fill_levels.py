"""Ranking while vectors fill in: LoCoMo dev quality at 0/25/50/75/100 % of chunks embedded.

    python3 ../shared/eval/build_locomo.py --out /tmp/locomo-dev
    python3 bench/fill_levels.py --root /tmp/locomo-dev [--provider local]

Each level is a real index in the state a first sync leaves it in after embedding that share of the
chunks: the real `Syncer` embeds in its own order (rowid order, a batch at a time) and is cancelled
once the share is reached, so which chunks have a vector is exactly what a user sees mid-sync. The
model is paid once: a memo in front of the provider serves the texts an earlier level embedded.

`--conv` runs some conversations only (two processes can share the work); each conversation's
scores are kept in `--db-dir`, and the table is printed once every conversation has them. A level-100
index of an earlier run seeds the memo from its embedding cache, so a rerun pays no model at all.

Every question is retrieved once per level (hybrid pool and keyword pool), then ranked under each
strategy for chunks that have no vector yet:

* `zero`: the vector leg scores such a chunk 0 (memtui before #30), emulated by hiding the flag
* `shipped`: rank() as it is now (a chunk without a vector is ranked on its keyword score alone)
* `impute mean`: such a chunk gets the mean cosine of the pool's chunks that have one
* `gate N %`: keyword-only ranking until N % of the chunks are embedded, then `zero`
* `keyword only`: the floor every level must reach
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import table, write_json  # noqa: E402

from openclaw_memtui.core.config import index_settings, validate  # noqa: E402
from openclaw_memtui.engine.index import MemoryIndex  # noqa: E402
from openclaw_memtui.engine.models import SyncProgress  # noqa: E402
from openclaw_memtui.engine.search.rank import Pool, SearchParams  # noqa: E402
from openclaw_memtui.engine.textutil import sha256_hex  # noqa: E402
from openclaw_memtui.engine.tuning.evaluation import load_queries, score_pool, summarize  # noqa: E402

LEVELS = (100, 0, 25, 50, 75)  # 100 first: it pays the model for every text the others reuse
BASE = SearchParams(min_score=0.0, max_results=10)  # the shipped ranking, as bench/eval_locomo.py scores it
KEYWORD = replace(BASE, vector_weight=0.0, text_weight=1.0)
SHOWN = ("ndcg@10", "recall@5", "recall@10", "mrr@10")


class MemoProvider:
    """The real provider behind a memo of texts already embedded (by an earlier level or run)."""

    def __init__(self, inner: Any, memo: dict[Any, Any]) -> None:
        self._inner, self._memo = inner, memo

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def embed_batch(self, texts: Sequence[str]) -> Any:
        import numpy as np

        keys = [("p", sha256_hex(t)) for t in texts]  # the chunk hash: what the embedding cache is keyed by
        todo = list(dict.fromkeys((k, t) for k, t in zip(keys, texts, strict=True) if k not in self._memo))
        if todo:
            for (key, _), vec in zip(todo, self._inner.embed_batch([t for _, t in todo]), strict=True):
                self._memo[key] = vec
        return np.vstack([self._memo[k] for k in keys]) if texts else self._inner.embed_batch([])

    def embed_query(self, text: str) -> Any:
        if ("q", text) not in self._memo:
            self._memo[("q", text)] = self._inner.embed_query(text)
        return self._memo[("q", text)]


class StopAt:
    """A cancel flag the progress callback raises once the next batch would pass `target` chunks."""

    def __init__(self, target_share: float, batch: int) -> None:
        self.share, self.batch, self.flag = target_share, batch, False

    def progress(self, p: SyncProgress) -> None:
        if p.phase == "embed" and p.total and p.done + self.batch > self.share * p.total:
            self.flag = True  # checked before the next batch: this one is still embedded

    def is_set(self) -> bool:
        return self.flag


def seed_memo(db: Path, memo: dict[Any, Any]) -> None:
    """Vectors a level-100 index of an earlier run holds in its embedding cache (read-only)."""
    import sqlite3

    import numpy as np

    if not db.exists():
        return
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        for text_hash, blob in conn.execute("SELECT hash, embedding FROM embedding_cache"):
            memo[("p", text_hash)] = np.frombuffer(blob, dtype=np.float32)
    finally:
        conn.close()


def build_level(conv: Path, db_dir: Path, provider: str, level: int, memo: dict[Any, Any]) -> MemoryIndex:
    db = db_dir / f"{conv.name}-{level}.sqlite"
    for p in db_dir.glob(f"{conv.name}-{level}.sqlite*"):
        p.unlink()
    index = MemoryIndex(index_settings(validate({}), conv / "workspace", db), provider_name=provider)
    inner = index.provider
    assert inner is not None, index.provider_error
    index._provider = MemoProvider(inner, memo)  # noqa: SLF001 - a bench hook: the model is paid once per text
    batch = max(1, getattr(inner, "sync_batch_items", 32))
    stop = StopAt(level / 100, batch)
    if level == 0:  # keyword rows only, as a first sync has them before its first batch of vectors
        index.sync(embed=False)
    else:
        index.sync(progress=stop.progress if level < 100 else None, cancel=stop if level < 100 else None)
    return index


def hide_missing(pool: Pool) -> Pool:
    """memtui before #30: the vector leg scored a chunk without a vector 0."""
    return replace(pool, candidates=[c if c.vector_score is not None else replace(c, vector_score=0.0)
                                     for c in pool.candidates], _jaccard=None)


def impute_mean(pool: Pool) -> Pool:
    present = [c.vector_score for c in pool.candidates if c.vector_score is not None]
    mean = sum(present) / len(present) if present else 0.0
    return replace(pool, candidates=[c if c.vector_score is not None else replace(c, vector_score=mean)
                                     for c in pool.candidates], _jaccard=None)


Strategy = Callable[[Pool, Pool, float], tuple[Pool, SearchParams]]
STRATEGIES: dict[str, Strategy] = {
    "keyword only": lambda hy, kw, cov: (kw, KEYWORD),
    "zero (before #30)": lambda hy, kw, cov: (hide_missing(hy), BASE),
    "shipped": lambda hy, kw, cov: (hy, BASE),
    "impute mean": lambda hy, kw, cov: (impute_mean(hy), BASE),
    "gate 90 %": lambda hy, kw, cov: ((hide_missing(hy), BASE) if cov >= 0.9 else (kw, KEYWORD)),
}


def run_conv(conv: Path, db_dir: Path, provider: str) -> dict[str, Any]:
    """Every level of one conversation: its coverage and each query's metrics under each strategy."""
    memo: dict[Any, Any] = {}
    seed_memo(db_dir / f"{conv.name}-100.sqlite", memo)
    seeded = len(memo)
    queries = load_queries(conv / "queries.jsonl")
    out: dict[str, Any] = {"coverage": {}, "scores": {}}
    for level in LEVELS:
        index = build_level(conv, db_dir, provider, level, memo)
        model = index.provider.model if index.provider else ""
        embedded, total = index.chunk_counts(model)
        out["coverage"][str(level)] = [embedded, total]
        cov = embedded / total if total else 0.0
        for q in queries:
            hy = index.retrieve(q["question"], time_aware=False)
            kw = index.retrieve(q["question"], use_vectors=False, time_aware=False)
            for name, strategy in STRATEGIES.items():
                pool, params = strategy(hy, kw, cov)
                _, m = score_pool(pool, params, q.get("targets"))
                if m is not None:
                    out["scores"].setdefault(f"{level}|{name}", []).append([q.get("category"), m])
        index.close()
        print(f"{conv.name} {level:>3} %: {embedded}/{total} chunks embedded", file=sys.stderr)
    out["texts_embedded"] = sum(1 for k in memo if k[0] == "p") - seeded
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default="/tmp/locomo-dev")
    ap.add_argument("--provider", default="local")
    ap.add_argument("--db-dir", default="/tmp/locomo-fill")
    ap.add_argument("--conv", action="append", help="only this conversation (repeatable); default all")
    args = ap.parse_args()
    root, db_dir = Path(args.root), Path(args.db_dir)
    db_dir.mkdir(parents=True, exist_ok=True)
    convs = sorted(p for p in root.iterdir() if (p / "workspace").is_dir())
    started = time.perf_counter()
    for conv in convs:
        if args.conv and conv.name not in args.conv:
            continue
        result = run_conv(conv, db_dir, args.provider)
        (db_dir / f"{conv.name}.{args.provider}.scores.json").write_text(json.dumps(result))
    print(f"{time.perf_counter() - started:.0f} s, load average {os.getloadavg()[0]:.1f}", file=sys.stderr)
    results = {}
    for conv in convs:
        kept = db_dir / f"{conv.name}.{args.provider}.scores.json"
        if kept.exists():
            results[conv.name] = json.loads(kept.read_text())
    if not results:
        return 0
    for r in results.values():
        if r["coverage"]["0"] == [0, 0]:  # kept by a run whose level 0 was cancelled before its keyword rows
            # at 0 % retrieval runs no vector leg, so every strategy ranks the keyword pool, which is the
            # same at every level (the keyword rows do not depend on the vectors): take it from level 100
            r["coverage"]["0"] = [0, r["coverage"]["100"][1]]
            for name in STRATEGIES:
                r["scores"][f"0|{name}"] = r["scores"]["100|keyword only"]
    missing = [c.name for c in convs if c.name not in results]
    if missing:
        print(f"partial: {', '.join(missing)} not run yet", file=sys.stderr)
    out: dict[str, Any] = {}
    rows = []
    for level in sorted(LEVELS):
        embedded = sum(r["coverage"][str(level)][0] for r in results.values())
        total = sum(r["coverage"][str(level)][1] for r in results.values())
        out[str(level)] = {"embedded": embedded, "chunks": total, "strategies": {}}
        for name in STRATEGIES:
            items = [({"category": cat}, m) for r in results.values() for cat, m in r["scores"][f"{level}|{name}"]]
            summary = summarize(items)["all"]
            out[str(level)]["strategies"][name] = summary
            rows.append([f"{level} % ({embedded}/{total})", name] + [f"{summary[k]:.3f}" for k in SHOWN])
    print(table(rows, ["embedded", "ranking", *SHOWN]))
    path = write_json(f"fill_levels_{args.provider}", {"provider": args.provider, "conversations": sorted(results),
                                                       "load_average": os.getloadavg(), "levels": out})
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
