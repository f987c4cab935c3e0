"""Tune against judgements: the metric of a setting over judged pools, and a cross-validated search.

Each judged question is retrieved once (`JudgedPool`); a setting is scored by re-ranking every pool
with the pure `rank()` — a slider move never touches the database. The metric scores the list the
user is shown: ranked with the setting as given, minScore and maxResults included (a floor that cuts
the right chunk costs, and so do results cut by maxResults), scored to a depth of 10 (with maxResults
6, places 7 to 10 are empty). `memtui eval` scores the same list, so the two agree on one setting.

`suggest` searches weights, MMR (off, or on at a λ), decay (off, or on at a half-life), minScore and
the time mode by coordinate ascent from the current setting, scored by mean nDCG@10. k-fold
cross-validation says how well the *search* generalises: each fold's setting is found on the other
folds and scored on its own, against the current setting on the same held-out queries; the
setting offered is then found on all judged questions. Scores of a (question, setting) pair are
memoised, so folds share the work.
"""

from __future__ import annotations

import statistics
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..search.rank import Pool
from ..search.request import SearchRequest
from ..settings import TIME_MODES, SearchParams
from .evaluation import score_pool
from .judgement_targets import Checked, check_targets, scoring_targets, stale_count
from .judgements import Judgement, Target

if TYPE_CHECKING:
    from ..index import MemoryIndex

DEPTH = 10
OBJECTIVE = "ndcg@10"
SHOWN = ("ndcg@10", "recall@5", "mrr@10")
MIN_JUDGED = 10  # fewer and a fold holds one or two questions: the spread says nothing
MAX_FOLDS = 5
MAX_ROUNDS = 3

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class JudgedPool:
    """One judged question's retrieved pool and the targets it is scored against."""

    qid: str
    question: str
    targets: list[dict[str, Any]]
    pool: Pool  # retrieved with time words read
    plain: Pool | None = None  # a question with time words, retrieved with them off: what time mode "off" searches

    def pool_for(self, params: SearchParams) -> Pool:
        """The pool `memtui eval` and search rank under `params`: time mode "off" searches the words."""
        return self.plain if self.plain is not None and params.time_mode == "off" else self.pool


@dataclass(frozen=True)
class Scores:
    n: int
    ndcg: float
    recall5: float
    mrr: float

    def get(self, metric: str) -> float:
        return {"ndcg@10": self.ndcg, "recall@5": self.recall5, "mrr@10": self.mrr}[metric]


def metric_params(params: SearchParams) -> SearchParams:
    """The setting as the user has it: the metric scores what the user is shown (see the module doc)."""
    return params


def measured_as(params: SearchParams) -> str:
    """What the metric ranks and scores, in words, for the CLI and the app to say with the figures."""
    return (f"ranked as shown (maxResults {params.max_results}, minScore {params.min_score:g}), "
            f"scored to depth {DEPTH}")


def effective_key(params: SearchParams, time_window: bool = True) -> tuple[Any, ...]:
    """Settings that rank the same get the same key: λ without MMR, a half-life without decay, maxResults
    past the metric's depth, the time settings for a question without time words, and weights that
    normalise alike change nothing. Every other field counts, including any added later."""
    d = params.to_dict()
    d["max_results"] = min(DEPTH, params.max_results)
    d["vector_weight"], d["text_weight"] = (round(w, 6) for w in params.weights())
    if not params.mmr:
        d["mmr_lambda"] = None
    if not params.decay:
        d["half_life_days"] = d["decay_evergreen"] = None
    if not time_window:
        d["time_mode"] = d["time_boost"] = d["time_floor"] = None
    return tuple(sorted(d.items()))


