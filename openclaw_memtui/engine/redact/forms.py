"""Structural passes over URL query values and form bodies (redactAssignmentValues / redactFormBody).

Part of the port of OpenClaw 2026.9.6's redaction (see the package docstring).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from .jsregex import _js
from .masking import _mask_token, _split_secret_value

# ---------------------------------------------------------------------------------------------
# Unicode helpers for form keys (\p{C} and friends)
# ---------------------------------------------------------------------------------------------

# FORM_BODY_KEY_INVISIBLE_CHARS minus \p{C}, which Python's `re` cannot name and is built below.
_INVISIBLE_EXTRA = "\\xa0\\u1680\\u2000-\\u200a\\u202f\\u205f\\u3000\\u115f\\u1160\\u3164\\uffa0"


@lru_cache(maxsize=1)
def _category_c_class() -> str:
    """Class body for \\p{C} (Cc, Cf, Cs, Co, Cn), from Python's Unicode database. Built on first use
    (≈0.3 s) because only text with `%`, `+` or non-ASCII next to `=` ever needs it."""
    ranges: list[tuple[int, int]] = []
    start = -1
    # Planes 4-13 are unassigned (Cn) and planes 15-16 private use (Co): all of category C, so
    # only the other planes are looked up one by one (3x faster than scanning every code point).
    for cp in (*range(0x40000), *range(0xE0000, 0xF0000)):
        is_c = unicodedata.category(chr(cp))[0] == "C"
        if is_c and start < 0:
            start = cp
        elif not is_c and start >= 0:
            ranges.append((start, cp - 1))
            start = -1
        if cp == 0x3FFFF and start < 0:
            start = 0x40000  # the skipped planes 4-13 open a category-C run
    if start >= 0:
        ranges.append((start, 0x10FFFF))
    return "".join(f"\\U{a:08x}" if a == b else f"\\U{a:08x}-\\U{b:08x}" for a, b in ranges)


@lru_cache(maxsize=1)
def _form_regexes() -> dict[str, re.Pattern[str]]:
    inv = _category_c_class() + _INVISIBLE_EXTRA
    key = rf"[{inv}+]*(?:[A-Za-z_]|%[0-9A-Fa-f]{{2}})(?:[A-Za-z0-9_.-]|%[0-9A-Fa-f]{{2}}|[{inv}+])*"
    form_value = r"[^&\s<>]*"
    pair = f"{key}={form_value}"
    flags = re.ASCII
    return {
        "inv": re.compile(f"[{inv}+]"),
        "url_pair": re.compile(_js(rf"([?&])({key})=([^&#\s<>]*)"), flags),
        "form_full": re.compile(_js(rf"^{pair}(?:&{pair})+$"), flags),
        "form_sub": re.compile(_js(r"""(^|[\s:({\[,="'`])(""" + pair + "(?:&" + pair + ")+)"), flags),
        "encoded_pair": re.compile(_js(r"""(^|[\s:({\[,="'`&])(""" + key + ")=(" + form_value + ")"), flags),
        "context_pair": re.compile(_js(r"""(\b(?:body|form(?:[-_\s]?body)?)\s*[:=]\s*(["'`]?))(""" + key + ")=(" + form_value + r""")(["'`]?)"""),
                                   flags | re.IGNORECASE),
        "prefilter_pct": re.compile(f"%[0-9A-Fa-f]{{2}}[{inv}+A-Za-z0-9_%.-]*="),
        "eq_run": re.compile(f"(?<![{inv}+A-Za-z0-9_%.-])[{inv}+A-Za-z0-9_%.-]+="),
    }


def _strip_separators(s: str) -> str:
    """Remove [\\p{C}\\p{Z}\\u115F\\u1160\\u3164\\uFFA0+] (URL_QUERY_NAME_SEPARATOR_RE)."""
    if s.isascii():
        return "".join(c for c in s if c != "+" and c != " " and not (c < " " or c == "\x7f"))
    return "".join(c for c in s if not (c == "+" or c in "\u115f\u1160\u3164\uffa0" or unicodedata.category(c)[0] in "CZ"))


_PCT_RUN = re.compile(r"(?:%[0-9A-Fa-f]{2})+")


def _decode_uri_component(s: str) -> str:
    """JS decodeURIComponent: raises ValueError on a stray `%` or bytes that are not UTF-8."""
    if "%" not in s:
        return s
    out, pos = [], 0
    for m in _PCT_RUN.finditer(s):
        if "%" in s[pos : m.start()]:
            raise ValueError("malformed escape")
        out.append(s[pos : m.start()])
        out.append(bytes.fromhex(m.group(0).replace("%", "")).decode("utf-8"))
        pos = m.end()
    if "%" in s[pos:]:
        raise ValueError("malformed escape")
    out.append(s[pos:])
    return "".join(out)


_URL_SECRET_PARAMS = frozenset(
    "token key api_key apikey secret access_token auth_token password pass passwd auth jwt session id_token code "
    "client_secret app_secret hook_token refresh_token signature x_amz_signature x_amz_security_token private_key "
    "credential authorization sig x_api_key x_access_token x_auth_token".split()
)
_BODY_SECRET_KEYS = frozenset(
    "access_token auth_token awssecretaccesskey aws_secret_access_key hook_token refresh_token id_token token api_key "
    "apikey client_secret app_secret password pass passwd auth jwt session code signature x_amz_signature "
    "x_amz_security_token secret secretaccesskey credential private_key authorization key card_number card_cvc card_cvv "
    "cvc cvv security_code payment_credential shared_payment_token".split()
)
_SCOPED_TOKEN_PARAM = re.compile(r"(?:^|_)token(?:_[a-f0-9]{16,})?\Z")


def _is_sensitive_url_param(name: str) -> bool:
    """isSensitiveUrlQueryParamName: decodes up to 8 nested levels; undecodable `%` counts as sensitive."""
    current = _strip_separators(name)
    unresolved = False
    for _ in range(9):
        try:
            decoded = _strip_separators(_decode_uri_component(current))
        except ValueError:
            unresolved = "%" in current
            break
        if decoded == current:
            break
        current = decoded
    else:
        unresolved = "%" in current
    value = current.strip().lower().replace("-", "_")
    return unresolved or value in _URL_SECRET_PARAMS or bool(_SCOPED_TOKEN_PARAM.search(value))


def _is_sensitive_body_key(key: str) -> bool:
    if _is_sensitive_url_param(key):
        return True
    stripped = _strip_separators(key)
    try:
        normalized = _strip_separators(_decode_uri_component(stripped)).lower().replace("-", "_")
    except ValueError:
        normalized = stripped.lower().replace("-", "_")
    return normalized in _BODY_SECRET_KEYS


# ---------------------------------------------------------------------------------------------
# Structural passes: URL query values and form bodies (redactAssignmentValues / redactFormBody)
# ---------------------------------------------------------------------------------------------

_HEX_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")


def _redact_assignments(text: str, kind: str) -> str:
    if not text or (kind == "url" and "?" not in text):
        return text
    rx = _form_regexes()
    if kind == "encoded" and "%" not in text and not rx["inv"].search(text):
        return text
    if kind == "context" and ("=" not in text or not ("body" in text.lower() or "form" in text.lower())):
        return text  # (also needs `=` and "body"/"form": every match does; only a shortcut)
    spans: list[tuple[int, int, str]] = []

    def visit_pair(key: str, token: str, value_offset: int) -> None:
        if kind == "encoded" and not (_HEX_ESCAPE.search(key) or rx["inv"].search(key)):
            return
        if not _is_sensitive_body_key(key):
            return
        maskable, _, mask_end = _split_secret_value(token)
        spans.append((value_offset, value_offset + mask_end, _mask_token(maskable) if kind == "url" else "***"))

    if kind == "form":
        cursor = 0
        for pair in text.split("&"):
            eq = pair.find("=")
            if eq >= 0:
                visit_pair(pair[:eq], pair[eq + 1 :], cursor + eq + 1)
            cursor += len(pair) + 1
    else:
        pattern = rx["url_pair"] if kind == "url" else rx["encoded_pair"] if kind == "encoded" else rx["context_pair"]
        key_group = 3 if kind == "context" else 2
        for m in pattern.finditer(text):
            key = m.group(key_group) or ""
            visit_pair(key, m.group(key_group + 1) or "", m.start() + len(m.group(1) or "") + len(key) + 1)
    if not spans:
        return text
    parts, cursor = [], 0
    for start, end, replacement in spans:
        parts.append(text[cursor:start])
        parts.append(replacement)
        cursor = end
    parts.append(text[cursor:])
    return "".join(parts)


def _redact_form_body_line(text: str) -> str:
    if not text:
        return text
    redacted = _redact_assignments(_redact_assignments(text, "encoded"), "context")
    if "&" not in redacted:
        return redacted
    rx = _form_regexes()
    if rx["form_full"].match(redacted):
        return _redact_assignments(redacted, "form")

    def sub(m: re.Match[str]) -> str:
        body = _redact_assignments(m.group(2), "form")
        return m.group(0) if body == m.group(2) else m.group(1) + body

    redacted = rx["form_sub"].sub(sub, redacted)
    return _redact_assignments(_redact_assignments(redacted, "encoded"), "context")


_LINE_BREAK_SPLIT = re.compile(r"(\r\n|\r|\n)")


def _redact_form_body(text: str) -> str:
    if "=" not in text:
        return text
    if "\n" in text or "\r" in text:
        return "".join(seg if seg in ("\r\n", "\r", "\n") else _redact_form_body_line(seg) for seg in _LINE_BREAK_SPLIT.split(text))
    return _redact_form_body_line(text)
