"""What one file's text becomes: its chunks with their dates, hashes and ids, cut by the configured chunker."""

from __future__ import annotations

from dataclasses import dataclass

from ..ingest.chunking import TextChunk, chunk_markdown, remap_lines
from ..ingest.chunking_v5 import chunk_markdown_v5
from ..ingest.reading import flatten_transcript
from ..ingest.sources import SourceFile, is_evergreen, note_date_ms
from ..settings import IndexSettings
from ..textutil import sha256_hex


def chunk_id(source: str, path: str, chunk: TextChunk, model: str, text_hash: str = "") -> str:
    """`text_hash`: the chunk's `hash` when the caller already has it (each one is a sha256 of the text)."""
    return sha256_hex(f"{source}:{path}:{chunk.start_line}:{chunk.end_line}:{text_hash or chunk.hash}:{model}")


def chunk_ids(source: str, path: str, chunks: list[TextChunk], model: str, hashes: list[str] | None = None) -> list[str]:
    """One id per chunk, unique within the file.

    A long line of one repeated character is cut into identical segments on the same line, so
    (path, lines, text) alone repeats: the repeat replaced its twin in `chunks` and orphaned its
    FTS row, and a later edit collided on that rowid (IntegrityError on every sync). The first
    occurrence keeps the plain id (stable across versions); each repeat gets its ordinal.
    """
    seen: dict[str, int] = {}
    out = []
    for k, chunk in enumerate(chunks):
        base = chunk_id(source, path, chunk, model, hashes[k] if hashes else "")
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.append(base if n == 0 else sha256_hex(f"{base}:dup:{n}"))
    return out


@dataclass(slots=True)
class ChunkRow:
    chunk: TextChunk
    ts: float | None
    date_source: str
    hash: str = ""  # the chunk text's sha256 when already known ("": computed when needed)

    def text_hash(self) -> str:
        return self.hash or self.chunk.hash


def chunk_text(text: str, settings: IndexSettings, per_entry: bool = False) -> list[TextChunk]:
    """Cut text with the configured chunker; `per_entry` (OpenClaw 2026.9, MEMORY.md and USER.md)
    starts a chunk at every bullet and heading."""
    if settings.chunker == "openclaw-v5":
        return chunk_markdown_v5(text, settings.chunk_tokens, settings.chunk_overlap, per_entry)
    return chunk_markdown(text, settings.chunk_tokens, settings.chunk_overlap)


def build_chunks(sf: SourceFile, text: str, mtime_ms: float, settings: IndexSettings) -> tuple[str, list[ChunkRow], int]:
    """Chunks of one file with their dates. Returns (content hash, rows, malformed transcript lines)."""
    ts: float | None  # None: evergreen, never decays
    if sf.source == "sessions":
        flat = flatten_transcript(text, settings)  # what the file view and memory_get show of it too
        digest = sha256_hex(
            flat.content + "\n" + ",".join(map(str, flat.line_map)) + "\n" + ",".join(f"{t:.0f}" for t in flat.timestamps_ms)
        )
        rows = []
        for c in chunk_text(flat.content, settings):
            if not c.text.strip():
                continue
            stamps = [t for t in flat.timestamps_ms[c.start_line - 1 : c.end_line] if t > 0]
            ts, src = (max(stamps), "messages") if stamps else (mtime_ms, "mtime")
            rows.append(ChunkRow(remap_lines([c], flat.line_map)[0], ts, src))
        return digest, rows, flat.malformed_lines
    digest = sha256_hex(text)
    dated = note_date_ms(sf.path)
    if dated is not None:
        ts, src = dated, "name"
    elif is_evergreen(sf.path, sf.source):
        ts, src = None, "evergreen"
    else:
        ts, src = mtime_ms, "mtime"
    per_entry = sf.path in ("MEMORY.md", "USER.md")  # OpenClaw 2026.9 indexes curated memory entry by entry
    rows = [ChunkRow(c, ts, src) for c in chunk_text(text, settings, per_entry) if c.text.strip()]
    if len(rows) == 1 and rows[0].chunk.text == text:  # a note of one chunk (most): its hash is the file's
        rows[0].hash = digest
    return digest, rows, 0
