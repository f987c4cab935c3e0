"""Issue #16, measured and not shipped: query-aspect coverage diversification and a learned linear
fusion of per-candidate features, on the LoCoMo dev split, with leave-one-conversation-out.

    python3 bench/eval_locomo.py            # builds the cached indexes in /tmp/locomo-idx first
    nice python3 bench/ablate_learned_fusion.py [--convs conv-26,conv-30] [--rounds 6] [--restarts 3]

Nothing here changes the engine: each question's pool comes from the cached index (time windows off,
like eval_locomo), then it is re-ranked three ways and scored with the engine's scorer rules:

* default: `rank()` with the shipped parameters (must match eval_locomo's "hybrid default" row);
* aspect coverage: the default's greedy placement (score × (1 − overlapPenalty × share of lines
  already shown)) plus a bonus for the question's content words (`extract_keywords`, matched with
  the index's own stemmed FTS5 table) that the candidate holds and no result above it holds —
  added (`+ β · share`) or multiplied (`× (1 + β · share)`), words weighted alike or by IDF;
* learned fusion: a linear score `Σ w_k · feature_k` over what the engine knows about a candidate
  at query time, placed by the same greedy overlap push-down (penalty p also fitted), with weights
  found by coordinate ascent on nDCG@10 (RankLib style: each weight in turn, the best of ±steps,
  until a round gains nothing), started from the default, which this family contains exactly.

"held-out" fits on four conversations and scores the fifth, for each of the five; "fitted on all"
fits on the whole split (optimistic: an upper bound for what the family can do on this split).
"""

from __future__ import annotations

import argparse
import heapq
import math
import sqlite3
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import CATEGORIES, category_cells, table, write_json  # noqa: E402

from openclaw_memtui.core.config import index_settings, validate  # noqa: E402
from openclaw_memtui.engine.index import MemoryIndex  # noqa: E402
from openclaw_memtui.engine.search.query import extract_keywords  # noqa: E402
from openclaw_memtui.engine.search.rank import Candidate, Pool, SearchParams, overlap_fraction, rank  # noqa: E402
from openclaw_memtui.engine.tuning.evaluation import METRICS, hits_of, load_queries, score_hits, summarize  # noqa: E402

BASE = SearchParams(min_score=0.0, max_results=10)
LIMIT = 10
# Per-candidate features available at query time, each roughly in [0, 1].
FEATURES = ("vector", "chunk_bm25", "best_line", "keyword_match", "age", "length", "lines",
            "vector_rr", "keyword_rr", "source_memory")
# The shipped ranking in this family: 0.4 · vector + 0.6 · (0.5 · chunk + 0.5 · line), penalty 0.5.
DEFAULT_W = {"vector": 0.4, "chunk_bm25": 0.3, "best_line": 0.3}
DEFAULT_PENALTY = 0.5
STEPS = (0.4, 0.2, 0.1, 0.05, 0.02, 0.01)
PENALTIES = (0.0, 0.25, 0.5, 0.75, 1.0)
COVERAGE = {  # variant -> (word weights, how the bonus combines, β grid)
    "coverage, words alike, added": ("uniform", "add", (0.005, 0.01, 0.02, 0.05, 0.1)),
    "coverage, IDF-weighted, added": ("idf", "add", (0.005, 0.01, 0.02, 0.05, 0.1)),
    "coverage, IDF-weighted, multiplied": ("idf", "mult", (0.01, 0.02, 0.05, 0.1, 0.2)),
}
IDEAL = [0.0] + [sum(1 / math.log2(i + 1) for i in range(1, k + 1)) for k in range(1, LIMIT + 1)]

Scored = list[tuple[dict[str, Any], dict[str, float]]]


@dataclass
class Question:
    q: dict[str, Any]
    conv: str
    pool: Pool
    feats: np.ndarray  # candidates × FEATURES
    masks: list[int]  # evidence units each candidate covers, as bits (the scorer's hit rule)
    n_units: int
    neighbours: list[list[tuple[int, float]]]  # i -> [(j, share of j's lines that i covers)]
    aspects: np.ndarray  # candidates × question content words, bool
    idf: np.ndarray  # per content word


