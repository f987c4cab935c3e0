"""The searches an OpenClaw agent ran, and what OpenClaw answered: read-only, from OpenClaw's own records.

Two places hold them:

* **Recorded searches** (2026.9): every memory search OpenClaw answers — the agent's `memory_search`
  tool calls and `openclaw memory search` alike — is appended to `<state>/state/openclaw.sqlite`,
  table `plugin_state_entries`, plugin `memory-core`, namespace `memory-host.events`. OpenClaw keys
  each row `<workspace hash>:event:…`, the hash being the first 24 hex digits of the sha256 of the
  agent's workspace path (symlinks resolved, NFC), as its `memoryHostWorkspacePrefix` does: that is
  how an event is tied to an agent. OpenClaw records only the hits from memory files: the dated notes
  in a `memory.recall.recorded` event, the others (MEMORY.md, extra paths) in a `memory.recall.skipped`
  event of the same search, and no transcript hits at all. Both are read and merged.
* **Transcripts** (any version, `recall_transcripts`): the `memory_search` tool calls in the agent's
  transcripts (the 2026.9 agent database's `transcript_events`, and `sessions/*.jsonl`) with the
  tool's answer. Used when the state holds no recorded search for the agent (older installs). A
  forgotten session (`memory_session_tombstones`) is skipped whole: its questions are its text.

Everything read is untrusted: a row of another plugin is never looked at, a query is cut at
MAX_QUERY_CHARS, a path that could leave the workspace (absolute, `..`, control characters) is kept
only to be shown (render.safe) and marked `outside`, never opened or matched. One bad row (not UTF-8,
not JSON, a search without a query, a time no calendar holds) is skipped and counted, never the whole
read: the count is said in one line. A damaged file is one line too, with the rows read before the damage. How memtui ranks the
same question beside OpenClaw's answer is `recall_compare`'s.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..engine.errors import MemtuiError
from ..engine.ingest.openclaw_db import OpenClawDbError, damaged, read_consistent, table_names

MEMORY_CORE_PLUGIN = "memory-core"  # the plugin whose search events OpenClaw records
EVENTS_NAMESPACE = "memory-host.events"
RECORDED, SKIPPED = "memory.recall.recorded", "memory.recall.skipped"
WORKSPACE_HASH_CHARS = 24  # OpenClaw's WORKSPACE_HASH_BYTES (hex characters, despite the name)
MAX_EVENTS = 10_000  # OpenClaw keeps at most this many (MAX_MEMORY_HOST_EVENTS)
MAX_ROW_BYTES = 64 * 1024  # OpenClaw stores at most 8 KiB of event JSON: a bigger row is not OpenClaw's
MAX_QUERY_CHARS = 2048  # OpenClaw's own cut (MAX_MEMORY_HOST_EVENT_TEXT_BYTES)
MAX_PATH_CHARS = 1024
MAX_HITS = 50
# the times a datetime can show (years 1970 to 9999, in ms): a row claiming 1e308 ms is no time at all
MAX_TIME_MS = 253_402_300_799_999.0
MAX_TRANSCRIPT_BYTES = 64 * 1024 * 1024  # a JSONL transcript bigger than this is not read for searches
# a tool call and OpenClaw's record of it are one search when this close: its record follows the answer,
# which on a loaded machine can come long after the call
SAME_SEARCH_MS = 5 * 60 * 1000
MEMORY_SEARCH_TOOLS = ("memory_search", "openclaw:memory-core:memory_search")


class RecallsError(MemtuiError, ValueError):
    """The agent's searches cannot be read; the message says what to do."""


@dataclass(frozen=True, slots=True)
class RecallHit:
    """One hit OpenClaw returned: a place in the workspace, with OpenClaw's score."""

    path: str
    start_line: int
    end_line: int
    score: float | None
    outside: bool = False  # the path could name a file outside the workspace: shown, never opened

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path, "startLine": self.start_line, "endLine": self.end_line,
                               "score": self.score}
        if self.outside:
            out["outside"] = True
        return out