class Scorer:
    """Per-question metrics of settings over fixed pools, memoised by (question, effective setting)."""

    def __init__(self, pools: Sequence[JudgedPool]) -> None:
        self.pools = [p for p in pools if p.targets]
        self._memo: dict[tuple[int, tuple[Any, ...]], dict[str, float]] = {}
        self.ranked = 0  # rank() calls made: what the benchmarks count

    @staticmethod
    def keys_of(params: SearchParams) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        """The setting's memo keys for a question without and with time words (index by that bool).
        Made once per setting, not once per question: building a key is a dict of every field, sorted."""
        return effective_key(params, False), effective_key(params, True)

    def of(self, i: int, params: SearchParams, keys: tuple[tuple[Any, ...], tuple[Any, ...]] | None = None
           ) -> dict[str, float]:
        """Question i's metrics under `params`; `keys` is `keys_of(params)` when the caller has it."""
        keys = keys or self.keys_of(params)
        jp = self.pools[i]
        pool = jp.pool_for(params)
        key = (i, keys[pool.time_window is not None])
        found = self._memo.get(key)
        if found is None:
            _, m = score_pool(pool, metric_params(params), jp.targets, DEPTH)
            found = m or dict.fromkeys(SHOWN, 0.0)
            self.ranked += 1
            self._memo[key] = found
        return found

    def mean(self, indexes: Sequence[int], params: SearchParams, metric: str = OBJECTIVE) -> float:
        keys = self.keys_of(params)
        return sum(self.of(i, params, keys)[metric] for i in indexes) / len(indexes) if indexes else 0.0

    def scores(self, params: SearchParams, cancel: threading.Event | None = None) -> Scores | None:
        """The shown metrics over every scored question; None when cancelled or nothing is judged."""
        if not self.pools:
            return None
        totals = dict.fromkeys(SHOWN, 0.0)
        keys = self.keys_of(params)
        for i in range(len(self.pools)):
            if cancel is not None and cancel.is_set():
                return None
            m = self.of(i, params, keys)
            for k in SHOWN:
                totals[k] += m[k]
        n = len(self.pools)
        return Scores(n, totals["ndcg@10"] / n, totals["recall@5"] / n, totals["mrr@10"] / n)


# -- the search space ---------------------------------------------------------------------------------

WEIGHTS = tuple(round(0.1 * i, 1) for i in range(11))  # vector weight; text weight = 1 - it
MMR_LAMBDAS = (0.3, 0.5, 0.7, 0.9)
HALF_LIVES = (7.0, 14.0, 30.0, 90.0, 365.0)
LINE_WEIGHTS = (0.0, 0.25, 0.5, 0.75)  # keyword score's share from the best-matching line (README "Quality")
# how far a chunk repeating lines shown above is pushed down; LoCoMo dev plateaus from 0.25 to 1 (README
# "Quality"), so a question set of one's own may well pick another point of it. A small cost per rank()
OVERLAP_PENALTIES = (0.0, 0.25, 0.5, 1.0)
MIN_SCORES = (0.0, 0.1, 0.2, 0.3, 0.35, 0.45, 0.6)


def dimensions(current: SearchParams, weights: bool = True) -> list[tuple[str, list[SearchParams]]]:
    """Each searched setting with its candidate values applied to `current` (current's own value first).
    `weights` False: the vector/text weights are left as they are (no vectors to weigh)."""
    def variants(changes: list[dict[str, Any]]) -> list[SearchParams]:
        out = [current]
        keys = {effective_key(current)}
        for change in changes:
            p = replace(current, **change)
            if effective_key(p) not in keys:
                keys.add(effective_key(p))
                out.append(p)
        return out

    return [
        ("weights", variants([{"vector_weight": w, "text_weight": round(1 - w, 1)} for w in WEIGHTS] if weights else [])),
        ("line_weight", variants([{"line_weight": w} for w in LINE_WEIGHTS])),
        ("overlap_penalty", variants([{"overlap_penalty": w} for w in OVERLAP_PENALTIES])),
        ("mmr", variants([{"mmr": False}] + [{"mmr": True, "mmr_lambda": lam} for lam in MMR_LAMBDAS])),
        ("decay", variants([{"decay": False}] + [{"decay": True, "half_life_days": h} for h in HALF_LIVES])),
        ("min_score", variants([{"min_score": s} for s in MIN_SCORES])),
        ("time_mode", variants([{"time_mode": m} for m in TIME_MODES])),
    ]


