"""Inspect OpenClaw's own SQLite index without leaving a trace, and compare it with the disk.

Both layouts are read: the legacy builtin index (`meta`, `files`, `chunks`) and OpenClaw 2026.9's
agent database (`memory_index_meta`, `memory_index_sources`, `memory_index_chunks`, plus the live
transcripts in `transcript_events`). The file is read through `engine.ingest.openclaw_db.read_consistent`:
an `immutable` open when the WAL is empty, else a private copy, so OpenClaw's database, WAL and
`-shm` keep their bytes and mtimes and no file is created beside them (tested).

Staleness, by OpenClaw's own rules:
* a memory file is changed when the sha256 of its text differs from the stored hash;
* a JSONL transcript when its size or mtime moved (OpenClaw's transcript hash depends on its
  redactor, so it is not recomputed);
* a 2026.9 live transcript when its size or revision (`session_windows.transcript_updated_at`,
  the `sqlite:<revision>:` prefix of the stored hash) moved.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ..engine.ingest.forgotten import TOMBSTONES_TABLE, session_id_of
from ..engine.ingest.openclaw_db import OpenClawDbError, SessionStat, list_sessions, read_consistent, schema_meta, table_names
from ..engine.ingest.regular_file import open_regular
from ..engine.ingest.sources import list_memory_files, list_session_files
from ..engine.textutil import sha256_hex
from .agents import LEGACY_LAYOUT, NEW_LAYOUT, ROOT_FILES, Agent, OpenClawError
from .openclaw_scope import scope_changed

META_KEY = "memory_index_meta_v1"
META_FIELDS = ("model", "provider", "chunkTokens", "chunkOverlap", "chunkingVersion", "vectorDims", "ftsTokenizer",
               "sources")
# (meta table, files table, chunks table) of each layout
TABLES = {NEW_LAYOUT: ("memory_index_meta", "memory_index_sources", "memory_index_chunks"),
          LEGACY_LAYOUT: ("meta", "files", "chunks")}


def _snapshot(conn: Any, path: Path) -> dict[str, Any]:
    """Everything the report needs, read in one go from one consistent view."""
    tables = table_names(conn)
    if "memory_index_sources" in tables:
        layout = NEW_LAYOUT
    elif {"meta", "files", "chunks"} <= tables:
        layout = LEGACY_LAYOUT
    elif "transcript_events" in tables:  # an agent database whose memory index was never built
        layout = NEW_LAYOUT
    else:
        raise OpenClawError(f"{path} is not an OpenClaw memory index (no memory_index_sources or files/chunks tables)")
    meta_table, files_table, chunks_table = TABLES[layout]
    meta: dict[str, Any] = {}
    files: dict[str, tuple[str, str, float, int]] = {}
    per_source: dict[str, dict[str, int]] = {}
    if files_table in tables:
        row = conn.execute(f"SELECT value FROM {meta_table} WHERE key = ?", (META_KEY,)).fetchone()
        if row:
            try:
                meta = json.loads(row[0])
            except ValueError:
                raise OpenClawError(f"{path}: the index meta row is not valid JSON "
                                    "(written by an unknown OpenClaw version)") from None
        columns = {r[1] for r in conn.execute(f"PRAGMA table_info({files_table})")}
        source_col = "source" if "source" in columns else "'memory'"
        for rel, source, digest, mtime, size in conn.execute(
                f"SELECT path, {source_col}, hash, mtime, size FROM {files_table}"):
            files[rel] = (source, digest, mtime, size)
            per_source.setdefault(source, {"files": 0, "chunks": 0})["files"] += 1
        chunk_cols = {r[1] for r in conn.execute(f"PRAGMA table_info({chunks_table})")}
        group = "source" if "source" in chunk_cols else "'memory'"
        for source, count in conn.execute(f"SELECT {group}, count(*) FROM {chunks_table} GROUP BY 1"):
            per_source.setdefault(source, {"files": 0, "chunks": 0})["chunks"] = count
    tombstones: set[tuple[str, str]] = set()
    if TOMBSTONES_TABLE in tables:
        tombstones = {(str(agent), str(sid)) for sid, agent in conn.execute(
            f"SELECT session_id, agent_id FROM {TOMBSTONES_TABLE}")}
    return {"layout": layout, "meta": meta if isinstance(meta, dict) else {}, "files": files, "sources": per_source,
            "schema": schema_meta(conn), "sessions": list_sessions(conn), "built": files_table in tables,
            "tombstones": tombstones}


def inspect_openclaw_index(path: Path, agent: Agent | None = None, workspace: Path | None = None) -> dict[str, Any]:
    """OpenClaw's index for `agent` (or the file at `path`): meta, counts and, given a workspace, what is stale."""
    path = Path(path)
    if not path.is_file():
        # the agent's own id in the commands: "--agent ID" left the reader to work out which
        hint = "has the agent run `openclaw memory index`?" if agent is None or agent.layout == LEGACY_LAYOUT else \
            f"has OpenClaw run this agent yet? `openclaw memory index --agent {agent.id}` builds it"
        raise OpenClawError(f"no OpenClaw index at {path} ({hint})")
    try:
        snap = read_consistent(path, lambda conn: _snapshot(conn, path))
    except OpenClawDbError as exc:
        raise OpenClawError(str(exc)) from None
    meta = snap["meta"]
    report: dict[str, Any] = {
        "index_path": str(path),
        "layout": snap["layout"],
        "openclaw_version": snap["schema"].get("app_version"),
        "schema_version": snap["schema"].get("schema_version"),
        "built": snap["built"],
        "meta": {k: meta.get(k) for k in META_FIELDS},
        "sources": snap["sources"],
        "files": len(snap["files"]),
        "chunks": sum(v["chunks"] for v in snap["sources"].values()),
        "live_sessions": len(snap["sessions"]),
    }
    if workspace is None and agent is not None and Path(agent.workspace).is_dir():
        workspace = Path(agent.workspace)
    if workspace is not None:
        report.update(_compare(snap, workspace, agent))
    return report


