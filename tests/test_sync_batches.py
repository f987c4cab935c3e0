"""Changed files are written in batches, one bad file still only costs itself; a re-sync reads
nothing whose stat is unchanged, and still sees every change, addition and deletion."""

from __future__ import annotations

import os
from pathlib import Path

from openclaw_memtui.engine.index import MemoryIndex
from openclaw_memtui.engine.store import check_integrity
from openclaw_memtui.engine.sync import file_pass as sync

from .helpers import same_size_edit, write


def notes(ws, n, word="alpha"):
    for i in range(n):
        write(ws / "memory" / f"n{i:03d}.md", f"# Note {i}\n{word} words about topic{i}\n")


def synced_notes(tmp_path, make_settings, n: int) -> tuple[Path, MemoryIndex]:
    """A workspace of `n` notes and its keyword-only index, synced once."""
    ws = tmp_path / "ws"
    notes(ws, n)
    index = MemoryIndex(make_settings(ws), provider_name="none")
    index.sync()
    return ws, index


def spy_on_reads(monkeypatch) -> list[str]:
    """The paths sync reads from disk from now on, in order (a file recognised by its stat is not read)."""
    reads: list[str] = []
    real = sync.read_source
    monkeypatch.setattr(sync, "read_source", lambda sf, *rest: reads.append(sf.path) or real(sf, *rest))
    return reads


def test_a_file_that_fails_inside_a_batch_costs_only_itself(tmp_path, make_settings):
    ws, index = synced_notes(tmp_path, make_settings, 30)
    # a real write failure for one path: SQLite refuses its chunk rows
    index.store.conn.execute("CREATE TRIGGER refuse BEFORE INSERT ON chunks WHEN NEW.path = 'memory/n007.md'"
                             " BEGIN SELECT RAISE(ABORT, 'disk says no'); END")
    notes(ws, 30, word="beta")
    report = index.sync()
    assert report.files_indexed == 29 and report.files_skipped == 1
    assert [s.path for s in index.reads().skipped()] == ["memory/n007.md"]
    conn = index.reader()
    assert conn.execute("SELECT count(*) FROM chunks WHERE text LIKE '%beta%'").fetchone()[0] == 29
    # the failed file was rolled back whole: its old version stays searchable, nothing half-written
    assert conn.execute("SELECT text FROM chunks WHERE path = 'memory/n007.md'").fetchall() == [
        ("# Note 7\nalpha words about topic7\n",)]
    assert check_integrity(conn, None)["ok"]


def test_batched_writes_keep_keyword_rows_on_their_chunks(tmp_path, make_settings):
    ws, index = synced_notes(tmp_path, make_settings, 450)  # more than one batch
    for i in range(0, 450, 3):
        (ws / "memory" / f"n{i:03d}.md").unlink()
    for i in range(1, 450, 3):
        write(ws / "memory" / f"n{i:03d}.md", f"# Note {i}\ngamma words about topic{i}\n")
    write(ws / "memory" / "new.md", "# New\ndelta words\n")
    report = index.sync()
    assert (report.files_removed, report.files_indexed) == (150, 151)
    conn = index.reader()
    assert check_integrity(conn, None)["ok"]
    for word, path in (("topic301", "memory/n301.md"), ("delta", "memory/new.md"), ("topic2", "memory/n002.md")):
        pool = index.retrieve(word)
        assert [c.path for c in pool.candidates] == [path]
    assert index.retrieve("topic300").candidates == []


def test_a_re_sync_reads_only_files_whose_stat_moved(tmp_path, make_settings, monkeypatch):
    ws, index = synced_notes(tmp_path, make_settings, 40)
    reads = spy_on_reads(monkeypatch)
    report = index.sync()
    assert reads == [] and report.files_unchanged == 40 and not index.is_dirty()
    same_size_edit(ws / "memory" / "n005.md", "# Note 5\nomega words about topic5\n", 10_000_000)
    write(ws / "memory" / "added.md", "# Added\nkappa\n")
    (ws / "memory" / "n009.md").unlink()
    assert index.is_dirty()
    report = index.sync()
    assert sorted(reads) == ["memory/added.md", "memory/n005.md"]
    assert (report.files_indexed, report.files_removed, report.files_unchanged) == (2, 1, 38)
    assert [c.path for c in index.retrieve("omega").candidates] == ["memory/n005.md"]
    assert index.retrieve("topic9").candidates == []


def test_a_first_index_writes_its_scratch_file_without_a_wal_and_swaps_in_a_wal_index(tmp_path, make_settings):
    ws = tmp_path / "ws"
    notes(ws, 450)  # more than one batch, so the scratch file is seen between commits
    settings = make_settings(ws)
    index = MemoryIndex(settings, provider_name="none")
    seen: list[tuple[str, bool]] = []

    def progress(p):
        if p.phase == "index" and p.done == 300:
            for temp in settings.db_path.parent.glob(settings.db_path.name + ".tmp-*"):
                if not temp.name.endswith(("-wal", "-shm", "-journal")):
                    seen.append((temp.name, os.path.exists(f"{temp}-wal")))

    report = index.sync(progress=progress)
    assert report.full_rebuild and report.files_indexed == 450
    assert len(seen) == 1 and seen[0][1] is False  # a rollback journal: pages are written once, not to a WAL and back
    assert index.store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"  # the live file is a WAL index again
    assert not list(settings.db_path.parent.glob(settings.db_path.name + ".tmp-*"))  # nor its journal
    assert check_integrity(index.reader(), None)["ok"] and index.status(check_dirty=False).chunks == 450


