"""Read one memory file or transcript by its path, under OpenClaw's `memory_get` access rules.

A path is served only when it names one of the files the index is built from — `MEMORY.md` and the
other root files, `memory/**/*.md`, the configured extra paths, the agent's transcripts — exactly as
`list_sources` lists them for this workspace (so anything `memory_search` can return, and nothing
else). `..` is normalised away before the lookup, a symlink is never followed unless the user's
config allows it, and even then the real file must stay inside the workspace, an extra path or the
sessions folder. Transcripts are served as the index holds them: `User:`/`Assistant:` lines with
secrets masked, each line keeping the JSONL line number the search results cite.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import MemtuiError
from ..settings import IndexSettings
from .access import open_memory_file, settings_roots
from .openclaw_db import OpenClawDbError, read_consistent, read_session_jsonl
from .sources import DB_SESSION_PREFIX, SourceFile, flatten_session, list_sources

# one answer for every refused path: whether a file outside the rules exists is not ours to tell
REFUSED = ("is not a memory file, transcript or extra path of this workspace (or it no longer exists); "
           "pass a path memory_search returned")
# an answer this long is cut at a line boundary; the caller asks for the rest with `from`
MAX_CHARS = 60_000


class AccessRefused(MemtuiError):
    """The path is outside what memory_get may read; the message is one line for the caller."""


@dataclass(frozen=True, slots=True)
class FileSlice:
    path: str  # the index's name for the file (what memory_search returns)
    source: str  # "memory" | "sessions"
    text: str
    from_line: int
    line_numbers: list[int]  # the file line (a transcript's JSONL line) of each returned line
    total_lines: int
    next_from: int | None  # set when the answer was cut at MAX_CHARS: where to continue
    next_offset: int = 0  # characters of line `next_from` already returned (a line longer than an answer)

    def to_dict(self) -> dict[str, object]:
        return {"path": self.path, "source": self.source, "from": self.from_line,
                "lines": len(self.line_numbers), "totalLines": self.total_lines, "text": self.text,
                "lineNumbers": self.line_numbers, "truncated": self.next_from is not None, "nextFrom": self.next_from,
                "nextOffset": self.next_offset if self.next_from is not None else None}


def _lookup_keys(settings: IndexSettings, path: str) -> set[str]:
    """The forms `path` may match: the index's relative name and the normalised absolute path."""
    if os.path.isabs(path):
        return {os.path.normpath(path)}
    rel = os.path.normpath(path).replace(os.sep, "/")
    return {rel, os.path.normpath(os.path.join(settings.workspace, path))}


def find_source(settings: IndexSettings, path: str) -> SourceFile:
    """The listed source `path` names, or AccessRefused."""
    if not path.strip() or "\x00" in path:
        raise AccessRefused(f"path {REFUSED}")
    keys = _lookup_keys(settings, path.strip())
    for sf in list_sources(settings):
        if sf.path in keys or (not sf.abs_path.startswith(DB_SESSION_PREFIX) and os.path.normpath(sf.abs_path) in keys):
            return sf
    raise AccessRefused(f"{path.strip()!r} {REFUSED}")


def _read_file(settings: IndexSettings, sf: SourceFile) -> str:
    """The file's text, opened under the access rule the sync reads by (engine/ingest/access.py)."""
    try:
        fd = open_memory_file(sf.abs_path, settings_roots(settings), settings.follow_symlinks)
    except OSError:  # gone, a link (ELOOP), outside every root, a FIFO: one answer for all
        raise AccessRefused(f"{sf.path!r} {REFUSED}") from None
    try:
        st = os.fstat(fd)
        if st.st_size > settings.max_file_bytes:
            raise AccessRefused(f"{sf.path!r} is larger than {settings.max_file_bytes} bytes (store.maxFileBytes)")
        with os.fdopen(os.dup(fd), "rb") as fh:
            data = fh.read(st.st_size + 1)
    finally:
        os.close(fd)
    if b"\x00" in data[:65536]:
        raise AccessRefused(f"{sf.path!r} is a binary file")
    if sf.source == "sessions":  # a transcript line is read as the index reads it, bad bytes replaced
        return data.decode("utf-8", errors="replace").removeprefix("\ufeff")
    try:  # a note the index skips is not served either: memory_get reads what memory_search can return
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        raise AccessRefused(f"{sf.path!r} is not valid UTF-8 (byte {exc.start}), so it is not indexed either; "
                            "save it as UTF-8 to search and read it") from None


def _read_transcript(settings: IndexSettings, sf: SourceFile) -> str:
    if not sf.abs_path.startswith(DB_SESSION_PREFIX):
        return _read_file(settings, sf)
    session_id = sf.abs_path[len(DB_SESSION_PREFIX):]
    db = settings.transcripts_db
    if db is None:
        raise AccessRefused(f"{sf.path!r} {REFUSED}")
    try:
        return read_consistent(db, lambda conn: read_session_jsonl(conn, session_id))
    except OpenClawDbError as exc:
        raise AccessRefused(f"cannot read {sf.path!r} from OpenClaw's database: {exc}") from None


def read_memory_file(settings: IndexSettings, path: str, from_line: int = 1, lines: int | None = None,
                     max_chars: int = MAX_CHARS, offset: int = 0,
                     mask: Callable[[str, str], str] | None = None) -> FileSlice:
    """Lines `from_line`… (1-based; `lines` of them, else to the end) of an allowed file.

    For a transcript the numbers are JSONL lines, as search results cite them, and the text is the
    masked conversation the index holds for those lines. `mask(text, source)` is applied to the whole
    text before any slice is cut (a slice inside a key block has no BEGIN line to be recognised by).
    At most `max_chars` characters come back: the answer is cut at a line, or inside a line longer
    than that, and `next_from`/`next_offset` say where to go on; `offset` skips that many characters
    of the first line (how the rest of a cut line is read).
    """
    sf = find_source(settings, path)
    if sf.source == "sessions":
        flat = flatten_session(_read_transcript(settings, sf), redact=True, wrap_chars=settings.transcript_wrap_chars,
                               openclaw_filters=settings.chunker == "openclaw-v5")
        content = mask(flat.content, sf.source) if mask is not None else flat.content
        rows = list(zip(flat.line_map, content.split("\n") if flat.content else [], strict=True))
        total = max(flat.line_map, default=0)  # the last JSONL line that holds a message
    else:
        text = _read_file(settings, sf)
        text_lines = (mask(text, sf.source) if mask is not None else text).split("\n")
        rows = list(enumerate(text_lines, 1))
        total = len(text_lines)
    last = None if lines is None else from_line + lines - 1
    picked = [(n, line) for n, line in rows if n >= from_line and (last is None or n <= last)]
    out: list[str] = []
    numbers: list[int] = []
    size = 0
    next_from: int | None = None
    next_offset = 0
    for i, (n, line) in enumerate(picked):
        if i == 0 and offset:
            line = line[offset:]
        if out and size + len(line) + 1 > max_chars:
            next_from = n
            break
        if len(line) > max_chars:  # a line longer than an answer: its head now, the rest from next_offset
            out.append(line[:max_chars])
            numbers.append(n)
            next_from, next_offset = n, (offset if i == 0 else 0) + max_chars
            break
        out.append(line)
        numbers.append(n)
        size += len(line) + 1
    return FileSlice(sf.path, sf.source, "\n".join(out), from_line, numbers, total, next_from, next_offset)
