"""Relevance judgements: which chunks answer a question, kept per index as `memtui eval` JSON lines.

One line per judged question, in the format `memtui eval --queries` reads (`qid`, `question`,
`targets` with `path` and `line`), plus what this module adds: each target judged in the app keeps
its chunk's `start_line`/`end_line` and `hash` (sha256 of the chunk text), and `not_relevant` lists
the chunks marked as not answering. Other keys of an imported line (`category`, `answer`) are kept.

The hash is what keeps a judgement honest: after a note is edited, a target whose text is no longer
in the index is *stale* (flagged, left out of every metric) instead of silently pointing at other
text; one whose text moved to other lines is scored at its new place. Imported line targets
(no hash) cannot be checked and are scored as given.

Writes are crash-safe (temp file + fsync + rename, 0600, folders 0700). The file is read line by
line as bytes: a line that does not decode as UTF-8 or parse, or that holds a lone surrogate escape
(`"\\ud800"`: JSON reads it, but no print or save can encode it), is reported (by line number, in one
line for all of them) and written back byte for byte on every save, so nothing a user wrote is lost
and the lines that do read are still used. Every question read from the file is written back, one
with no target left included: only a question a mark of this session created goes with its last mark.

Vetting and merging an import is `judgement_import`'s; checking targets against the index now
(ok, moved, stale) is `judgement_targets`'s.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from ..ingest.regular_file import read_regular
from ..store.files import write_private_atomic
from ..textutil import BOM, has_lone_surrogate, sha256_hex
from .evaluation import check_query

Verdict = Literal["relevant", "not_relevant"]
SUFFIX = ".judgements.jsonl"
_RESERVED = ("qid", "question", "targets", "not_relevant")


def judgements_path(db_path: Path) -> Path:
    """Beside its index (under the data dir's `indexes/` by default): one file per index."""
    return Path(db_path).with_suffix(SUFFIX)


def normalize_question(text: str) -> str:
    """Questions are matched with their whitespace collapsed: `deploy  db ` is `deploy db`."""
    return " ".join(text.split())


def question_id(question: str) -> str:
    return "j-" + sha256_hex(normalize_question(question))[:10]


@dataclass(frozen=True, slots=True)
class Target:
    """A judged place: a chunk (path, its line range, the hash of its text) or an imported line."""

    path: str
    start_line: int
    end_line: int
    hash: str = ""  # sha256 of the chunk's text when judged; "" for an imported {path, line} target
    line: int = 0  # the eval format's line: an imported target's own, a judged chunk's middle line
    evidence: str = ""

    @classmethod
    def of_chunk(cls, path: str, start_line: int, end_line: int, text: str) -> Target:
        # the middle line: with overlapping chunks the first line is often inside the previous chunk too
        return cls(path, start_line, end_line, sha256_hex(text), (start_line + end_line) // 2)

    def matches(self, chunk: Target) -> bool:
        """This judged target is about `chunk` (a result as a chunk target): the same text, or the same
        lines (its text may have changed: see `mark_of`), or, imported, a line inside the chunk."""
        if self.path != chunk.path:
            return False
        if self.hash:
            return self.hash == chunk.hash or (self.start_line, self.end_line) == (chunk.start_line, chunk.end_line)
        return chunk.start_line <= self.line <= chunk.end_line

    def same_place(self, other: Target) -> bool:
        if self.path != other.path:
            return False
        if self.hash and other.hash:
            return self.hash == other.hash or (self.start_line, self.end_line) == (other.start_line, other.end_line)
        return (self.start_line, self.end_line, self.line) == (other.start_line, other.end_line, other.line)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path, "line": self.line}
        if self.hash:
            out.update(start_line=self.start_line, end_line=self.end_line, hash=self.hash)
        if self.evidence:
            out["evidence"] = self.evidence
        return out

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Target:
        line = int(d["line"])
        start, end, digest = d.get("start_line"), d.get("end_line"), d.get("hash")
        anchored = (isinstance(start, int) and isinstance(end, int) and isinstance(digest, str) and digest
                    and 1 <= start <= end)
        evidence = d.get("evidence")
        ev = evidence if isinstance(evidence, str) else ""
        if anchored:
            return cls(str(d["path"]), int(start), int(end), str(digest), line, ev)  # type: ignore[arg-type]
        return cls(str(d["path"]), line, line, "", line, ev)


@dataclass(slots=True)
class Judgement:
    qid: str
    question: str
    targets: list[Target] = field(default_factory=list)
    not_relevant: list[Target] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)  # an imported line's other keys, written back as they were
    # read from the file or an import: the user wrote it, so it stays with no mark left ("targets": [] is a
    # question too); False only for one a mark created, which goes again when that mark is cleared
    written: bool = field(default=False, compare=False)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"qid": self.qid, "question": self.question,
                               "targets": [t.to_json() for t in self.targets]}
        if self.not_relevant:
            out["not_relevant"] = [t.to_json() for t in self.not_relevant]
        out.update({k: v for k, v in self.extra.items() if k not in _RESERVED})
        return out

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Judgement:
        nr = d.get("not_relevant") or []
        return cls(str(d["qid"]), str(d["question"]), [Target.from_json(t) for t in d.get("targets") or []],
                   [Target.from_json(t) for t in nr], {k: v for k, v in d.items() if k not in _RESERVED},
                   written=True)

    def mark_of(self, chunk: Target) -> Verdict | Literal["stale"] | None:
        """How a result (as a chunk target) is judged for this question: "stale" when it was judged at
        these lines on text that has changed since."""
        for verdict, targets in (("relevant", self.targets), ("not_relevant", self.not_relevant)):
            for t in targets:
                if t.matches(chunk):
                    return "stale" if t.hash and t.hash != chunk.hash else verdict  # type: ignore[return-value]
        return None

    def is_empty(self) -> bool:
        return not self.targets and not self.not_relevant