def features(cands: list[Candidate]) -> np.ndarray:
    """One row per candidate: only what `rank()` could see at query time."""
    dated = [c.ts_ms for c in cands if c.ts_ms is not None]
    newest, oldest = (max(dated), min(dated)) if dated else (0.0, 0.0)
    span = (newest - oldest) or 1.0
    vec_order = sorted((i for i, c in enumerate(cands) if c.vector_score is not None),
                       key=lambda i: -(cands[i].vector_score or 0.0))
    kw_order = sorted((i for i, c in enumerate(cands) if c.text_score > 0), key=lambda i: -cands[i].text_score)
    vec_rr = {i: 1 / (1 + r) for r, i in enumerate(vec_order)}
    kw_rr = {i: 1 / (1 + r) for r, i in enumerate(kw_order)}
    rows = []
    for i, c in enumerate(cands):
        rows.append([c.vector_score or 0.0, c.text_score, c.line_score, float(c.text_score > 0),
                     0.0 if c.ts_ms is None else (newest - c.ts_ms) / span, len(c.text) / 1600,
                     (c.end_line - c.start_line + 1) / 40, vec_rr.get(i, 0.0), kw_rr.get(i, 0.0),
                     float(c.source == "memory")])
    return np.asarray(rows, dtype=np.float64).reshape(len(cands), len(FEATURES))


def unit_masks(cands: list[Candidate], targets: list[dict[str, Any]]) -> tuple[list[int], int]:
    """Bit per evidence unit (alternatives sharing an `evidence` key are one unit), as `score_hits`."""
    units: dict[str, list[tuple[str, int]]] = {}
    for t in targets:
        units.setdefault(t.get("evidence") or f"{t['path']}:{t['line']}", []).append(
            (str(t["path"]).removeprefix("./"), int(t["line"])))
    masks = []
    for c in cands:
        m = 0
        for bit, locs in enumerate(units.values()):
            if any(p == c.path and c.start_line <= line <= c.end_line for p, line in locs):
                m |= 1 << bit
        masks.append(m)
    return masks, len(units)


def neighbours_of(cands: list[Candidate]) -> list[list[tuple[int, float]]]:
    same_file: dict[str, list[int]] = {}
    for i, c in enumerate(cands):
        same_file.setdefault(c.path, []).append(i)
    out: list[list[tuple[int, float]]] = []
    for i, c in enumerate(cands):
        row = []
        for j in same_file[c.path]:
            if j != i and (frac := overlap_fraction(cands[j], c)) > 0:
                row.append((j, frac))
        out.append(row)
    return out


def aspect_matrix(conn: sqlite3.Connection, n_chunks: int, question: str,
                  cands: list[Candidate]) -> tuple[np.ndarray, np.ndarray]:
    """Which of the question's content words each candidate holds, matched by the index's own FTS5
    table (same stemming as the keyword leg), and each word's IDF over the conversation's chunks."""
    cols, idf = [], []
    for word in extract_keywords(question):
        try:
            ids = {r[0] for r in conn.execute("SELECT id FROM chunks_fts WHERE chunks_fts MATCH ?",
                                              ('"' + word.replace('"', "") + '"',))}
        except sqlite3.OperationalError:
            continue
        if not ids:
            continue
        cols.append([c.id in ids for c in cands])
        idf.append(math.log(n_chunks / len(ids)) + 1e-3)
    a = np.asarray(cols, dtype=bool).T if cols else np.zeros((len(cands), 0), dtype=bool)
    return a.reshape(len(cands), len(cols)), np.asarray(idf, dtype=np.float64)


