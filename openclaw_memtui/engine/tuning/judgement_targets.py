"""Judged targets against the index now: each hashed target is ok, moved (its text at other lines) or
stale (its text gone), so a metric scores a judgement where its text is and leaves a stale one out."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Literal

from .judgements import Judgement, Target

TargetState = Literal["ok", "moved", "stale", "unchecked"]
Span = tuple[int, int, str]  # start_line, end_line, hash of a chunk in the index now
SpanReader = Callable[[set[str]], dict[str, list[Span]]]


@dataclass(frozen=True)
class Checked:
    """Where a target stands against the index now; `target` is where to score it (moved: new lines)."""

    state: TargetState
    target: Target


def check_targets(judgements: list[Judgement], read_spans: SpanReader) -> dict[tuple[str, Target], Checked]:
    """Each hashed target against the chunks its file has now: ok (same text at the same lines),
    moved (same text at other lines), stale (its text is gone). Keyed by (qid, target)."""
    paths = {t.path for j in judgements for t in [*j.targets, *j.not_relevant] if t.hash}
    spans = read_spans(paths) if paths else {}
    out: dict[tuple[str, Target], Checked] = {}
    for j in judgements:
        for t in [*j.targets, *j.not_relevant]:
            if not t.hash:
                out[(j.qid, t)] = Checked("unchecked", t)
                continue
            now = spans.get(t.path, [])
            if any((s, e, h) == (t.start_line, t.end_line, t.hash) for s, e, h in now):
                out[(j.qid, t)] = Checked("ok", t)
                continue
            same_text = [(s, e) for s, e, h in now if h == t.hash]
            if same_text:
                s, e = min(same_text, key=lambda se: abs(se[0] - t.start_line))
                out[(j.qid, t)] = Checked("moved", replace(t, start_line=s, end_line=e, line=(s + e) // 2))
            else:
                out[(j.qid, t)] = Checked("stale", t)
    return out


def scoring_targets(j: Judgement, checked: dict[tuple[str, Target], Checked]) -> list[dict[str, Any]]:
    """The targets `score_hits` takes for `j`: stale ones left out, moved ones at their new lines."""
    out = []
    for t in j.targets:
        c = checked.get((j.qid, t))
        if c is not None and c.state == "stale":
            continue
        place = c.target if c is not None else t
        out.append({"path": place.path, "line": place.line, **({"evidence": place.evidence} if place.evidence else {})})
    return out


def stale_count(checked: dict[tuple[str, Target], Checked]) -> int:
    return sum(1 for c in checked.values() if c.state == "stale")


def as_queries(judgements: list[Judgement], checked: dict[tuple[str, Target], Checked]) -> list[dict[str, Any]]:
    """The judgements as `memtui eval` queries; a question whose every target is stale has none."""
    return [{**j.extra, "qid": j.qid, "question": j.question, "targets": scoring_targets(j, checked)}
            for j in judgements]
