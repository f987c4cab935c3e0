"""The index's generation (what the vector matrix in memory and the file saved beside the index are
checked against) changes with every committed change of chunks or vectors, and only then; and it
never comes back to an earlier value, even for an index restored from a backup."""

from __future__ import annotations

import shutil
from pathlib import Path

from openclaw_memtui.core.config import index_settings, validate
from openclaw_memtui.engine.index import MemoryIndex

from .helpers import write


def keyword_index(tmp_path) -> MemoryIndex:
    ws = tmp_path / "ws"
    for i in range(5):
        write(ws / "memory" / f"n{i}.md", f"# Note {i}\nsubject {i}\n")
    index = MemoryIndex(index_settings(validate({}), ws, tmp_path / "index.sqlite"), provider_name="none")
    index.sync()
    return index


def test_a_no_op_sync_keeps_the_generation_and_an_edit_changes_it(tmp_path):
    index = keyword_index(tmp_path)
    first = index.reads().generation()
    assert first != 0
    index.sync()
    assert index.reads().generation() == first  # a saved matrix stays current across no-op syncs
    write(index.settings.workspace / "memory" / "n1.md", "# Note 1\nedited\n")
    index.sync()
    assert index.reads().generation() > first  # later states compare larger: a newer matrix replaces an older


def test_chunks_deleted_because_a_file_became_unreadable_change_the_generation(tmp_path):
    index = keyword_index(tmp_path)
    before = index.reads().generation()
    (index.settings.workspace / "memory" / "n2.md").write_bytes(b"# Note 2\n\xff\xfe not utf-8\n")
    report = index.sync()
    assert report.files_skipped == 1 and report.files_indexed == 0 and report.files_removed == 0
    assert index.reads().count_chunks() == 4
    assert index.reads().generation() != before


def copy_index(source: Path, target: Path) -> None:
    """A closed index file with its WAL, as a backup tool would copy it."""
    for suffix in ("", "-wal"):
        target_side = Path(f"{target}{suffix}")
        target_side.unlink(missing_ok=True)
        if Path(f"{source}{suffix}").exists():
            shutil.copyfile(f"{source}{suffix}", target_side)
    Path(f"{target}-shm").unlink(missing_ok=True)


def test_an_index_restored_from_a_backup_and_changed_again_gets_a_generation_it_never_had(tmp_path):
    """A counter would repeat here: backup at g, two changes (g+2, a matrix saved for it), restore g,
    two other changes: g+2 again for other rows."""
    index = keyword_index(tmp_path)
    settings, db, backup = index.settings, index.settings.db_path, tmp_path / "backup.sqlite"
    seen = {index.reads().generation()}
    index.close()
    copy_index(db, backup)
    index = MemoryIndex(settings, provider_name="none")
    for text in ("first edit", "second edit"):
        write(settings.workspace / "memory" / "n1.md", f"# Note 1\n{text}\n")
        index.sync()
        seen.add(index.reads().generation())
    index.close()
    copy_index(backup, db)
    again = MemoryIndex(settings, provider_name="none")
    assert again.reads().generation() in seen  # the restored state
    for text in ("other edit", "another edit"):
        write(settings.workspace / "memory" / "n3.md", f"# Note 3\n{text}\n")
        again.sync()
        assert again.reads().generation() not in seen
