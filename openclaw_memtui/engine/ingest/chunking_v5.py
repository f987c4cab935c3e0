"""OpenClaw 2026.9's markdown chunker (`chunkMarkdown`, MEMORY_CHUNKING_VERSION 5), ported.

Used for OpenClaw 2026.9 agents so memtui's chunks (and so the line ranges of search results)
are the ones OpenClaw stores for the same file or session. It differs from the older engine's
chunker (chunking.py, spec §3) in three ways:

* **per entry**: in `MEMORY.md` and `USER.md` every `- ` bullet and every `#` heading starts a new
  chunk, so a curated memory is indexed entry by entry;
* **overlap**: the carried tail is at most `overlap × 4` weighted characters and never more than
  what leaves room for the next line; when the last line alone is too long, its tail is carried
  (cut mid-line), not the whole line;
* **weights**: OpenClaw's newer `estimateStringChars` (common CJK 4, rare BMP ideographs 12,
  two-token forms 8, supplementary ideographs 12–16), counted in UTF-16 units as JavaScript does.

Checked against the real OpenClaw 2026.9.6 code on generated inputs (tests/fixtures/chunking).
"""

from __future__ import annotations

import bisect
import re

from ..textutil import utf16_len, utf16_prefix
from .chunking import CHARS_PER_TOKEN, TextChunk

# (first code point, last code point, bucket) from OpenClaw's WEIGHTED_CJK_RANGES (cjk-chars.ts)
_BUCKETS: list[tuple[int, int, int]] = sorted(
    [(183, 183, 1), (12288, 12703, 1), (19968, 40869, 1), (44032, 55215, 1), (65281, 65376, 1),
     (4352, 4607, 2), (11904, 12287, 2), (12704, 19967, 2), (40870, 40959, 2), (40960, 42239, 2),
     (42752, 42759, 2), (43360, 43391, 2), (55216, 55295, 2), (63744, 64255, 2),
     (711, 711, 3), (713, 715, 3), (729, 729, 3), (746, 747, 3), (773, 773, 3), (803, 803, 3),
     (65040, 65103, 3), (65377, 65500, 3), (65504, 65510, 3),
     (119648, 119665, 4),
     (94176, 94207, 5), (110576, 110591, 5), (110592, 110959, 5), (127488, 127743, 5), (131072, 195103, 5),
     (196608, 210047, 5)])
_STARTS = [start for start, _end, _bucket in _BUCKETS]
# extra weight per character of each bucket, on top of its UTF-16 length (estimateStringChars with
# minimumRawWeight 1): common 4-1, rare BMP 12-1, two-token 8-1, 3-token supplementary 12-2, supplementary 16-2
_EXTRA = {1: 3, 2: 11, 3: 7, 4: 10, 5: 14}
_HEADING = re.compile(r"^#{1,6}(?:\s|$)")


def _bucket(code_point: int) -> int:
    i = bisect.bisect_right(_STARTS, code_point) - 1
    if i >= 0:
        start, end, bucket = _BUCKETS[i]
        if start <= code_point <= end:
            return bucket
    return 0


def estimate_chars(text: str) -> int:
    """OpenClaw 2026.9's `estimateStringChars`: UTF-16 length plus extra weight for CJK-like characters."""
    if text.isascii():
        return len(text)
    return utf16_len(text) + sum(_EXTRA.get(_bucket(ord(ch)), 0) for ch in text if ord(ch) >= 128)


def entry_kind(line: str) -> str | None:
    """A curated-memory entry starts at a `- ` bullet or a markdown heading."""
    if line.startswith("- "):
        return "entry"
    return "section" if _HEADING.match(line) else None


def _take_tail(text: str, budget: int) -> str:
    """The longest suffix whose weighted length fits `budget` (takeTailByEstimatedChars)."""
    acc = 0
    start = len(text)
    while start > 0:
        acc += estimate_chars(text[start - 1])
        if acc > budget:
            break
        start -= 1
    return text[start:]


def chunk_markdown_v5(content: str, tokens: int = 400, overlap: int = 80, per_entry: bool = False) -> list[TextChunk]:
    """OpenClaw 2026.9's chunks of `content`: (start line, end line, text), lines 1-based."""
    lines = content.split("\n")
    max_chars = max(32, tokens * CHARS_PER_TOKEN)
    overlap_chars = max(0, overlap * CHARS_PER_TOKEN)
    chunks: list[TextChunk] = []
    current: list[tuple[str, int]] = []  # (segment, line number)
    current_chars = 0

    def flush() -> None:
        if current:
            chunks.append(TextChunk(current[0][1], current[-1][1], "\n".join(seg for seg, _ in current)))

    def carry_overlap(window: int) -> None:
        nonlocal current, current_chars
        if window <= 0 or not current:
            current, current_chars = [], 0
            return
        acc = 0
        kept: list[tuple[str, int]] = []
        for seg, line_no in reversed(current):
            size = estimate_chars(seg) + 1
            remaining = window - acc
            if size > remaining:
                tail = _take_tail(seg, remaining - 1) if not kept else ""
                if tail:
                    kept.insert(0, (tail, line_no))
                    acc += estimate_chars(tail) + 1
                break
            acc += size
            kept.insert(0, (seg, line_no))
            if acc >= window:
                break
        current, current_chars = kept, acc

    def append(segment: str, line_no: int, chars: int) -> None:
        nonlocal current_chars
        size = chars + 1
        if current_chars + size > max_chars and current:
            flush()
            carry_overlap(min(overlap_chars, max(0, max_chars - size)))
        current.append((segment, line_no))
        current_chars += size

    for index, line in enumerate(lines):
        line_no = index + 1
        if per_entry and (entry_kind(line) or index == 0):
            if current:
                flush()
            current.clear()
            current_chars = 0
        if not line:
            append("", line_no, 0)
            continue
        start = 0
        while start < len(line):
            coarse = utf16_prefix(line[start:], max_chars) or line[start:start + 1]
            coarse_chars = estimate_chars(coarse)
            if coarse_chars > max_chars:  # heavy (CJK) text: cut by weight, character by character
                part_start, part_chars = 0, 0
                for offset, ch in enumerate(coarse):
                    chars = estimate_chars(ch)
                    if part_chars + chars > max_chars:
                        append(coarse[part_start:offset], line_no, part_chars)
                        part_start, part_chars = offset, 0
                    part_chars += chars
                append(coarse[part_start:], line_no, part_chars)
            else:
                append(coarse, line_no, coarse_chars)
            start += len(coarse)
    flush()
    return chunks
