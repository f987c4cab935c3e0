"""Sessions OpenClaw was told to forget: memtui never indexes, searches or serves them.

`openclaw memory forget --agent ID --session S` deletes the session's chunks from OpenClaw's index
and writes a tombstone into the agent's database (OpenClaw 2026.9, `openclaw-agent.sqlite`):

    memory_session_tombstones(session_id TEXT PRIMARY KEY, agent_id TEXT, reason TEXT, created_at INTEGER)

OpenClaw keys it by (agent id, session id) only (`listMemorySessionTombstones`): its session corpus
drops every entry whose session id is tombstoned, the live transcript in `transcript_events` and the
JSONL archives in the sessions folder (`<id>.jsonl.reset.<ts>`, `<id>.jsonl.deleted.<ts>`) alike,
and it refuses to write chunks of a session tombstoned mid-sync. memtui applies the same rule in
three places, so no path is missed:

* the listing (`listing.list_sources`): a forgotten session is not listed, so a sync drops its
  chunks (`known - listed`), `memory_get` refuses it (it serves only listed files) and OpenClaw's
  index status does not call it "never indexed";
* retrieval (`MemoryIndex.retrieve`): chunks an older sync stored are never returned, even before
  the next sync runs (the TUI or `memtui mcp` may search an index built before the forget);
* the file view (`reading.read_indexed_file`).

The set is read through `openclaw_db.read_consistent` (read-only, no trace) and cached per database
by its stamp, so a search costs one `stat` while nothing changed. When the database cannot be read
now (OpenClaw writing it hard), the last set read is used; with none, `None` says "unknown" and
callers hide every transcript of that agent rather than risk serving a forgotten one.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..settings import IndexSettings

TOMBSTONES_TABLE = "memory_session_tombstones"
JSONL = ".jsonl"

_lock = threading.Lock()
_cache: dict[tuple[str, str], tuple[tuple[int, ...], frozenset[str]]] = {}


def read_tombstones(conn: Any, agent_id: str | None = None) -> frozenset[str]:
    """The session ids tombstoned for `agent_id` (any agent's when None) in an open agent database
    (empty without the table): the one reader of OpenClaw's tombstones in an agent database."""
    from .openclaw_db import table_names

    if TOMBSTONES_TABLE not in table_names(conn):
        return frozenset()
    where, args = ("WHERE agent_id = ?", (agent_id,)) if agent_id is not None else ("", ())
    return frozenset(row[0] for row in conn.execute(
        f"SELECT session_id FROM {TOMBSTONES_TABLE} {where}", args) if isinstance(row[0], str))


def db_stamp(db: Path) -> tuple[int, ...] | None:
    """What changes when OpenClaw writes an agent database (its file or its WAL): a cache key."""
    try:
        st = os.stat(db)
    except OSError:
        return None
    try:
        wal = os.stat(f"{db}-wal")
        wal_stamp: tuple[int, ...] = (wal.st_size, wal.st_mtime_ns)
    except OSError:
        wal_stamp = (-1, -1)
    return (st.st_ino, st.st_size, st.st_mtime_ns, *wal_stamp)


def forgotten_sessions(db: Path | None, agent_id: str | None) -> frozenset[str] | None:
    """The forgotten session ids of `agent_id` in `db`; empty without a database; None when it exists
    but cannot be read now and was never read before (the caller then hides the agent's transcripts)."""
    if db is None or not agent_id:
        return frozenset()
    stamp = db_stamp(db)
    if stamp is None:
        return frozenset()  # no database: no tombstones (OpenClaw has none either)
    key = (str(db), agent_id)
    with _lock:
        cached = _cache.get(key)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    from .openclaw_db import OpenClawDbError, read_consistent

    try:
        ids = read_consistent(db, lambda conn: read_tombstones(conn, agent_id))
    except OpenClawDbError:
        return cached[1] if cached is not None else None
    with _lock:
        _cache[key] = (stamp, ids)
    return ids


def settings_forgotten(settings: IndexSettings) -> frozenset[str] | None:
    """The forgotten sessions of the agent `settings` index: OpenClaw 2026.9 names an agent's
    transcripts `sessions/<agent id>/…` and keeps its tombstones in the transcripts database."""
    prefix = settings.sessions_prefix
    agent_id = prefix.split("/", 1)[1] if prefix.startswith("sessions/") else None
    return forgotten_sessions(settings.transcripts_db, agent_id)


def session_id_of(path: str, prefix: str) -> str | None:
    """The OpenClaw session id a transcript's index path names (`<prefix>/<id>.jsonl`, or an archive
    `<prefix>/<id>.jsonl.reset.<ts>`), or None for a path that is not a transcript of this agent."""
    head = prefix.rstrip("/") + "/"
    if not path.startswith(head):
        return None
    name = path[len(head):]
    if "/" in name or JSONL not in name:
        return None
    return name.split(JSONL, 1)[0] or None


def is_forgotten(path: str, source: str, prefix: str, forgotten: frozenset[str] | None) -> bool:
    """Whether a result or file must not be shown: a transcript of a forgotten session, or any
    transcript of the agent while its tombstones are unknown (`forgotten` None)."""
    if source != "sessions":
        return False
    sid = session_id_of(path, prefix)
    if forgotten is None:
        return sid is not None
    return sid is not None and sid in forgotten
