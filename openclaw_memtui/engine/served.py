"""Text memtui hands to another program (over MCP): masked over the whole file first, cut after.

The redactor (the redact package) recognises a secret by its whole shape: a private key by its BEGIN and END
lines, a token by its length. Masking a slice or a snippet therefore leaks whatever the cut made
unrecognisable (the key lines between a BEGIN and an END outside the slice, the head of a token
cut at the snippet's end). So every text served is masked on the whole it was cut from — the whole
file for `memory_get`, the whole indexed file (its chunks put back together) for a search snippet —
and only then cut. This module owns that rule; the answer gate (core/gate.py) and the memory tools
(core/tools.py) only call it.

Beyond OpenClaw's redactor, a private key block that is not closed (a BEGIN with no END after it,
an END with no BEGIN before it) still has its key lines masked: OpenClaw leaves those raw, but a
half key is still a key.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence

from .scrub import mask_output, replace_known

_PEM_LINE = re.compile(r"-----(BEGIN|END) [A-Z0-9 ]*PRIVATE KEY-----", re.I)
# what the lines of a key block hold: base64 body lines, `Proc-Type:`/`DEK-Info:` headers, the blank after them
_KEY_BODY = re.compile(r"[A-Za-z0-9+/=]{8,}|[A-Za-z-]+: .*")
MASKED_LINE = "…redacted…"


def mask_note(text: str) -> str:
    """A note's text with secrets masked by OpenClaw's redactor, line for line.

    A private key block the redactor shortens to three lines is padded with empty lines (and lines it
    adds are folded into their neighbour), so line numbers still name the file's lines.
    """
    from .redact import redact_secrets

    masked = redact_secrets(text)
    before, after = text.split("\n"), masked.split("\n")
    if len(before) != len(after):
        out: list[str] = []
        for _, i1, i2, j1, j2 in difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes():
            part, size = after[j1:j2], i2 - i1  # keep each region's line count: pad it, or fold the excess
            if len(part) < size:
                part += [""] * (size - len(part))
            elif len(part) > size and size:
                part = part[: size - 1] + [" ".join(part[size - 1:])]
            elif len(part) > size:  # lines the redactor added between two kept ones: onto the line before
                out[-1:] = [" ".join(out[-1:] + part)]
                part = []
            out.extend(part)
        after = out
    return "\n".join(_mask_open_blocks(after))


def _mask_open_blocks(lines: list[str]) -> list[str]:
    """Key lines after a BEGIN that no END closes, and before an END that no BEGIN opens, masked."""
    marks = [(i, m.group(1).upper()) for i, line in enumerate(lines) for m in [_PEM_LINE.search(line)] if m]
    if not marks:
        return lines
    lines = list(lines)
    open_at: int | None = None
    for i, kind in marks:
        if kind == "BEGIN":
            if open_at is not None:  # a BEGIN inside an open block: the first one was never closed
                _mask_body(lines, range(open_at + 1, i))
            open_at = i
        elif open_at is None:  # an END with no BEGIN: the body above it
            _mask_body(lines, range(i - 1, -1, -1))
        else:
            open_at = None
    if open_at is not None:
        _mask_body(lines, range(open_at + 1, len(lines)))
    return lines


def _mask_body(lines: list[str], positions: Iterable[int]) -> None:
    """Mask the key-body lines at `positions`, walked in order, up to the first line that is not one."""
    for i in positions:
        line = lines[i]
        if line in ("", MASKED_LINE):  # the blank after `Proc-Type:` headers, or masked already
            continue
        if _PEM_LINE.search(line) or not _KEY_BODY.fullmatch(line.strip()):
            return
        lines[i] = MASKED_LINE


def served_text(text: str, source: str) -> str:
    """Text of an answer: configured keys replaced whole first (the redactor would keep their head and
    tail), then a note's other secrets masked; a transcript's were masked when it was read or indexed."""
    text = replace_known(text)
    return text if source == "sessions" else mask_note(text)


def served_chunk(chunk: tuple[int, int, str], source: str, file_chunks: Sequence[tuple[int, int, str]]) -> str:
    """A chunk's text masked as part of its whole file, before any snippet is cut from it.

    `file_chunks`: (start line, end line, text) of every chunk the index holds for the chunk's file, so
    a chunk in the middle of a key block (no BEGIN or END of its own) is masked as the file's lines are.
    Chunks of one line cut into several segments cannot be laid back on the file's lines: those are
    masked on their own (with the open-block rule).
    """
    start, end, text = chunk
    if source == "sessions":
        return replace_known(text)
    lines: dict[int, str] = {}
    for s, e, t in file_chunks:
        parts = t.split("\n")
        if len(parts) == e - s + 1:
            lines.update(zip(range(s, e + 1), parts, strict=True))
    own = text.split("\n")
    if len(own) != end - start + 1 or any(lines.get(n) != line for n, line in zip(range(start, end + 1), own, strict=True)):
        return served_text(text, source)
    last = max(lines)
    whole = served_text("\n".join(lines.get(n, "") for n in range(1, last + 1)), source).split("\n")
    return "\n".join(whole[start - 1:end])


def mask_fields(value: object) -> object:
    """`value` (an MCP answer: dicts, lists, strings, numbers) with every string in it, key or value,
    cleared of known secrets and key shapes (`scrub.mask_output`): a file named after a configured
    key is a path field, not a snippet, and goes out all the same."""
    if isinstance(value, str):
        return mask_output(value)
    if isinstance(value, dict):
        return {mask_output(k) if isinstance(k, str) else k: mask_fields(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [mask_fields(v) for v in value]
    return value
