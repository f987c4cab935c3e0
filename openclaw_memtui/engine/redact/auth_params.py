"""Structured HTTP auth parameters such as Digest or AWS4 headers (findStructuredAuthParamRanges).

Part of the port of OpenClaw 2026.9.6's redaction (see the package docstring).
"""

from __future__ import annotations

import re

from .jsregex import _compile
from .patterns import _AUTH_SCHEME, _HEADER_BOUNDARY, _SER_QUOTE, _WS_OPT, _WS_REQ

# ---------------------------------------------------------------------------------------------
# Structured HTTP auth parameters (findStructuredAuthParamRanges), e.g. Digest/AWS4 headers
# ---------------------------------------------------------------------------------------------

_STRUCTURED_AUTH_HEADER = _compile(
    _HEADER_BOUNDARY + "(?:Proxy-)?Authorization" + _SER_QUOTE + r"[ \t]*[:=]" + _WS_OPT + _SER_QUOTE + "(" + _AUTH_SCHEME + ")" + _WS_REQ, True
)
_AUTH_TOKEN = re.compile(r"[A-Za-z0-9!#$%&'*+.^_`|~-]+")
_AWS_SCOPE_VALUE = re.compile(r"[A-Za-z0-9!#$%&'*+.^_`|~:/-]+")
_SIGNED_HEADERS_VALUE = re.compile(r":?[A-Za-z0-9!#$%&'*+.^_`|~-]+(?:;:?[A-Za-z0-9!#$%&'*+.^_`|~-]+)*")
_HEADER_NAME_CHAR = re.compile(r"[A-Za-z0-9_-]")


def _ch(s: str, i: int) -> str:
    """JS `s[i]`: undefined (here "") outside the string, including negative indexes."""
    return s[i] if 0 <= i < len(s) else ""


def _skip_hws(v: str, i: int) -> int:
    while _ch(v, i) in (" ", "\t") and _ch(v, i):
        i += 1
    return i


def _serialized_line_end(v: str, i: int) -> int | None:
    slashes = 0
    while slashes < 64 and _ch(v, i) == "\\":
        slashes += 1
        i += 1
    if slashes == 0:
        return None
    if _ch(v, i) == "n":
        return i + 1
    if _ch(v, i) != "r":
        return None
    i += 1
    slashes = 0
    while slashes < 64 and _ch(v, i) == "\\":
        slashes += 1
        i += 1
    return i + 1 if slashes > 0 and _ch(v, i) == "n" else None


def _serialized_tab_end(v: str, i: int) -> int | None:
    slashes = 0
    while slashes < 64 and _ch(v, i) == "\\":
        slashes += 1
        i += 1
    return i + 1 if slashes > 0 and _ch(v, i) == "t" else None


def _skip_auth_ws(v: str, i: int) -> int:
    while True:
        i = _skip_hws(v, i)
        tab = _serialized_tab_end(v, i)
        if tab is not None:
            i = tab
            continue
        if _ch(v, i) == "\r" and _ch(v, i + 1) == "\n":
            line_end: int | None = i + 2
        elif _ch(v, i) == "\n":
            line_end = i + 1
        else:
            line_end = _serialized_line_end(v, i)
        if line_end is None or (_ch(v, line_end) not in (" ", "\t") or not _ch(v, line_end)) and _serialized_tab_end(v, line_end) is None:
            return i
        i = line_end


def _auth_param_name(v: str, i: int) -> tuple[str, int] | None:
    m = _AUTH_TOKEN.match(v, i) if i <= len(v) else None
    return (m.group(0).lower(), m.end()) if m else None


def _is_auth_header_start(v: str, i: int) -> bool:
    prev = _ch(v, i - 1)
    serialized_boundary = False
    if prev in ("n", "r") and prev:
        j, slashes = i - 2, 0
        while slashes < 64 and _ch(v, j) == "\\":
            slashes += 1
            j -= 1
        serialized_boundary = slashes > 0
    if not serialized_boundary and prev and _HEADER_NAME_CHAR.match(prev):
        return False
    candidate = v[i : i + 19].lower()
    name = "proxy-authorization" if candidate == "proxy-authorization" else "authorization" if candidate.startswith("authorization") else None
    if name is None:
        return False
    cursor, slashes = i + len(name), 0
    while slashes < 64 and _ch(v, cursor) == "\\":
        slashes += 1
        cursor += 1
    if _ch(v, cursor) in ("\"", "'") and _ch(v, cursor):
        cursor += 1
    elif slashes > 0:
        return False
    cursor = _skip_hws(v, cursor)
    return _ch(v, cursor) in (":", "=") and bool(_ch(v, cursor))


