"""Importing judgements (`memtui judgements import`): a queries file's lines vetted against the index
before anything is stored, then merged into the judgements stored for it (`judgements`)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from ..textutil import has_lone_surrogate
from .judgement_targets import SpanReader
from .judgements import Judgement, Target, check_not_relevant, normalize_question

MAX_STORED = 10_000  # judged questions per index: every eval/tune/app launch retrieves each one
MAX_LINE = 10_000_000  # a target line beyond this is a typo or garbage, never a note's line


@dataclass
class Vetted:
    """What an import may store, and one line per question skipped or target refused."""

    accepted: list[Judgement]
    skipped: int = 0
    refused: int = 0
    notes: list[str] = field(default_factory=list)


def _target_problem(t: Target, last_line: dict[str, int] | None) -> str:
    """Why a target cannot be stored ("" when it can). `last_line`: each indexed path's last chunked
    line; None when the index is not built (then only what can never be a note is refused)."""
    if any(ord(c) < 32 for c in t.path):
        return "its path holds a control character"
    if t.line > MAX_LINE:
        return f"line {t.line} is not a line of any note"
    if last_line is None:
        return "an absolute path is never a note in the index" if t.path.startswith("/") else ""
    if t.path not in last_line:
        return "not a file in the index (run memtui index first if it is new)"
    if t.line > last_line[t.path]:
        return f"beyond the file (its last indexed line is {last_line[t.path]})"
    return ""


def vet_import(numbered: list[tuple[int, dict[str, Any]]], name: str, existing: list[Judgement],
               read_spans: SpanReader | None) -> Vetted:
    """Check an import before it is stored: targets must be places in the index (`read_spans` None:
    the index is not built, paths are not checked), a question needs a target left, a qid is given to
    one question only (a repeat in the file, or a stored qid on another question, is skipped — the
    first stays: nothing stored is replaced without --replace)."""
    # a path holding a lone surrogate cannot be looked up (SQLite cannot encode it): its question is
    # skipped with a note below, so it is left out of the look-up rather than failing the whole import
    paths = {str(t.get("path", "")) for _, q in numbered for key in ("targets", "not_relevant")
             for t in q.get(key) or [] if isinstance(t, dict) and not has_lone_surrogate(t.get("path"))}
    last_line = None
    if read_spans is not None:
        last_line = {p: max(e for _, e, _ in spans) for p, spans in read_spans(paths).items() if spans}
    stored = {j.qid: normalize_question(j.question) for j in existing}
    seen: dict[str, int] = {}
    out = Vetted([])
    for n, q in numbered:
        where = f"{name}:{n}"
        check_not_relevant(q, where)  # raises ValueError, as a bad `targets` does in load_queries
        if has_lone_surrogate(q):  # eval scores such a question; stored, no save or print could encode it
            out.skipped += 1
            out.notes.append(f"{where}: skipped: it holds a lone surrogate escape (like \\ud800), which is no "
                             "character; fix that line")
            continue
        j = Judgement.from_json(q)
        if j.qid in seen:
            out.skipped += 1
            out.notes.append(f"{where}: qid {j.qid} repeats line {seen[j.qid]}; skipped (the first is kept)")
            continue
        seen[j.qid] = n
        if j.qid in stored and stored[j.qid] != normalize_question(j.question):
            out.skipped += 1
            out.notes.append(f"{where}: qid {j.qid} is already stored for another question; skipped "
                             "(give it another qid, or import with --replace)")
            continue
        kept: dict[str, list[Target]] = {"targets": [], "not_relevant": []}
        for key, targets in (("targets", j.targets), ("not_relevant", j.not_relevant)):
            for t in targets:
                problem = _target_problem(t, last_line)
                if problem:
                    out.refused += 1
                    out.notes.append(f"{where}: target {t.path}:{t.line} refused: {problem}")
                else:
                    kept[key].append(t)
        if not kept["targets"] and not kept["not_relevant"]:
            out.skipped += 1
            had = j.targets or j.not_relevant
            out.notes.append(f"{where}: question {j.qid} skipped: "
                             + ("none of its targets can be stored" if had else "it has no targets"))
            continue
        out.accepted.append(replace(j, targets=kept["targets"], not_relevant=kept["not_relevant"]))
    return out


def merge(existing: list[Judgement], incoming: list[Judgement]) -> tuple[list[Judgement], int, int]:
    """Imported judgements added to the stored ones: a question already stored gains the new targets
    (the same place is not added twice). Returns (merged, questions added, targets added)."""
    out = [replace(j, targets=list(j.targets), not_relevant=list(j.not_relevant)) for j in existing]
    by_question = {normalize_question(j.question): j for j in out}
    added_q = added_t = 0
    for new in incoming:
        key = normalize_question(new.question)
        old = by_question.get(key)
        if old is None:
            copy = replace(new, targets=list(new.targets), not_relevant=list(new.not_relevant))
            out.append(copy)
            by_question[key] = copy
            added_q += 1
            added_t += len(new.targets)
            continue
        for t in new.targets:
            if not any(t.same_place(o) for o in old.targets):
                old.targets.append(t)
                added_t += 1
        for t in new.not_relevant:
            if not any(t.same_place(o) for o in old.not_relevant):
                old.not_relevant.append(t)
        old.extra = {**new.extra, **old.extra}
    return out, added_q, added_t
