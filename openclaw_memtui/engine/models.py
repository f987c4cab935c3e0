"""Plain data passed between the engine and its front ends."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class SyncProgress:
    """One progress event: phase is scan | index | embed | swap | done."""

    phase: str
    done: int
    total: int
    path: str = ""
    message: str = ""


@dataclass(slots=True)
class SyncReport:
    files_total: int = 0
    files_indexed: int = 0
    files_unchanged: int = 0
    files_removed: int = 0
    files_skipped: int = 0
    files_deferred: int = 0  # changed while being read: retried next sync
    chunks_written: int = 0
    chunks_embedded: int = 0
    embed_cache_hits: int = 0
    full_rebuild: bool = False
    rebuild_reason: str = ""
    cancelled: bool = False
    embed_error: str = ""
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class SyncCancelled(Exception):
    """Raised inside sync when the caller's cancel flag is set; the index stays consistent."""


@dataclass(slots=True)
class Status:
    workspace: str
    db_path: str
    sqlite_binding: str
    sqlite_version: str
    sqlite_vec_version: str | None
    vector_backend: str
    fts: bool
    provider: str
    model: str
    dims: int | None
    files: int
    chunks: int
    embedded: int
    sources: dict[str, dict[str, int]]
    dirty: bool
    last_sync: str | None
    skipped: list[dict[str, str]]
    chunk_dates: dict[str, int]
    provider_error: str = ""
    watcher: str = "off"
    notices: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
