"""One sync, start to end: an incremental pass or the atomic full rebuild, then the embedding phase.

Order of work: list files → stat → (only if mtime/size moved) read and hash → (only if the hash
moved) chunk and write keyword rows → remove rows of vanished files → embed chunks that have no
vector yet, cache first. Keyword rows are committed before any embedding starts, so a slow model
never keeps search waiting; vectors fill in behind and each embedded batch is committed, so an
interrupted sync keeps what it already paid for.
"""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from typing import Any

from ..embeddings.base import EmbeddingProvider
from ..embeddings.openclaw_cache import OpenClawVectors
from ..ingest.access import roots_pinned
from ..models import SyncCancelled, SyncProgress, SyncReport
from ..scrub import scrub
from ..settings import IndexSettings
from ..store import EmbeddingCache, IndexWriter, Store, discard, open_temp_beside, swap_in
from ..store.reader import SkippedFile
from ..store.schema import outdated_schema
from .embed_phase import EmbeddingPhase
from .file_pass import FilePass
from .identity import FTS_ONLY_MODEL, compute_identity, rebuild_reason
from .state import CancelFlag, ProgressFn, _Never


def reason_of(report: SyncReport) -> str:
    return report.rebuild_reason or "rebuild"


class Syncer(FilePass, EmbeddingPhase):
    def __init__(self, store: Store, settings: IndexSettings, provider: EmbeddingProvider | None,
                 progress: ProgressFn | None = None, cancel: CancelFlag | None = None, *,
                 verify_dims: bool = False, check_files: bool = False) -> None:
        """`check_files` (`index --check-files`): read and hash every file, not only those whose
        (mtime, size) stamp moved; a file whose hash is the stored one is still not rewritten."""
        self.store = store
        self.verify_dims = verify_dims
        self.check_files = check_files
        self.settings = settings
        self.provider = provider
        self.progress = progress or (lambda _p: None)
        self.cancel = cancel or _Never()
        self.model = provider.model if provider else FTS_ONLY_MODEL
        self._previous_skips: dict[str, SkippedFile] = {}
        self._read_failures: list[str] = []  # files a read failed for this sync (their rows are kept)
        self._openclaw_vectors: OpenClawVectors | None = None
        self._embedded_rowids: list[int] = []  # chunks this sync gave a vector: the line pass reads only these
        self._lines_left_pending = False  # an earlier sync embedded chunks whose lines it did not: read them all

    # -- entry point ---------------------------------------------------------------------------
    def run(self, force: bool = False, embed: bool = True) -> SyncReport:
        started = time.perf_counter()
        report = SyncReport()
        identity = compute_identity(self.settings, self.provider)
        reason = "forced" if force else (outdated_schema(self.store.conn)
                                          or rebuild_reason(self.store.get_identity(), identity))
        try:
            with roots_pinned(self.settings):  # the listing and each read judge files by the same roots
                if reason:
                    report.full_rebuild, report.rebuild_reason = True, reason
                    self._rebuild(identity, report)
                else:
                    self._index_files(self.store, report, force=False)
            if embed and self.provider is not None:
                self._embed_missing(report)
                self._embed_lines(report)
        except SyncCancelled:
            report.cancelled = True
        report.seconds = time.perf_counter() - started
        if not report.cancelled:
            self.store.set_meta("last_sync", datetime.now(UTC).isoformat(timespec="seconds"))
            self.store.set_meta("last_sync_report", scrub(json.dumps(report.to_dict())))  # never store a key
        self.progress(SyncProgress("done", report.files_total, report.files_total, "",
                                   "cancelled" if report.cancelled else "finished"))
        return report

    # -- full rebuild beside the live file -------------------------------------------------------
    def _rebuild(self, identity: dict[str, Any], report: SyncReport) -> None:
        live = self.store
        temp = open_temp_beside(live)
        try:
            if live.get_identity() is not None or not EmbeddingCache(live.conn).is_empty():
                EmbeddingCache(temp.conn).copy_from(live.path)  # a rebuild re-embeds nothing it already paid for
            self._index_files(temp, report, force=True)
            held = IndexWriter(live.conn).file_stamps()
            lost = [path for path in self._read_failures if path in held]
            if lost:
                # the rebuilt index would lack what could not be read now: keep the live one, retry later
                discard(temp)
                report.full_rebuild = False
                report.rebuild_reason = (f"{reason_of(report)}; postponed: {len(lost)} indexed file(s) could not be "
                                         f"read now (first: {lost[0]}); the index is kept as it was")
                return
            temp.set_identity(identity)
            self.progress(SyncProgress("swap", report.files_total, report.files_total, "", "swapping in the rebuilt index"))
            swap_in(live, temp)
        except BaseException:
            discard(temp)
            raise
