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
from collections.abc import Callable, Iterable, Sequence

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


def served_chunk(chunk: tuple[int, int, str], source: str, file_chunks: Sequence[tuple[int, int, str]],
                 file_text: Callable[[], str | None] | None = None) -> str:
    """A chunk's text masked as part of its whole file, before any snippet is cut from it.

    `file_chunks`: (start line, end line, text) of every chunk the index holds for the chunk's file, so
    a chunk in the middle of a key block (no BEGIN or END of its own) is masked as the file's lines are.
    `file_text` (the file as it is now), when given, is what the chunk is laid on instead: the index's
    other chunks cannot tell a segment of a long line from the line. A chunk holding segments of a
    line longer than a chunk is masked as the stretch of the file it was cut from, and a key the
    segment cut in two is masked whole (`_masked_cut`). When the file changed since it was indexed,
    the chunk is laid on the index's other chunks (a chunk of segments that cannot be is masked on its
    own, each half-key-like run at a segment's edge too).
    """
    start, end, text = chunk
    if source == "sessions":
        return replace_known(text)
    own = text.split("\n")
    whole_text = file_text() if file_text is not None else None
    if whole_text is not None:  # the file's own lines: a chunk's lines are checked against them, not other chunks
        real = whole_text.replace("\r\n", "\n").split("\n")
        if own == real[start - 1:end]:
            return "\n".join(served_text("\n".join(real), source).split("\n")[start - 1:end])
        where = _locate(own, real, start, end)
        if where is not None:  # cut inside a long line
            return _masked_cut(where, source)
        # the file changed since it was indexed: laid on the index's chunks, as below
    lines: dict[int, str] = {}
    for s, e, t in file_chunks:
        parts = t.split("\n")
        if len(parts) == e - s + 1:
            lines.update(zip(range(s, e + 1), parts, strict=True))
    if len(own) != end - start + 1 or any(lines.get(n) != line for n, line in zip(range(start, end + 1), own, strict=True)):
        return served_text(_mask_edges(text) if len(own) != end - start + 1 else text, source)
    last = max(lines)
    whole = served_text("\n".join(lines.get(n, "") for n in range(1, last + 1)), source).split("\n")
    return "\n".join(whole[start - 1:end])


_RUN = re.compile(r"\S+")
EDGE_RUN_MAX = 4096  # a run of non-space characters longer than this at a cut is masked without a look
LOCATE_TRIES = 64  # places tried for a chunk's first segment in its lines (a line of one repeated word)


def _masked_cut(where: tuple[str, int, int], source: str) -> str:
    """A chunk cut inside a line, masked as the text it came from (`where`: its lines of the file, and
    where in them its segments lie, joined without the chunker's newlines as they stand in the file):
    each run of non-space characters a cut goes through is masked whole when any of it is a secret,
    so neither half of a key comes out."""
    region, a, b = where
    left, right = _run_at(region, a), _run_at(region, b)
    cut_a, cut_b = a, b
    head = tail = ""
    if left is not None and _holds_secret(region[left[0]:left[1]], source):
        head, cut_a = REDACTED_RUN, min(left[1], b)
    if right is not None and _holds_secret(region[right[0]:right[1]], source) and right[0] >= cut_a:
        tail, cut_b = REDACTED_RUN, right[0]
    middle = served_text(region[cut_a:cut_b], source) if cut_a < cut_b else ""
    return head + middle + tail


REDACTED_RUN = "[redacted]"


def _locate(pieces: list[str], lines: list[str], start: int, end: int) -> tuple[str, int, int] | None:
    """(the text of lines start..end of the file, where the chunk's pieces lie in it): the pieces are
    consecutive segments, each after the one before it either directly (the same line) or after a
    newline (the next line; an empty piece is an empty line)."""
    if end > len(lines):
        return None
    region = "\n".join(lines[start - 1:end])
    first, found, tries = pieces[0], region.find(pieces[0]), 0
    while found >= 0 and tries < LOCATE_TRIES:
        pos = found + len(first)
        for piece in pieces[1:]:
            if piece and region.startswith(piece, pos):
                pos += len(piece)
            elif region.startswith("\n" + piece, pos):
                pos += 1 + len(piece)
            else:
                break
        else:
            return region, found, pos
        found, tries = region.find(first, found + 1), tries + 1
    return None


def _run_at(text: str, i: int) -> tuple[int, int] | None:
    """The run of non-space characters a cut at `i` goes through, when it goes through one."""
    if not 0 < i < len(text) or text[i - 1].isspace() or text[i].isspace():
        return None
    a, b = i, i
    while a > 0 and not text[a - 1].isspace() and i - a <= EDGE_RUN_MAX:
        a -= 1
    while b < len(text) and not text[b].isspace() and b - i <= EDGE_RUN_MAX:
        b += 1
    return a, b


def _holds_secret(run: str, source: str) -> bool:
    return len(run) > EDGE_RUN_MAX or served_text(run, source) != run or mask_output(run) != run


_HALF_KEY = re.compile(r"(?=[A-Za-z_-]*[0-9])(?=[0-9_-]*[A-Za-z])[A-Za-z0-9_-]{8,}")


def _mask_edges(text: str) -> str:
    """Runs at the edges of a chunk's segments that could be half of a key, masked (a chunk cut inside
    a line that cannot be laid on the file: what was on the other side of the cut is not known)."""
    out = []
    for piece in text.split("\n"):
        runs = list(_RUN.finditer(piece))
        for m in reversed([r for r in (runs[:1] + runs[-1:]) if _HALF_KEY.fullmatch(r.group())] if runs else []):
            piece = piece[:m.start()] + REDACTED_RUN + piece[m.end():]
            if len(runs) == 1:
                break
        out.append(piece)
    return "\n".join(out)


def mask_cut_end(text: str) -> str:
    """A snippet cut from unmasked text (the listing of the memory cuts before it masks): the run of
    non-space characters the cut ends in, masked when it could be the head of a key (8+ letters and
    digits mixed), since the part that made it one is gone."""
    m = re.search(r"\S+\Z", text)
    if m is None or not _HALF_KEY.fullmatch(m.group()):
        return text
    return text[:m.start()] + REDACTED_RUN


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
