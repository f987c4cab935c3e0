"""Whether the files on disk differ from what an index holds: new, changed or gone (`status`, a search's
"stale" hint). `MemoryIndex.check_dirty` is the way in."""

from __future__ import annotations

from .ingest.listing import list_sources
from .ingest.sources import ListingBudget, SourceFile, stat_stamp
from .models import DirtyCheck
from .settings import IndexSettings
from .store.reader import IndexReader

# `status` stats every file of an index of up to this many (cheap at that size); beyond, only those it
# reaches within STATUS_DIRTY_BUDGET_S, and says "unknown" when none of them changed (`--check-files`: all)
FULL_DIRTY_CHECK_FILES = 10_000
STATUS_DIRTY_BUDGET_S = 0.015


def check_dirty(settings: IndexSettings, reads: IndexReader, budget_s: float | None = None,
                full_up_to: int | None = None, hashes: bool = False) -> DirtyCheck:
    """Compare the files on disk with the index's (mtime, size) stamps; with `hashes` (`status
    --check-files`) every file is also read and its content hash compared (no budget then), so an
    edit that kept the size and put the old mtime back is seen.

    With `budget_s` None every file is listed and stat-ed. With a budget the listing stops once it
    has run that long, unless the index holds at most `full_up_to` (default FULL_DIRTY_CHECK_FILES)
    files: a change among the files stat-ed by then is still a definite "dirty"; otherwise the answer
    is None ("unknown"), never a clean bill the check did not earn. Only the stamps of the files
    listed are read then, so the whole check stays within about twice the budget.
    """
    skipped = reads.retry_skipped_paths()
    indexed = reads.count_files()
    files: list[SourceFile]
    unchanged: list[str] = []  # files the listing itself found unchanged (see list_sources)
    if hashes:
        return _check_hashes(settings, reads, skipped, indexed)
    if budget_s is None or indexed <= (FULL_DIRTY_CHECK_FILES if full_up_to is None else full_up_to):
        known = reads.file_stamps()
        files, complete = list_sources(settings, known=known, unchanged=unchanged), True
    else:
        budget = ListingBudget(budget_s)
        files = list_sources(settings, budget)
        complete = not budget.exhausted
        known = reads.file_stamps_of([sf.path for sf in files])
    get = known.get
    seen = len(unchanged)
    for checked, sf in enumerate(files, seen + 1):
        if skipped and sf.path in skipped:
            continue
        stamp = get(sf.path)  # the listing stats each file (a transcript in OpenClaw's database: its stamps)
        if stamp is None or (sf.stamp or stat_stamp(sf.abs_path)) != stamp:
            return DirtyCheck(True, checked, indexed, complete)
        seen += 1
    return DirtyCheck(seen != indexed if complete else None, len(unchanged) + len(files), indexed, complete)


def _check_hashes(settings: IndexSettings, reads: IndexReader, skipped: set[str], indexed: int) -> DirtyCheck:
    from .sync.file_pass import content_hash  # reads every file: only on an explicit --check-files

    known, digests = reads.file_stamps(), reads.file_hashes()
    files = list_sources(settings)
    for checked, sf in enumerate(files, 1):
        if skipped and sf.path in skipped:
            continue
        stamp = known.get(sf.path)
        if stamp is None or (sf.stamp or stat_stamp(sf.abs_path)) != stamp \
                or content_hash(sf, settings) != digests.get(sf.path):
            return DirtyCheck(True, checked, indexed, True)
    listed = {sf.path for sf in files}
    return DirtyCheck(any(path not in listed for path in known), len(files), indexed, True)


def notes_changed(settings: IndexSettings, reads: IndexReader) -> bool:
    """Whether a memory file (a note, an extra path) is new, changed or gone since the index's last
    sync; transcripts are not looked at. An agent's answer waits for a sync only when this is true:
    its own conversation changes every turn and must never hold its answer up."""
    from dataclasses import replace

    if "memory" not in settings.sources:
        return False
    known = reads.file_stamps("memory")
    unchanged: list[str] = []
    files = list_sources(replace(settings, sources=("memory",)), known=known, unchanged=unchanged)
    listed = set(unchanged)
    for sf in files:
        listed.add(sf.path)
        if known.get(sf.path) != (sf.stamp or stat_stamp(sf.abs_path)):
            return True
    return any(path not in listed for path in known)
