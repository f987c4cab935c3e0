"""Typed messages: what worker threads post back (post_message is thread-safe), one class per answer.

Every answer to a request that can be superseded carries the generation it was asked for, so the
receiver drops stale ones. Progress events coalesce (`can_replace`, as Toolong does) so a flood of
them never queues up behind a key press.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from rich.text import Text
from textual.message import Message

from ..engine.models import SyncProgress, SyncReport
from ..engine.search.browse import BrowseEntry
from ..engine.search.rank import Pool, Result
from ..engine.tuning.judgements import Loaded
from ..engine.tuning.tuner import JudgedSet, NeedMore, Suggestion
from .state import MetricView

if TYPE_CHECKING:  # annotations only: the screens import these messages
    from ..interop.agents import Agent
    from .screens.file_view import FileBody


@dataclass
class IndexChecked(Message):
    """The launch check: whether the index needs a sync before its results can be trusted."""

    needs_sync: bool
    error: str = ""  # a locked or unreadable index: said once, and a sync tries to repair it


@dataclass
class SearchDone(Message):
    generation: int
    pool: Pool
    partial: bool = False  # keyword results shown first while the vector leg waits for its matrix


@dataclass
class SearchFailed(Message):
    generation: int
    error: str


@dataclass
class SyncProgressed(Message):
    progress: SyncProgress

    def can_replace(self, message: Message) -> bool:
        # A newer event of the same phase says all this one does; a phase change must get through
        # (the app searches again when embedding starts).
        return isinstance(message, SyncProgressed) and message.progress.phase == self.progress.phase


@dataclass
class SyncFinished(Message):
    report: SyncReport | None
    error: str = ""


@dataclass
class FilesChanged(Message):
    paths: set[str]


@dataclass
class FileLoaded(Message):
    """A whole indexed file, already rendered (numbered, redacted, escaped) off the event loop."""

    generation: int
    heading: Text
    body: FileBody  # its rows, and the row of the first matched line
    result: Result


@dataclass
class JudgedLoaded(Message):
    """The stored judgements, each judged question retrieved once, and where each target stands now."""

    generation: int
    snapshot: int  # the app's judgement snapshot when the retrieval started
    loaded: Loaded
    judged: JudgedSet | None  # None: the retrieval failed (`error` says why)
    error: str = ""


@dataclass
class WorkProgressed(Message):
    """Progress of long judged work: retrieving the judged questions ("judged") or the suggestion search
    ("suggest"). A newer event of the same work says all an older one does."""

    work: Literal["judged", "suggest"]
    generation: int
    done: int
    total: int

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, WorkProgressed) and message.work == self.work


@dataclass
class MetricScored(Message):
    """The judged metric of a setting, scored off the event loop."""

    generation: int
    view: MetricView
    ms: float = 0.0  # how long the re-rank of every judged pool took


@dataclass
class SuggestFinished(Message):
    result: Suggestion | NeedMore | None  # None: cancelled or failed (`error` says why)
    error: str = ""


@dataclass
class BrowseLoaded(Message):
    """A page of the memory newest first (no query): `entries` from `offset` on, for `which` filter."""

    generation: int
    which: str
    offset: int
    entries: list[BrowseEntry]
    error: str = ""


@dataclass
class AgentReread(Message):
    """The OpenClaw agent as its config describes it now (read again after the config changed, or with the
    status screen's read): connected to memtui, or its memory search turned off, since the app started."""

    agent: Agent
