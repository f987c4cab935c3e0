"""Scanners that are not regexes in OpenClaw: PEM blocks and AWS secret access keys.

Part of the port of OpenClaw 2026.9.6's redaction (see the package docstring).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .auth_params import _ch
from .jsregex import _JS_WS_RE

# ---------------------------------------------------------------------------------------------
# Scanners: PEM blocks and AWS secret access keys
# ---------------------------------------------------------------------------------------------


def _pem_delimiters(text: str) -> Iterator[tuple[str, int, int]]:
    """(kind, start, end) of `-----BEGIN … PRIVATE KEY-----` / `-----END …-----` (case-insensitive)."""
    phase, dashes, keyword, kw_off, start, suffix = "search", 0, "BEGIN ", 0, 0, ""
    n = len(text)
    i = 0
    while i < n:
        if phase == "search" and dashes == 0:
            i = text.find("-", i)
            if i < 0:
                return
        c = text[i]
        if "a" <= c <= "z":
            c = c.upper()
        if phase == "search":
            if c == "-":
                dashes = min(5, dashes + 1)
            elif dashes == 5 and c in ("B", "E"):
                phase, keyword, kw_off, start = "keyword", ("BEGIN " if c == "B" else "END "), 1, i - 5
            else:
                dashes = 0
        elif phase == "keyword":
            if c != keyword[kw_off]:
                phase, dashes, suffix = "search", (1 if c == "-" else 0), ""
            else:
                kw_off += 1
                if kw_off == len(keyword):
                    phase, suffix = "label", ""
        elif phase == "label":
            if "A" <= c <= "Z" or c == " ":
                suffix = (suffix + c)[-11:]
            elif c == "-" and suffix == "PRIVATE KEY":
                phase, dashes = "close", 1
            else:
                phase, dashes, suffix = "search", (1 if c == "-" else 0), ""
        else:  # close
            if c != "-":
                phase, dashes, suffix = "search", 0, ""
            else:
                dashes += 1
                if dashes == 5:
                    phase, suffix = "search", ""  # dashes stays 5, as in OpenClaw
                    yield ("begin" if keyword == "BEGIN " else "end", start, i + 1)
        i += 1


def _pem_matches(text: str) -> Iterator[tuple[int, int]]:
    if "-----" not in text:
        return
    open_block: tuple[int, int] | None = None
    match_end = 0
    for kind, start, end in _pem_delimiters(text):
        if open_block is None:
            if kind == "begin" and start >= match_end:
                open_block = (start, end)
            continue
        if kind != "end" or start <= open_block[1]:
            continue
        block_start = open_block[0]
        open_block = None
        match_end = end
        if end > block_start:
            yield block_start, end


def _is_aws_char(c: str) -> bool:
    return bool(c) and (("A" <= c <= "Z") or ("a" <= c <= "z") or ("0" <= c <= "9") or c in "/+=")


_AWS_VALUE = re.compile(r"(?=[A-Za-z0-9/+=]{0,39}[A-Z])(?=[A-Za-z0-9/+=]{0,39}[a-z])(?=[A-Za-z0-9/+=]{0,39}[0-9/+=])"
                        r"(?=[A-Za-z0-9/+=]{0,39}[G-Zg-z/+=])[A-Za-z0-9/+=]{40}")
_AWS_RUN = re.compile(r"[A-Za-z0-9/+=]{40}")
_AWS_CLOSERS = {"\"": "\"", "'": "'", "`": "`", "<": ">", "(": ")", "[": "]", "{": "}"}
_AWS_SCHEME_CHAR = re.compile(r"[A-Za-z0-9+.-]")


def _could_match_aws(text: str) -> bool:
    return len(text) >= 40 and _AWS_RUN.search(text) is not None and _AWS_VALUE.search(text) is not None


class _Url:
    __slots__ = ("start", "end", "authority_end", "port_start", "port_valid", "has_at", "query_or_fragment", "closing", "closing_escape_depth")

    def __init__(self, start: int, end: int, closing: str | None, closing_escape_depth: int) -> None:
        self.start, self.end = start, end
        self.authority_end = self.port_start = -1
        self.port_valid, self.has_at, self.query_or_fragment = True, False, False
        self.closing, self.closing_escape_depth = closing, closing_escape_depth


def _aws_secret_matches(text: str) -> Iterator[tuple[int, int]]:
    """A 40-char mixed-case base64-ish run standing alone, not inside a public URL, not base64 data."""
    if not _could_match_aws(text):
        return
    n = len(text)
    run_start = scheme_start = -1
    url: _Url | None = None
    backslashes = 0
    runs: list[tuple[int, int, int, _Url | None]] = []
    for index in range(n + 1):
        c = text[index] if index < n else ""
        whitespace = index == n or _JS_WS_RE.match(c) is not None
        escape_depth = backslashes
        backslashes = backslashes + 1 if c == "\\" else 0
        if c and _is_aws_char(c):
            if run_start == -1:
                run_start = index
        elif run_start != -1:
            if index - run_start == 40:
                runs.append((run_start, index, run_start, url))
            elif index - run_start > 40 and c == "@" and text[index - 41] == "/":
                runs.append((index - 40, index, run_start, url))
            run_start = -1
        if whitespace:
            if url is not None:
                url.end = min(url.end, index)
            for r_start, r_end, origin, ctx in runs:
                public = ctx is not None and not ctx.has_at and ctx.port_valid and (
                    ctx.port_start == -1 or (ctx.end if ctx.authority_end == -1 else ctx.authority_end) > ctx.port_start + 1)
                before, after = _ch(text, r_start - 1), _ch(text, r_end)
                slash_credential = r_start != origin
                port_credential = (ctx is not None and ctx.port_start != -1 and origin == ctx.port_start + 1
                                   and ctx.authority_end > origin and r_end > ctx.authority_end and after == "@")
                if ((not slash_credential and (before == "_" or _is_aws_char(before))) or after == "_"
                        or text[origin - 8 : origin] == ";base64,"  # JS slice with a negative start counts from the end, as here
                        or (public and ctx is not None and not port_credential and r_start >= ctx.start and r_end <= ctx.end)):
                    continue
                if _AWS_VALUE.match(text, r_start, r_end):
                    yield r_start, r_end
            runs.clear()
            scheme_start = -1
            url = None
            continue
        if url is not None and index >= url.start:
            if c == url.closing and escape_depth == url.closing_escape_depth:
                url.end = min(url.end, index)
                url = None
            else:
                if c in "?#\"'<>`|()[]{}":
                    url.end = min(url.end, index)
                url.query_or_fragment = url.query_or_fragment or c in "?#"
                if url.authority_end == -1:
                    url.has_at = url.has_at or c == "@"
                    if c in "/?#":
                        url.authority_end = index
                    elif index < url.end:
                        if c == ":":
                            url.port_valid = url.port_valid and url.port_start == -1
                            url.port_start = index
                        elif url.port_start != -1 and not ("0" <= c <= "9"):
                            url.port_valid = False
        if _AWS_SCHEME_CHAR.match(c):
            if scheme_start == -1:
                scheme_start = index
        else:
            if ((url is None or (index >= url.end and not url.query_or_fragment)) and c == ":" and text.startswith("//", index + 1)
                    and scheme_start != -1 and text[scheme_start].isascii() and text[scheme_start].isalpha()):
                opening = _ch(text, scheme_start - 1)
                depth, j = 0, scheme_start - 2
                while j >= 0 and text[j] == "\\":
                    depth += 1
                    j -= 1
                url = _Url(index + 3, n, _AWS_CLOSERS.get(opening) if opening else None, depth)
            scheme_start = -1
