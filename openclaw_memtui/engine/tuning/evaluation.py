"""Retrieval metrics for judged queries: recall@1/5/10, MRR@10, nDCG@10 (the LoCoMo eval's rules).

A hit covers a target when the paths match and start_line ≤ line ≤ end_line. Targets sharing an
`evidence` key are alternatives: covering any one covers that evidence unit.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..search.rank import Pool, Result, SearchParams, rank

KS = (1, 5, 10)
CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
METRICS = ("recall@1", "recall@5", "recall@10", "mrr@10", "ndcg@10")


def check_query(q: dict[str, Any], where: str) -> None:
    """Types the scorer relies on: a wrong one used to surface mid-run as Python's own error text."""
    if not isinstance(q["question"], str):
        raise ValueError(f"{where}: 'question' must be a string")
    targets = q.get("targets")
    if targets is None:
        return
    if not isinstance(targets, list):
        raise ValueError(f"{where}: 'targets' must be a list")
    for i, t in enumerate(targets):
        ok = (isinstance(t, dict) and isinstance(t.get("path"), str) and isinstance(t.get("line"), int)
              and not isinstance(t.get("line"), bool) and t["line"] >= 1)
        if not ok:
            raise ValueError(f"{where}: targets[{i}] must be {{\"path\": string, \"line\": whole number ≥ 1}}")


def load_queries(path: Path) -> list[dict[str, Any]]:
    return [q for _, q in load_numbered_queries(path)]


def load_numbered_queries(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """Each query with its line number (for messages that point at the line)."""
    try:
        return _load_queries(path)
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not valid UTF-8; save it as UTF-8 JSON lines") from None


def _load_queries(path: Path) -> list[tuple[int, dict[str, Any]]]:
    queries = []
    # utf-8-sig: a byte order mark before the first line (Windows editors add one) is not part of the JSON
    with open(path, encoding="utf-8-sig") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                q = json.loads(line)
            except (ValueError, RecursionError):  # RecursionError: nested too deeply for the parser
                raise ValueError(f"{path}:{n} is not valid JSON; each line must be one query object") from None
            if not isinstance(q, dict) or "qid" not in q or "question" not in q:
                raise ValueError(f"{path}:{n} needs at least 'qid' and 'question'")
            check_query(q, f"{path}:{n}")
            queries.append((n, q))
    return queries


def _units(targets: list[dict[str, Any]]) -> dict[str, list[tuple[str, int]]]:
    units: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for t in targets:
        key = t.get("evidence") or f"{t['path']}:{t['line']}"
        # only a leading "./" goes: lstrip("./") also ate the "../" of an extra path outside the workspace
        units[key].append((str(t["path"]).removeprefix("./"), int(t["line"])))
    return units


def score_hits(targets: list[dict[str, Any]], hits: list[dict[str, Any]], depth: int = 10) -> dict[str, float] | None:
    units = _units(targets)
    if not units:
        return None
    covered: set[str] = set()
    first = None
    dcg = 0.0
    out: dict[str, float] = {}
    for position in range(1, depth + 1):
        if position <= len(hits):
            h = hits[position - 1]
            s, e = int(h["start_line"]), int(h["end_line"])
            inside = {key for key, locs in units.items() for p, line in locs if p == h["path"] and s <= line <= e}
            if inside and first is None:
                first = position
            new = inside - covered
            dcg += len(new) / math.log2(position + 1)
            covered |= new
        if position in KS:
            out[f"recall@{position}"] = len(covered) / len(units)
    ideal = sum(1 / math.log2(i + 1) for i in range(1, min(len(units), depth) + 1))
    out["mrr@10"] = 1 / first if first else 0.0
    out["ndcg@10"] = min(1.0, dcg / ideal)
    return out


def hits_of(results: Iterable[Result]) -> list[dict[str, Any]]:
    """The located hits of ranked results, as the scorer and an eval's results file take them."""
    return [{"path": r.path, "start_line": r.start_line, "end_line": r.end_line} for r in results]


def score_pool(pool: Pool, params: SearchParams, targets: list[dict[str, Any]] | None,
               depth: int = 10) -> tuple[list[dict[str, Any]], dict[str, float] | None]:
    """Rank a retrieved pool and score it against a query's targets: the one retrieve → rank → score
    step of `memtui eval` and the benchmarks. Returns (hits, metrics or None without targets)."""
    hits = hits_of(rank(pool, params))
    return hits, score_hits(targets or [], hits, depth)


def summarize(per_query: list[tuple[dict[str, Any], dict[str, float]]]) -> dict[str, dict[str, float]]:
    groups: dict[str, list[dict[str, float]]] = defaultdict(list)
    for q, m in per_query:
        groups["all"].append(m)
        cat = q.get("category")
        if cat is not None:
            groups[category_group(cat)].append(m)
    return {g: {"n": len(ms), **{k: sum(m[k] for m in ms) / len(ms) for k in METRICS}}
            for g, ms in sorted(groups.items(), key=lambda kv: (kv[0] != "all", kv[0]))}


def category_group(cat: object) -> str:
    """The table row of a query's `category`: LoCoMo's numbers (1, "1", 1.0) get their names; anything
    else ("multi-hop", a list) is a row of its own, as written (int() of it stopped the whole eval)."""
    number: int | None = None
    if isinstance(cat, int) and not isinstance(cat, bool):
        number = cat
    elif (isinstance(cat, float) and cat.is_integer()) or (isinstance(cat, str) and cat.strip().isdecimal()):
        number = int(cat)
    name = CATEGORY_NAMES.get(number, "") if number is not None else ""
    return f"{cat} {name}".strip()


def format_table(summary: dict[str, dict[str, float]]) -> str:
    lines = ["| group | n | " + " | ".join(METRICS) + " |", "|---" * (len(METRICS) + 2) + "|"]
    for g, row in summary.items():
        lines.append(f"| {g} | {int(row['n'])} | " + " | ".join(f"{row[k]:.3f}" for k in METRICS) + " |")
    return "\n".join(lines)