@dataclass(frozen=True, slots=True)
class RecallEvent:
    """One search OpenClaw answered."""

    query: str
    ts_ms: float
    hits: tuple[RecallHit, ...]
    origin: str  # "event" (OpenClaw's record) or "transcript" (a memory_search call in a session)
    session: str = ""  # the transcript's session id, for a transcript recall
    truncated: bool = False  # OpenClaw cut the query or the results when it stored them
    # who answered it: "openclaw" (its memory engine) or "memtui" (its plugin or MCP server answered the
    # agent: core/search_log.py, or a transcript's tool answer that says so); never shown as OpenClaw's
    engine: str = "openclaw"
    front_end: str = ""  # for memtui's answers: "plugin" or "mcp"


@dataclass
class Recall:
    """One query text, however often it was asked: newest first."""

    query: str
    events: list[RecallEvent] = field(default_factory=list)

    @property
    def timestamps(self) -> list[float]:
        return [e.ts_ms for e in self.events]

    @property
    def hits(self) -> tuple[RecallHit, ...]:
        """What OpenClaw answered the last time it was asked."""
        return self.events[0].hits if self.events else ()

    @property
    def engine(self) -> str:
        """Who answered the last time it was asked: "openclaw" or "memtui"."""
        return self.events[0].engine if self.events else "openclaw"

    @property
    def last_ms(self) -> float:
        return self.events[0].ts_ms if self.events else 0.0

    def hit_for(self, path: str, start_line: int, end_line: int) -> tuple[int, RecallHit] | None:
        """OpenClaw's (1-based rank, hit) at exactly these lines, if it returned them."""
        for n, hit in enumerate(self.hits, 1):
            if not hit.outside and (hit.path, hit.start_line, hit.end_line) == (path, start_line, end_line):
                return n, hit
        return None


@dataclass
class RecallSet:
    """An agent's searches, and where they came from."""

    recalls: list[Recall]
    source: str  # "events", "transcripts" or "none"
    notes: list[str] = field(default_factory=list)  # what could not be read, said in one line each

    def by_question(self) -> dict[str, Recall]:
        """Each question's search, OpenClaw's answer first where memtui also answered it (OpenClaw's hits
        are the ones to mark and compare against)."""
        out: dict[str, Recall] = {}
        for r in self.recalls:
            key = normalize_query(r.query)
            if key not in out or (r.engine == "openclaw" and out[key].engine != "openclaw"):
                out[key] = r
        return out


def normalize_query(text: str) -> str:
    """As judgements match questions: whitespace collapsed."""
    return " ".join(text.split())


# -- which agent ----------------------------------------------------------------------------------

def workspace_keys(workspace: str | os.PathLike[str]) -> list[str]:
    """The key prefixes OpenClaw files this workspace's events under (`memoryHostWorkspacePrefix`):
    sha256 of the path with symlinks resolved and NFC-normalised, cut to 24 hex digits; the
    unresolved path's too, for events recorded before a symlink was made."""
    raw = os.path.abspath(os.path.expanduser(os.fspath(workspace)))
    forms = [os.path.realpath(raw), os.path.normpath(raw)]
    keys = []
    for form in forms:
        key = hashlib.sha256(unicodedata.normalize("NFC", form).encode("utf-8", "surrogatepass")).hexdigest()
        if key[:WORKSPACE_HASH_CHARS] not in keys:
            keys.append(key[:WORKSPACE_HASH_CHARS])
    return keys


def state_database(state_dir: str | os.PathLike[str]) -> Path:
    return Path(state_dir) / "state" / "openclaw.sqlite"


# -- values from OpenClaw's rows --------------------------------------------------------------------

_SURROGATE = re.compile("[\ud800-\udfff]")


def _no_surrogates(text: str) -> str:
    """`text` with each lone surrogate (JSON lets `"\\ud800"` through; OpenClaw's cut of a query at a
    byte limit can split an emoji's pair) as U+FFFD: it is no character, and every print or save of
    the string would fail on it."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # in a str a surrogate is always alone: json.loads joins a valid pair
        return _SURROGATE.sub("\ufffd", text)
    return text


def _finite(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def _line(value: Any) -> int | None:
    number = _finite(value)
    if number is None or number < 1 or number > 1 << 31:
        return None
    return int(number)


def path_is_outside(path: str) -> bool:
    """A path OpenClaw returned that could name a file outside the workspace: absolute, with `..`, a
    drive or control characters. OpenClaw's own are relative (`memory/2026-11-22.md`)."""
    if not path or "\x00" in path or any(ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F for ch in path):
        return True
    if path.startswith(("/", "\\", "~")) or (len(path) > 1 and path[1] == ":"):
        return True
    parts = path.replace("\\", "/").split("/")
    return any(part == ".." for part in parts)


