"""Show untrusted text literally: no terminal control sequences, no reordering, no markup.

This module is the one neutraliser for every path out of memtui: CLI lines, the progress line,
error messages, JSON strings, TUI panes, toasts and the file view. Memory text, file names,
agent ids, provider error bodies and OpenClaw config values are all untrusted.
"""

from __future__ import annotations

import json
import re
from typing import Any

# C0 controls except tab/newline, DEL, C1 controls (CSI, OSC, ...). ESC starts every sequence, so
# replacing the control characters themselves is enough to make any sequence inert.
_C0_C1 = r"\x00-\x08\x0b-\x1f\x7f-\x9f"
# Characters that silently change how the text around them is shown: bidi embeddings/overrides
# (U+202A–U+202E) and isolates (U+2066–U+2069) reorder a line ("Trojan Source"), the implicit
# marks LRM/RLM/ALM (U+200E, U+200F, U+061C) steer that reordering, and the line/paragraph
# separators (U+2028, U+2029) start a new line in many renderers and in JavaScript JSON consumers.
_INVISIBLE = r"\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_CONTROL = re.compile(f"[{_C0_C1}{_INVISIBLE}]")
_CONTROL_OR_BREAK = re.compile(f"[{_C0_C1}{_INVISIBLE}\t\n]")
# Inside JSON output: C0 is already escaped by json.dumps; everything else above is left raw by
# ensure_ascii=False, which we want for readable non-ASCII text (CJK, accents).
_JSON_RAW = re.compile(f"[\x7f-\x9f{_INVISIBLE}]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    if code == 0x0A:
        return "\\n"
    if code == 0x09:
        return "\\t"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def safe(text: str, keep_newlines: bool = True, *, one_line: bool = False) -> str:
    """Replace control and bidi characters with visible escapes (ESC → "\\x1b", RLO → "\\u202e").

    keep_newlines=False turns newlines into spaces (flowing text such as a snippet). one_line=True
    escapes newlines and tabs too ("\\n"), for names and ids that must neither break a line nor be
    confused with another name: a file name containing a newline cannot forge a result line.
    """
    text = str(text)
    if one_line:
        return _CONTROL_OR_BREAK.sub(_escape, text)
    cleaned = _CONTROL.sub(_escape, text)
    return cleaned if keep_newlines else cleaned.replace("\n", " ")


def dumps_json(data: Any, **kwargs: Any) -> str:
    """json.dumps for output: readable non-ASCII, but DEL, C1, bidi and line separators as \\uXXXX.

    Outside strings JSON is pure ASCII, so every such character found in the text is inside a
    string, where `\\uXXXX` is its exact JSON escape: the value a consumer parses is unchanged.
    """
    kwargs.setdefault("ensure_ascii", False)
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group(0)):04x}", json.dumps(data, **kwargs))
