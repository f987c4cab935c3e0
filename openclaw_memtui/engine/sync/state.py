"""What every phase of one sync shares: its store, settings, provider, progress callback and cancel flag."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from ..embeddings.base import EmbeddingProvider
from ..embeddings.openclaw_cache import OpenClawVectors
from ..models import SyncCancelled, SyncProgress
from ..settings import IndexSettings
from ..store import Store
from ..store.reader import SkippedFile

ProgressFn = Callable[[SyncProgress], None]


class CancelFlag(Protocol):
    def is_set(self) -> bool: ...


class _Never:
    def is_set(self) -> bool:
        return False


class SyncerState:
    """The state the file pass and the embedding phase read and keep (set by `Syncer.__init__`)."""

    store: Store
    settings: IndexSettings
    provider: EmbeddingProvider | None
    model: str
    progress: ProgressFn
    cancel: CancelFlag
    verify_dims: bool
    check_files: bool
    _previous_skips: dict[str, SkippedFile]
    _read_failures: list[str]  # files a read failed for this sync (their rows are kept)
    _openclaw_vectors: OpenClawVectors | None
    _embedded_rowids: list[int]
    _lines_left_pending: bool

    def _check_cancel(self) -> None:
        if self.cancel.is_set():
            raise SyncCancelled()
