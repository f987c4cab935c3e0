"""Which files are chat transcripts: *.jsonl in the workspace's `sessions/` folder or an OpenClaw
agent's sessions folder, and the live transcripts an OpenClaw 2026.9 agent keeps in its database.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from .sources import DB_SESSION_PREFIX, ListingBudget, SourceFile, Unreadable, _note_unreadable, display_path

_ARCHIVE_BAK = re.compile(r"\.bak\.[^/]*$")


def _stamp(entry: os.DirEntry[str]) -> tuple[float, int] | None:
    try:
        st = entry.stat()  # follows a link, as reading the file does; the walk only keeps links it may follow
    except OSError:
        return None
    return st.st_mtime_ns / 1e6, st.st_size


def list_db_transcripts(db: Path, prefix: str, known: dict[str, tuple[float, int]] | None = None,
                        in_folder: set[str] | frozenset[str] = frozenset()) -> list[SourceFile]:
    """Live transcripts of an OpenClaw 2026.9 agent database; none (not an error) while it does not exist.

    A database that exists but cannot be read (corrupt, truncated, half-copied) is not an empty one:
    with `known` (the index's stamps) the transcripts indexed from it are listed again with those
    stamps, so a sync finds them unchanged and keeps them instead of deleting every one of them.
    """
    if not db.is_file():
        return []
    from .openclaw_db import OpenClawDbError, list_sessions, read_consistent  # only for a 2026.9 agent's database

    try:
        sessions = read_consistent(db, list_sessions)
    except OpenClawDbError:
        return _kept_db_transcripts(prefix, known or {}, in_folder)
    return list_db_sessions([(s.session_id, s.updated_ms, s.size) for s in sessions], prefix)


def _kept_db_transcripts(prefix: str, known: dict[str, tuple[float, int]], in_folder: set[str] | frozenset[str],
                         ) -> list[SourceFile]:
    """The indexed live transcripts of an agent database that cannot be read now, as they were indexed
    (what `list_db_sessions` named `<prefix>/<session id>.jsonl`; archives in the folder are listed there)."""
    head = f"{prefix}/"
    return [SourceFile(DB_SESSION_PREFIX + path[len(head):-len(".jsonl")], path, "sessions", stamp)
            for path, stamp in known.items()
            if path.startswith(head) and path.endswith(".jsonl") and "/" not in path[len(head):] and path not in in_folder]


def is_transcript_name(name: str) -> bool:
    if name == "sessions.json" or _ARCHIVE_BAK.search(name):
        return False
    return name.endswith(".jsonl") or ".jsonl.reset." in name or ".jsonl.deleted." in name


def list_db_sessions(sessions: list[tuple[str, float, int]], prefix: str) -> list[SourceFile]:
    """Live transcripts kept in an OpenClaw 2026.9 agent database: (session id, mtime ms, size) each."""
    return [SourceFile(DB_SESSION_PREFIX + sid, display_path(f"{prefix}/{sid}.jsonl"), "sessions", (mtime, size))
            for sid, mtime, size in sessions]


def list_session_files(sessions_dir: Path | None, follow_symlinks: bool = False, prefix: str = "sessions",
                       budget: ListingBudget | None = None, unreadable: list[Unreadable] | None = None,
                       ) -> list[SourceFile]:
    """Transcripts in `sessions_dir`. The symlink rule is the one `memory/` follows: a linked folder
    or file is only read when `followSymlinks` is on (a linked `sessions/` used to be followed always)."""
    if sessions_dir is None or not sessions_dir.is_dir():
        return []
    if sessions_dir.is_symlink() and not follow_symlinks:
        return []
    out = []
    try:
        entries = sorted(os.scandir(sessions_dir), key=lambda e: e.name)
    except OSError as exc:
        _note_unreadable(unreadable, exc, f"{prefix}/", "sessions")
        return []
    for i, entry in enumerate(entries):
        if budget is not None and budget.spent_at(i):
            break
        try:
            if (entry.is_symlink() and not follow_symlinks) or not entry.is_file() or not is_transcript_name(entry.name):
                continue
        except OSError:
            continue
        out.append(SourceFile(entry.path, display_path(f"{prefix}/{entry.name}"), "sessions", _stamp(entry)))
    return out
