"""Remove API keys from any text before memtui shows it or stores it.

A provider may echo our request back in an error body (its `Authorization` header included), a
base URL may carry `user:password@` or `?key=`, and an exception may quote either. Every such text
passes through `scrub` at the provider boundary and again before it is written to the index meta or
printed, so a key never reaches a terminal, a log or the index file.

Two nets: the exact values memtui was configured with (registered when a provider is built, plus
the provider key environment variables), and patterns for things that look like a key wherever
they came from. Unlike `redact/` (transcript text, which keeps a recognisable prefix), nothing of
a secret is kept here: an error message never needs it.
"""

from __future__ import annotations

import functools
import os
import re
import threading
from collections.abc import Iterable

REDACTED = "[redacted]"
KEY_ENV_VARS = ("OPENAI_API_KEY", "GEMINI_API_KEY", "VOYAGE_API_KEY", "MISTRAL_API_KEY")
# Shorter "secrets" (a test header "x", an empty key) would blank ordinary words in messages.
MIN_SECRET_LEN = 6
SENSITIVE_HEADER = re.compile(r"auth|key|token|secret|cookie|password|signature", re.I)

_known: set[str] = set()
_lock = threading.Lock()

_VALUE = r"[^\s\"'`,;&<>{}\[\]]+"


@functools.cache
def _key_shapes() -> re.Pattern[str]:
    """Well-known API key shapes (OpenAI, Google, GitHub, Slack, Groq, Voyage), wherever they stand."""
    # not `\b` before a prefix: "_" is a word character, and `notes_ghp_…` is a token glued to a word
    return re.compile(r"(?<![A-Za-z0-9])(?:(?:sk|pk|rk)-[A-Za-z0-9_-]{12,}|AIza[0-9A-Za-z_-]{20,}|gh[pousr]_[A-Za-z0-9]{20,}"
                      r"|github_pat_[A-Za-z0-9_]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|gsk_[A-Za-z0-9]{16,}"
                      r"|pa-[A-Za-z0-9_-]{20,})")


@functools.cache
def _patterns() -> list[tuple[re.Pattern[str], str]]:
    """Compiled on the first text to scrub: regex compiling that most runs of `status` never need."""
    return [
        # "Authorization: Bearer x", "authorization=Basic x", JSON "Authorization": "Bearer x"
        (re.compile(r"((?:proxy-)?authorization[\"']?\s*[:=]\s*[\"']?(?:(?:bearer|basic|token)\s+)?)" + _VALUE, re.I),
         r"\1" + REDACTED),
        (re.compile(r"(\bbearer\s+)[A-Za-z0-9._~+/=-]{8,}", re.I), r"\1" + REDACTED),
        # api_key=…, "x-goog-api-key": "…", apiKey: …, ?key=… in a URL, token=…, password: …
        (re.compile(r"(\b(?:[A-Za-z0-9]+[-_])*(?:api[-_]?key|apikey|key|token|secret|password|passwd)"
                    r"[\"']?\s*[:=]\s*[\"']?)" + _VALUE, re.I),
         r"\1" + REDACTED),
        # well-known key shapes, wherever they stand
        (_key_shapes(), REDACTED),
        # credentials in a URL: scheme://user:password@host
        (re.compile(r"(\b[a-z][a-z0-9+.-]*://)[^/\s@:]*:[^/\s@]*@", re.I), r"\1" + REDACTED + "@"),
    ]


def register_secret(value: str | None) -> None:
    """Remember a configured key (or sensitive header value) so every later `scrub` removes it."""
    if value and len(value) >= MIN_SECRET_LEN:
        with _lock:
            _known.add(value)


def register_headers(headers: dict[str, str] | None) -> None:
    """Values of configured headers whose names say they carry credentials (api-key, X-Auth-Token…)."""
    for name, value in (headers or {}).items():
        if SENSITIVE_HEADER.search(str(name)):
            register_secret(str(value))


def known_secrets(extra: Iterable[str] = ()) -> list[str]:
    """Registered values, the key environment variables and `extra`, longest first.

    Longest first: when one key contains another, the whole of the longer one goes.
    """
    with _lock:
        values = set(_known)
    values.update(os.environ.get(name, "") for name in KEY_ENV_VARS)
    values.update(extra)
    return sorted((v for v in values if v and len(v) >= MIN_SECRET_LEN), key=len, reverse=True)


def replace_known(text: str, extra: Iterable[str] = ()) -> str:
    """`text` with every known secret (configured, in the environment, or `extra`) replaced whole by
    "[redacted]"; key-shaped strings that memtui was not configured with are left as they are."""
    for secret in known_secrets(extra):
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text


# A provider may echo part of a key ("Zq8Xv2Lp9Ws4Nd7H…", its last half, a masked middle): any run of
# FRAGMENT characters of a known secret of at least FRAGMENT_FROM characters is part of it. Eight random
# characters do not occur in ordinary text by chance (case is ignored: an echo may change it).
FRAGMENT = 8
FRAGMENT_FROM = 12


@functools.lru_cache(maxsize=8)
def _fragments(secrets: tuple[str, ...]) -> re.Pattern[str] | None:
    """A lookahead for every FRAGMENT-long piece of `secrets`, so that overlapping pieces all match."""
    pieces = {s[i:i + FRAGMENT] for s in secrets if len(s) >= FRAGMENT_FROM for i in range(len(s) - FRAGMENT + 1)}
    return re.compile("(?=(" + "|".join(map(re.escape, sorted(pieces))) + "))", re.I) if pieces else None


def _without_fragments(text: str, secrets: tuple[str, ...]) -> str:
    pattern = _fragments(secrets)
    if pattern is None:
        return text
    spans: list[list[int]] = []
    for match in pattern.finditer(text):
        start = match.start()
        if spans and start <= spans[-1][1]:
            spans[-1][1] = start + FRAGMENT
        else:
            spans.append([start, start + FRAGMENT])
    for start, end in reversed(spans):
        text = text[:start] + REDACTED + text[end:]
    return text


def scrub(text: str, extra: Iterable[str] = ()) -> str:
    """`text` with every known secret (whole, or any piece of one), and anything shaped like a key,
    replaced by "[redacted]"."""
    if not text:
        return text
    secrets = known_secrets(extra)
    text = replace_known(text, secrets)
    # key shapes before fragments: a fragment of a known key that happens to occur inside another
    # key-shaped string (8 digits, say) would cut it, and the rest would no longer look like a key
    for pattern, replacement in _patterns():
        text = pattern.sub(replacement, text)
    return _without_fragments(text, tuple(secrets))


def mask_output(text: str) -> str:
    """A field of an answer that leaves memtui (MCP): known secrets, whole or in pieces, and well-known
    key shapes replaced by "[redacted]". Unlike `scrub`, `key: value` wording is left alone: a note's
    text has been through the redactor already, and "password: see the vault" must still read."""
    if not text:
        return text
    from .redact.apply import mask_token_shapes

    secrets = known_secrets()
    text = _key_shapes().sub(REDACTED, replace_known(text, secrets))
    # and every token shape OpenClaw's redactor knows (it masks them in a note's text; a note named
    # after one, an AWS key id or a Hugging Face token, would otherwise show it in its path)
    return _without_fragments(mask_token_shapes(text, REDACTED), tuple(secrets))
