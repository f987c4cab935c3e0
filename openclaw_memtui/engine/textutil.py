"""Small text helpers shared by the chunker, the keyword leg and MMR.

JavaScript measures strings in UTF-16 code units; OpenClaw's chunk budgets and snippet cuts do too,
so parity needs the same measure.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable

WORD_RE = re.compile(r"\w+")  # Python's \w on str == [\p{L}\p{N}_] (marks are separators)


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def clean_text(text: str) -> str:
    """`text` with lone surrogates replaced by U+FFFD; escaped surrogate pairs become their character.

    They arrive from undecodable command-line bytes (Python's surrogateescape) and from JSON
    escapes like `"\\ud800"`; SQLite, tokenizers and stdout all refuse to encode them.
    """
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


BOM = "\ufeff"  # a byte order mark: Windows editors put one before the first line of a UTF-8 file


def strip_bom(text: str) -> str:
    """`text` without a leading byte order mark: invisible in an editor, it made a queries file "not
    valid JSON" on its first line (Python's json, like tomllib, refuses it)."""
    return text[1:] if text.startswith(BOM) else text


def has_lone_surrogate(value: object) -> bool:
    """Whether a parsed JSON value holds a string with a lone surrogate anywhere (a key included).

    JSON lets `"\\ud800"` through as an escape, but it is no character: UTF-8 cannot encode it, so
    every later print or save of that string fails. Callers refuse such a value where it is read."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return True
        return False
    if isinstance(value, dict):
        return any(has_lone_surrogate(k) or has_lone_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(has_lone_surrogate(v) for v in value)
    return False


def _compiled_at_first_use(source: str) -> Callable[[], re.Pattern[str]]:
    """The pattern, compiled when first asked for: the character classes below took 3 ms to compile at
    every start of every command, and text that is all ASCII (checked first everywhere) never needs them."""
    return functools.cache(lambda: re.compile(source))


# the chunker measures every line: these counts run in C (regex), not a Python loop per character
_ASTRAL_RE = _compiled_at_first_use("[\U00010000-\U0010ffff]")
_CJK_WEIGHTED_RE = _compiled_at_first_use("[\u2e80-\u9fff\ua000-\ua4ff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0002fa1f]")


def _count(pattern: re.Pattern[str], text: str) -> int:
    return len(text) - len(pattern.sub("", text))


def utf16_len(text: str) -> int:
    if text.isascii():
        return len(text)
    return len(text) + _count(_ASTRAL_RE(), text)


def utf16_prefix(text: str, limit: int) -> str:
    """The longest prefix of at most `limit` UTF-16 units, never splitting a surrogate pair."""
    if len(text) <= limit and utf16_len(text) <= limit:
        return text
    units = 0
    for i, ch in enumerate(text):
        units += 2 if ord(ch) > 0xFFFF else 1
        if units > limit:
            return text[:i]
    return text


def weighted_len(text: str) -> int:
    """OpenClaw's `estimateStringChars`: CJK counts 4, astral CJK counts 4, other astral counts 2."""
    if text.isascii():
        return len(text)
    cjk = _count(_CJK_WEIGHTED_RE(), text)  # astral CJK included: 1 + 3
    astral = _count(_ASTRAL_RE(), text)
    astral_cjk = _count(_ASTRAL_CJK_RE(), text)
    return len(text) + 3 * cjk + (astral - astral_cjk)


def is_cjk_char(ch: str) -> bool:
    """CJK-family characters that whitespace tokenizers cannot split (Han, Kana, Hangul)."""
    cp = ord(ch)
    return (
        0x3040 <= cp <= 0x30FF
        or 0x3400 <= cp <= 0x4DBF
        or 0x4E00 <= cp <= 0x9FFF
        or 0xAC00 <= cp <= 0xD7AF
        or 0x1100 <= cp <= 0x11FF
        or 0x3131 <= cp <= 0x3163
        or 0xF900 <= cp <= 0xFAFF
        or 0x20000 <= cp <= 0x2FA1F
    )


def contains_cjk(text: str) -> bool:
    return not text.isascii() and _CJK_RUN_RE().search(text) is not None


def cjk_bigrams(run: str) -> list[str]:
    """Overlapping bigrams of a CJK run; a single character stands for itself."""
    if len(run) <= 1:
        return [run] if run else []
    return [run[i : i + 2] for i in range(len(run) - 1)]


_ASTRAL_CJK_RE = _compiled_at_first_use("[\U00020000-\U0002fa1f]")
_CJK_RUN_RE = _compiled_at_first_use(
    "[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\u1100-\u11ff\u3131-\u3163\uf900-\ufaff"
    "\U00020000-\U0002fa1f]+"
)


def segment_cjk_for_index(text: str) -> str:
    """Rewrite each CJK run as space-separated overlapping bigrams so `unicode61` can index them.

    "API鉴权方案" becomes "API 鉴权 权方 方案": a query for 鉴权 (one bigram) or 鉴权方案 (the
    phrase of its bigrams) then matches, which neither unicode61 nor trigram MATCH can do.
    """
    if not contains_cjk(text):
        return text
    return _CJK_RUN_RE().sub(lambda m: " " + " ".join(cjk_bigrams(m.group(0))) + " ", text)


def cjk_runs(text: str) -> list[str]:
    return _CJK_RUN_RE().findall(text)
