"""Inspect OpenClaw's own SQLite index without writing to it, and compare it with the disk.

The file is opened with a read-only URI and `query_only`; nothing is checkpointed or created, so
its bytes and mtime are unchanged (tested). Staleness: a memory file is changed when its sha256
differs from the stored hash (OpenClaw hashes the file text); a transcript when its size or mtime
moved (OpenClaw's transcript hash depends on its redactor, which memtui does not copy byte for byte).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ..engine.sources import list_memory_files, list_session_files
from ..engine.store import SQLITE_HEADER, detect_backend
from ..engine.textutil import sha256_hex
from .agents import OpenClawError

META_KEY = "memory_index_meta_v1"


def _open_readonly(path: Path):
    if not path.is_file():
        raise OpenClawError(f"no OpenClaw index at {path} (has the agent run `openclaw memory index`?)")
    with open(path, "rb") as fh:
        if fh.read(16) != SQLITE_HEADER:
            raise OpenClawError(f"{path} is not an SQLite database (corrupt or not an OpenClaw index)")
    module = detect_backend().module
    conn = module.connect(f"file:{path}?mode=ro", uri=True)
    conn.execute("PRAGMA query_only = 1")
    return conn


def inspect_openclaw_index(path: Path, workspace: Path | None = None, sessions_dir: Path | None = None,
                           extra_paths: list[str] | None = None) -> dict[str, Any]:
    conn = _open_readonly(path)
    try:
        try:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table','view')")}
        except Exception as exc:
            raise OpenClawError(f"{path} cannot be read ({exc}); it may be corrupt") from None
        if "memory_index_chunks" in tables and "chunks" not in tables:
            raise OpenClawError(f"{path} uses the newer shared-agent layout (memory_index_chunks); "
                                "this memtui reads the builtin memory index (tables meta, files, chunks)")
        missing = {"meta", "files", "chunks"} - tables
        if missing:
            raise OpenClawError(f"{path} is not an OpenClaw memory index (missing tables: {', '.join(sorted(missing))})")
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (META_KEY,)).fetchone()
        meta: dict[str, Any] = {}
        if row:
            try:
                meta = json.loads(row[0])
            except ValueError:
                raise OpenClawError(f"{path}: the meta row is not valid JSON (written by an unknown OpenClaw version)") from None
        columns = {r[1] for r in conn.execute("PRAGMA table_info(files)")}
        has_source = "source" in columns
        files = {r[0]: r[1:] for r in conn.execute(
            f"SELECT path, {'source' if has_source else chr(39) + 'memory' + chr(39)}, hash, mtime, size FROM files")}
        per_source: dict[str, dict[str, int]] = {}
        for path_, (source, *_rest) in files.items():
            per_source.setdefault(source, {"files": 0, "chunks": 0})["files"] += 1
        chunk_cols = {r[1] for r in conn.execute("PRAGMA table_info(chunks)")}
        group = "source" if "source" in chunk_cols else "'memory'"
        for source, count in conn.execute(f"SELECT {group}, count(*) FROM chunks GROUP BY 1"):
            per_source.setdefault(source, {"files": 0, "chunks": 0})["chunks"] = count
    finally:
        conn.close()
    report: dict[str, Any] = {
        "index_path": str(path),
        "meta": {k: meta.get(k) for k in ("model", "provider", "chunkTokens", "chunkOverlap", "vectorDims", "ftsTokenizer", "sources")},
        "sources": per_source,
        "files": len(files),
        "chunks": sum(v["chunks"] for v in per_source.values()),
    }
    if workspace is not None:
        report.update(_compare(files, workspace, sessions_dir, extra_paths or []))
    return report


def _compare(files: dict[str, tuple], workspace: Path, sessions_dir: Path | None, extra_paths: list[str]) -> dict[str, Any]:
    on_disk = {sf.path: sf for sf in list_memory_files(workspace, extra_paths)}
    on_disk.update({sf.path: sf for sf in list_session_files(sessions_dir)})
    changed, never = [], []
    for rel, sf in sorted(on_disk.items()):
        row = files.get(rel)
        if row is None:
            never.append(rel)
            continue
        _source, digest, mtime, size = row
        try:
            st = os.stat(sf.abs_path)
            if sf.source == "sessions":
                if int(size) != st.st_size or abs(float(mtime) - st.st_mtime_ns / 1e6) > 1:
                    changed.append(rel)
            else:
                with open(sf.abs_path, "rb") as fh:
                    text = fh.read().decode("utf-8", errors="replace")
                if sha256_hex(text) != digest:
                    changed.append(rel)
        except OSError:
            changed.append(rel)
    gone = sorted(set(files) - set(on_disk))
    return {"changed_since_indexed": changed, "not_indexed": never, "indexed_but_missing": gone,
            "stale": bool(changed or never or gone)}
