"""JS -> Python regex translation: the few constructs of OpenClaw's JS sources whose Python meaning differs.

Part of the port of OpenClaw 2026.9.6's redaction (see the package docstring).
"""

from __future__ import annotations

import re

# ---------------------------------------------------------------------------------------------
# JS -> Python regex translation
# ---------------------------------------------------------------------------------------------

# JS `\s` (ECMAScript WhiteSpace + LineTerminator). Python's Unicode `\s` differs (it includes
# \x1c-\x1f and \x85, lacks \ufeff), and with re.ASCII it loses the Unicode spaces, so it is spelled out.
_JS_WS = "\\t\\n\\x0b\\x0c\\r \\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"
_JS_WS_RE = re.compile(f"[{_JS_WS}]")


def _js(source: str) -> str:
    """Rewrite the few JS regex constructs whose Python meaning differs.

    * ``\\s`` / ``\\S`` -> the explicit JS whitespace set (see ``_JS_WS``);
    * ``$`` (no ``m`` flag in JS: end of input only) -> ``\\Z`` (Python's ``$`` also matches
      before a trailing newline);
    * ``.`` (JS excludes \\n, \\r, U+2028, U+2029) -> an explicit negated class.
    Everything is compiled with re.ASCII so ``\\b``, ``\\d``, ``\\w`` and case folding are ASCII-only,
    as in JS regexes without the ``u`` flag (CJK text glued to a token still has a ``\\b`` there).
    """
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(source):
        ch = source[i]
        if ch == "\\" and i + 1 < len(source):
            nxt = source[i + 1]
            if nxt == "s":
                out.append(_JS_WS if in_class else f"[{_JS_WS}]")
            elif nxt == "S":
                if in_class:
                    raise ValueError("\\S inside a class has no Python spelling")
                out.append(f"[^{_JS_WS}]")
            else:
                out.append(source[i : i + 2])
            i += 2
            continue
        if in_class:
            if ch == "]":
                in_class = False
        elif ch == "[":
            in_class = True
            out.append(ch)
            # A leading `^` or `]` belongs to the class syntax, not to its content.
            if source[i + 1 : i + 2] == "^":
                out.append("^")
                i += 1
            i += 1
            continue
        elif ch == "$":
            out.append(r"\Z")
            i += 1
            continue
        elif ch == ".":
            out.append("[^\\n\\r\\u2028\\u2029]")
            i += 1
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _compile(source: str, ignore_case: bool) -> re.Pattern[str]:
    return re.compile(_js(source), re.ASCII | (re.IGNORECASE if ignore_case else 0))