def _next_auth_param_start(v: str, start: int) -> int | None:
    cursor = start
    while True:
        cursor = _skip_auth_ws(v, cursor)
        if cursor > start and _is_auth_header_start(v, cursor):
            return None
        if cursor >= len(v) or v[cursor] in "\r\n;":
            return None
        if v[cursor] == ",":
            cursor += 1
            continue
        param = _auth_param_name(v, cursor)
        if param:
            eq = _skip_auth_ws(v, param[1])
            if _ch(v, eq) == "=" and _ch(v, eq + 1) != "=":
                return cursor
        while cursor < len(v):
            ws_end = _skip_auth_ws(v, cursor)
            if ws_end > cursor:
                cursor = ws_end
                continue
            if cursor > start and _is_auth_header_start(v, cursor):
                return None
            c = v[cursor]
            if c in "\r\n;":
                return None
            cursor += 1
            if c == ",":
                break


def _auth_field_end(v: str, start: int) -> int:
    cursor = start
    while cursor < len(v):
        ws_end = _skip_auth_ws(v, cursor)
        if ws_end > cursor:
            cursor = ws_end
            continue
        if cursor > start and _is_auth_header_start(v, cursor):
            break
        if v[cursor] in "\r\n;\\\"'}]":
            break
        cursor += 1
    return cursor


def _auth_param_value_end(v: str, start: int, aws_scope: bool, signed_headers: bool) -> int | None:
    esc = 0
    while _ch(v, start + esc) == "\\":
        esc += 1
    escaped_quotes = esc > 0 and _ch(v, start + esc) == "\""
    quote = _ch(v, start) if _ch(v, start) in ("\"", "'") and _ch(v, start) else None
    if quote or escaped_quotes:
        cursor = start + (esc + 1 if escaped_quotes else 1)
        while cursor < len(v):
            c = v[cursor]
            if c in "\r\n":
                ws_end = _skip_auth_ws(v, cursor)
                if ws_end == cursor:
                    break
                cursor = ws_end
                continue
            if escaped_quotes and c == "\\":
                slash_end = cursor + 1
                while _ch(v, slash_end) == "\\":
                    slash_end += 1
                if _ch(v, slash_end) == "\"":
                    if (slash_end - cursor) % (2 * (esc + 1)) == esc:
                        return slash_end + 1
                    cursor = slash_end + 1
                    continue
                cursor = slash_end
                continue
            if not escaped_quotes and c == "\\" and cursor + 1 < len(v):
                cursor += 2
                continue
            if not escaped_quotes and c == quote:
                return cursor + 1
            cursor += 1
        return cursor if cursor > start + 1 else None
    if signed_headers:
        m = _SIGNED_HEADERS_VALUE.match(v, start) if start <= len(v) else None
        if not m:
            return None
        nxt = _ch(v, m.end())
        return m.end() if nxt in ("", ",", " ", "\t", "\r", "\n") else None
    m = (_AWS_SCOPE_VALUE if aws_scope else _AUTH_TOKEN).match(v, start) if start <= len(v) else None
    return m.end() if m else None


def _structured_auth_ranges(v: str) -> list[tuple[int, int]]:
    ranges: list[tuple[int, int]] = []
    for header in _STRUCTURED_AUTH_HEADER.finditer(v):
        scheme = (header.group(2) or "").lower()
        cursor = header.end()
        range_start = range_end = cursor
        direct = _auth_param_name(v, cursor)
        direct_eq = _skip_auth_ws(v, direct[1]) if direct else None
        if not direct or direct_eq is None or _ch(v, direct_eq) != "=" or _ch(v, direct_eq + 1) == "=":
            if _ch(v, _skip_auth_ws(v, cursor)) != "," and not (scheme in ("digest", "hawk") or scheme.startswith("aws4-")):
                continue
            first = _next_auth_param_start(v, cursor)
            if first is None:
                continue
            cursor = first
        while True:
            param = _auth_param_name(v, cursor)
            if not param:
                break
            cursor = _skip_auth_ws(v, param[1])
            if _ch(v, cursor) != "=":
                break
            cursor = _skip_auth_ws(v, cursor + 1)
            value_end = _auth_param_value_end(v, cursor, scheme.startswith("aws4-") and param[0] == "credential", param[0] == "signedheaders")
            if value_end is None:
                nxt = _next_auth_param_start(v, cursor)
                if nxt is not None:
                    cursor = nxt
                    continue
                range_end = max(range_end, _auth_field_end(v, cursor))
                break
            range_end = value_end
            sep = _skip_auth_ws(v, value_end)
            if _ch(v, sep) != ",":
                if _ch(v, sep) not in ("", "\r", "\n", ";", "\\", "\"", "'", "}", "]"):
                    nxt = _next_auth_param_start(v, sep)
                    if nxt is not None:
                        cursor = nxt
                        continue
                    range_end = max(range_end, _auth_field_end(v, sep))
                break
            nxt = _next_auth_param_start(v, sep + 1)
            if nxt is None:
                break
            cursor = nxt
        if range_end > range_start:
            ranges.append((range_start, range_end))
    return ranges


def _redact_structured_auth(text: str) -> str:
    ranges = _structured_auth_ranges(text)
    if not ranges:
        return text
    merged: list[list[int]] = []
    for start, end in ranges:
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    parts, cursor = [], 0
    for start, end in merged:
        parts.append(text[cursor:start])
        parts.append("***")
        cursor = end
    parts.append(text[cursor:])
    return "".join(parts)