def _hit(raw: Any) -> RecallHit | None:
    if not isinstance(raw, dict) or not isinstance(raw.get("path"), str):
        return None
    start, end = _line(raw.get("startLine")), _line(raw.get("endLine"))
    if start is None or end is None or end < start:
        return None
    path = raw["path"][:MAX_PATH_CHARS]
    shown = _no_surrogates(path)
    score = _finite(raw.get("score"))
    # a path with a lone surrogate names no file OpenClaw could have read: shown, never opened
    return RecallHit(shown, start, end, score, shown != path or path_is_outside(path))


def parse_hits(raw: Any) -> list[RecallHit]:
    """The hits of an answer's `results`, at most MAX_HITS; a malformed one is left out."""
    if not isinstance(raw, list):
        return []
    return [h for h in (_hit(item) for item in raw[:MAX_HITS]) if h is not None]


def parse_time_ms(value: Any) -> float | None:
    """An ISO timestamp (OpenClaw's `timestamp`) or epoch milliseconds, as epoch milliseconds; None for
    anything else, a time before 1970 or after 9999 included (1e308 made every later date format fail)."""
    number = _finite(value)
    if number is not None:
        ms = number if number > 1e11 else number * 1000
    elif not isinstance(value, str) or len(value) > 64:
        return None
    else:
        try:
            dt = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
            ms = (dt if dt.tzinfo else dt.replace(tzinfo=UTC)).timestamp() * 1000
        except (ValueError, OverflowError):
            return None
    return ms if 0 <= ms <= MAX_TIME_MS else None


def parse_query(raw: Any) -> str | None:
    """A search's question as shown and matched: cut, whitespace collapsed, secrets masked."""
    if not isinstance(raw, str):
        return None
    from ..engine.redact import redact_secrets

    text = normalize_query(_no_surrogates(raw[:MAX_QUERY_CHARS]))
    # the query is the agent's words: a key it searched for is masked as transcripts are
    return redact_secrets(text) if text else None


class BadRow(ValueError):
    """A `memory-host.events` row that is no event OpenClaw wrote: skipped, and counted."""


def parse_event_row(value_json: Any, created_at: Any = None) -> tuple[str, RecallEvent] | None:
    """One `memory-host.events` row as (event type, event); None for any other kind of event or a
    malformed one."""
    try:
        return event_of_row(value_json, created_at)
    except BadRow:
        return None


def event_of_row(value_json: Any, created_at: Any = None) -> tuple[str, RecallEvent] | None:
    """One `memory-host.events` row as (event type, event); None for an event that is no search (a
    promotion, a dream); BadRow for a row that is not an event as OpenClaw writes them (bytes that are
    not UTF-8, not JSON, a search without a query or with a time no calendar holds)."""
    if isinstance(value_json, bytes):
        try:
            value_json = value_json.decode("utf-8")
        except UnicodeDecodeError:
            raise BadRow("not UTF-8") from None
    if not isinstance(value_json, str) or len(value_json) > MAX_ROW_BYTES:
        raise BadRow("not an event")
    try:
        value = json.loads(value_json)
    except (ValueError, RecursionError):
        raise BadRow("not JSON") from None
    event = value.get("event") if isinstance(value, dict) and value.get("kind") == "event" else None
    if not isinstance(event, dict) or not isinstance(event.get("type"), str):
        raise BadRow("not an event")
    if event["type"] not in (RECORDED, SKIPPED):
        return None
    query = parse_query(event.get("query"))
    if query is None:
        raise BadRow("a search without a query")
    ts = parse_time_ms(event.get("timestamp"))
    if ts is None and event.get("timestamp") is not None:
        raise BadRow("a time no calendar holds")
    if ts is None:
        if isinstance(created_at, bytes):
            created_at = created_at.decode("utf-8", "replace")
        ts = parse_time_ms(value.get("recordedAt")) or parse_time_ms(created_at) or 0.0
    return event["type"], RecallEvent(query, ts, tuple(parse_hits(event.get("results"))), "event",
                                      truncated=event.get("storageTruncated") is True)


# -- recorded searches --------------------------------------------------------------------------------

