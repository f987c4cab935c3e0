"""Messages that worker threads post back to the app (post_message is thread-safe)."""

from __future__ import annotations

from textual.message import Message

from ..engine.models import SyncProgress, SyncReport
from ..engine.search.rank import Pool


class SearchDone(Message):
    def __init__(self, generation: int, pool: Pool) -> None:
        super().__init__()
        self.generation, self.pool = generation, pool


class SearchFailed(Message):
    def __init__(self, generation: int, error: str) -> None:
        super().__init__()
        self.generation, self.error = generation, error


class SyncProgressed(Message):
    def __init__(self, progress: SyncProgress) -> None:
        super().__init__()
        self.progress = progress


class SyncFinished(Message):
    def __init__(self, report: SyncReport | None, error: str = "") -> None:
        super().__init__()
        self.report, self.error = report, error


class FilesChanged(Message):
    def __init__(self, paths: set[str]) -> None:
        super().__init__()
        self.paths = paths
