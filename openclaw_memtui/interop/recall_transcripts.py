"""The memory_search calls in an OpenClaw agent's transcripts, with the tool's answer: the record of
its searches where OpenClaw's state holds none (older installs), or missed some (see `recalls`).

Read-only: the 2026.9 agent database's `transcript_events` and `sessions/*.jsonl` (regular files,
never followed out of the folder). A forgotten session (`memory_session_tombstones`) is skipped whole.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ..engine.ingest.forgotten import read_tombstones
from ..engine.ingest.openclaw_db import read_consistent, read_session_jsonl, table_names
from ..engine.ingest.regular_file import open_regular
from .recalls import (
    MAX_ROW_BYTES,
    MAX_TRANSCRIPT_BYTES,
    MEMORY_SEARCH_TOOLS,
    RecallEvent,
    RecallHit,
    parse_hits,
    parse_query,
    parse_time_ms,
)

# memtui's answers say so: the plugin's `"engine": "memtui"`, memtui's MCP server's score `breakdown`
# (quoted once more when the answer came through OpenClaw's `tool_call`)
MEMTUI_ANSWER = re.compile(r'\\*"engine\\*"\s*:\s*\\*"memtui\\*"|\\*"breakdown\\*"\s*:\s*\{')


def _tool_query(name: Any, arguments: Any) -> str | None:
    """The query of a memory_search call: direct, or through OpenClaw's `tool_call` dispatcher."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments[:MAX_ROW_BYTES])
        except (ValueError, RecursionError):
            return None
    if not isinstance(arguments, dict) or not isinstance(name, str):
        return None
    if name == "tool_call" and isinstance(arguments.get("id"), str):
        return _tool_query(arguments["id"], arguments.get("args"))
    if name in MEMORY_SEARCH_TOOLS or name.endswith("__memory_search"):
        return parse_query(arguments.get("query"))
    return None


def _result_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""


def _answer_hits(text: str, depth: int = 0) -> list[RecallHit] | None:
    """The hits of a memory_search answer (`{"results": [...]}`); None when it is no such answer
    (disabled, an error, another tool's text). Through `tool_call` the answer is wrapped:
    `{"tool": …, "result": {"content": [{"type": "text", "text": "{\"results\": …}"}]}}`."""
    if not text or len(text) > MAX_ROW_BYTES * 16 or depth > 3:
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return _hits_in(value, depth)


def _hits_in(value: Any, depth: int) -> list[RecallHit] | None:
    if not isinstance(value, dict):
        return None
    if value.get("disabled") is True or value.get("unavailable") is True:
        return None  # OpenClaw answered no search (search off, or it timed out): nothing was recalled
    if isinstance(value.get("results"), list):
        return parse_hits(value["results"])
    if isinstance(value.get("result"), dict):
        return _hits_in(value["result"], depth + 1)
    if isinstance(value.get("content"), list):
        return _answer_hits(_result_text(value), depth + 1)
    return None


def transcript_recalls(lines: Iterable[str], session: str = "") -> Iterator[RecallEvent]:
    """The memory_search calls of one transcript (JSONL lines) that got an answer, in order."""
    calls: dict[str, tuple[str, float]] = {}
    for line in lines:
        if "memory_search" not in line and "toolResult" not in line and "tool_result" not in line:
            continue  # most lines are plain messages: not parsed
        try:
            entry = json.loads(line)
        except (ValueError, RecursionError):
            continue
        message = entry.get("message") if isinstance(entry, dict) else None
        if not isinstance(message, dict):
            continue
        ts = parse_time_ms(entry.get("timestamp")) or parse_time_ms(message.get("timestamp")) or 0.0
        role = message.get("role")
        if role == "assistant" and isinstance(message.get("content"), list):
            for part in message["content"]:
                if isinstance(part, dict) and part.get("type") in ("toolCall", "tool_use", "toolUse"):
                    query = _tool_query(part.get("name"), part.get("arguments", part.get("input")))
                    if query is not None and isinstance(part.get("id"), str):
                        calls[part["id"]] = (query, ts)
        elif role in ("toolResult", "tool") and isinstance(message.get("toolCallId"), str):
            asked = calls.pop(message["toolCallId"], None)
            text = _result_text(message)
            hits = _answer_hits(text) if asked is not None else None
            if asked is not None and hits is not None:
                engine = "memtui" if MEMTUI_ANSWER.search(text) else "openclaw"
                yield RecallEvent(asked[0], asked[1] or ts, tuple(hits), "transcript", session, engine=engine)


def read_transcript_db(db: Path) -> tuple[list[RecallEvent], set[str]]:
    """memory_search calls in a 2026.9 agent database's transcripts, and its forgotten sessions."""
    def read(conn: Any) -> tuple[list[RecallEvent], set[str]]:
        forgotten = set(read_tombstones(conn))  # a forgotten session's searches are never shown
        if "transcript_events" not in table_names(conn):
            return [], forgotten
        sessions = [r[0] for r in conn.execute(
            "SELECT DISTINCT session_id FROM transcript_events WHERE coalesce(event_json LIKE '%memory_search%', 1)")
            if isinstance(r[0], str) and r[0] not in forgotten]
        events: list[RecallEvent] = []
        for sid in sessions:
            events += transcript_recalls(read_session_jsonl(conn, sid).split("\n"), sid)
        return events, forgotten

    return read_consistent(db, read)


def read_transcript_files(folder: Path, forgotten: set[str]) -> list[RecallEvent]:
    """memory_search calls in `sessions/*.jsonl` (regular files only, never followed out of the folder)."""
    events: list[RecallEvent] = []
    try:
        names = sorted(entry.name for entry in os.scandir(folder) if entry.name.endswith(".jsonl"))
    except OSError:
        return events
    for name in names:
        sid = name[: -len(".jsonl")]
        if sid in forgotten or sid.split(".", 1)[0] in forgotten:
            continue
        try:
            with open_regular(folder / name, follow_symlinks=False) as fh:  # a link could lead out of the folder
                data = fh.read(MAX_TRANSCRIPT_BYTES + 1)
        except OSError:
            continue
        if len(data) > MAX_TRANSCRIPT_BYTES:
            continue
        events += transcript_recalls(data.decode("utf-8", "replace").split("\n"), sid)
    return events
