"""memtui's own record of the searches it answers to agents.

OpenClaw records only the searches its own memory engine answers, so once memtui answers an agent
(the plugin, `memtui mcp`) nothing would say what the agent asked and what it got. memtui keeps its
own record, in its data folder (never in OpenClaw's files):

    <data dir>/agent-searches/<agent>-<hash of the workspace>.jsonl      (folder 0700, file 0600)

one JSON object per answered search: `{"v": 1, "ts": <epoch ms>, "agent", "frontEnd": "plugin" |
"mcp", "query", "hits": [{"path", "startLine", "endLine", "score", "source"}]}`. The query is masked
as transcripts are (the redactor, then every known secret and key shape); the hits are the gated
answer's, paths masked already. No snippet, no session key. It is bounded: past MAX_BYTES the file is
rewritten with its newest KEEP_RECORDS searches (atomically, under a lock, so two servers appending
at once lose nothing but the trimmed old ones).

`read_searches` turns it back into `RecallEvent`s marked as memtui's answers (`engine="memtui"`), so
the Agent searches screen and `memtui recalls` show them as memtui's, never as OpenClaw's.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import math
import os
import re
import time
from pathlib import Path
from typing import Any

from ..interop.recalls import MAX_HITS, MAX_ROW_BYTES, RecallEvent, parse_hits, parse_query

log = logging.getLogger("memtui.searches")

FOLDER = "agent-searches"
MAX_BYTES = 2 * 1024 * 1024  # the record is trimmed when it grows past this
KEEP_RECORDS = 1000  # what a trim keeps: the newest searches
MAX_READ_BYTES = 4 * MAX_BYTES  # a file larger than this is not ours to have written: not read
_NAME = re.compile(r"[^A-Za-z0-9_-]+")
MAX_TS_MS = 253_402_300_799_000  # 9999-12-31: a later time cannot be shown


def log_path(workspace: Path, agent_id: str | None) -> Path:
    """Where the searches answered over this workspace (for this agent) are recorded."""
    from ..paths import data_dir

    digest = hashlib.sha256(os.path.abspath(workspace).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    name = _NAME.sub("_", agent_id or "workspace")[:64] or "workspace"
    return data_dir() / FOLDER / f"{name}-{digest}.jsonl"


def masked_query(query: str) -> str:
    """The agent's words as the record keeps them: a key it searched for is masked as in transcripts."""
    from ..engine.scrub import mask_output

    shown = parse_query(query)
    return mask_output(shown) if shown else ""


def _open_private(path: Path, flags: int) -> int:
    from ..engine.store import make_private_dirs

    make_private_dirs(path.parent)
    fd = os.open(path, flags | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    os.fchmod(fd, 0o600)
    return fd


def record_search(path: Path, *, agent_id: str | None, front_end: str, query: str, hits: list[dict[str, Any]],
                  now_ms: float | None = None) -> None:
    """Append one answered search; never raises (an answer never fails on its record)."""
    try:
        line = json.dumps({"v": 1, "ts": int(now_ms if now_ms is not None else time.time() * 1000),
                           "agent": agent_id, "frontEnd": front_end, "query": masked_query(query),
                           "hits": [{"path": h["path"], "startLine": h["startLine"], "endLine": h["endLine"],
                                     "score": h.get("score"), "source": h.get("source")} for h in hits[:MAX_HITS]]},
                          ensure_ascii=False)
        fd = _open_private(path, os.O_WRONLY | os.O_APPEND)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            os.write(fd, (line + "\n").encode("utf-8"))
            if os.fstat(fd).st_size > MAX_BYTES:
                _trim(path)
        finally:
            os.close(fd)  # the lock goes with it
    except Exception as exc:  # a full disk, a folder that is not ours: the agent still gets its answer
        log.warning("could not record the search: %s", exc)


def _trim(path: Path) -> None:
    """Keep the newest KEEP_RECORDS lines (called under the record's lock)."""
    with open(path, "rb") as fh:
        lines = fh.read().splitlines()
    kept = b"".join(line + b"\n" for line in lines[-KEEP_RECORDS:] if line.strip())
    temp = path.with_name(path.name + ".trim")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(temp)
    fd = _open_private(temp, os.O_WRONLY | os.O_EXCL)
    try:
        os.write(fd, kept)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(temp, path)


def read_searches(path: Path) -> list[RecallEvent]:
    """The recorded searches, oldest first; a line that is not one of ours is skipped."""
    try:
        if os.path.getsize(path) > MAX_READ_BYTES:
            return []
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError:
        return []
    events = []
    for line in raw.decode("utf-8", errors="replace").splitlines():
        if not line.strip() or len(line) > MAX_ROW_BYTES:
            continue
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if not isinstance(value, dict) or value.get("v") != 1:
            continue
        query = parse_query(value.get("query"))
        ts = value.get("ts")
        if query is None or isinstance(ts, bool) or not isinstance(ts, (int, float)):
            continue
        if not math.isfinite(ts) or not 0 <= ts <= MAX_TS_MS:  # a time that cannot be shown: not ours
            continue
        front = value.get("frontEnd") if value.get("frontEnd") in ("plugin", "mcp") else ""
        events.append(RecallEvent(query, float(ts), tuple(parse_hits(value.get("hits"))), "memtui",
                                  engine="memtui", front_end=str(front)))
    return sorted(events, key=lambda e: e.ts_ms)
