"""Plain data passed between the engine and its front ends."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, NamedTuple

from .errors import MemtuiError


class InvalidParams(MemtuiError, ValueError):
    """A ranking or chunking number out of range, phrased as one line (the same for CLI, config and TUI).

    `field` is the SearchParams field (or "chunk_tokens"/"chunk_overlap") so a caller can name its own key.
    """

    def __init__(self, message: str, field: str = "") -> None:
        super().__init__(message)
        self.field = field


def check_chunking(tokens: int, overlap: int) -> None:
    """Chunk budget rule: `tokens` at least MIN_CHUNK_TOKENS, 0 ≤ overlap < tokens."""
    if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < MIN_CHUNK_TOKENS:
        raise InvalidParams(f"chunking tokens must be a whole number of at least {MIN_CHUNK_TOKENS}, got {tokens!r}",
                            "chunk_tokens")
    if isinstance(overlap, bool) or not isinstance(overlap, int) or not 0 <= overlap < tokens:
        raise InvalidParams(f"chunking overlap must be a whole number from 0 to tokens - 1 ({tokens - 1}), got {overlap!r}",
                            "chunk_overlap")


# Below this a chunk is a few words: every line becomes many chunks, and 0 made each character one.
MIN_CHUNK_TOKENS = 16


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
    openclaw_cache_reused: int = 0  # vectors taken from the agent's OpenClaw embedding cache (no API call)
    embeddings_fetched: int = 0  # texts sent to the provider
    lines_embedded: int = 0  # line vectors made (`chunking.lineVectors`)
    line_vectors_off: str = ""  # why an index the setting asks line vectors of goes without (too many chunks)
    full_rebuild: bool = False
    rebuild_reason: str = ""
    cancelled: bool = False
    embed_error: str = ""
    vectors_reset: str = ""  # the provider changed vector size for the same model: why all were re-embedded
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class SyncCancelled(Exception):
    """Raised inside sync when the caller's cancel flag is set; the index stays consistent."""


class DirtyCheck(NamedTuple):
    """Whether files on disk differ from what the index holds, and how much of that was looked at.

    `dirty` is None ("unknown") when a time budget ran out before every file was stat-ed and none of
    those checked had changed: a partial check never passes for a clean one. (A NamedTuple: building a
    dataclass costs more of `status`'s start.)"""

    dirty: bool | None
    checked: int  # files listed, stat-ed and compared before the answer was known
    indexed: int  # files the index holds
    complete: bool  # every file was listed and compared (a change found early also settles it: dirty)

    def to_dict(self) -> dict[str, Any]:
        return {"checked": self.checked, "indexed": self.indexed, "complete": self.complete}


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
    dirty: bool | None  # None: unknown, the bounded check stopped first (see dirty_check)
    last_sync: str | None
    skipped: list[dict[str, str]]
    chunk_dates: dict[str, int]
    provider_error: str = ""
    # the configured provider failed and OpenClaw's `fallback` provider is in use: {from, to, model, reason}
    fallback: dict[str, str] | None = None
    watcher: str = "off"
    notices: list[str] = field(default_factory=list)
    integrity: dict[str, Any] = field(default_factory=dict)  # store.check_integrity: FTS rows and vectors vs chunks
    dirty_check: dict[str, Any] = field(default_factory=dict)  # DirtyCheck.to_dict(); empty when not checked
    openclaw_cache_reused: int = 0  # vectors taken from OpenClaw's embedding cache since the last full rebuild
    # chunks without a vector from the current provider's model (0 without a provider): a sync still has
    # work, so `dirty` is true whatever the files say; the CLI, `--json` and the app read dirty this one way
    unembedded: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# what each `date_source` means, for a reader ("name 12" said nothing)
DATE_SOURCE_WORDS = {"name": "dated by file name", "messages": "by message time", "mtime": "by file change time",
                     "evergreen": "undated (evergreen)"}


def describe_chunk_dates(dates: dict[str, int]) -> str:
    """`Status.chunk_dates` in words: "dated by file name 12, by message time 3, undated (evergreen) 3"."""
    order = list(DATE_SOURCE_WORDS)
    ranked = sorted(dates.items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order))
    return ", ".join(f"{DATE_SOURCE_WORDS.get(k, k)} {v}" for k, v in ranked if v)
