"""Which files belong to the memory, and how a chat transcript becomes searchable text.

Memory files: MEMORY.md, memory.md, memory/**/*.md and configured extra paths (folders or .md
files). Sessions: *.jsonl transcripts in the workspace's `sessions/` folder or an OpenClaw agent's
sessions folder. Symlinks are skipped unless the config allows them; dependency and VCS folders are
never walked (OpenClaw walked them and ran out of file descriptors, spec §11).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from .redact import redact_secrets

IGNORED_DIRS = frozenset(
    {".git", ".hg", ".svn", "node_modules", ".pnpm-store", ".venv", "venv", ".tox", "__pycache__", ".mypy_cache",
     ".pytest_cache", ".cache", ".dreams"}
)
_ARCHIVE_BAK = re.compile(r"\.bak\.[^/]*$")
_DATED_NOTE = re.compile(r"(?:^|/)memory/(?:[^/]+/)*(\d{4})-(\d{2})-(\d{2})(?:-[^/]*)?\.md$")


@dataclass(frozen=True, slots=True)
class SourceFile:
    abs_path: str  # a plain string: 10,000 Path objects cost more than the whole no-op sync
    path: str  # workspace-relative with "/" (sessions: "sessions/<name>")
    source: str  # "memory" | "sessions"


def rel_path(workspace: Path | str, target: Path | str) -> str:
    ws, t = str(workspace), str(target)
    if t.startswith(ws + os.sep):  # the common case, without os.path.relpath's cost
        return t[len(ws) + 1 :].replace(os.sep, "/")
    return os.path.relpath(t, ws).replace(os.sep, "/")


def _is_md(name: str) -> bool:
    return name.endswith(".md")


def _walk_markdown(root: Path, follow_symlinks: bool) -> list[str]:
    found: list[str] = []
    stack = [str(root)]
    while stack:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_symlink() and not follow_symlinks:
                    continue
                if entry.is_dir(follow_symlinks=follow_symlinks):
                    if entry.name not in IGNORED_DIRS:
                        stack.append(entry.path)
                elif _is_md(entry.name) and entry.is_file(follow_symlinks=follow_symlinks):
                    found.append(entry.path)
            except OSError:
                continue
    return sorted(found)


def list_memory_files(workspace: Path, extra_paths: list[str] | tuple[str, ...] = (),
                      follow_symlinks: bool = False) -> list[SourceFile]:
    candidates: list[str] = []
    for name in ("MEMORY.md", "memory.md"):
        p = workspace / name
        if p.is_file() and (follow_symlinks or not p.is_symlink()):
            candidates.append(str(p))
    mem_dir = workspace / "memory"
    if mem_dir.is_dir() and (follow_symlinks or not mem_dir.is_symlink()):
        candidates.extend(_walk_markdown(mem_dir, follow_symlinks))
    for raw in extra_paths:
        raw = raw.strip()
        if not raw:
            continue
        p = Path(os.path.expanduser(raw))
        p = p if p.is_absolute() else workspace / p
        if p.is_symlink() and not follow_symlinks:
            continue
        if p.is_dir():
            candidates.extend(_walk_markdown(p, follow_symlinks))
        elif p.is_file() and _is_md(p.name):
            candidates.append(str(p))
    # Without followed symlinks a normalised path is already unique; realpath (an lstat per path
    # component) is only needed when links are followed.
    key = os.path.realpath if follow_symlinks else os.path.normpath
    seen: set[str] = set()
    out: list[SourceFile] = []
    for p in candidates:
        k = key(p)
        if k in seen:
            continue
        seen.add(k)
        norm = os.path.normpath(p)
        out.append(SourceFile(norm, rel_path(workspace, norm), "memory"))
    return out


def is_transcript_name(name: str) -> bool:
    if name == "sessions.json" or _ARCHIVE_BAK.search(name):
        return False
    return name.endswith(".jsonl") or ".jsonl.reset." in name or ".jsonl.deleted." in name


def list_session_files(sessions_dir: Path | None) -> list[SourceFile]:
    if sessions_dir is None or not sessions_dir.is_dir():
        return []
    out = []
    for entry in sorted(os.scandir(sessions_dir), key=lambda e: e.name):
        if entry.is_symlink() or not entry.is_file() or not is_transcript_name(entry.name):
            continue
        out.append(SourceFile(entry.path, f"sessions/{entry.name}", "sessions"))
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


def _message_text(content: object) -> str | None:
    if isinstance(content, str):
        return _normalize(content)
    if isinstance(content, list):
        parts = [
            _normalize(p["text"])
            for p in content
            if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str)
        ]
        return " ".join(p for p in parts if p)
    return None


def parse_timestamp_ms(value: object) -> float:
    if isinstance(value, bool):
        return 0.0
    if isinstance(value, (int, float)):
        if value != value or value <= 0:
            return 0.0
        return float(value) * 1000.0 if value < 1e11 else float(value)
    if isinstance(value, str) and value:
        try:
            dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return 0.0
        if dt.tzinfo is None:
            dt = dt.replace(tzinfo=timezone.utc)
        return dt.timestamp() * 1000.0
    return 0.0


def flatten_session(raw: str, redact: bool = True) -> FlatSession:
    """Turn a transcript into `User: …` / `Assistant: …` lines, remembering each line's origin."""
    lines_out: list[str] = []
    flat = FlatSession("")
    for index, line in enumerate(raw.split("\n")):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            flat.malformed_lines += 1
            continue
        if not isinstance(record, dict) or record.get("type") != "message":
            continue
        message = record.get("message")
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            continue
        text = _message_text(message.get("content"))
        if not text:
            continue
        if redact:
            text = redact_secrets(text)
        label = "User" if message["role"] == "user" else "Assistant"
        lines_out.append(f"{label}: {text}")
        flat.line_map.append(index + 1)
        ts = parse_timestamp_ms(message.get("timestamp")) or parse_timestamp_ms(record.get("timestamp"))
        flat.timestamps_ms.append(ts)
    flat.content = "\n".join(lines_out)
    return flat


def note_date_ms(path: str) -> float | None:
    """Epoch ms (UTC midnight) of a dated note `memory/**/YYYY-MM-DD[-topic].md`, else None."""
    m = _DATED_NOTE.search(path.replace("\\", "/").removeprefix("./"))
    if not m:
        return None
    try:
        dt = datetime(int(m.group(1)), int(m.group(2)), int(m.group(3)), tzinfo=timezone.utc)
    except ValueError:
        return None
    return dt.timestamp() * 1000.0


def is_evergreen(path: str, source: str) -> bool:
    """MEMORY.md, memory.md and undated files under memory/ never age."""
    p = path.replace("\\", "/").removeprefix("./")
    if source != "memory":
        return False
    if p in ("MEMORY.md", "memory.md"):
        return True
    return (p.startswith("memory/") or "/memory/" in p) and note_date_ms(p) is None
