"""Line-aware chunker with OpenClaw's exact budgets (spec §3).

A chunk is a run of whole lines (long lines are cut into segments) whose weighted length fits
`tokens × 4` characters; consecutive chunks share whole trailing lines worth `overlap × 4`
characters. CJK characters weigh 4 so Chinese text does not produce 4× oversized chunks.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..textutil import sha256_hex, utf16_len, weighted_len

CHARS_PER_TOKEN = 4


@dataclass(frozen=True, slots=True)
class TextChunk:
    start_line: int
    end_line: int
    text: str

    @property
    def hash(self) -> str:
        return sha256_hex(self.text)


def _slice_units(text: str, size: int) -> list[str]:
    """Cut `text` into pieces of at most `size` UTF-16 units without splitting surrogate pairs."""
    if utf16_len(text) == len(text):
        return [text[i : i + size] for i in range(0, len(text), size)]
    pieces: list[str] = []
    cur: list[str] = []
    units = 0
    for ch in text:
        w = 2 if ord(ch) > 0xFFFF else 1
        if units + w > size and cur:
            pieces.append("".join(cur))
            cur, units = [], 0
        cur.append(ch)
        units += w
    if cur:
        pieces.append("".join(cur))
    return pieces


def _segments(line: str, max_chars: int, tokens: int) -> list[str]:
    if not line:
        return [""]
    if len(line) <= max_chars and line.isascii():
        return [line]  # the common case, measured once instead of three times
    out: list[str] = []
    for piece in _slice_units(line, max_chars):
        if weighted_len(piece) > max_chars:
            out.extend(_slice_units(piece, max(1, tokens)))
        else:
            out.append(piece)
    return out


def resolve_chunking(tokens: int, overlap: int) -> tuple[int, int]:
    tokens = max(1, int(tokens))
    overlap = min(max(0, int(overlap)), tokens - 1)
    return tokens, overlap


def chunk_markdown(content: str, tokens: int = 400, overlap: int = 80) -> list[TextChunk]:
    tokens, overlap = resolve_chunking(tokens, overlap)
    max_chars = max(32, tokens * CHARS_PER_TOKEN)
    overlap_chars = max(0, overlap * CHARS_PER_TOKEN)
    if weighted_len(content) + 1 <= max_chars:
        # the whole text fits one chunk (most daily notes): every line is one segment and no budget is
        # reached, so the loop below would return exactly this, after measuring each line twice
        return [TextChunk(1, content.count("\n") + 1, content)]
    chunks: list[TextChunk] = []
    current: list[tuple[str, int]] = []
    current_chars = 0

    def flush() -> None:
        if current:
            text = "\n".join(seg for seg, _ in current)
            chunks.append(TextChunk(current[0][1], current[-1][1], text))

    for index, line in enumerate(content.split("\n")):
        line_no = index + 1
        for seg in _segments(line, max_chars, tokens):
            size = weighted_len(seg) + 1
            if current and current_chars + size > max_chars:
                flush()
                # Carry whole trailing segments until they cover the overlap budget.
                kept: list[tuple[str, int]] = []
                acc = 0
                if overlap_chars > 0:
                    for item in reversed(current):
                        acc += weighted_len(item[0]) + 1
                        kept.insert(0, item)
                        if acc >= overlap_chars:
                            break
                current, current_chars = kept, acc
            current.append((seg, line_no))
            current_chars += size
    flush()
    return chunks


def remap_lines(chunks: list[TextChunk], line_map: list[int]) -> list[TextChunk]:
    """Map lines of flattened transcript text back to lines of the original .jsonl file."""

    def m(n: int) -> int:
        return line_map[n - 1] if 1 <= n <= len(line_map) else n

    return [TextChunk(m(c.start_line), m(c.end_line), c.text) for c in chunks]
