"""Heartbeat prompts and silent replies (heartbeat-filter.ts, heartbeat.ts, tokens.ts): messages
OpenClaw drops whole.
"""

from __future__ import annotations

import json
import re
import unicodedata

from .inbound_meta import MESSAGE_TOOL_DELIVERY_HINTS

# ---------------------------------------------------------------------------------------------
# Heartbeat prompts and silent replies (heartbeat-filter.ts, heartbeat.ts, tokens.ts)

SILENT_REPLY_TOKEN, HEARTBEAT_TOKEN = "NO_REPLY", "HEARTBEAT_OK"


_HEARTBEAT_CONTEXT = ("Follow the heartbeat monitor scratch context when provided. Recurring tasks are automations;"
                      " create or change their schedules with the automations tool, not heartbeat scratch. Do not"
                      " infer or repeat old tasks from prior chats.")


_HEARTBEAT_PROMPT = f"{_HEARTBEAT_CONTEXT} If nothing needs attention, reply {SILENT_REPLY_TOKEN}."


_RESPONSE_TOOL_INSTRUCTIONS = ("Use heartbeat_respond to report the wake outcome. Set notify=false when nothing needs"
                               " the user's attention. Set notify=true with notificationText only when the user"
                               " should be interrupted.")


_RESPONSE_TOOL_FALLBACK = (f"If the heartbeat_respond tool is not available in this run, reply {SILENT_REPLY_TOKEN}"
                           " when nothing needs the user's attention; when the user should be interrupted, reply with"
                           " only the alert text instead of a prose report.")


_WAKE_PROMPTS = (
    "[OpenClaw heartbeat poll]",
    "[OpenClaw exec completion]\nDisable automatic completion turns with tools.exec.notifyOnExit=false; check"
    " per-agent overrides. Background exec and process poll remain available.",
    "[OpenClaw exec completion]",
    "[OpenClaw cron wake]",
    "[OpenClaw session event]",
)


_HEARTBEAT_PROMPTS = (
    _HEARTBEAT_PROMPT,
    f"{_HEARTBEAT_CONTEXT} {_RESPONSE_TOOL_INSTRUCTIONS} {_RESPONSE_TOOL_FALLBACK}",
    f"{_HEARTBEAT_PROMPT}\n\n{_RESPONSE_TOOL_INSTRUCTIONS}\n\n{_RESPONSE_TOOL_FALLBACK}",
)


_TASK_PROMPT_PREFIX = "Run the following periodic tasks (only those due based on their intervals):"


_TASK_PROMPT_COMPLETIONS = (
    f"After completing all due tasks, reply {HEARTBEAT_TOKEN}.",
    f"After completing all due tasks, reply {SILENT_REPLY_TOKEN}.",
    _RESPONSE_TOOL_INSTRUCTIONS,
    "After completing all due tasks, use heartbeat_respond",
)


def is_heartbeat_prompt(text: str) -> bool:
    """OpenClaw's own heartbeat or wake prompt (with its default prompt text), not the person's words."""
    trimmed = text.strip()
    if not trimmed:
        return False
    if trimmed in _WAKE_PROMPTS:
        return True
    if trimmed.startswith(MESSAGE_TOOL_DELIVERY_HINTS) and trimmed.endswith(_WAKE_PROMPTS):
        return True
    if any(trimmed == prompt or trimmed.startswith(prompt + "\n") for prompt in _HEARTBEAT_PROMPTS):
        return True
    return trimmed.startswith(_TASK_PROMPT_PREFIX) and any(done in trimmed for done in _TASK_PROMPT_COMPLETIONS)


_TOKEN = re.escape(SILENT_REPLY_TOKEN)


_SILENT_EXACT = re.compile(rf"\A\s*{_TOKEN}(?:\s+{_TOKEN})*\s*\Z", re.I)


_FINAL_TOKEN = re.compile(rf"(?:\A|[\s*.]){_TOKEN}\s*\Z", re.I)


_REASONING_TAG = r"(?:(?:antml:|mm:)?(?:think(?:ing)?|thought)|antthinking)"


_TAGGED_REASONING = re.compile(rf"\s*<\s*{_REASONING_TAG}\b[^<>]*>[\s\S]*?<\s*/\s*{_REASONING_TAG}\s*>\s*", re.I)


_OPEN_REASONING = re.compile(rf"\A\s*<\s*{_REASONING_TAG}\b[^<>]*>", re.I)


_PLAIN_REASONING = re.compile(r"\A\s*(?:think(?:ing)?|thought|analysis|reasoning)\s*:?\s*\r?\n", re.I)