def read_recorded(state_db: Path, keys: list[str]) -> tuple[list[RecallEvent], str]:
    """The searches recorded for these workspace keys, oldest first, and one line on what could not be
    read: no file or table, rows skipped, a damaged part ("" when every row was read)."""
    if not state_db.is_file():
        return [], f"no recorded searches: {state_db} does not exist (OpenClaw 2026.9 writes it)"

    def read(conn: Any) -> tuple[list[tuple[Any, Any]], str] | None:
        if "plugin_state_entries" not in table_names(conn):
            return None
        conn.text_factory = bytes  # each row decoded on its own: one that is not UTF-8 fails alone
        rows: list[tuple[Any, Any]] = []
        for key in keys:
            try:
                for row in conn.execute(
                        "SELECT value_json, created_at FROM plugin_state_entries WHERE plugin_id = ? AND namespace = ?"
                        " AND entry_key >= ? AND entry_key < ? ORDER BY entry_key LIMIT ?",
                        (MEMORY_CORE_PLUGIN, EVENTS_NAMESPACE, f"{key}:event:", f"{key}:event;", MAX_EVENTS)):
                    rows.append(row)
            except _sqlite_errors() as exc:  # a damaged page: the rows before it are kept, the damage said once
                return rows, damaged_line(state_db, exc)
        return rows, ""

    try:
        read_rows = read_consistent(state_db, read)
    except OpenClawDbError as exc:
        return [], str(exc)
    if read_rows is None:
        return [], f"no recorded searches: {state_db} has no plugin_state_entries table"
    rows, damage = read_rows
    typed: list[tuple[str, RecallEvent]] = []
    bad = 0
    for value, created in rows:
        try:
            found = event_of_row(value, created)
        except BadRow:
            bad += 1
            continue
        if found is not None:
            typed.append(found)
    notes = [damage] if damage else []
    if bad:
        notes.append(f"skipped {bad} recorded {'search' if bad == 1 else 'searches'} in {state_db} that "
                     f"{'is' if bad == 1 else 'are'} not as OpenClaw writes them (not UTF-8, not JSON, no query, "
                     "or an impossible time)")
    return merge_skipped(typed), "; ".join(notes)


def damaged_line(path: Path, exc: BaseException) -> str:
    """One line for a database SQLite finds damaged mid-read (a bit-rotted page), without the row's text."""
    return damaged(path, exc) + "; the searches read before the damaged part are shown"


def _sqlite_errors() -> tuple[type[BaseException], ...]:
    from ..engine.store import detect_backend

    return (detect_backend().module.DatabaseError, UnicodeDecodeError)


def merge_skipped(typed: Iterable[tuple[str, RecallEvent]]) -> list[RecallEvent]:
    """One event per search: a `skipped` event (the hits that are not dated notes) joins the `recorded`
    one of the same query and time, and stands alone when OpenClaw recorded only it (no dated note
    among the hits). Hits in OpenClaw's score order."""
    merged: dict[tuple[str, float], RecallEvent] = {}
    for kind, event in typed:
        key = (event.query, event.ts_ms)
        known = merged.get(key)
        if known is None:
            merged[key] = event
            continue
        if kind == SKIPPED or known.hits != event.hits:
            hits = sorted({*known.hits, *event.hits}, key=lambda h: -(h.score if h.score is not None else -1.0))
            merged[key] = RecallEvent(known.query, known.ts_ms, tuple(hits), "event",
                                      truncated=known.truncated or event.truncated)
    return sorted(merged.values(), key=lambda e: e.ts_ms)


# -- an agent's searches ---------------------------------------------------------------------------------

def group(events: Iterable[RecallEvent], since_ms: float | None = None, limit: int | None = None) -> list[Recall]:
    """Events grouped by query text and by who answered them, newest first (by each group's last time),
    each newest first. A query asked before `memtui connect` (memory-core answered) and after it (memtui
    did) is two groups: memtui's answers neither hide OpenClaw's nor count as OpenClaw's."""
    grouped: dict[tuple[str, str], Recall] = {}
    for event in sorted(events, key=lambda e: e.ts_ms, reverse=True):
        if since_ms is not None and event.ts_ms < since_ms:
            continue
        grouped.setdefault((event.query, event.engine), Recall(event.query)).events.append(event)
    recalls = list(grouped.values())
    return recalls[:limit] if limit is not None else recalls
