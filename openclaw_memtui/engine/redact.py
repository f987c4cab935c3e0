"""Mask secrets in transcript text before it is indexed (OpenClaw spec §4.5).

Memory markdown is the user's own writing and is not redacted; chat transcripts often carry pasted
keys, so their text is masked the way OpenClaw's log redactor does it.
"""

from __future__ import annotations

import re

_PATTERNS = [
    re.compile(r"\b[A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD)\s*[=:]\s*[\"']?([^\s\"'\\]+)", re.I),
    re.compile(r"\"(?:apiKey|token|secret|password|passwd|accessToken|refreshToken)\"\s*:\s*\"([^\"]+)\"", re.I),
    re.compile(r"--(?:api[-_]?key|hook-token|token|secret|password|passwd)(?:\s+|=)[\"']?([^\s\"']+)", re.I),
    re.compile(r"Authorization\s*[:=]\s*Bearer\s+([A-Za-z0-9._\-+=/]+)", re.I),
    re.compile(r"\bBearer\s+([A-Za-z0-9._\-+=]{18,})", re.I),
    re.compile(
        r"\b(sk-[A-Za-z0-9_-]{8,}|ghp_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|xox[baprs]-[A-Za-z0-9-]{10,}"
        r"|xapp-[A-Za-z0-9-]{10,}|gsk_[A-Za-z0-9]{10,}|AIza[0-9A-Za-z\-_]{20,}|pplx-[A-Za-z0-9]{10,}|npm_[A-Za-z0-9]{10,})"
    ),
    re.compile(r"\bbot(\d{6,}:[A-Za-z0-9_-]{20,})\b"),
    re.compile(r"\b(\d{6,}:[A-Za-z0-9_-]{20,})\b"),
]
_PEM = re.compile(r"(-----BEGIN [A-Z ]*PRIVATE KEY-----)[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----)")


def _mask(secret: str) -> str:
    if len(secret) < 18:
        return "***"
    return f"{secret[:6]}…{secret[-4:]}"


def redact_secrets(text: str) -> str:
    text = _PEM.sub(lambda m: f"{m.group(1)}…redacted…{m.group(2)}", text)
    for pattern in _PATTERNS:

        def repl(m: re.Match[str]) -> str:
            groups = [g for g in m.groups() if g]
            secret = groups[-1] if groups else m.group(0)
            if "…" in secret or secret == "***":
                return m.group(0)
            start, end = m.span()
            s_start = m.start(m.lastindex) if m.lastindex else start
            return m.group(0)[: s_start - start] + _mask(secret) + m.group(0)[s_start - start + len(secret) :]

        text = pattern.sub(repl, text)
    return text
