"""OpenClaw's runtime context inside a turn (internal-runtime-context.ts): the delimited blocks and
the legacy completion events it keeps in user turns.
"""

from __future__ import annotations

import re

from .scan import _JS_LINE_END, _JS_LINE_START, _Forward

# ---------------------------------------------------------------------------------------------
# OpenClaw's runtime context inside a turn (internal-runtime-context.ts)

_CONTEXT_BEGIN = "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>"


_CONTEXT_END = "<<<END_OPENCLAW_INTERNAL_CONTEXT>>>"


_RUNTIME_NOTICE = "This context is runtime-generated, not user-authored. Keep internal details private."


_LEGACY_HEADER = f"OpenClaw runtime context (internal):\n{_RUNTIME_NOTICE}\n\n"


_LEGACY_EVENT = "[Internal task completion event]"


_LEGACY_SEPARATOR = "\n\n---\n\n"


_CHILD_RESULT_BEGIN = "<<<BEGIN_UNTRUSTED_CHILD_RESULT>>>"


_CHILD_RESULT_END = "<<<END_UNTRUSTED_CHILD_RESULT>>>"


_ACTION = "\n\nAction:\n"


_PROMPT_HEADERS = (
    "OpenClaw runtime context for the active user request in this turn. Do not reply to or describe this"
    " context. Use it to continue answering the active user request now. Do not wait for another message.",
    "OpenClaw runtime context for the immediately preceding user message.",
    "OpenClaw runtime event.",
)


def _delimiter(token: str) -> re.Pattern[str]:
    return re.compile(rf"(?:\A|\r?\n)[ \t]*{re.escape(token)}[ \t]*(?=\r?\n|\Z)")


_BEGIN_LINE, _END_LINE = _delimiter(_CONTEXT_BEGIN), _delimiter(_CONTEXT_END)


def _words(text: str) -> str:
    return r"\s+".join(re.escape(word) for word in text.split())


_NOTICE_PATTERN = re.compile(_words(_RUNTIME_NOTICE))


# Any header, or any tail of it that starts at a sentence, followed by the notice, as one line.
_PREFACE_PATTERN = re.compile(
    _JS_LINE_START + r"[ \t]*(?:" + "|".join(_words(". ".join(header.split(". ")[i:]))
                                             for header in _PROMPT_HEADERS for i in range(len(header.split(". "))))
    + r")\s+" + _NOTICE_PATTERN.pattern + r"[ \t]*(?:\r?\n|" + _JS_LINE_END + ")")


def _token_index(scan: _Forward, pattern: re.Pattern[str], token: str, start: int) -> int:
    match = scan.search(pattern, max(0, start))
    return -1 if match is None else match.start() + match.group(0).index(token)


def _ends_its_line(text: str, index: int) -> bool:
    while index < len(text) and text[index] in " \t":
        index += 1
    return index == len(text) or text.startswith("\n", index) or text.startswith("\r\n", index)


def _strip_delimited_blocks(text: str) -> str:
    """Every BEGIN … END block (they nest) taken out, as OpenClaw does it.

    OpenClaw rebuilds the string after each block (`before + "\n\n" + after`, both trimmed) and
    searches it again from the start. The same result comes from one pass over the original text:
    `kept` is what precedes the last block taken out, and the rest continues at `pos`, at a line
    start (OpenClaw's junction), so a delimiter right there counts as one on its own line.
    """
    scan = _Forward(text)
    kept: list[str] = []  # never ends in whitespace
    pos, at_junction = 0, False
    while True:
        if at_junction and text.startswith(_CONTEXT_BEGIN, pos) and _ends_its_line(text, pos + len(_CONTEXT_BEGIN)):
            start = pos
        else:
            start = _token_index(scan, _BEGIN_LINE, _CONTEXT_BEGIN, pos)
        if start == -1:
            break
        cursor, depth, finish = start + len(_CONTEXT_BEGIN), 1, -1
        while depth > 0:  # blocks nest
            next_begin = _token_index(scan, _BEGIN_LINE, _CONTEXT_BEGIN, cursor)
            next_end = _token_index(scan, _END_LINE, _CONTEXT_END, cursor)
            if next_end == -1:
                break
            if next_begin != -1 and next_begin < next_end:
                depth, cursor = depth + 1, next_begin + len(_CONTEXT_BEGIN)
                continue
            depth, finish, cursor = depth - 1, next_end, next_end + len(_CONTEXT_END)
        head = text[pos:start].rstrip()
        if head:
            kept += ["\n\n", head] if kept else [head]
        if finish == -1 or depth != 0:  # never closed: everything after it is context
            return "".join(kept)
        pos = finish + len(_CONTEXT_END)
        while pos < len(text) and text[pos].isspace():  # OpenClaw trims the rest's start
            pos += 1
        at_junction = True
    if pos >= len(text) and at_junction:
        return "".join(kept)
    return "".join(kept) + ("\n\n" if kept else "") + text[pos:]


def _legacy_event_end(scan: _Forward, start: int) -> int | None:
    text = scan.text
    if not text.startswith(_LEGACY_EVENT, start):
        return None
    result_begin = scan.find(_CHILD_RESULT_BEGIN, start + len(_LEGACY_EVENT))
    if result_begin == -1:
        return None
    result_end = scan.find(_CHILD_RESULT_END, result_begin + len(_CHILD_RESULT_BEGIN))
    if result_end == -1:
        return None
    action = scan.find(_ACTION, result_end + len(_CHILD_RESULT_END))
    if action == -1:
        return None
    after_action = action + len(_ACTION)
    next_event = scan.find(_LEGACY_SEPARATOR + _LEGACY_EVENT, after_action)
    if next_event != -1:
        return next_event
    paragraph = scan.find("\n\n", after_action)
    return len(text) if paragraph == -1 else paragraph


def _strip_legacy_context(text: str) -> str:
    """Older releases' runtime-context events taken out, in one pass (see _strip_delimited_blocks)."""
    scan = _Forward(text)
    kept: list[str] = []  # never ends in whitespace
    pos = search_from = 0
    while (header := scan.find(_LEGACY_HEADER, search_from)) != -1:
        event = header + len(_LEGACY_HEADER)
        if not text.startswith(_LEGACY_EVENT, event):
            search_from = event
            continue
        block_end = _legacy_event_end(scan, event)
        if block_end is None:
            paragraph = scan.find("\n\n", event + len(_LEGACY_EVENT))
            block_end = len(text) if paragraph == -1 else paragraph
        else:
            while text.startswith(_LEGACY_SEPARATOR + _LEGACY_EVENT, block_end):
                following = _legacy_event_end(scan, block_end + len(_LEGACY_SEPARATOR))
                if following is None:
                    break
                block_end = following
        head = text[pos:header].rstrip()
        if head:
            kept += ["\n\n", head] if kept else [head]
        pos = block_end
        while pos < len(text) and text[pos].isspace():
            pos += 1
        search_from = pos
    return "".join(kept) + ("\n\n" if kept and pos < len(text) else "") + text[pos:]


def strip_internal_runtime_context(text: str) -> str:
    """A message without the runtime context OpenClaw itself put into the turn."""
    if _CONTEXT_BEGIN not in text and _CONTEXT_END not in text and not _NOTICE_PATTERN.search(text):
        return text
    text = _strip_legacy_context(_END_LINE.sub("", _strip_delimited_blocks(text)))
    stripped = _PREFACE_PATTERN.sub("", text)
    return text if stripped == text else re.sub(r"\n{3,}", "\n\n", stripped).strip()
