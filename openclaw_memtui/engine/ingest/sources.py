"""Which files belong to the memory, and how a chat transcript becomes searchable text.

Memory files: MEMORY.md, memory.md, memory/**/*.md and configured extra paths (folders or .md
files). Sessions: *.jsonl transcripts in the workspace's `sessions/` folder or an OpenClaw agent's
sessions folder. Symlinks are skipped unless the config allows them; dependency and VCS folders are
never walked (OpenClaw walked them and ran out of file descriptors, spec §11).
"""

from __future__ import annotations

import json
import math
import operator
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from ..settings import IndexSettings

IGNORED_DIRS = frozenset(
    {".git", ".hg", ".svn", "node_modules", ".pnpm-store", ".venv", "venv", ".tox", "__pycache__", ".mypy_cache",
     ".pytest_cache", ".cache", ".dreams"}
)
_ARCHIVE_BAK = re.compile(r"\.bak\.[^/]*$")
_DATED_NOTE = re.compile(r"(?:^|/)memory/(?:[^/]+/)*(\d{4})-(\d{2})-(\d{2})(?:-[^/]*)?\.md$")


class SourceFile(NamedTuple):
    """One file to index. A NamedTuple: built per listed file on every sync, it costs a third of a frozen dataclass."""

    abs_path: str  # a plain string: 10,000 Path objects cost more than the whole no-op sync
    path: str  # workspace-relative with "/" (sessions: "sessions/<name>", 2026.9: "sessions/<agent>/<id>.jsonl")
    source: str  # "memory" | "sessions"
    # (mtime ms, size) as listed: the stat the walk took of a file, or what OpenClaw's database says of
    # a transcript kept there (its abs_path is then `openclaw-db:<session id>`, see DB_SESSION_PREFIX);
    # None when the stat failed: whoever needs it stats the file again
    stamp: tuple[float, int] | None = None

    @property
    def in_database(self) -> bool:
        return self.abs_path.startswith(DB_SESSION_PREFIX)


def rel_path(workspace: Path | str, target: Path | str) -> str:
    ws, t = str(workspace), str(target)
    if t.startswith(ws) and t[len(ws) : len(ws) + 1] == os.sep:  # the common case, without os.path.relpath's cost
        rel = t[len(ws) + 1 :]
        return rel if os.sep == "/" else rel.replace(os.sep, "/")
    return os.path.relpath(t, ws).replace(os.sep, "/")


def _is_md(name: str) -> bool:
    return name.endswith(".md")


def display_path(path: str) -> str:
    """`path` as valid text: undecodable file-name bytes (kept by Python as lone surrogates) become `\\xff`.

    SQLite, JSON and the terminal all refuse lone surrogates, so a raw one stops a whole sync.
    """
    if path.isascii():
        return path
    try:
        path.encode("utf-8")
        return path
    except UnicodeEncodeError:
        pass
    try:
        return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a surrogate that is not an escaped byte
        return path.encode("utf-8", "backslashreplace").decode("utf-8")


def has_undecodable_name(path: str) -> bool:
    return display_path(path) != path


def _stamp(entry: os.DirEntry[str]) -> tuple[float, int] | None:
    try:
        st = entry.stat()  # follows a link, as reading the file does; the walk only keeps links it may follow
    except OSError:
        return None
    return st.st_mtime_ns / 1e6, st.st_size