def _search_size(current: SearchParams, weights: bool = True) -> int:
    return sum(len(v) for _, v in dimensions(current, weights)) * MAX_ROUNDS


def vectors_used(pools: Sequence[JudgedPool]) -> bool:
    """Every scored question was retrieved with its vector leg: without it (provider none or failing)
    the weights are meaningless and a minScore found here would not fit hybrid scores."""
    return all(p.pool.mode == "hybrid" for p in pools if p.targets)


KEYWORD_ONLY_NOTE = ("vectors were unavailable (provider none, or it failed): tuned with keywords only, so the "
                     "vector/text weights were not searched and these settings are not fit to save — "
                     "run with a provider (e.g. --provider local) to tune and save")


def coordinate_search(scorer: Scorer, indexes: Sequence[int], start: SearchParams,
                      step: Callable[[], None] = lambda: None, cancel: threading.Event | None = None,
                      weights: bool = True) -> SearchParams:
    """Best setting on `indexes` by coordinate ascent from `start`: each dimension in turn takes its best
    value; a value must beat the one held strictly, so ties keep the start (never a change for nothing)."""
    best, best_score = start, scorer.mean(indexes, start)
    for _ in range(MAX_ROUNDS):
        moved = False
        for _, options in dimensions(best, weights):
            for candidate in options:
                if cancel is not None and cancel.is_set():
                    raise Cancelled
                step()
                score = scorer.mean(indexes, candidate)
                if score > best_score + 1e-9:
                    best, best_score, moved = candidate, score, True
        if not moved:
            break
    return best


class Cancelled(Exception):
    """The search was asked to stop."""


@dataclass(frozen=True)
class NeedMore:
    """Too few judged questions to cross-validate."""

    have: int
    need: int

    @property
    def message(self) -> str:
        more = self.need - self.have
        return (f"{self.have} judged question(s) with a relevant result; a cross-validated suggestion needs "
                f"{self.need} — judge {more} more (mark results relevant in the app, or memtui judgements import FILE)")


@dataclass(frozen=True)
class Suggestion:
    current: SearchParams
    best: SearchParams  # found on every judged question
    folds: int
    n: int
    cv_best: tuple[float, float]  # held-out nDCG@10 of each fold's own setting: mean, spread (stdev)
    cv_current: tuple[float, float]  # held-out nDCG@10 of the current setting on the same folds
    all_best: Scores
    all_current: Scores
    evaluations: int  # rank() calls made
    vectors: bool = True  # False: retrieved without vectors (see KEYWORD_ONLY_NOTE); not to be saved

    @property
    def better(self) -> bool:
        """The search beat the current setting on held-out questions (and found something else)."""
        return self.cv_best[0] > self.cv_current[0] + 1e-9 and effective_key(self.best) != effective_key(self.current)

    def changes(self) -> dict[str, tuple[Any, Any]]:
        return changed_fields(self.current, self.best)

    def to_dict(self) -> dict[str, Any]:
        def cv(pair: tuple[float, float]) -> dict[str, float]:
            return {"mean": round(pair[0], 4), "spread": round(pair[1], 4)}

        def scores(s: Scores) -> dict[str, float]:
            return {k: round(s.get(k), 4) for k in SHOWN}

        return {"judged": self.n, "folds": self.folds, "metric": OBJECTIVE, "better": self.better,
                "current": {"params": self.current.to_dict(), "cv": cv(self.cv_current), "all": scores(self.all_current)},
                "suggested": {"params": self.best.to_dict(), "cv": cv(self.cv_best), "all": scores(self.all_best)},
                "changes": {k: {"from": a, "to": b} for k, (a, b) in self.changes().items()},
                "evaluations": self.evaluations, "vectors": self.vectors, "measured": measured_as(self.current),
                "note": "" if self.vectors else KEYWORD_ONLY_NOTE}


