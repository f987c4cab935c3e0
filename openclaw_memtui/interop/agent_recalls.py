"""An agent's searches from both places OpenClaw leaves them: its records of them (`recalls`) and the
memory_search calls in its transcripts that it left unrecorded (`recall_transcripts`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..engine.ingest.openclaw_db import OpenClawDbError
from .recall_transcripts import read_transcript_db, read_transcript_files
from .recalls import SAME_SEARCH_MS, RecallEvent, RecallSet, group, read_recorded, state_database, workspace_keys


def agent_recalls(agent: Any, state_dir: str | os.PathLike[str], since_ms: float | None = None,
                  limit: int | None = None) -> RecallSet:
    """The searches of `agent` (interop.agents.Agent): OpenClaw's records of them, and the memory_search
    calls in its transcripts that OpenClaw left unrecorded (older installs record none; 2026.9.6 under
    load missed some: it records after answering)."""
    notes: list[str] = []
    state_db = state_database(state_dir)
    events, note = read_recorded(state_db, workspace_keys(agent.workspace))
    if note and state_db.is_file():
        notes.append(note)

    transcript_events: list[RecallEvent] = []
    forgotten: set[str] = set()
    db = Path(agent.transcripts_db) if getattr(agent, "transcripts_db", "") else None
    if db is not None and db.is_file():
        try:
            transcript_events, forgotten = read_transcript_db(db)
        except OpenClawDbError as exc:
            notes.append(str(exc))
    transcript_events += read_transcript_files(Path(agent.sessions_dir), forgotten)
    unrecorded = [t for t in transcript_events if not any(
        e.query == t.query and abs(e.ts_ms - t.ts_ms) <= SAME_SEARCH_MS for e in events)]
    source = "+".join(name for name, found in (("events", events), ("transcripts", unrecorded)) if found) or "none"
    return RecallSet(group([*events, *unrecorded], since_ms, limit), source, notes)