def check_not_relevant(d: dict[str, Any], where: str) -> None:
    nr = d.get("not_relevant")
    if nr is not None:
        check_query({"question": d["question"], "targets": nr}, where)


@dataclass
class Loaded:
    judgements: list[Judgement]
    unreadable: list[bytes]  # raw lines (no newline) that could not be read: written back unchanged on save
    problem: str = ""  # one line for the user, "" when every line was read


def split_lines(data: bytes) -> list[bytes]:
    """Lines on b"\n" only: str.splitlines() also splits on U+2028 and friends, which JSON written
    with ensure_ascii=False may hold inside a string."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return lines


def parse_lines(lines: Iterable[bytes], name: str) -> Loaded:
    judgements: list[Judgement] = []
    bad: list[bytes] = []
    bad_numbers: list[int] = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            text = line.decode("utf-8")
            d = json.loads(text[1:] if n == 1 and text.startswith(BOM) else text)  # a BOM an editor added
            if not isinstance(d, dict) or "qid" not in d or "question" not in d:
                raise ValueError("needs qid and question")
            if has_lone_surrogate(d):  # read, it would crash `judgements list` and every later save
                raise ValueError("holds a lone surrogate escape")
            check_query(d, f"{name}:{n}")
            check_not_relevant(d, f"{name}:{n}")
            judgements.append(Judgement.from_json(d))
        except (ValueError, TypeError, RecursionError):  # UnicodeDecodeError is a ValueError
            bad.append(line)
            bad_numbers.append(n)
    problem = ""
    if bad_numbers:
        shown = ", ".join(map(str, bad_numbers[:5])) + ("…" if len(bad_numbers) > 5 else "")
        problem = (f"{name}: {len(bad_numbers)} line(s) could not be read (line {shown}); they are kept "
                   "as they are and left out — fix or delete them")
    return Loaded(judgements, bad, problem)


class JudgementStore:
    """The judgements of one index. `seed` is read while the file does not exist yet (the demo's
    shipped judgements); the first save writes the user's own copy."""

    def __init__(self, path: Path, seed: Path | None = None) -> None:
        self.path = Path(path)
        self.seed = seed
        self._lock = threading.Lock()
        self._written = -1  # the newest snapshot written: an older one arriving late is dropped
        # The file as this store last read or wrote it. Another process (`memtui judgements import`,
        # a second app) may replace it meanwhile; a caller holding the old list in memory must read
        # it again before saving, or that save drops what the other process stored.
        self._stamp: tuple[int, int, int] | None = None

    def source(self) -> Path | None:
        if self.path.exists():
            return self.path
        return self.seed if self.seed is not None and self.seed.is_file() else None

    def _current_stamp(self) -> tuple[int, int, int] | None:
        try:
            st = self.path.stat()
        except OSError:
            return None
        return st.st_ino, st.st_mtime_ns, st.st_size

    def changed_on_disk(self) -> bool:
        """Whether the file is no longer the one this store last read or wrote (another process wrote it)."""
        with self._lock:
            return self._current_stamp() != self._stamp

    def load(self) -> Loaded:
        with self._lock:
            self._stamp = self._current_stamp()  # before reading: a write after it shows as a change
        src = self.source()
        if src is None:
            return Loaded([], [])
        try:
            data = read_regular(src)  # a FIFO here hung eval, `judgements list` and the app's launch
        except OSError as exc:
            return Loaded([], [], f"cannot read {src}: {exc.strerror or exc}")
        return parse_lines(split_lines(data), str(src))

    def save(self, judgements: list[Judgement], unreadable: Iterable[bytes] = (), snapshot: int | None = None) -> None:
        """Write all judgements (and the unreadable lines as they were) in one atomic rename.

        `snapshot`: a counter the caller increases per change; a write of an older snapshot than the
        newest written is skipped, so saves from worker threads cannot undo a later mark."""
        lines = [_encoded(j) for j in judgements]  # every one: a question with no target is the user's too
        text = b"".join(line + b"\n" for line in [*lines, *unreadable])
        with self._lock:
            if snapshot is not None:
                if snapshot < self._written:
                    return
                self._written = snapshot
            write_private_atomic(self.path, text)
            self._stamp = self._current_stamp()


