"""The dirty check: a bounded one (what `status` runs on a large index) answers "unknown" rather than
"clean" when it ran out of time, is definite when it finished in time, and never writes a file."""

from __future__ import annotations

import json
import os
from pathlib import Path

from openclaw_memtui.cli.main import main
from openclaw_memtui.engine import dirty_check
from openclaw_memtui.engine.index import MemoryIndex
from openclaw_memtui.engine.ingest.listing import list_sources
from openclaw_memtui.engine.ingest.sources import ListingBudget

from .helpers import same_size_edit, write


def notes(ws: Path, n: int) -> None:
    for i in range(n):
        write(ws / "memory" / f"d{i % 3}" / f"n{i:03d}.md", f"# Note {i}\nwords about topic{i}\n")


def built(tmp_path: Path, make_settings, n: int = 30) -> tuple[Path, MemoryIndex]:
    ws = tmp_path / "ws"
    notes(ws, n)
    index = MemoryIndex(make_settings(ws), provider_name="none")
    index.sync()
    return ws, index


def test_a_spent_budget_answers_unknown_not_clean(tmp_path, make_settings):
    ws, index = built(tmp_path, make_settings)
    same_size_edit(ws / "memory" / "d1" / "n001.md", "# Note 1\nWORDS about topic1\n", 5_000_000)
    check = index.check_dirty(budget_s=0.0, full_up_to=0)  # spent before the first folder
    assert check.dirty is None and not check.complete
    assert check.checked < check.indexed == 30
    assert index.status(dirty_budget_s=0.0).dirty is True  # 30 files: at most FULL_DIRTY_CHECK_FILES, all checked
    full = index.check_dirty()
    assert (full.dirty, full.complete, full.checked) == (True, True, full.checked)


def test_a_bounded_check_that_finishes_in_time_is_definite(tmp_path, make_settings):
    ws, index = built(tmp_path, make_settings)
    clean = index.check_dirty(budget_s=60.0, full_up_to=0)
    assert (clean.dirty, clean.complete, clean.checked, clean.indexed) == (False, True, 30, 30)
    (ws / "memory" / "d2" / "n002.md").unlink()  # a deletion shows only in the count of files seen
    gone = index.check_dirty(budget_s=60.0, full_up_to=0)
    assert (gone.dirty, gone.complete, gone.checked, gone.indexed) == (True, True, 29, 30)
    write(ws / "memory" / "d0" / "added.md", "# Added\n")
    (ws / "memory" / "d2" / "n002.md").unlink(missing_ok=True)
    assert index.check_dirty(budget_s=60.0, full_up_to=0).dirty is True


def snapshot(*folders: Path) -> dict[str, tuple[bytes, int]]:
    """Every file's bytes and mtime, but WAL's shared-memory index: any reader of a WAL database,
    read-only or not, marks its reads there (the index itself, its WAL and the notes are compared)."""
    return {str(p): (p.read_bytes(), p.stat().st_mtime_ns) for folder in folders for p in folder.rglob("*")
            if p.is_file() and not p.name.endswith("-shm")}


def test_status_on_a_large_index_says_unknown_and_check_files_checks_all_without_writing(
        tmp_path, make_settings, capsys, monkeypatch):
    ws = tmp_path / "ws"
    notes(ws, 30)
    db = tmp_path / "idx" / "i.sqlite"
    common = ["--workspace", str(ws), "--db", str(db), "--provider", "none"]
    assert main(["index", *common]) == 0
    capsys.readouterr()
    same_size_edit(ws / "memory" / "d0" / "n003.md", "# Note 3\nwords ABOUT topic3\n", 1_000)
    monkeypatch.setattr(dirty_check, "FULL_DIRTY_CHECK_FILES", 10)  # 30 files count as a large index here
    monkeypatch.setattr(dirty_check, "STATUS_DIRTY_BUDGET_S", 0.0)
    before = snapshot(db.parent, ws)
    assert main(["status", "--json", *common]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["dirty"] is None and status["dirty_check"]["complete"] is False
    assert status["dirty_check"]["indexed"] == 30 and status["dirty_check"]["checked"] < 30
    assert main(["status", *common]) == 0
    assert "Dirty: unknown (no change among" in capsys.readouterr().out
    assert main(["status", "--json", "--check-files", *common]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["dirty"] is True and status["dirty_check"]["complete"] is True
    assert snapshot(db.parent, ws) == before  # same files, bytes and mtimes: a read command changed nothing


class SpentAfter(ListingBudget):
    """A budget spent after `looks` looks at the clock: a bounded walk made deterministic."""

    def __init__(self, looks: int) -> None:
        super().__init__(3600.0)
        self.looks = looks

    def spent(self) -> bool:
        self.looks -= 1
        self.exhausted = self.exhausted or self.looks < 0
        return self.exhausted


def test_a_bounded_listing_takes_transcripts_first_then_the_newest_folder(tmp_path, make_settings):
    ws = tmp_path / "ws"
    write(ws / "sessions" / "s.jsonl", '{"type":"message","message":{"role":"user","content":"hi"}}\n')
    for month, when in (("2026-01", 1_700_000_000), ("2026-12", 1_790_000_000), ("2026-06", 1_750_000_000)):
        write(ws / "memory" / month / "note.md", f"# {month}\n")
        os.utime(ws / "memory" / month, (when, when))
    settings = make_settings(ws, sources=("memory", "sessions"))
    everything = list_sources(settings)
    assert [f.source for f in everything][-1] == "sessions"  # unbounded: memory first, as a sync goes
    budget = SpentAfter(3)  # after the transcripts: memory/, then one month folder; then spent
    partial = list_sources(settings, budget)
    assert budget.exhausted and len(partial) < len(everything)
    assert partial[0].source == "sessions"
    months = [f.path.split("/")[1] for f in partial if f.path.startswith("memory/20")]
    assert months == ["2026-12"]  # the folder changed last was walked first