def place(s: Sequence[float], penalty: float, neighbours: list[list[tuple[int, float]]]) -> list[int]:
    """`rank()`'s greedy overlap push-down with a heap: the next result is the highest
    `s − penalty · |s| · share of its lines shown above` (= s · (1 − penalty · share) for s ≥ 0),
    ties to the earlier in score order. Returns the first LIMIT indexes."""
    order = sorted(range(len(s)), key=lambda i: -s[i])  # stable, as rank()
    pos = {i: p for p, i in enumerate(order)}
    heap = [(-s[i], p, i) for p, i in enumerate(order)]  # sorted, hence already a heap
    adj = list(s)
    shown = [0.0] * len(s)
    done = [False] * len(s)
    placed: list[int] = []
    while heap and len(placed) < LIMIT:
        neg, _, i = heapq.heappop(heap)
        if done[i] or -neg != adj[i]:
            continue  # placed already, or a stale entry superseded by a lower one
        done[i] = True
        placed.append(i)
        for j, frac in neighbours[i]:
            if not done[j] and frac > shown[j]:
                shown[j] = frac
                adj[j] = s[j] - penalty * abs(s[j]) * frac
                heapq.heappush(heap, (-adj[j], pos[j], j))
    return placed


def place_covering(s: np.ndarray, penalty: float, qn: Question, weights: str, how: str, beta: float) -> list[int]:
    """As `place`, plus a bonus for question words the candidate holds that no result above holds."""
    n = len(s)
    order = np.argsort(-s, kind="stable")  # work in score order so argmax's first-of-ties matches rank()
    back = {int(i): p for p, i in enumerate(order)}
    ss = s[order]
    a = qn.aspects[order]
    w = np.ones(a.shape[1]) if weights == "uniform" else qn.idf
    total = float(w.sum()) or 1.0
    shown = np.zeros(n)
    open_words = np.ones(a.shape[1], dtype=bool)
    done = np.zeros(n, dtype=bool)
    placed: list[int] = []
    for _ in range(min(LIMIT, n)):
        base = ss - penalty * np.abs(ss) * shown
        gain = (a[:, open_words] @ w[open_words]) / total if a.shape[1] else np.zeros(n)
        val = base + beta * gain if how == "add" else base * (1 + beta * gain)
        val[done] = -np.inf
        p = int(np.argmax(val))
        done[p] = True
        open_words &= ~a[p]
        i = int(order[p])
        placed.append(i)
        for j, frac in qn.neighbours[i]:
            pj = back[j]
            shown[pj] = max(shown[pj], frac)
    return placed


def metrics(placed: list[int], qn: Question) -> dict[str, float]:
    """`score_hits` on precomputed unit bits: the same figures, without building hit dicts."""
    covered, dcg, first = 0, 0.0, 0
    out: dict[str, float] = {}
    for position in range(1, LIMIT + 1):
        if position <= len(placed) and (inside := qn.masks[placed[position - 1]]):
            first = first or position
            if new := inside & ~covered:
                dcg += new.bit_count() / math.log2(position + 1)
                covered |= new
        if position in (1, 5, 10):
            out[f"recall@{position}"] = covered.bit_count() / qn.n_units
    out["mrr@10"] = 1 / first if first else 0.0
    out["ndcg@10"] = min(1.0, dcg / IDEAL[min(qn.n_units, LIMIT)])
    return out


class Linear:
    """Scores every question's pool at once (one matrix product), then places each."""

    def __init__(self, questions: list[Question]) -> None:
        self.questions = questions
        self.all = np.vstack([qn.feats for qn in questions])
        self.bounds = np.cumsum([0] + [len(qn.feats) for qn in questions])

    def scored(self, w: np.ndarray, penalty: float, subset: Sequence[int]) -> Scored:
        s = self.all @ w
        out = []
        for k in subset:
            qn = self.questions[k]
            out.append((qn.q, metrics(place(s[self.bounds[k]:self.bounds[k + 1]].tolist(), penalty, qn.neighbours), qn)))
        return out

    def objective(self, w: np.ndarray, penalty: float, subset: Sequence[int]) -> float:
        items = self.scored(w, penalty, subset)
        return sum(m["ndcg@10"] for _, m in items) / len(items)


def default_weights() -> np.ndarray:
    return np.asarray([DEFAULT_W.get(f, 0.0) for f in FEATURES])