def _encoded(j: Judgement) -> bytes:
    """One line of UTF-8 JSON. A string that cannot be encoded (a lone surrogate that came in some other
    way than the file, which refuses them) is written as its JSON escape instead of failing the whole
    save; the next load sets that line aside byte for byte, as any unreadable line."""
    data = j.to_json()
    try:
        return json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(data, ensure_ascii=True).encode("ascii")


def set_verdict(judgements: list[Judgement], question: str, target: Target, verdict: Verdict | None) -> list[Judgement]:
    """A new list with `target` marked (or cleared, verdict None) for `question`; a question left
    with no marks goes only if a mark created it (one read from the file or imported stays)."""
    wanted = normalize_question(question)
    out: list[Judgement] = []
    found = False
    for j in judgements:
        if normalize_question(j.question) != wanted:
            out.append(j)
            continue
        found = True
        targets = [t for t in j.targets if not t.matches(target)]
        not_relevant = [t for t in j.not_relevant if not t.matches(target)]
        if verdict == "relevant":
            targets.append(target)
        elif verdict == "not_relevant":
            not_relevant.append(target)
        changed = replace(j, targets=targets, not_relevant=not_relevant)
        if not changed.is_empty() or changed.extra or changed.written:
            out.append(changed)
    if not found and verdict is not None:
        j = Judgement(question_id(wanted), wanted)
        (j.targets if verdict == "relevant" else j.not_relevant).append(target)
        out.append(j)
    return out


def find(judgements: list[Judgement], question: str) -> Judgement | None:
    wanted = normalize_question(question)
    return next((j for j in judgements if normalize_question(j.question) == wanted), None)
