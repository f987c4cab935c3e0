"""`provenance` on a memory_search hit, computed as OpenClaw 2026.9.6 computes it.

OpenClaw stores it per chunk when it indexes (`resolveChunkProvenance`,
`dist/manager-index-preparation-*.mjs`) and returns it with each hit: `{originClass, sessionKind,
observedAt}`. The agent is told to weigh `untrusted` text as such.

* A note (`source: memory`): `originClass` from its path (`resolveMemoryPathClassification`,
  `dist/memory-path-provenance-*.mjs`): `MEMORY.md`, `memory.md`, `USER.md`, `users/<id>/USER.md` and
  `memory/**/*.md` are the agent's own ("agent", unless OpenClaw recorded an untrusted write of the
  file: `core:memory-artifact-provenance` in its plugin-state store); `DREAMS.md` and
  `memory/dreaming/…`, `memory/.dreams/…` are "system"; anything else (extra paths) "untrusted".
  `sessionKind` "unknown"; `observedAt` the file's modification time in ms.
* A transcript: each message line is classed (`classifySessionMessageOrigin`,
  `dist/session-provenance-*.mjs`): a user message is "owner" when OpenClaw marked its sender as
  the owner (`__openclaw.senderIsOwner`), "system" for an internal system input, else "untrusted";
  an assistant message inherits its turn's class ("owner" turns give "agent"; a tainted turn is
  "untrusted"). A chunk takes the last of owner, agent, system, untrusted that any of its lines has
  (one untrusted line makes it untrusted); `sessionKind` is the session's (cron, heartbeat,
  subagent, interactive; "unknown" when not one for all lines); `observedAt` its newest message's time.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from ..interop.session_store import SessionStore
from .visibility import keys_of, transcript_identity

_ORDER = ("owner", "agent", "system", "untrusted")
_USERS = re.compile(r"^users/[a-zA-Z0-9][a-zA-Z0-9_-]{0,127}/USER\.md$")
_CRON_RUN = re.compile(r"^cron:[^:]+:run:[^:]+(?::|$)")
DREAMING_PREFIX = "dreaming-narrative-"  # OpenClaw's DREAMING_NARRATIVE_RUN_PREFIX


def note_origin(relative_path: str) -> str:
    """A note's origin class by its workspace-relative path (no recorded write)."""
    segments = relative_path.split("/")
    if (len(segments) == 1 and segments[0] in ("DREAMS.md", "dreams.md")) or (
            segments[0] == "memory" and len(segments) > 1 and segments[1] in ("dreaming", ".dreams")):
        return "system"
    curated = len(segments) == 1 and segments[0] in ("MEMORY.md", "memory.md", "USER.md")
    if curated or _USERS.match(relative_path) or (segments[0] == "memory" and segments[-1].endswith(".md")):
        return "agent"
    return "untrusted"


def note_provenance(relative_path: str, absolute: Path, recorded: str | None) -> dict[str, Any]:
    origin = note_origin(relative_path)
    if origin == "agent" and recorded is not None:
        origin = recorded
    try:
        observed = max(0, int(os.stat(absolute).st_mtime_ns // 1_000_000))
    except OSError:
        observed = 0
    return {"originClass": origin, "sessionKind": "unknown", "observedAt": observed}


def session_kind(path: str, store: SessionStore) -> str:
    """The kind of session a transcript is (OpenClaw's `classifySessionEntry`), "unknown" when the
    store does not know it."""
    identity = transcript_identity(path)
    if identity is None:
        return "unknown"
    for key in keys_of(identity, store):
        entry = store.entries.get(key)
        rest = key.split(":", 2)[2] if key.startswith("agent:") and key.count(":") >= 2 else key
        if _CRON_RUN.match(rest):
            return "cron"
        if entry is not None and entry.heartbeat_base:
            return "heartbeat"
        if rest.startswith(DREAMING_PREFIX) or (entry is not None and entry.spawned_by) or ":subagent:" in key:
            return "subagent"
        return "interactive"
    return "unknown"


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def message_origins(jsonl: str) -> dict[int, tuple[str, float]]:
    """For each JSONL line (1-based) holding a user or assistant message: (origin class, time in ms)."""
    from ..engine.ingest.transcripts import parse_timestamp_ms

    out: dict[int, tuple[str, float]] = {}
    turn = "untrusted"
    for number, line in enumerate(jsonl.split("\n"), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if not isinstance(record, dict) or record.get("type") != "message":
            continue
        message = _dict(record.get("message"))
        role = message.get("role")
        if role not in ("user", "assistant"):
            continue
        marks = _dict(message.get("__openclaw"))
        if role == "assistant":
            origin = "untrusted" if marks.get("turnTainted") is True else ("agent" if turn == "owner" else turn)
        elif _dict(message.get("provenance")).get("kind") == "internal_system":
            origin = turn = "system"
        else:
            origin = turn = "owner" if marks.get("senderIsOwner") is True else "untrusted"
        # OpenClaw's parseSessionTimestampMs: the message's own time first, then the record's
        stamp = parse_timestamp_ms(message.get("timestamp")) or parse_timestamp_ms(record.get("timestamp"))
        out[number] = (origin, stamp)
    return out


def transcript_provenance(origins: dict[int, tuple[str, float]], start: int, end: int, kind: str,
                          fallback_ms: float) -> dict[str, Any]:
    """A transcript chunk's provenance from its lines' classes (`resolveChunkProvenance`)."""
    lines = [origins[n] for n in range(start, end + 1) if n in origins]
    if not lines:
        return {"originClass": "untrusted", "sessionKind": kind, "observedAt": max(0, int(fallback_ms))}
    present = {origin for origin, _ in lines}
    origin = next(o for o in reversed(_ORDER) if o in present)
    observed = max(int(ms) if ms else int(fallback_ms) for _, ms in lines)
    return {"originClass": origin, "sessionKind": kind, "observedAt": max(0, observed)}
