"""Counts kept by triggers: status, the search's "N of M embedded" and integrity read them at once,
and they stay equal to the rows through every write."""

from __future__ import annotations

from openclaw_memtui.engine.index import MemoryIndex
from openclaw_memtui.engine.store import Store, integrity
from openclaw_memtui.engine.store.reader import IndexReader
from openclaw_memtui.engine.store.writer import IndexWriter

from .app_helpers import SeededProvider
from .helpers import transcript, write


def truth(conn) -> dict:
    """What a scan of every row says."""
    return {
        "chunks": conn.execute("SELECT count(*) FROM chunks").fetchone()[0],
        "embedded": dict(conn.execute("SELECT source, sum(length(embedding) > 0) FROM chunks GROUP BY source").fetchall()),
        "per_source": dict(conn.execute("SELECT source, count(*) FROM chunks GROUP BY source").fetchall()),
        "files": dict(conn.execute("SELECT source, count(*) FROM files GROUP BY source").fetchall()),
        "dates": dict(conn.execute("SELECT date_source, count(*) FROM chunks GROUP BY date_source").fetchall()),
        "fts": conn.execute("SELECT count(*) FROM chunks_fts").fetchone()[0],
    }


def kept(conn) -> dict:
    reads = IndexReader(conn)
    assert reads.has_counts()
    per = reads.chunks_per_source(0)
    return {"chunks": reads.count_chunks(), "embedded": {c.source: c.embedded for c in per},
            "per_source": {c.source: c.chunks for c in per}, "files": reads.files_per_source(),
            "dates": reads.chunk_dates(), "fts": reads.count_fts_rows()}


class Seeded(SeededProvider):
    batch_max_items = 64
    sync_batch_items = 64


def test_kept_counts_follow_adds_changes_deletes_and_vectors(tmp_path, make_settings):
    ws = tmp_path / "ws"
    for i in range(160):  # FTS5's row total needs a two-byte varint past 127
        write(ws / "memory" / f"2026-01-{1 + i % 28:02d}-n{i}.md", f"# Note {i}\nwords {i}\n")
    write(ws / "MEMORY.md", "- evergreen fact\n- another\n")
    transcript(ws / "sessions" / "s1.jsonl", [("user", "hello there"), ("assistant", "hi")])
    index = MemoryIndex(make_settings(ws), provider_name="none")
    index._provider, index._provider_ready = Seeded(), True
    index.sync(embed=False)
    conn = index.store.conn
    assert kept(conn) == truth(conn) and truth(conn)["chunks"] > 160
    index.sync()  # vectors fill in: embedded counts move
    assert kept(conn) == truth(conn) and sum(truth(conn)["embedded"].values()) == truth(conn)["chunks"]
    for i in range(0, 160, 4):
        (ws / "memory" / f"2026-01-{1 + i % 28:02d}-n{i}.md").unlink()
    write(ws / "memory" / "2026-01-05-n5.md", "# Note 5\nrewritten\n\nmore lines\n")
    write(ws / "memory" / "undated.md", "no date here\n")
    index.sync(embed=False)
    assert kept(conn) == truth(conn)
    writer = IndexWriter(conn)
    writer.begin()
    writer.clear_vectors()
    writer.commit()
    assert kept(conn) == truth(conn) and sum(truth(conn)["embedded"].values()) == 0
    status = index.status(check_dirty=False)
    assert status.chunks == truth(conn)["chunks"] and status.files == sum(truth(conn)["files"].values())
    assert status.chunk_dates == truth(conn)["dates"]


