"""Masking of a secret once found (OpenClaw's maskToken, splitSecretValueForMask, redactPemBlock).

Part of the port of OpenClaw 2026.9.6's redaction (see the package docstring).
"""

from __future__ import annotations

import re

# ---------------------------------------------------------------------------------------------
# Masking (maskToken, splitSecretValueForMask, redactPemBlock)
# ---------------------------------------------------------------------------------------------

_MIN_LENGTH = 18  # DEFAULT_REDACT_MIN_LENGTH, in UTF-16 units
_KEEP_START = 6  # DEFAULT_REDACT_KEEP_START
_PEM_MARKER = "…redacted…"


def _utf16_len(s: str) -> int:
    return len(s) + sum(1 for c in s if ord(c) > 0xFFFF) if not s.isascii() else len(s)


def _utf16_head(s: str, units: int) -> str:
    """sliceUtf16Safe(s, 0, units): never ends inside a surrogate pair (the pair is dropped)."""
    if s.isascii():
        return s[:units]
    out, used = [], 0
    for c in s:
        w = 2 if ord(c) > 0xFFFF else 1
        if used + w > units:
            break
        out.append(c)
        used += w
    return "".join(out)


def _utf16_tail(s: str, units: int) -> str:
    """sliceUtf16Safe(s, -units): never starts inside a surrogate pair (the pair is dropped)."""
    if s.isascii():
        return s[-units:] if units else ""
    out, used = [], 0
    for c in reversed(s):
        w = 2 if ord(c) > 0xFFFF else 1
        if used + w > units:
            break
        out.append(c)
        used += w
    return "".join(reversed(out))


def _mask_token(token: str) -> str:
    if token == "***":
        return token
    if _utf16_len(token) < _MIN_LENGTH:
        return "***"
    return f"{_utf16_head(token, _KEEP_START)}…{_utf16_tail(token, 4)}"


_TRAILING_DELIMS = re.compile(r"([\"'`,;)}\]]+)\Z")
_SUFFIX_ONLY = re.compile(r"[\"'`,;)}\]]*\Z")


def _split_secret_value(token: str) -> tuple[str, str, int]:
    """(maskable, suffix, mask_end) of a captured value: quotes and trailing delimiters are not secret."""
    if token[:1] in ("\"", "'", "`"):
        close = token.rfind(token[0])
        if close > 0:
            suffix = token[close + 1 :]
            if _SUFFIX_ONLY.match(suffix):
                return token[1:close], suffix, close + 1
        rest = token[1:]
        m = _TRAILING_DELIMS.search(rest)
        trailing = m.group(1) if m else ""
        keep = bool(trailing) and len(trailing) < len(rest)
        maskable = rest[: -len(trailing)] if keep else rest
        return maskable, trailing if keep else "", 1 + len(maskable)
    m = _TRAILING_DELIMS.search(token)
    trailing = m.group(1) if m else ""
    maskable = token[: -len(trailing)] if trailing and len(trailing) < len(token) else token
    return maskable, ("" if maskable == token else trailing), len(maskable)


def _mask_secret_value(token: str) -> str:
    """maskSecretValue(token, {hinted: true}): the quotes go, trailing delimiters stay."""
    maskable, suffix, _ = _split_secret_value(token)
    return _mask_token(maskable) + suffix


def _split_form_aware(token: str) -> tuple[str, str]:
    m = _FORM_AWARE_SPLIT.search(token)
    return (token, "") if m is None else (token[: m.start()], token[m.start() :])


_FORM_AWARE_SPLIT = re.compile(r"&[A-Za-z_][A-Za-z0-9_.-]*=")


def _redact_pem_block(block: str) -> str:
    lines = [line for line in re.split(r"\r?\n", block) if line]
    if len(lines) < 2:
        return "***"
    return f"{lines[0]}\n{_PEM_MARKER}\n{lines[-1]}"