def fit(model: Linear, subset: Sequence[int], active: Sequence[str], rounds: int,
        start: np.ndarray, penalty: float) -> tuple[np.ndarray, float, float]:
    """Coordinate ascent on mean nDCG@10 over `subset`; returns (weights, penalty, objective)."""
    w = start.copy()
    best = model.objective(w, penalty, subset)
    for _ in range(rounds):
        gained = False
        for name in [*active, "penalty"]:
            if name == "penalty":
                trials = [(w, p) for p in PENALTIES if p != penalty]
            else:
                k = FEATURES.index(name)
                trials = []
                for step in STEPS:
                    for sign in (1, -1):
                        t = w.copy()
                        t[k] += sign * step
                        trials.append((t, penalty))
            for tw, tp in trials:
                if (v := model.objective(tw, tp, subset)) > best + 1e-9:
                    best, w, penalty, gained = v, tw, tp, True
        if not gained:
            break
    return w, penalty, best


def held_out_linear(model: Linear, by_conv: dict[str, list[int]], active: Sequence[str], rounds: int,
                    log: Callable[[str], None]) -> tuple[Scored, list[dict[str, Any]]]:
    held: Scored = []
    fits = []
    for conv, idx in by_conv.items():
        train = [k for c, ks in by_conv.items() if c != conv or len(by_conv) == 1 for k in ks]
        w, p, v = fit(model, train, active, rounds, default_weights(), DEFAULT_PENALTY)
        held += model.scored(w, p, idx)
        fits.append({"held_out": conv, "train_ndcg@10": v, "penalty": p, "weights": dict(zip(FEATURES, w.tolist(), strict=True))})
        log(f"  fold {conv}: train {v:.3f}, penalty {p}, " + weights_text(w))
    return held, fits


def pairwise_logistic(model: Linear, subset: Sequence[int], active: Sequence[str], l2: float = 1e-3,
                      iters: int = 300, lr: float = 0.5) -> np.ndarray:
    """RankNet-style linear model: logistic loss on (candidate holding evidence − one without) feature
    differences within each pool, by full-batch gradient descent; the surrogate, not nDCG, is fitted."""
    cols = [FEATURES.index(f) for f in active]
    diffs = []
    for k in subset:
        qn = model.questions[k]
        pos = [i for i, m in enumerate(qn.masks) if m]
        neg = [i for i, m in enumerate(qn.masks) if not m]
        if pos and neg:
            f = qn.feats[:, cols]
            diffs.append((f[pos][:, None, :] - f[neg][None, :, :]).reshape(-1, len(cols)))
    x = np.vstack(diffs)
    w = np.zeros(len(cols))
    for _ in range(iters):
        p = 1 / (1 + np.exp(np.clip(x @ w, -30, 30)))  # P(pair ordered wrong)
        w -= lr * (-(x * p[:, None]).mean(axis=0) + l2 * w)
    full = np.zeros(len(FEATURES))
    full[cols] = w
    return full


def weights_text(w: np.ndarray) -> str:
    return " ".join(f"{f}={x:+.2f}" for f, x in zip(FEATURES, w, strict=True) if abs(x) > 1e-12)