def test_a_file_that_fails_inside_a_first_index_batch_is_rolled_back_whole(tmp_path, make_settings, monkeypatch):
    ws = tmp_path / "ws"
    notes(ws, 30)
    real = sync.IndexWriter.upsert_files

    def refuse_n007(self, rows):  # after the batch's chunks were inserted: the savepoint must undo them
        if any(row[0] == "memory/n007.md" for row in rows):
            raise RuntimeError("disk says no")
        return real(self, rows)

    monkeypatch.setattr(sync.IndexWriter, "upsert_files", refuse_n007)
    index = MemoryIndex(make_settings(ws), provider_name="none")
    report = index.sync()
    assert report.full_rebuild and (report.files_indexed, report.files_skipped) == (29, 1)
    conn = index.reader()
    assert conn.execute("SELECT count(*) FROM chunks").fetchone()[0] == 29
    assert conn.execute("SELECT count(*) FROM chunks WHERE path = 'memory/n007.md'").fetchone()[0] == 0
    assert check_integrity(conn, None)["ok"]


def test_a_file_whose_size_changed_under_the_same_mtime_is_read_again(tmp_path, make_settings):
    ws, index = synced_notes(tmp_path, make_settings, 5)
    changed = ws / "memory" / "n002.md"
    st = os.stat(changed)
    write(changed, "# Note 2\nsigma words about topic2, and a longer line\n")
    os.utime(changed, ns=(st.st_atime_ns, st.st_mtime_ns))  # the mtime the index holds: only the size tells
    assert index.is_dirty()
    report = index.sync()
    assert (report.files_indexed, report.files_unchanged) == (1, 4)
    assert [c.path for c in index.retrieve("sigma").candidates] == ["memory/n002.md"]


def test_the_fast_no_op_path_still_reads_a_same_size_edit_a_microsecond_later(tmp_path, make_settings, monkeypatch):
    ws, index = synced_notes(tmp_path, make_settings, 30)
    reads = spy_on_reads(monkeypatch)
    same_size_edit(ws / "memory" / "n005.md", "# Note 5\nOMEGA words about topic5\n", 1_000)  # 1 µs later
    report = index.sync()
    assert reads == ["memory/n005.md"] and (report.files_indexed, report.files_unchanged) == (1, 29)
    assert [c.path for c in index.retrieve("omega").candidates] == ["memory/n005.md"]
    assert index.sync().files_unchanged == 30 and reads == ["memory/n005.md"]


def test_a_malformed_transcript_keeps_its_note_across_no_op_re_syncs(workspace, make_settings):
    with open(workspace / "sessions" / "s2.jsonl", "w") as fh:
        fh.write('{"type":"message","message":{"role":"user","content":"complete line"}}\n{"type":"mess')
    index = MemoryIndex(make_settings(workspace), provider_name="none")
    index.sync()
    for _ in range(2):
        report = index.sync()
        assert report.files_indexed == 0
        reasons = {s.path: s.reason for s in index.reads().skipped()}
        assert reasons == {"sessions/s2.jsonl": "1 malformed JSONL line(s) skipped"}


def spy_on_batches(monkeypatch) -> list[int]:
    """The number of chunks of each batch a sync writes, in order."""
    sizes: list[int] = []
    real = sync.IndexWriter.insert_chunks

    def spy(self, chunks):
        sizes.append(len(chunks))
        return real(self, chunks)

    monkeypatch.setattr(sync.IndexWriter, "insert_chunks", spy)
    return sizes


def test_a_rebuild_writes_its_scratch_file_in_large_batches_and_a_re_sync_in_small_ones(tmp_path, make_settings,
                                                                                      monkeypatch):
    # each batch ends in a savepoint, where FTS5 flushes one more segment per keyword table: a rebuild,
    # which no reader sees, writes few of them; a re-sync commits often so readers see progress
    ws = tmp_path / "ws"
    notes(ws, 450)
    sizes = spy_on_batches(monkeypatch)
    index = MemoryIndex(make_settings(ws), provider_name="none")
    assert index.sync().full_rebuild
    assert sizes == [450]
    sizes.clear()
    for i in range(450):
        write(ws / "memory" / f"n{i:03d}.md", f"# Note {i}\nbeta words about topic{i}, edited\n")
    report = index.sync()
    assert not report.full_rebuild and report.files_indexed == 450
    assert sizes == [sync.FILES_PER_TRANSACTION, sync.FILES_PER_TRANSACTION, 50]
    assert [c.path for c in index.retrieve("topic7 beta").candidates][:1] == ["memory/n007.md"]


def test_a_rebuild_batch_is_bounded_by_its_text_too(tmp_path, make_settings, monkeypatch):
    ws = tmp_path / "ws"
    notes(ws, 30)
    sizes = spy_on_batches(monkeypatch)
    monkeypatch.setattr(sync, "REBUILD_BATCH_TEXT", 10 * len("# Note 10\nalpha words about topic10\n"))
    index = MemoryIndex(make_settings(ws), provider_name="none")
    report = index.sync()
    assert report.full_rebuild and report.files_indexed == 30
    assert len(sizes) == 3 and sum(sizes) == 30 and max(sizes) <= 11
    assert check_integrity(index.reader(), None)["ok"]