_WHERE = r"(?:\s+(?:here|for\s+now|on\s+this|in\s+this\s+(?:chat|thread|channel|conversation)))?"


_SILENT_INTENT = re.compile(
    r"\A\s*(?:i|i'll|i\s+will|i'm|i\s+am|we|we'll|we\s+will|the\s+assistant|assistant|the\s+bot|bot|openclaw)\s+"
    r"(?:(?:will\s+)?(?:stay|remain|keep|be)\s+(?:quiet|silent)" + _WHERE
    + r"|(?:do\s+not|don't|dont|will\s+not|won't|would\s+not|should\s+not)\s+(?:reply|respond)" + _WHERE
    + r"|(?:have|has)\s+nothing\s+(?:to|for)\s+(?:say|add|reply|respond))(?:[.!?]+)?\s*\Z", re.I)


_ANSWER_CUE = re.compile(r"\b(?:answer|here(?:'s|\s+is)|tell\s+them|you\s+(?:should|can|could|need|must)|please|try|use"
                         r"|send|service\s+is|resolved|retry|yes|no,|sure)\b", re.I)


_REASONING_PLACEHOLDER = re.compile(r"\A\s*(?:(?:internal|private)\s+)?(?:reasoning|thinking|thoughts?|analysis)"
                                    r"(?:\s+notes?)?\s*\Z", re.I)


def _strip_edge_punctuation(text: str) -> str:
    start, end = 0, len(text)
    while start < end and unicodedata.category(text[start]).startswith("P"):
        start += 1
    while end > start and unicodedata.category(text[end - 1]).startswith("P"):
        end -= 1
    return text[start:end]


def _is_token_only(text: str) -> bool:
    return bool(text) and bool(_SILENT_EXACT.match(text) or _SILENT_EXACT.match(_strip_edge_punctuation(text.strip())))


def _is_json_token(text: str, opening: str, closing: str) -> object:
    trimmed = text.strip()
    if not (trimmed.startswith(opening) and trimmed.endswith(closing) and SILENT_REPLY_TOKEN in trimmed):
        return None
    try:
        return json.loads(trimmed)
    except (ValueError, RecursionError):
        return None


def _without_final_token(text: str) -> str | None:
    stripped = _FINAL_TOKEN.sub("", text, count=1).strip()
    return None if stripped == text.strip() else stripped


def _silent_intent_then_token(text: str) -> bool:
    rest = _without_final_token(text)
    return rest is not None and (not rest or bool(_SILENT_INTENT.match(rest)))


def _reasoning_then_token(text: str) -> bool:
    rest = _without_final_token(text)
    if rest is None:
        return False
    if not rest or _SILENT_INTENT.match(rest):
        return True
    lines = [line.strip() for line in re.split(r"\r?\n", rest) if line.strip()]
    earlier = "\n".join(lines[:-1])
    return (bool(lines and _SILENT_INTENT.match(lines[-1]) and earlier and not _ANSWER_CUE.search(earlier))
            or bool(_REASONING_PLACEHOLDER.match(rest)))


def _is_reasoning_then_silent(text: str) -> bool:
    trimmed = text.strip()
    if not trimmed:
        return False
    # OpenClaw strips one leading block at a time, copying the rest each time (quadratic for a message
    # of thousands of blocks); walking past them and slicing once gives the same text
    pos = 0
    while (block := _TAGGED_REASONING.match(trimmed, pos)) and block.end() > pos:
        pos = block.end()
    without_blocks = trimmed[pos:]
    if pos:
        return _is_token_only(without_blocks) or _silent_intent_then_token(without_blocks)
    for prefix in (_OPEN_REASONING, _PLAIN_REASONING):
        if prefix.match(trimmed):
            rest = prefix.sub("", trimmed, count=1)
            return _is_token_only(rest) or _reasoning_then_token(rest)
    return False


def is_silent_reply(text: str) -> bool:
    """A reply that says only NO_REPLY (bare, quoted, as `{"action": …}`, or after reasoning)."""
    as_string = _is_json_token(text, '"', '"')
    envelope = _is_json_token(text, "{", "}")
    return (_is_token_only(text)
            or (isinstance(as_string, str) and as_string.strip() == SILENT_REPLY_TOKEN)
            or (isinstance(envelope, dict) and list(envelope) == ["action"] and isinstance(envelope["action"], str)
                and envelope["action"].strip() == SILENT_REPLY_TOKEN)
            or _is_reasoning_then_silent(text))
