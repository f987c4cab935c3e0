"""What the vector leg sees: a chunk scored by its own vector, or by the best of its parts' vectors.

    python3 bench/ablate_part_vectors.py [--seeds ../shared/seeds] [--root /tmp/locomo-dev]

Every question is retrieved once with the shipped index (the cross-lingual check's pools, and LoCoMo dev's
with time windows off as bench/eval_locomo.py). Then each candidate chunk's parts — its lines, or runs of
lines up to a length — are embedded with the same model (USE) and the candidate's cosine is replaced by
the variant's, and the pool is ranked with the shipped settings. Prints nDCG@10 (recall@5) per direction
and LoCoMo, and the parts' count and embedding time against the chunks'.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _models  # noqa: E402
import crosslingual as xl  # noqa: E402
from _common import table, write_json  # noqa: E402

from openclaw_memtui.core.config import index_settings, validate  # noqa: E402
from openclaw_memtui.engine.index import MemoryIndex  # noqa: E402
from openclaw_memtui.engine.search.query import STOP_WORDS  # noqa: E402
from openclaw_memtui.engine.search.rank import Candidate, Pool, SearchParams  # noqa: E402
from openclaw_memtui.engine.tuning.evaluation import load_queries, score_pool, summarize  # noqa: E402

Splitter = Callable[[str], list[str]]


def lines(text: str) -> list[str]:
    return [ln.strip() for ln in text.splitlines() if ln.strip()]


def runs(limit: int) -> Splitter:
    """Consecutive lines joined up to `limit` characters (a longer line is a part alone)."""
    def split(text: str) -> list[str]:
        out: list[str] = []
        cur = ""
        for ln in lines(text):
            if cur and len(cur) + 1 + len(ln) > limit:
                out.append(cur)
                cur = ln
            else:
                cur = f"{cur}\n{ln}" if cur else ln
        if cur:
            out.append(cur)
        return out
    return split


class Embeds:
    def __init__(self) -> None:
        self.provider = _models.make("use")
        self.cache: dict[str, np.ndarray] = {}
        self.seconds = 0.0
        self.count = 0

    def many(self, texts: list[str]) -> np.ndarray:
        new = [t for t in dict.fromkeys(texts) if t not in self.cache]
        if new:
            t0 = time.perf_counter()
            for i in range(0, len(new), 64):
                for t, v in zip(new[i:i + 64], self.provider.embed_batch(new[i:i + 64]), strict=True):
                    self.cache[t] = v
            self.seconds += time.perf_counter() - t0
            self.count += len(new)
        return np.stack([self.cache[t] for t in texts]) if texts else np.zeros((0, 512), np.float32)


def content_form(query: str) -> str:
    """The query as the vector leg would see it with query-side normalization: Latin stop words and the
    multi-character CJK ones (什么, 为什么, 多少…) left out, punctuation dropped."""
    text = query
    for word in sorted((w for w in STOP_WORDS if not w.isascii() and len(w) > 1), key=len, reverse=True):
        text = text.replace(word, " ")
    words = re.findall(r"[\w'-]+", text)
    kept = " ".join(w for w in words if w.lower() not in STOP_WORDS)
    return kept or query


def rescored(pool: Pool, qvec: np.ndarray, parts: dict[str, np.ndarray], how: str,
             chunk_vectors: dict[str, np.ndarray] | None = None) -> Pool:
    cands = []
    for c in pool.candidates:
        if c.vector_score is None:
            cands.append(c)
            continue
        if chunk_vectors is not None:  # the query was re-embedded: the chunk's own cosine with it
            c = replace(c, vector_score=float(chunk_vectors[c.id] @ qvec))
        p = parts[c.id]
        best = float((p @ qvec).max()) if len(p) else c.vector_score
        if how.startswith("derived"):  # the chunk's vector made from its parts' (no chunk embedding at all)
            centroid = p.mean(axis=0) if len(p) else None
            own = float(centroid @ qvec / max(1e-9, float(np.linalg.norm(centroid)))) if centroid is not None else c.vector_score
            v = own if how == "derived" else max(own, best)
        else:
            v = {"chunk": c.vector_score, "max": max(c.vector_score, best), "part": best,
                 "mean": (c.vector_score + best) / 2}[how]
        cands.append(replace(c, vector_score=v))
    return Pool(query=pool.query, candidates=cands, now_ms=pool.now_ms, mode=pool.mode,
                time_window=pool.time_window, leg_query=pool.leg_query)


def variants_for(items: list[tuple[dict[str, Any], Pool]], emb: Embeds, splitters: dict[str, Splitter],
                 params: SearchParams, qvecs: list[np.ndarray],
                 reembedded: bool = False) -> dict[str, list[tuple[dict[str, Any], dict[str, float]]]]:
    chunks: dict[str, Candidate] = {}
    for _, pool in items:
        for c in pool.candidates:
            chunks.setdefault(c.id, c)
    chunk_vectors = None
    if reembedded:
        ids = list(chunks)
        chunk_vectors = dict(zip(ids, emb.many([chunks[i].text for i in ids]), strict=True))
    out: dict[str, list[Any]] = {}
    for sname, split in splitters.items():
        before_s, before_n = emb.seconds, emb.count
        only_notes = sname.startswith("note ")  # transcripts keep their chunk vector alone
        parts = {cid: emb.many([] if only_notes and c.source != "memory" else split(c.text)) for cid, c in chunks.items()}
        n_parts = sum(len(v) for v in parts.values())
        print(f"  {sname}: {n_parts} parts for {len(chunks)} chunks, {emb.count - before_n} new embedded in "
              f"{emb.seconds - before_s:.1f}s", file=sys.stderr)
        hows = ("max",) if sname.startswith("note ") else ("max", "part", "mean", "derived", "derived, max")
        for how in (("chunk",) if sname == "lines" else ()) + hows:
            scored = []
            for (q, pool), qv in zip(items, qvecs, strict=True):
                _, m = score_pool(rescored(pool, qv, parts, how, chunk_vectors), params, q["targets"])
                assert m is not None
                scored.append((q, m))
            out["chunk vector" if how == "chunk" else f"{sname}, {how}"] = scored
    return out


def cell(items: list[tuple[dict[str, Any], dict[str, float]]], kinds: tuple[str, ...] | None = None) -> str:
    part = [(q, m) for q, m in items if kinds is None or q.get("kind") in kinds]
    s = summarize(part)["all"]
    return f"{s['ndcg@10']:.3f} ({s['recall@5']:.3f})"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=Path, default=xl.HERE.parent.parent.parent / "shared" / "seeds")
    ap.add_argument("--root", type=Path, default=Path("/tmp/locomo-dev"))
    ap.add_argument("--db-dir", type=Path, default=Path("/tmp/memtui-part-vectors"))
    ap.add_argument("--splits", default="lines,runs200,runs400")
    ap.add_argument("--query-form", default="raw", choices=["raw", "content"],
                    help="content: the vector leg embeds the query without its stop words (query-side normalization)")
    args = ap.parse_args()
    args.db_dir.mkdir(parents=True, exist_ok=True)
    every = {"lines": lines, "note lines": lines, "runs200": runs(200), "runs400": runs(400), "runs800": runs(800)}
    splitters = {k: every[k] for k in args.splits.split(",")}
    emb = Embeds()
    facts = xl.load_facts()
    ws = xl.build_workspace(args.db_dir, args.seeds, facts)
    queries = xl.all_queries(xl.HERE / "crosslingual.jsonl", ws, facts)
    xl_items = [(q, p[0]) for q, p in zip(queries, xl.pools("use", ws, args.db_dir, queries), strict=True)]
    form = content_form if args.query_form == "content" else (lambda q: q)
    xl_q = [emb.provider.embed_query(form(p.leg_query or p.query)) for _, p in xl_items]
    print("cross-lingual:", file=sys.stderr)
    reembedded = args.query_form != "raw"
    xl_scores = variants_for(xl_items, emb, splitters, SearchParams(), xl_q, reembedded)
    loc_items = []
    for conv in sorted(p for p in args.root.iterdir() if (p / "workspace").is_dir()):
        cfg = validate({"chunking": {"tokens": 400, "overlap": 80}})
        index = MemoryIndex(index_settings(cfg, conv / "workspace", args.db_dir / f"{conv.name}.sqlite"),
                            provider_name="local")
        try:
            index.sync()
            loc_items += [(q, index.retrieve(q["question"], time_aware=False))
                          for q in load_queries(conv / "queries.jsonl") if q.get("targets")]
        finally:
            index.close()
    loc_q = [emb.provider.embed_query(form(p.leg_query or p.query)) for _, p in loc_items]
    print("LoCoMo:", file=sys.stderr)
    loc_scores = variants_for(loc_items, emb, splitters, replace(SearchParams(), min_score=0.0, max_results=10), loc_q,
                              reembedded)
    rows = []
    for name, items in xl_scores.items():
        rows.append([name, cell(items, ("en-zh",)), cell(items, ("zh-en",)), cell(items, ("en-zh", "zh-en")),
                     cell(items, ("en-en", "zh-zh")), cell(loc_scores[name])])
    header = ["vector score", "EN→ZH", "ZH→EN", "across", "same language", "LoCoMo dev (depth 10)"]
    print(table(rows, header))
    name = "ablate_part_vectors" + ("" if args.query_form == "raw" else f"_{args.query_form}_query")
    print(f"wrote {write_json(name, {'query_form': args.query_form, 'header': header, 'rows': rows})}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