def test_an_index_without_kept_counts_gets_them_from_its_first_writer(tmp_path, make_settings):
    ws = tmp_path / "ws"
    for i in range(20):
        write(ws / "memory" / f"n{i}.md", f"note {i}\n")
    settings = make_settings(ws)
    index = MemoryIndex(settings, provider_name="none")
    index.sync()
    index.close()
    store = Store(settings.db_path)
    store.conn.executescript("DROP TABLE chunk_counts; DROP TABLE file_counts;"
                             " DROP TRIGGER chunk_counts_insert; DROP TRIGGER chunk_counts_delete;"
                             " DROP TRIGGER chunk_counts_update; DROP TRIGGER file_counts_insert;"
                             " DROP TRIGGER file_counts_delete; DROP TRIGGER file_counts_update;")
    store.close()
    # read only (status): an older index is counted row by row, nothing is written
    reader = MemoryIndex(settings, provider_name="none", read_only=True)
    assert not reader.reads().has_counts()
    status = reader.status(check_dirty=False)
    assert (status.chunks, status.files) == (20, 20) and status.integrity["ok"]
    reader.close()
    store = Store(settings.db_path)  # a writer opens it: the counts are filled once
    assert kept(store.conn) == truth(store.conn) and kept(store.conn)["chunks"] == 20
    store.close()


def test_a_large_index_joins_keyword_rows_only_when_counts_disagree(tmp_path, make_settings, monkeypatch):
    ws = tmp_path / "ws"
    for i in range(30):
        write(ws / "memory" / f"n{i}.md", f"note {i}\n")
    index = MemoryIndex(make_settings(ws), provider_name="none")
    index.sync()
    monkeypatch.setattr(integrity, "DEEP_CHECK_CHUNKS", 10)  # 30 chunks count as "large"
    conn = index.store.conn
    report = integrity.check_integrity(conn, None)
    assert report["ok"] and report["deep"] is False and report["fts_rows"] == 30
    conn.execute("INSERT INTO chunks_fts(rowid, text, id, path, source, model, start_line, end_line)"
                 " VALUES (999, 'ghost', 'gone', 'memory/x.md', 'memory', 'fts-only', 1, 1)")
    report = integrity.check_integrity(conn, None)
    assert report["deep"] is True and report["orphan_fts_rows"] == 1 and not report["ok"]



def test_a_rebuild_writes_without_the_count_triggers_and_swaps_in_a_file_with_counts_and_triggers(
        tmp_path, make_settings, monkeypatch):
    """The rebuild's temp file drops the triggers (`COUNT_TRIGGERS` names every one) and fills the counts in
    one scan before the swap: the file renamed into place has both (read at the rename, before any reopen)."""
    import os
    import re
    import types

    from openclaw_memtui.engine.store import detect_backend, swap
    from openclaw_memtui.engine.store.schema import COUNT_TRIGGERS, COUNTS_SQL

    assert tuple(re.findall(r"CREATE TRIGGER IF NOT EXISTS (\w+)", COUNTS_SQL)) == COUNT_TRIGGERS
    ws = tmp_path / "ws"
    for i in range(30):
        write(ws / "memory" / f"2026-01-{1 + i % 28:02d}-n{i}.md", f"# Note {i}\nwords {i}\n")
    write(ws / "MEMORY.md", "- evergreen fact\n")
    seen: dict = {}
    real_open_temp = swap.open_temp_beside

    def open_temp(live):
        temp = real_open_temp(live)
        (seen["triggers while written"],) = temp.conn.execute(
            "SELECT count(*) FROM sqlite_master WHERE type = 'trigger'").fetchone()
        return temp

    def replace(src, dst):
        raw = detect_backend().module.connect(str(src))
        try:
            seen["triggers"] = {n for (n,) in raw.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
            seen["counts"] = (kept(raw), truth(raw))
        finally:
            raw.close()
        os.replace(src, dst)

    import openclaw_memtui.engine.sync.runner as runner

    monkeypatch.setattr(runner, "open_temp_beside", open_temp)
    monkeypatch.setattr(swap, "os", types.SimpleNamespace(replace=replace))
    MemoryIndex(make_settings(ws), provider_name="none").sync()
    assert seen["triggers while written"] == 0
    assert seen["triggers"] == set(COUNT_TRIGGERS)
    assert seen["counts"][0] == seen["counts"][1] and seen["counts"][1]["chunks"] == 31
