"""OpenClaw 2026.9's session store, read-only: which session key owns which transcript, who spawned it.

OpenClaw decides which conversations an agent's memory_search may quote by session key
(`tools.sessions.visibility`, core/visibility.py); a search hit names a transcript by session id
(`sessions/<agent>/<id>.jsonl`, or an archive `<id>.jsonl.reset.<ts>`). The agent's database maps one
to the other: `session_nodes` (key, its current session id, `spawned_by`, `parent_session_key`,
status, and the entry JSON with `startedAt`/`endedAt`/`heartbeatIsolatedBaseSessionKey`), and
`session_transcript_archives` (an archive's file name to its session id and key). This module reads
those rows through `openclaw_db.read_consistent` (no trace left, no lock taken) and caches them per
database stamp, so an answer costs one `stat` while nothing changed.

The plugin-state store (`state/openclaw.sqlite`, `plugin_state_entries`) also holds what OpenClaw
recorded about who last wrote a memory file (`core:memory-artifact-provenance`), read here for the
`provenance` of memory hits.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..engine.ingest.forgotten import db_stamp

ARTIFACT_OWNER = "core:memory-artifact-provenance"  # OpenClaw's MEMORY_ARTIFACT_PROVENANCE_OWNER_ID
ARTIFACT_NAMESPACE = "workspace-files"


@dataclass(frozen=True)
class SessionEntry:
    """One row of OpenClaw's session store."""

    key: str
    session_id: str
    spawned_by: str = ""
    parent_session_key: str = ""
    status: str = ""
    started_at: float = 0.0
    ended_at: float = 0.0
    updated_at: float = 0.0
    heartbeat_base: str = ""  # entry.heartbeatIsolatedBaseSessionKey: a heartbeat run's session


@dataclass(frozen=True)
class SessionStore:
    """The store of one agent database: entries by key, archives by file name (id, key)."""

    entries: dict[str, SessionEntry] = field(default_factory=dict)
    archives: dict[str, tuple[str, str]] = field(default_factory=dict)
    readable: bool = True  # False: the database exists but could not be read now


EMPTY = SessionStore()
_lock = threading.Lock()
_cache: dict[str, tuple[tuple[int, ...], SessionStore]] = {}




def _number(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _read(conn: Any) -> SessionStore:
    from ..engine.ingest.openclaw_db import table_names

    tables = table_names(conn)
    entries: dict[str, SessionEntry] = {}
    if "session_nodes" in tables:
        for key, sid, entry_json, spawned, parent, status in conn.execute(
                "SELECT session_key, current_session_id, entry_json, spawned_by, parent_session_key, status "
                "FROM session_nodes"):
            if not isinstance(key, str) or not isinstance(sid, str):
                continue
            try:
                entry = json.loads(entry_json) if isinstance(entry_json, str) else {}
            except ValueError:
                entry = {}
            entry = entry if isinstance(entry, dict) else {}
            entries[key] = SessionEntry(
                key, sid, _text(spawned) or _text(entry.get("spawnedBy")),
                _text(parent) or _text(entry.get("parentSessionKey")), _text(status) or _text(entry.get("status")),
                _number(entry.get("startedAt")), _number(entry.get("endedAt")), _number(entry.get("updatedAt")),
                _text(entry.get("heartbeatIsolatedBaseSessionKey")))
    archives: dict[str, tuple[str, str]] = {}
    if "session_transcript_archives" in tables:
        for name, sid, key in conn.execute(
                "SELECT archive_name, session_id, session_key FROM session_transcript_archives"):
            if isinstance(name, str) and isinstance(sid, str) and isinstance(key, str):
                archives[name] = (sid, key)
    return SessionStore(entries, archives)


def session_store(db: Path | None) -> SessionStore:
    """The session store of an agent database; empty without one; `readable=False` when it exists
    but cannot be read now and was never read (the caller then withholds what it cannot place)."""
    if db is None:
        return EMPTY
    stamp = db_stamp(db)
    if stamp is None:
        return EMPTY
    with _lock:
        cached = _cache.get(str(db))
    if cached is not None and cached[0] == stamp:
        return cached[1]
    from ..engine.ingest.openclaw_db import OpenClawDbError, read_consistent

    try:
        store = read_consistent(db, _read)
    except OpenClawDbError:
        return cached[1] if cached is not None else SessionStore(readable=False)
    with _lock:
        _cache[str(db)] = (stamp, store)
    return store


def workspace_key(workspace: Path) -> str:
    """OpenClaw's `normalizeWorkspaceKey` hashed: sha256 of the workspace's real path."""
    try:
        canonical = os.path.realpath(workspace, strict=True)
    except OSError:
        canonical = os.path.abspath(workspace)
    return hashlib.sha256(canonical.replace("\\", "/").encode("utf-8")).hexdigest()


def recorded_write_origin(state_db: Path | None, workspace: Path, relative_path: str) -> str | None:
    """The origin class OpenClaw recorded for the last write of a memory file ("agent" or
    "untrusted"), or None when it recorded none (or its store cannot be read now)."""
    if state_db is None or not state_db.is_file():
        return None
    wkey = workspace_key(workspace)
    store_key = f"{wkey}:{hashlib.sha256(relative_path.encode('utf-8')).hexdigest()}"
    from ..engine.ingest.openclaw_db import OpenClawDbError, read_consistent, table_names

    def read(conn: Any) -> str | None:
        if "plugin_state_entries" not in table_names(conn):
            return None
        row = conn.execute("SELECT value_json FROM plugin_state_entries WHERE plugin_id = ? AND namespace = ? "
                           "AND entry_key = ?", (ARTIFACT_OWNER, ARTIFACT_NAMESPACE, store_key)).fetchone()
        return row[0] if row and isinstance(row[0], str) else None

    try:
        raw = read_consistent(state_db, read)
    except OpenClawDbError:
        return None
    try:
        value = json.loads(raw) if raw else None
    except ValueError:
        return None
    # OpenClaw's normalizeStoredProvenance: a record for another file, or of another shape, is ignored
    if (not isinstance(value, dict) or value.get("version") != 1 or value.get("workspaceKey") != wkey
            or value.get("relativePath") != relative_path or value.get("originClass") not in ("agent", "untrusted")):
        return None
    return str(value["originClass"])