def _compare(snap: dict[str, Any], workspace: Path, agent: Agent | None) -> dict[str, Any]:
    layout = snap["layout"]
    files: dict[str, tuple[str, str, float, int]] = snap["files"]
    indexed_sources = snap["meta"].get("sources") or (agent.sources if agent else ["memory"])
    extra = list(agent.memory_search.get("extraPaths") or []) if agent else []
    patterns = tuple((p, g) for p, g in agent.memory_search.get("extraPathPatterns") or []) if agent else ()
    on_disk = {sf.path: sf for sf in list_memory_files(workspace, extra, root_files=ROOT_FILES[layout], patterns=patterns)}
    sessions: dict[str, SessionStat] = {}
    if "sessions" in indexed_sources and agent is not None:
        prefix = agent.sessions_prefix
        on_disk.update({sf.path: sf for sf in list_session_files(Path(agent.sessions_dir), prefix=prefix)})
        if layout == NEW_LAYOUT:
            sessions = {f"{prefix}/{s.session_id}.jsonl": s for s in snap["sessions"]}
    # sessions OpenClaw was told to forget: it never indexes them again, so they are neither "never
    # indexed" nor stale; listed apart, so the user sees memtui knows of the forget
    forgotten: list[str] = []
    if agent is not None and snap["tombstones"]:
        forgot = {sid for owner, sid in snap["tombstones"] if owner == agent.id}
        for rel in sorted({*on_disk, *sessions}):
            sid = session_id_of(rel, agent.sessions_prefix)
            if sid is not None and sid in forgot:
                forgotten.append(rel)
                on_disk.pop(rel, None)
                sessions.pop(rel, None)
    changed, never = [], []
    for rel in sorted([*on_disk, *sessions]):
        row = files.get(rel)
        if row is None:
            never.append(rel)
        elif _is_changed(row, on_disk.get(rel), sessions.get(rel)):
            changed.append(rel)
    gone = sorted(set(files) - set(on_disk) - set(sessions) - set(forgotten))
    scope_changed = _scope_changed(snap, workspace, agent)
    return {"changed_since_indexed": changed, "not_indexed": never, "indexed_but_missing": gone, "forgotten": forgotten,
            "scope_changed": scope_changed, "stale": bool(changed or never or gone or scope_changed)}


def _scope_changed(snap: dict[str, Any], workspace: Path, agent: Agent | None) -> bool | None:
    """Whether OpenClaw 2026.9 finds its index built for other extra paths or multimodal settings
    (it then reports it mismatched and rebuilds it); None when that cannot be told."""
    stored = snap["meta"].get("scopeHash")
    if snap["layout"] != NEW_LAYOUT or agent is None or not agent.scope or not isinstance(stored, str):
        return None
    return scope_changed(stored, str(workspace), agent.scope)


def _is_changed(row: tuple[str, str, float, int], sf: Any, session: SessionStat | None) -> bool:
    source, digest, mtime, size = row
    if session is not None:
        revision = f"sqlite:{int(session.revision_ms)}:"
        return int(size) != session.size or not str(digest).startswith(revision)
    try:
        st = os.stat(sf.abs_path)
        if sf.source == "sessions":
            return int(size) != st.st_size or abs(float(mtime) - st.st_mtime_ns / 1e6) > 1
        with open_regular(sf.abs_path) as fh:  # never blocks on a FIFO; one counts as changed
            text = fh.read().decode("utf-8", errors="replace")
        return sha256_hex(text) != digest
    except OSError:
        return True