TUNED_FIELDS = ("vector_weight", "text_weight", "line_weight", "overlap_penalty", "mmr", "mmr_lambda", "decay",
                "half_life_days", "min_score", "time_mode")


def changed_fields(old: SearchParams, new: SearchParams) -> dict[str, tuple[Any, Any]]:
    """Only values that differ (the λ or half-life MMR/decay is turned on at is said with the switch,
    by `describe_suggestion`, not listed as "30 → 30")."""
    out = {}
    for name in TUNED_FIELDS:
        a, b = getattr(old, name), getattr(new, name)
        if (name == "mmr_lambda" and not new.mmr) or (name == "half_life_days" and not new.decay):
            continue  # a value that changes nothing is not news
        if a != b:
            out[name] = (a, b)
    return out


def folds_of(n: int, k: int) -> list[list[int]]:
    """k folds of 0..n-1, interleaved (question i goes to fold i mod k): deterministic, sizes within one."""
    return [list(range(f, n, k)) for f in range(k)]


def _spread(values: list[float]) -> float:
    return statistics.stdev(values) if len(values) > 1 else 0.0


def suggest(pools: Sequence[JudgedPool], current: SearchParams, folds: int = MAX_FOLDS,
            progress: Progress | None = None, cancel: threading.Event | None = None) -> Suggestion | NeedMore:
    """Cross-validated coordinate search; NeedMore below MIN_JUDGED scored questions. Raises Cancelled."""
    scorer = Scorer(pools)
    n = len(scorer.pools)
    if n < MIN_JUDGED:
        return NeedMore(n, MIN_JUDGED)
    k = max(2, min(folds, n // 2))
    weights = vectors_used(scorer.pools)
    total = (k + 1) * _search_size(current, weights)
    done = [0]

    def step() -> None:
        done[0] += 1
        if progress is not None and done[0] % 8 == 0:
            progress(min(done[0], total), total)

    held_best: list[float] = []
    held_current: list[float] = []
    every = list(range(n))
    for test in folds_of(n, k):
        train = [i for i in every if i not in set(test)]
        start = done[0]
        found = coordinate_search(scorer, train, current, step, cancel, weights)
        done[0] = start + _search_size(current, weights)  # a search that converged early jumps to its share
        held_best.append(scorer.mean(test, found))
        held_current.append(scorer.mean(test, current))
    best = coordinate_search(scorer, every, current, step, cancel, weights)
    if progress is not None:
        progress(total, total)
    all_best, all_current = scorer.scores(best), scorer.scores(current)
    assert all_best is not None and all_current is not None  # n ≥ MIN_JUDGED questions were scored
    return Suggestion(current, best, k, n, (statistics.fmean(held_best), _spread(held_best)),
                      (statistics.fmean(held_current), _spread(held_current)), all_best, all_current, scorer.ranked,
                      weights)


# -- retrieving the judged questions ----------------------------------------------------------------

@dataclass
class JudgedSet:
    """The judged questions retrieved once: pools to re-rank, and where each target stands now."""

    pools: list[JudgedPool]
    checked: dict[tuple[str, Target], Checked]

    @property
    def stale(self) -> int:
        return stale_count(self.checked)

    @property
    def scored(self) -> int:
        return sum(1 for p in self.pools if p.targets)

    def with_question(self, qid: str, judgement: Judgement | None, pool: Pool | None) -> JudgedSet:
        """This set after question `qid` was (re)judged on `pool`, just retrieved: its targets were
        hashed from the index's text now, so a target not checked before is "ok". None: no marks left."""
        checked = {k: v for k, v in self.checked.items() if k[0] != qid}
        pools = [p for p in self.pools if p.qid != qid]
        if judgement is not None and pool is not None:
            for t in [*judgement.targets, *judgement.not_relevant]:
                checked[(qid, t)] = self.checked.get((qid, t)) or Checked("ok" if t.hash else "unchecked", t)
            pools.append(JudgedPool(qid, judgement.question, scoring_targets(judgement, checked), pool))
        return JudgedSet(pools, checked)


def retrieve_judged(index: MemoryIndex, judgements: Sequence[Judgement], request: SearchRequest | None = None, *,
                    cancel: threading.Event | None = None, progress: Progress | None = None) -> JudgedSet | None:
    """Check every target against the index, then retrieve each question as `request` (the front
    end's, its query replaced) says, with time words on (the time mode is a ranking choice) and, for a
    question that has them, off too (what time mode "off" searches). None when cancelled."""
    request = request or SearchRequest("")
    checked = check_targets(list(judgements), index.reads().chunk_spans)
    pools = []
    for done, j in enumerate(judgements):
        if cancel is not None and cancel.is_set():
            return None
        if progress is not None:
            progress(done, len(judgements))
        targets = scoring_targets(j, checked)
        pool = index.pool_for(replace(request, query=j.question, time_words=True))
        plain = index.pool_for(replace(request, query=j.question, time_words=False)) if pool.time_window is not None else None
        pools.append(JudgedPool(j.qid, j.question, targets, pool, plain))
    return JudgedSet(pools, checked)


FIELD_LABELS = {"vector_weight": "vector weight", "text_weight": "text weight", "line_weight": "line weight",
                "overlap_penalty": "overlap penalty", "mmr": "MMR", "mmr_lambda": "MMR lambda",
                "decay": "decay", "half_life_days": "half-life days", "min_score": "minScore", "time_mode": "time words"}


def format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, float):
        return f"{value:g}" if value >= 2 else f"{value:.2f}"
    return str(value)


def describe_suggestion(s: Suggestion) -> str:
    """The suggestion in plain lines (the CLI prints them; the app's screen shows them)."""
    gain = s.cv_best[0] - s.cv_current[0]
    lines = [f"{s.n} judged questions · {s.folds}-fold cross-validation · nDCG@10 on held-out questions",
             f"  {measured_as(s.current)}",
             f"  current    {s.cv_current[0]:.3f} ± {s.cv_current[1]:.3f}",
             f"  suggested  {s.cv_best[0]:.3f} ± {s.cv_best[1]:.3f}   ({gain:+.3f})"]
    if not s.vectors:
        lines.append(f"Note: {KEYWORD_ONLY_NOTE}.")
    if not s.better:
        lines.append("No setting beat the current one on held-out questions: keep yours.")
        a = s.all_current  # the figures `memtui eval` prints for the same settings
        lines.append(f"All judged: nDCG@10 {a.ndcg:.3f} · recall@5 {a.recall5:.3f} · MRR {a.mrr:.3f}")
        return "\n".join(lines)
    lines.append("Changes:")
    for name, (old, new) in s.changes().items():
        if (name == "mmr_lambda" and "mmr" in s.changes()) or (name == "half_life_days" and "decay" in s.changes()):
            continue  # said on the line that turns MMR or decay on
        at = ""
        if name == "decay" and new:
            at = f" (half-life {format_value(s.best.half_life_days)} days)"
        elif name == "mmr" and new:
            at = f" (λ {format_value(s.best.mmr_lambda)})"
        lines.append(f"  {FIELD_LABELS[name]:15} {format_value(old)} → {format_value(new)}{at}")
    a, b = s.all_current, s.all_best
    lines.append(f"All judged: nDCG@10 {a.ndcg:.3f} → {b.ndcg:.3f} · recall@5 {a.recall5:.3f} → {b.recall5:.3f}"
                 f" · MRR {a.mrr:.3f} → {b.mrr:.3f}")
    return "\n".join(lines)
