"""Names a person can read for transcripts: the first thing the user said, instead of the file's UUID.

`session_title` is pure (a transcript's first chunk as the index holds it: `User: …` / `Assistant: …` lines,
masked); `session_titles` reads the first chunk of each transcript asked for, in one statement per batch.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..store.reader import IndexReader

TITLE_CHARS = 60
# OpenClaw names a transcript by its session's UUID (also `<uuid>.jsonl.reset.<ts>` and the like); a file a
# person named ("2026-11-25-canary.jsonl") keeps its name
_OPAQUE = re.compile(r"^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}", re.IGNORECASE)


def needs_title(path: str) -> bool:
    """The transcript's file name says nothing to a person (a UUID)."""
    return bool(_OPAQUE.match(path.rsplit("/", 1)[-1]))


def session_title(first_chunk: str, limit: int = TITLE_CHARS) -> str:
    """The first user line of a transcript's first chunk, on one line and cut to `limit` characters ("" when it
    has none: an assistant-only fragment)."""
    for line in first_chunk.split("\n"):
        if line.startswith("User: "):
            words = " ".join(line[len("User: "):].split())
            if words:
                return words if len(words) <= limit else words[: limit - 1].rstrip() + "…"
    return ""


def session_titles(reads: IndexReader, paths: Iterable[str]) -> dict[str, str]:
    """path → title for the transcripts among `paths` named by a UUID whose first chunk has a user line."""
    firsts = reads.first_chunk_texts([p for p in dict.fromkeys(paths) if needs_title(p)])
    return {path: title for path, text in firsts.items() if (title := session_title(text))}
