r"""What OpenClaw 2026.9 takes out of a transcript message before it indexes it.

A port of session-files.ts `sanitizeSessionText` and the helpers it calls (strip-inbound-meta.ts,
internal-runtime-context.ts, heartbeat-filter.ts, tokens.ts). OpenClaw wraps what a channel
(Telegram, Discord, WhatsApp…) delivers in metadata blocks — sender ids, chat ids, the chat window,
a recalled-memory block — and keeps its own runtime context inside user turns. None of that is
what the person said, and indexing it floods search with ids and repeated chat windows; it also
shifts chunk line ranges away from the ones OpenClaw stores. Heartbeat prompts and silent replies
are dropped whole.

Parity is tested against what the real OpenClaw 2026.9.6 produces for the same transcripts
(tests/fixtures/sessions, `make_oracle.mjs`). JavaScript's `^`/`$` without the m flag mean the
start/end of the string: they are `\A`/`\Z` here.

One module per OpenClaw source file: inbound_meta, runtime_context and heartbeat (with the line
scanning they share in scan); this one is session-files.ts `sanitizeSessionText`, the entry point.
"""

from __future__ import annotations

import re

from .heartbeat import HEARTBEAT_TOKEN, is_heartbeat_prompt, is_silent_reply
from .inbound_meta import strip_inbound_metadata
from .runtime_context import strip_internal_runtime_context

# ---------------------------------------------------------------------------------------------
# One message (session-files.ts sanitizeSessionText)

_SYSTEM_ENVELOPE = re.compile(r"\ASystem(?: \(untrusted\))?: \[[^\]]+\]\s*")


_CRON_PROMPT = re.compile(r"\A\[cron:[^\]]+\]\s*")


_EXEC_DONE = re.compile(r"\Aexec finished(?::|\s*\()")


_EXEC_STRUCTURED = re.compile(r"\Aexec (completed|failed) \(([a-z0-9_-]{1,64}), (code -?\d+|signal [^)]+)\)(?: :: ([\s\S]*))?\Z",
                              re.I)


_WHITESPACE = re.compile(r"\s+")


def sanitize_message(raw: str, role: str) -> str | None:
    """The text OpenClaw 2026.9 indexes for one user/assistant message, on one line; None to leave it out."""
    text = strip_inbound_metadata(raw) if role == "user" else raw
    normalized = _WHITESPACE.sub(" ", strip_internal_runtime_context(text)).strip()
    if not normalized:
        return None
    if role == "user" and (_SYSTEM_ENVELOPE.match(normalized) or _CRON_PROMPT.match(normalized)
                           or is_heartbeat_prompt(normalized)):
        return None
    if is_silent_reply(normalized) or (role == "assistant" and normalized == HEARTBEAT_TOKEN):
        return None
    rest = _SYSTEM_ENVELOPE.sub("", normalized, count=1).strip()
    if _EXEC_DONE.match(rest.lower()) or _EXEC_STRUCTURED.match(rest):
        return None
    return normalized