def load(root: Path, db_dir: Path, wanted: set[str]) -> tuple[list[Question], float]:
    questions = []
    feature_seconds = 0.0
    convs = sorted(p for p in root.iterdir() if (p / "workspace").is_dir() and (not wanted or p.name in wanted))
    for conv in convs:
        cfg = validate({"chunking": {"tokens": 400, "overlap": 80}, "query": {"keyword": {"stemming": "porter"}}})
        index = MemoryIndex(index_settings(cfg, conv / "workspace", db_dir / f"{conv.name}-local-400-porter.sqlite"),
                            provider_name="local")
        index.sync()
        conn = index.reader()
        n_chunks = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        for q in load_queries(conv / "queries.jsonl"):
            if not q.get("targets"):
                continue
            pool = index.retrieve(q["question"], time_aware=False)
            cands = pool.candidates
            masks, n_units = unit_masks(cands, q["targets"])
            t = time.perf_counter()
            aspects, idf = aspect_matrix(conn, n_chunks, q["question"], cands)
            feature_seconds += time.perf_counter() - t
            questions.append(Question(q, conv.name, pool, features(cands), masks, n_units, neighbours_of(cands),
                                      aspects, idf))
        index.close()
        print(f"{conv.name}: {n_chunks} chunks", file=sys.stderr)
    return questions, feature_seconds


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default="/tmp/locomo-dev")
    ap.add_argument("--db-dir", default="/tmp/locomo-idx")
    ap.add_argument("--convs", default="", help="comma-separated conversation folders (default: all)")
    ap.add_argument("--rounds", type=int, default=6, help="coordinate-ascent rounds at most")
    ap.add_argument("--restarts", type=int, default=3, help="random starts for the fitted-on-all ceiling")
    args = ap.parse_args()

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    questions, aspect_seconds = load(Path(args.root), Path(args.db_dir), set(filter(None, args.convs.split(","))))
    by_conv: dict[str, list[int]] = {}
    for k, qn in enumerate(questions):
        by_conv.setdefault(qn.conv, []).append(k)
    everything = list(range(len(questions)))
    rows: list[list[str]] = []
    out: dict[str, Any] = {}

    def add(name: str, items: Scored, note: str, extra: dict[str, Any] | None = None) -> None:
        summary = summarize(items)
        rows.append([name, *category_cells(summary), note])
        out[name] = {"summary": summary, **(extra or {})}
        log(f"{name}: {category_cells(summary)[0]}")

    # a. the default, by rank() itself, and by this script's own placement (must agree)
    t = time.perf_counter()
    engine = [(qn.q, m) for qn in questions if (m := score_hits(qn.q["targets"], hits_of(rank(qn.pool, BASE)))) is not None]
    rank_ms = (time.perf_counter() - t) * 1000 / len(questions)
    model = Linear(questions)
    t = time.perf_counter()
    mine = model.scored(default_weights(), DEFAULT_PENALTY, everything)
    linear_ms = (time.perf_counter() - t) * 1000 / len(questions)
    same = all(abs(a[1][k] - b[1][k]) < 1e-9 for a, b in zip(engine, mine, strict=True) for k in METRICS)
    add("default (rank(), shipped parameters)", engine, f"this replay agrees per question: {same}")
    per_conv_default = {c: summarize([engine[k] for k in ks])["all"]["ndcg@10"] for c, ks in by_conv.items()}

    # b. query-aspect coverage: each variant's β held out, and the best fitted on all
    cover: dict[tuple[str, float], list[dict[str, float]]] = {}
    t = time.perf_counter()
    for name, (weights, how, betas) in COVERAGE.items():
        for beta in betas:
            cover[(name, beta)] = []
            for qn in questions:
                s = qn.feats @ default_weights()
                cover[(name, beta)].append(metrics(place_covering(s, DEFAULT_PENALTY, qn, weights, how, beta), qn))
    cover_ms = (time.perf_counter() - t) * 1000 / len(questions) / len(cover)

    def mean(ms: list[dict[str, float]], idx: Sequence[int]) -> float:
        return sum(ms[k]["ndcg@10"] for k in idx) / len(idx)

    cover_out: dict[str, Any] = {}
    for name, (_, _, betas) in [*COVERAGE.items(), ("coverage, any variant", ("", "", ()))]:
        keys = [k for k in cover if k[0] == name] if betas else list(cover)
        held: Scored = []
        picks = []
        for conv, idx in by_conv.items():
            train = [k for c, ks in by_conv.items() if c != conv or len(by_conv) == 1 for k in ks]
            best = max(keys, key=lambda key, train=train: mean(cover[key], train))
            picks.append(best)
            held += [(questions[k].q, cover[best][k]) for k in idx]
        fitted = max(keys, key=lambda key: mean(cover[key], everything))
        cover_out[name] = {"held_out": summarize(held), "picks": picks, "fitted_best": fitted,
                           "fitted": summarize([(qn.q, m) for qn, m in zip(questions, cover[fitted], strict=True)])}
        log(f"{name}: held-out {summarize(held)['all']['ndcg@10']:.3f}, picks {[p[1] for p in picks]}, "
            f"fitted {fitted[1]} {cover_out[name]['fitted']['all']['ndcg@10']:.3f}")
    best_variant = max(COVERAGE, key=lambda n: cover_out[n]["held_out"]["all"]["ndcg@10"])
    bv = cover_out[best_variant]
    rows.append([f"best coverage held-out: {best_variant}", *category_cells(bv["held_out"]),
                 "β picks " + " ".join(f"{p[1]:g}" for p in bv["picks"])])
    rows.append([f"  same, β fitted on all ({bv['fitted_best'][1]:g})", *category_cells(bv["fitted"]), "optimistic"])
    av = cover_out["coverage, any variant"]
    rows.append(["coverage, variant and β held-out", *category_cells(av["held_out"]),
                 "picks " + "; ".join(f"{p[0].removeprefix('coverage, ')} {p[1]:g}" for p in av["picks"])])
    out["coverage"] = cover_out

    # c. learned linear fusion, with and without the source feature
    with_source = list(FEATURES)
    without_source = [f for f in FEATURES if f != "source_memory"]
    t = time.perf_counter()
    for label, active in (("with source", with_source), ("without source", without_source)):
        log(f"learned fusion {label}: held-out")
        held, fits = held_out_linear(model, by_conv, active, args.rounds, log)
        add(f"learned fusion {label}, held-out", held, "", {"folds": fits})
        w, p, v = fit(model, everything, active, args.rounds, default_weights(), DEFAULT_PENALTY)
        add(f"learned fusion {label}, fitted on all", model.scored(w, p, everything), f"p {p}: " + weights_text(w),
            {"weights": dict(zip(FEATURES, w.tolist(), strict=True)), "penalty": p})
    fit_seconds = time.perf_counter() - t

    # a surrogate instead of nDCG: pairwise logistic regression, held-out, default penalty
    for label, active in (("with source", with_source), ("without source", without_source)):
        held = []
        for conv, idx in by_conv.items():
            train = [k for c, ks in by_conv.items() if c != conv or len(by_conv) == 1 for k in ks]
            held += model.scored(pairwise_logistic(model, train, active), DEFAULT_PENALTY, idx)
        w = pairwise_logistic(model, everything, active)
        add(f"pairwise logistic regression {label}, held-out", held, "fitted on all: " + weights_text(w))

    # d. the family's ceiling on this split: the best fitted-on-all fusion from several starts
    rng = np.random.default_rng(16)
    fitted = out["learned fusion with source, fitted on all"]
    best_w = np.asarray([fitted["weights"][f] for f in FEATURES])
    best_p = fitted["penalty"]
    best_v = model.objective(best_w, best_p, everything)
    for r in range(args.restarts):
        start = default_weights() + rng.normal(0.0, 0.2, len(FEATURES))
        w, p, v = fit(model, everything, with_source, args.rounds * 2, start, float(rng.choice(PENALTIES)))
        log(f"  restart {r}: {v:.3f} p {p} " + weights_text(w))
        if v > best_v:
            best_w, best_p, best_v = w, p, v
    add("ceiling: best fitted-on-all fusion (all features, restarts)", model.scored(best_w, best_p, everything),
        f"p {best_p}: " + weights_text(best_w), {"weights": dict(zip(FEATURES, best_w.tolist(), strict=True)),
                                                  "penalty": best_p})

    print(table(rows, ["nDCG@10 (recall@5)", "all", *CATEGORIES, "notes"]))
    per_q_aspect_ms = aspect_seconds * 1000 / len(questions)
    print(f"\nper question: rank() {rank_ms:.2f} ms; linear score + placement {linear_ms:.2f} ms; coverage "
          f"placement {cover_ms:.2f} ms + {per_q_aspect_ms:.2f} ms to match the question's words in FTS5; "
          f"fitting (all folds, both feature sets) {fit_seconds:.0f} s")
    print("default per conversation: " + " ".join(f"{c} {v:.3f}" for c, v in per_conv_default.items()))
    path = write_json("ablate_learned_fusion", {
        "convs": list(by_conv), "features": FEATURES, "rows": out,
        "ms_per_question": {"rank": rank_ms, "linear": linear_ms, "coverage": cover_ms, "aspect_match": per_q_aspect_ms},
        "fit_seconds": fit_seconds, "default_replay_agrees": same})
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
