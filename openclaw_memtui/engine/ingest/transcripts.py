"""How a chat transcript becomes searchable text: `User: …` / `Assistant: …` lines, each remembering
its line and time in the transcript.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime

# ---------------------------------------------------------------------------------------------
# Transcripts


@dataclass(slots=True)
class FlatSession:
    content: str
    line_map: list[int] = field(default_factory=list)  # flattened line i -> jsonl line
    timestamps_ms: list[float] = field(default_factory=list)
    malformed_lines: int = 0


_WS = re.compile(r"\s+")


def _normalize(text: str) -> str:
    return _WS.sub(" ", text).strip()


def _text_parts(content: object) -> list[str] | None:
    """A message's text: its string content, or the text parts of its list of parts (None: neither)."""
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [p["text"] for p in content if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str)]
    return None


def _message_text(content: object) -> str | None:
    """The text parts, whitespace collapsed, joined by spaces (a transcript read without OpenClaw's filters)."""
    parts = _text_parts(content)
    if parts is None:
        return None
    return " ".join(p for p in map(_normalize, parts) if p)


def _raw_message_text(content: object) -> str | None:
    """A message's text parts joined by newlines, unnormalised: OpenClaw's filters work line by line."""
    parts = _text_parts(content)
    return "\n".join(parts) if parts else None


# The last instant `datetime` can show: a later (or infinite) time would be stored and then break
# every age, decay and time-window computation on it.
MAX_TS_MS = datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC).timestamp() * 1000.0


def parse_timestamp_ms(value: object) -> float:
    """Epoch ms of a transcript timestamp (seconds, ms or ISO text); 0.0 when missing or unusable.

    JSON allows `Infinity` and `NaN` and numbers like 1e308: none is a time, all are rejected.
    """
    if isinstance(value, bool):
        return 0.0
    if isinstance(value, (int, float)):
        try:
            ms = float(value) * 1000.0 if value < 1e11 else float(value)
        except OverflowError:  # an int too large for a float
            return 0.0
        return ms if math.isfinite(ms) and 0 < ms <= MAX_TS_MS else 0.0
    if isinstance(value, str) and value:
        try:
            dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
            if dt.tzinfo is None:
                dt = dt.replace(tzinfo=UTC)
            ms = dt.timestamp() * 1000.0
        except (ValueError, OverflowError):
            return 0.0
        return ms if 0 < ms <= MAX_TS_MS else 0.0
    return 0.0


def split_long_line(text: str, max_chars: int) -> list[str]:
    """OpenClaw 2026.9's `splitLongSessionLine`: cut at the last space at or before `max_chars`.

    OpenClaw counts UTF-16 units and this counts code points, so lines with characters outside the
    Basic Multilingual Plane (emoji) may be cut a few characters later than OpenClaw cuts them.
    """
    text = text.strip()
    if not text:
        return []
    if max_chars <= 0 or len(text) <= max_chars:
        return [text]
    segments: list[str] = []
    cursor = 0
    while cursor < len(text):
        if len(text) - cursor <= max_chars:
            segments.append(text[cursor:].strip())
            break
        limit = cursor + max_chars
        split_at = next((i for i in range(limit, cursor, -1) if text[i] == " "), limit)
        segments.append(text[cursor:split_at].strip())
        cursor = split_at
        while cursor < len(text) and text[cursor] == " ":
            cursor += 1
    return [seg for seg in segments if seg]


def _internal_turn(message: dict[str, object]) -> str | None:
    """'heartbeat' or 'recall' for a user message OpenClaw itself injected, whose turn it never indexes."""
    provenance = message.get("provenance")
    if not isinstance(provenance, dict) or provenance.get("kind") != "internal_system":
        return None
    tool = provenance.get("sourceTool")
    return "heartbeat" if tool == "heartbeat" else "recall" if tool in ("memory_search", "memory_get") else None


def flatten_session(raw: str, redact: bool = True, wrap_chars: int = 0, openclaw_filters: bool = False) -> FlatSession:
    """Turn a transcript into `User: …` / `Assistant: …` lines, remembering each line's origin.

    `wrap_chars` > 0 splits long messages into several lines of the same origin, as OpenClaw 2026.9
    does, so chunk line ranges match the ones OpenClaw stores for the same session; `openclaw_filters`
    leaves out what 2026.9 leaves out (heartbeat and memory-recall turns, messages from other
    sessions, system envelopes, cron prompts, heartbeat prompts, silent replies, exec notices) and
    strips what it strips from a message (channel metadata blocks, its own runtime context).
    """
    internal_turn = False
    from ..redact import redact_secrets  # ~40 ms of regex compiling: only when a transcript is read
    from ..textutil import clean_text  # with hashlib and its regexes: listing files (`status`) needs neither
    from .transcript_filters import sanitize_message  # its regexes compile only when a transcript is read
    lines_out: list[str] = []
    flat = FlatSession("")
    for index, line in enumerate(raw.split("\n")):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):  # deep nesting (`[[[[…`) exhausts the parser's stack
            flat.malformed_lines += 1
            continue
        if not isinstance(record, dict) or record.get("type") != "message":
            continue
        message = record.get("message")
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            continue
        if openclaw_filters:
            if message["role"] == "user":
                internal_turn = _internal_turn(message) is not None  # the turn lasts until the next user message
                provenance = message.get("provenance")
                if isinstance(provenance, dict) and provenance.get("kind") == "inter_session":
                    continue
            if internal_turn:
                continue
        if openclaw_filters:
            raw_text = _raw_message_text(message.get("content"))
            text = sanitize_message(raw_text, message["role"]) if raw_text is not None else None
        else:
            text = _message_text(message.get("content"))
        if not text:
            continue
        text = clean_text(text)  # a JSON `\ud800` escape is a lone surrogate SQLite cannot store
        if redact:
            text = redact_secrets(text)
        label = "User" if message["role"] == "user" else "Assistant"
        ts = parse_timestamp_ms(message.get("timestamp")) or parse_timestamp_ms(record.get("timestamp"))
        for segment in (split_long_line(text, wrap_chars) if wrap_chars else [text]):
            lines_out.append(f"{label}: {segment}")
            flat.line_map.append(index + 1)
            flat.timestamps_ms.append(ts)
    flat.content = "\n".join(lines_out)
    return flat