def stat_stamp(path: str) -> tuple[float, int] | None:
    """(mtime ms, size) of a file whose listing could not stat it; None when it still cannot be."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns / 1e6, st.st_size


class ListingBudget:
    """A time limit on a listing (`status`'s bounded dirty check): the walk stops once it is spent and
    the listing is then partial, which `exhausted` says, so nobody mistakes it for all the files."""

    __slots__ = ("deadline", "exhausted")

    def __init__(self, seconds: float) -> None:
        self.deadline = time.monotonic() + seconds
        self.exhausted = False

    def spent(self) -> bool:
        if not self.exhausted and time.monotonic() >= self.deadline:
            self.exhausted = True
        return self.exhausted

    def spent_at(self, entry: int) -> bool:
        """`spent`, looked at only every _BUDGET_STRIDE entries of a folder (`entry`: the index of the
        one about to be handled; never before the first)."""
        return bool(entry) and not entry % _BUDGET_STRIDE and self.spent()


# how many folder entries the walk handles between two looks at the clock: ~50 µs of work with the files
# in the kernel's cache, a few ms when each stat waits for the disk
_BUDGET_STRIDE = 16


def _walk_markdown(root: str, follow_symlinks: bool, workspace: str, budget: ListingBudget | None = None,
                   known: dict[str, tuple[float, int]] | None = None, unchanged: list[str] | None = None,
                   unreadable: list[Unreadable] | None = None, roots: list[str] | None = None) -> list[SourceFile]:
    """Every .md file below the normalised folder `root`, sorted by path, each with its stat.

    The stat is taken here, from the folder entry, so a re-sync lists and stats in one pass, and
    the workspace-relative path is the folder's (computed once per folder) plus the name. This runs
    once per file on every sync: no call it can do without (a re-sync of 100,000 files is mostly this).
    Without followed links, `is_file`/`is_dir(follow_symlinks=False)` are already false for a link,
    so a link is skipped without asking `is_symlink` of every entry. With a `budget`, the walk stops
    once it is spent (the list is then partial: `budget.exhausted`). With `known` (a re-sync: the
    index's stamps by path), a file whose stamp is the known one is not listed: only its path goes to
    `unchanged`, so 100,000 unchanged files cost no SourceFile and no sorting. A folder that cannot
    be read (permission denied) goes to `unreadable`, so the sync can say why its notes are missing.
    With `roots` (followed links), a linked folder that resolves outside them is not walked.
    """
    from .access import may_read

    known_get = known.get if known is not None else None
    unchanged_append = unchanged.append if unchanged is not None else None
    found: list[SourceFile] = []
    append = found.append
    new = tuple.__new__  # SourceFile._make without its Python-level call and length check
    stack = [root]
    # Followed links can point back up the tree (`a -> .`): a folder already walked, known by
    # (device, inode), is never walked again, so the walk always ends.
    visited: set[tuple[int, int]] = set()
    if follow_symlinks:
        try:
            st = os.stat(root)
            visited.add((st.st_dev, st.st_ino))
        except OSError:
            pass
    while stack:
        if budget is not None and budget.spent():
            break
        folder = stack.pop()
        rel = rel_path(workspace, folder)
        prefix = "" if rel == "." else rel + "/"
        # a bounded walk (status) pushes a folder's subfolders oldest first, so the most recently changed
        # is walked next: where a note was just created or renamed, one was most likely just written
        subfolders: list[tuple[int, str]] | None = [] if budget is not None else None
        try:
            with os.scandir(folder) as it:  # read as walked: a spent budget stops reading a large folder too
                for i, entry in enumerate(it):
                    if budget is not None and budget.spent_at(i):
                        stack.clear()
                        subfolders = None
                        break
                    name = entry.name
                    try:
                        if name.endswith(".md") and entry.is_file(follow_symlinks=follow_symlinks):
                            try:
                                st = entry.stat()  # follows a link, as reading the file does
                                stamp: tuple[float, int] | None = (st.st_mtime_ns / 1e6, st.st_size)
                            except OSError:
                                stamp = None  # whoever needs it stats the file again
                            path = prefix + name
                            if not path.isascii():
                                path = display_path(path)
                            if known_get is not None and unchanged_append is not None and known_get(path, 0) == stamp:
                                unchanged_append(path)  # `0`: a path the index does not hold never equals
                            else:
                                append(new(SourceFile, (entry.path, path, "memory", stamp)))
                        elif name not in IGNORED_DIRS and entry.is_dir(follow_symlinks=follow_symlinks):
                            if follow_symlinks:
                                st = entry.stat(follow_symlinks=True)
                                if (st.st_dev, st.st_ino) in visited:
                                    continue
                                visited.add((st.st_dev, st.st_ino))
                                if roots is not None and entry.is_symlink() and not may_read(entry.path, roots):
                                    continue  # a linked folder outside every root: nothing in it may be read
                            if subfolders is not None:
                                subfolders.append((_folder_mtime(entry), entry.path))
                            else:
                                stack.append(entry.path)
                    except OSError:
                        continue
        except OSError as exc:
            _note_unreadable(unreadable, exc, prefix or "./", "memory")
            continue
        if subfolders:
            subfolders.sort()
            stack.extend(path for _, path in subfolders)
    found.sort(key=_by_abs_path)  # plain strings compare several times faster than the tuples
    return found


_by_abs_path = operator.itemgetter(0)


class Unreadable(NamedTuple):
    """A folder the listing could not read: its files are missing from the list, not deleted."""

    path: str  # workspace-relative, ending in "/"
    source: str
    reason: str


def _note_unreadable(unreadable: list[Unreadable] | None, exc: OSError, path: str, source: str) -> None:
    # a folder removed or replaced while walked is simply gone; only one that is there and cannot be read is said
    if unreadable is not None and not isinstance(exc, (FileNotFoundError, NotADirectoryError)):
        unreadable.append(Unreadable(display_path(path), source, exc.strerror or type(exc).__name__))


def _folder_mtime(entry: os.DirEntry[str]) -> int:
    try:
        return entry.stat().st_mtime_ns
    except OSError:
        return 0


DEFAULT_ROOT_FILES = ("MEMORY.md", "memory.md", "USER.md")


def glob_regex(pattern: str) -> re.Pattern[str]:
    """A POSIX glob as Node's `path.posix.matchesGlob` reads it: `**` any depth, `*` and `?` within
    one path segment, `[...]` classes, `{a,b}` alternatives."""

    def translate(p: str) -> str:
        out, i = [], 0
        while i < len(p):
            c = p[i]
            if p.startswith("**/", i):
                out.append("(?:.*/)?")
                i += 3
                continue
            if p.startswith("**", i):
                out.append(".*")
                i += 2
                continue
            if c == "*":
                out.append("[^/]*")
            elif c == "?":
                out.append("[^/]")
            elif c == "[" and "]" in p[i + 2:]:
                end = p.index("]", i + 2)
                body = p[i + 1:end]
                out.append("[" + ("^" + body[1:] if body.startswith("!") else body).replace("\\", "\\\\") + "]")
                i = end
            elif c == "{" and "}" in p[i:]:
                end = p.index("}", i)
                out.append("(?:" + "|".join(translate(alt) for alt in p[i + 1:end].split(",")) + ")")
                i = end
            else:
                out.append(re.escape(c))
            i += 1
        return "".join(out)

    return re.compile(translate(pattern) + r"\Z")


def _pattern_filter(root: Path, patterns: list[str]) -> Callable[[str], bool]:
    regexes = [glob_regex(p.replace("\\", "/")) for p in patterns]

    def keep(file_path: str) -> bool:
        rel = rel_path(root, file_path)
        return not rel.startswith("../") and any(r.match(rel) for r in regexes)

    return keep
DB_SESSION_PREFIX = "openclaw-db:"


def _may_read(path: str, roots: list[str]) -> bool:
    from .access import may_read

    return may_read(path, roots)


def list_memory_files(workspace: Path, extra_paths: list[str] | tuple[str, ...] = (),
                      follow_symlinks: bool = False, root_files: tuple[str, ...] = DEFAULT_ROOT_FILES,
                      patterns: tuple[tuple[str, str], ...] = (),
                      budget: ListingBudget | None = None, known: dict[str, tuple[float, int]] | None = None,
                      unchanged: list[str] | None = None, unreadable: list[Unreadable] | None = None,
                      ) -> list[SourceFile]:
    """The memory files of `workspace`. `patterns` limits a folder of `extra_paths` to the files
    matching one of its globs (OpenClaw 2026.9's `{path, pattern}` entries). With a `budget` the list
    may be partial (see ListingBudget). `known` and `unchanged` (see _walk_markdown) apply to memory/
    when no extra paths or followed links need the files compared by real path first: a file it
    leaves out is only named in `unchanged`; every other file is listed."""
    globs: dict[str, list[str]] = {}
    for path, pattern in patterns:
        globs.setdefault(path.strip(), []).append(pattern)
    ws = str(workspace)
    roots = None
    if follow_symlinks:
        from .access import allowed_roots

        roots = allowed_roots(workspace, extra_paths)
    candidates: list[SourceFile] = []
    for name in root_files:
        p = workspace / name
        if p.is_file() and (follow_symlinks or not p.is_symlink()):
            candidates.append(_listed_file(ws, str(p)))
    extra = [raw.strip() for raw in extra_paths if raw.strip()]
    mem_dir = os.path.normpath(workspace / "memory")
    linked_out = os.path.islink(mem_dir) and (not follow_symlinks or roots is None or not _may_read(mem_dir, roots))
    if os.path.isdir(mem_dir) and not linked_out:
        if extra or follow_symlinks:
            known = unchanged = None  # every file listed: the same file may be found twice, by real path below
        candidates.extend(_walk_markdown(mem_dir, follow_symlinks, ws, budget, known, unchanged, unreadable, roots))
    if not extra and not follow_symlinks:
        return candidates  # root files and memory/ cannot name one file twice
    for raw in extra:
        if budget is not None and budget.spent():
            break
        p = Path(os.path.expanduser(raw))
        p = p if p.is_absolute() else workspace / p
        if p.is_symlink() and not follow_symlinks:
            continue
        if p.is_dir():
            root = os.path.normpath(p)  # walked from its normalised path: every path found below is normalised
            found = _walk_markdown(root, follow_symlinks, ws, budget, unreadable=unreadable, roots=roots)
            if raw in globs:
                keep = _pattern_filter(Path(root), globs[raw])
                found = [f for f in found if keep(f.abs_path)]
            candidates.extend(found)
        elif p.is_file() and _is_md(p.name):
            candidates.append(_listed_file(ws, str(p)))
    # Without followed symlinks a normalised path is already unique; realpath (an lstat per path
    # component) is only needed when links are followed.
    seen: set[str] = set()
    out: list[SourceFile] = []
    for sf in candidates:
        k = os.path.realpath(sf.abs_path) if follow_symlinks else sf.abs_path
        if k not in seen:
            seen.add(k)
            out.append(sf)
    return out


def _listed_file(workspace: str, path: str) -> SourceFile:
    norm = os.path.normpath(path)
    try:
        st = os.stat(norm)
        stamp: tuple[float, int] | None = (st.st_mtime_ns / 1e6, st.st_size)
    except OSError:
        stamp = None
    return SourceFile(norm, display_path(rel_path(workspace, norm)), "memory", stamp)


def list_sources(settings: IndexSettings, budget: ListingBudget | None = None,
                 known: dict[str, tuple[float, int]] | None = None, unchanged: list[str] | None = None,
                 unreadable: list[Unreadable] | None = None) -> list[SourceFile]:
    """Every file the index should hold, each with its stamp; with a `budget` perhaps only some of them
    (`budget.exhausted` then says so). With `known` and `unchanged` (a re-sync), a memory file whose
    stamp is known may be left out of the list and only named in `unchanged` (see list_memory_files):
    the list and `unchanged` together name every file. Folders that cannot be read go to `unreadable`."""
    files: list[SourceFile] = []
    # a bounded listing takes the transcripts first: they are fewer than notes and the likeliest to have grown
    sessions_first = budget is not None
    if "sessions" in settings.sources and sessions_first:
        files.extend(_list_transcripts(settings, budget, known))
    if "memory" in settings.sources and not (budget is not None and budget.spent()):
        files.extend(list_memory_files(settings.workspace, settings.extra_paths, settings.follow_symlinks,
                                       settings.root_files, settings.extra_path_patterns, budget, known, unchanged,
                                       unreadable))
    if "sessions" in settings.sources and not sessions_first:
        files.extend(_list_transcripts(settings, budget, known, unreadable))
    if settings.follow_symlinks:  # without followed links nothing listed can resolve elsewhere
        from .access import may_read, settings_roots

        roots = settings_roots(settings)
        files = [sf for sf in files if sf.in_database or may_read(sf.abs_path, roots)]
    return files


def _list_transcripts(settings: IndexSettings, budget: ListingBudget | None,
                      known: dict[str, tuple[float, int]] | None = None,
                      unreadable: list[Unreadable] | None = None) -> list[SourceFile]:
    from .forgotten import is_forgotten, settings_forgotten

    forgotten = settings_forgotten(settings)
    prefix = settings.sessions_prefix
    if forgotten is None:
        # OpenClaw's tombstones cannot be read now: nothing new is listed (it might be forgotten), and
        # what the index holds stays as it is (retrieval hides it meanwhile) instead of being deleted
        head = f"{prefix}/"
        return [SourceFile("", path, "sessions", stamp) for path, stamp in (known or {}).items()
                if path.startswith(head) and "/" not in path[len(head):] and ".jsonl" in path]
    files = list_session_files(settings.sessions_dir, settings.follow_symlinks, prefix, budget, unreadable)
    if settings.transcripts_db is not None and not (budget is not None and budget.spent()):
        in_folder = {sf.path for sf in files}
        files.extend(list_db_transcripts(settings.transcripts_db, prefix, known, in_folder))
    # a session OpenClaw was told to forget is not a source: a sync drops its chunks, memory_get refuses it
    return [sf for sf in files if not is_forgotten(sf.path, "sessions", prefix, forgotten)] if forgotten else files


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


# ---------------------------------------------------------------------------------------------
# Transcripts


@dataclass(slots=True)
class FlatSession:
    content: str
    line_map: list[int] = field(default_factory=list)  # flattened line i -> jsonl line
    timestamps_ms: list[float] = field(default_factory=list)
    malformed_lines: int = 0


_WS = re.compile(r"\s+")


def _normalize(text: str) -> str:
    return _WS.sub(" ", text).strip()


def _text_parts(content: object) -> list[str] | None:
    """A message's text: its string content, or the text parts of its list of parts (None: neither)."""
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [p["text"] for p in content if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str)]
    return None


def _message_text(content: object) -> str | None:
    """The text parts, whitespace collapsed, joined by spaces (a transcript read without OpenClaw's filters)."""
    parts = _text_parts(content)
    if parts is None:
        return None
    return " ".join(p for p in map(_normalize, parts) if p)


def _raw_message_text(content: object) -> str | None:
    """A message's text parts joined by newlines, unnormalised: OpenClaw's filters work line by line."""
    parts = _text_parts(content)
    return "\n".join(parts) if parts else None


# The last instant `datetime` can show: a later (or infinite) time would be stored and then break
# every age, decay and time-window computation on it.
MAX_TS_MS = datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC).timestamp() * 1000.0


def parse_timestamp_ms(value: object) -> float:
    """Epoch ms of a transcript timestamp (seconds, ms or ISO text); 0.0 when missing or unusable.

    JSON allows `Infinity` and `NaN` and numbers like 1e308: none is a time, all are rejected.
    """
    if isinstance(value, bool):
        return 0.0
    if isinstance(value, (int, float)):
        try:
            ms = float(value) * 1000.0 if value < 1e11 else float(value)
        except OverflowError:  # an int too large for a float
            return 0.0
        return ms if math.isfinite(ms) and 0 < ms <= MAX_TS_MS else 0.0
    if isinstance(value, str) and value:
        try:
            dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
            if dt.tzinfo is None:
                dt = dt.replace(tzinfo=UTC)
            ms = dt.timestamp() * 1000.0
        except (ValueError, OverflowError):
            return 0.0
        return ms if 0 < ms <= MAX_TS_MS else 0.0
    return 0.0


def split_long_line(text: str, max_chars: int) -> list[str]:
    """OpenClaw 2026.9's `splitLongSessionLine`: cut at the last space at or before `max_chars`.

    OpenClaw counts UTF-16 units and this counts code points, so lines with characters outside the
    Basic Multilingual Plane (emoji) may be cut a few characters later than OpenClaw cuts them.
    """
    text = text.strip()
    if not text:
        return []
    if max_chars <= 0 or len(text) <= max_chars:
        return [text]
    segments: list[str] = []
    cursor = 0
    while cursor < len(text):
        if len(text) - cursor <= max_chars:
            segments.append(text[cursor:].strip())
            break
        limit = cursor + max_chars
        split_at = next((i for i in range(limit, cursor, -1) if text[i] == " "), limit)
        segments.append(text[cursor:split_at].strip())
        cursor = split_at
        while cursor < len(text) and text[cursor] == " ":
            cursor += 1
    return [seg for seg in segments if seg]


def _internal_turn(message: dict[str, object]) -> str | None:
    """'heartbeat' or 'recall' for a user message OpenClaw itself injected, whose turn it never indexes."""
    provenance = message.get("provenance")
    if not isinstance(provenance, dict) or provenance.get("kind") != "internal_system":
        return None
    tool = provenance.get("sourceTool")
    return "heartbeat" if tool == "heartbeat" else "recall" if tool in ("memory_search", "memory_get") else None


def flatten_session(raw: str, redact: bool = True, wrap_chars: int = 0, openclaw_filters: bool = False) -> FlatSession:
    """Turn a transcript into `User: …` / `Assistant: …` lines, remembering each line's origin.

    `wrap_chars` > 0 splits long messages into several lines of the same origin, as OpenClaw 2026.9
    does, so chunk line ranges match the ones OpenClaw stores for the same session; `openclaw_filters`
    leaves out what 2026.9 leaves out (heartbeat and memory-recall turns, messages from other
    sessions, system envelopes, cron prompts, heartbeat prompts, silent replies, exec notices) and
    strips what it strips from a message (channel metadata blocks, its own runtime context).
    """
    internal_turn = False
    from ..redact import redact_secrets  # ~40 ms of regex compiling: only when a transcript is read
    from ..textutil import clean_text  # with hashlib and its regexes: listing files (`status`) needs neither
    from .transcript_filters import sanitize_message  # its regexes compile only when a transcript is read
    lines_out: list[str] = []
    flat = FlatSession("")
    for index, line in enumerate(raw.split("\n")):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):  # deep nesting (`[[[[…`) exhausts the parser's stack
            flat.malformed_lines += 1
            continue
        if not isinstance(record, dict) or record.get("type") != "message":
            continue
        message = record.get("message")
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            continue
        if openclaw_filters:
            if message["role"] == "user":
                internal_turn = _internal_turn(message) is not None  # the turn lasts until the next user message
                provenance = message.get("provenance")
                if isinstance(provenance, dict) and provenance.get("kind") == "inter_session":
                    continue
            if internal_turn:
                continue
        if openclaw_filters:
            raw_text = _raw_message_text(message.get("content"))
            text = sanitize_message(raw_text, message["role"]) if raw_text is not None else None
        else:
            text = _message_text(message.get("content"))
        if not text:
            continue
        text = clean_text(text)  # a JSON `\ud800` escape is a lone surrogate SQLite cannot store
        if redact:
            text = redact_secrets(text)
        label = "User" if message["role"] == "user" else "Assistant"
        ts = parse_timestamp_ms(message.get("timestamp")) or parse_timestamp_ms(record.get("timestamp"))
        for segment in (split_long_line(text, wrap_chars) if wrap_chars else [text]):
            lines_out.append(f"{label}: {segment}")
            flat.line_map.append(index + 1)
            flat.timestamps_ms.append(ts)
    flat.content = "\n".join(lines_out)
    return flat


def note_date_ms(path: str) -> float | None:
    """Epoch ms (UTC midnight) of a dated note `memory/**/YYYY-MM-DD[-topic].md`, else None."""
    m = _DATED_NOTE.search(path.replace("\\", "/").removeprefix("./"))
    if not m:
        return None
    try:
        dt = datetime(int(m.group(1)), int(m.group(2)), int(m.group(3)), tzinfo=UTC)
    except ValueError:
        return None
    return dt.timestamp() * 1000.0


def is_evergreen(path: str, source: str) -> bool:
    """MEMORY.md, memory.md, USER.md and undated files under memory/ never age."""
    p = path.replace("\\", "/").removeprefix("./")
    if source != "memory":
        return False
    if p in DEFAULT_ROOT_FILES:
        return True
    return (p.startswith("memory/") or "/memory/" in p) and note_date_ms(p) is None
