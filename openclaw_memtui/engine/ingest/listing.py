"""Every file the index should hold: the memory files and the transcripts its settings name."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .memory_listing import list_memory_files
from .session_listing import list_db_transcripts, list_session_files
from .sources import ListingBudget, SourceFile, Unreadable

if TYPE_CHECKING:
    from ..settings import IndexSettings


def list_sources(settings: IndexSettings, budget: ListingBudget | None = None,
                 known: dict[str, tuple[float, int]] | None = None, unchanged: list[str] | None = None,
                 unreadable: list[Unreadable] | None = None,
                 kept: dict[str, tuple[float, int]] | None = None, stamped: bool = True) -> list[SourceFile]:
    """Every file the index should hold, each with its stamp; with a `budget` perhaps only some of them
    (`budget.exhausted` then says so). With `known` and `unchanged` (a re-sync), a memory file whose
    stamp is known may be left out of the list and only named in `unchanged` (see list_memory_files):
    the list and `unchanged` together name every file. Folders that cannot be read go to `unreadable`.
    `kept` (default `known`): what the live index holds, listed again for transcripts that cannot be
    listed now (an agent database or its tombstones unreadable), so a sync keeps them; a rebuild or
    `--check-files` lists without `known` but must keep them just the same. Without `stamped` the notes
    under folders carry no stamp (`SourceFile.stamp` None): a rebuild reads each and stamps it from the
    descriptor it reads through, and the walk's stat of each was 10,000 system calls for nothing."""
    kept = known if kept is None else kept
    files: list[SourceFile] = []
    # a bounded listing takes the transcripts first: they are fewer than notes and the likeliest to have grown
    sessions_first = budget is not None
    if "sessions" in settings.sources and sessions_first:
        files.extend(_list_transcripts(settings, budget, kept))
    if "memory" in settings.sources and not (budget is not None and budget.spent()):
        files.extend(list_memory_files(settings.workspace, settings.extra_paths, settings.follow_symlinks,
                                       settings.root_files, settings.extra_path_patterns, budget, known, unchanged,
                                       unreadable, stamped))
    if "sessions" in settings.sources and not sessions_first:
        files.extend(_list_transcripts(settings, budget, kept, unreadable))
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
        # what the index holds stays as it is (retrieval hides it meanwhile) instead of being deleted; no
        # abs_path: such a file is not read now (reading.read_source says so), its rows are kept
        head = f"{prefix}/"
        return [SourceFile("", path, "sessions", stamp) for path, stamp in (known or {}).items()
                if path.startswith(head) and "/" not in path[len(head):] and ".jsonl" in path]
    files = list_session_files(settings.sessions_dir, settings.follow_symlinks, prefix, budget, unreadable)
    if settings.transcripts_db is not None and not (budget is not None and budget.spent()):
        in_folder = {sf.path for sf in files}
        files.extend(list_db_transcripts(settings.transcripts_db, prefix, known, in_folder))
    # a session OpenClaw was told to forget is not a source: a sync drops its chunks, memory_get refuses it
    return [sf for sf in files if not is_forgotten(sf.path, "sessions", prefix, forgotten)] if forgotten else files
