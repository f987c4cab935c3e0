"""Store validation, incremental sync, deletion, skips, atomic rebuild and crash safety."""

from __future__ import annotations

import os
import signal
import sqlite3 as std_sqlite
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from openclaw_memtui.engine.index import MemoryIndex
from openclaw_memtui.engine.ingest.chunking import TextChunk
from openclaw_memtui.engine.store import SCHEMA_KEY, InvalidIndex, detect_backend
from openclaw_memtui.engine.sync.chunks import chunk_id
from openclaw_memtui.engine.sync.identity import provider_key_for

from .helpers import env_for_subprocess, write


def fts_index(settings):
    return MemoryIndex(settings, provider_name="none")


def chunk_rows(index, path):
    sql = "SELECT start_line, end_line, text FROM chunks WHERE path = ? ORDER BY start_line"
    return index.reader().execute(sql, (path,)).fetchall()


def test_openclaw_id_and_key_recipes():
    c = TextChunk(1, 3, "# Title\n\nHello world.")
    assert c.hash == "0abccdba032963231d69d166837212dd576967dab56cc414a89f01d398934f96"
    expected = "d14c25790152530150ea2ff13c1534d000d1b84cfb4fdcaacce68e986e8aad97"
    assert chunk_id("memory", "MEMORY.md", c, "text-embedding-3-small") == expected
    assert chunk_id("memory", "MEMORY.md", c, "fts-only") == "e5a4150a7d6ac87dc3b51078b0412409f34448bf885f4b815fbd743f3343c5a4"
    assert provider_key_for(None) == "b2f409223dd1bd19cedee3332de54748a5f323765d4cdcbbb29295199cfde125"


def test_first_sync_indexes_every_source(workspace, make_settings):
    index = fts_index(make_settings(workspace))
    report = index.sync()
    assert report.full_rebuild and report.files_indexed == 5
    status = index.status()
    assert status.files == 5 and status.sources["sessions"]["files"] == 1
    assert status.dirty is False and status.last_sync
    assert status.chunk_dates == {"evergreen": 2, "name": 2, "messages": 1}
    # session chunks report lines of the .jsonl file, not of the flattened text
    assert chunk_rows(index, "sessions/s1.jsonl")[0][:2] == (2, 3)
    meta = index.store.get_identity()
    assert meta["model"] == "fts-only" and meta["chunkTokens"] == 400
    assert index.store.get_meta(SCHEMA_KEY) == "2"


def test_noop_edit_and_delete(workspace, make_settings):
    index = fts_index(make_settings(workspace))
    index.sync()
    again = index.sync()
    assert (again.full_rebuild, again.files_indexed, again.files_unchanged) == (False, 0, 5)

    write(workspace / "memory" / "2026-11-01.md", "# Log\nAlpha memory line, edited.\n")
    edit = index.sync()
    assert edit.files_indexed == 1 and edit.files_unchanged == 4
    assert "edited" in chunk_rows(index, "memory/2026-11-01.md")[0][2]

    # touching a file without changing its bytes re-hashes it but does not rewrite its chunks
    os.utime(workspace / "MEMORY.md", (time.time() + 5, time.time() + 5))
    touch = index.sync()
    assert touch.files_indexed == 0 and index.is_dirty() is False

    (workspace / "memory" / "projects" / "roadmap.md").unlink()
    assert index.is_dirty()
    gone = index.sync()
    assert gone.files_removed == 1
    assert chunk_rows(index, "memory/projects/roadmap.md") == []
    assert index.reader().execute("SELECT count(*) FROM chunks_fts WHERE path = 'memory/projects/roadmap.md'").fetchone()[0] == 0


def test_bad_files_are_skipped_with_reasons(workspace, make_settings):
    (workspace / "memory" / "binary.md").write_bytes(b"abc\x00def")
    (workspace / "memory" / "latin1.md").write_bytes("caf\xe9".encode("latin-1"))
    write(workspace / "memory" / "huge.md", "x" * 5000)
    with open(workspace / "sessions" / "s2.jsonl", "w") as fh:
        fh.write('{"type":"message","message":{"role":"user","content":"complete line"}}\n{"type":"mess')
    index = fts_index(make_settings(workspace, max_file_bytes=4000))
    index.sync()
    reasons = {s["path"]: s["reason"] for s in index.status().skipped}
    assert "binary" in reasons["memory/binary.md"]
    assert "UTF-8" in reasons["memory/latin1.md"]
    assert "larger than 4000" in reasons["memory/huge.md"]
    assert "1 malformed JSONL" in reasons["sessions/s2.jsonl"]
    assert chunk_rows(index, "sessions/s2.jsonl")  # the good line is still indexed
    assert not chunk_rows(index, "memory/binary.md")


def test_a_file_that_is_not_an_index_is_refused_and_kept(workspace, make_settings, tmp_path):
    db = tmp_path / "index.sqlite"
    db.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(InvalidIndex, match="not an SQLite database.*will not move or replace"):
        MemoryIndex(make_settings(workspace, db=db), provider_name="none")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["index.sqlite", "ws"]
    assert db.read_bytes() == b"this is not a database at all" * 100


def test_foreign_and_truncated_dbs_are_not_trusted(workspace, make_settings, tmp_path):
    foreign = tmp_path / "foreign.sqlite"
    conn = std_sqlite.connect(foreign)
    conn.execute("CREATE TABLE invoices (id INTEGER)")
    conn.commit()
    conn.close()
    notices = []
    with pytest.raises(InvalidIndex, match="another program"):
        MemoryIndex(make_settings(workspace, db=foreign), provider_name="none", notice=notices.append)

    good = tmp_path / "good.sqlite"
    index = fts_index(make_settings(workspace, db=good))
    index.sync()
    index.close()
    data = good.read_bytes()
    good.write_bytes(data[: len(data) // 3])
    notices.clear()
    index = MemoryIndex(make_settings(workspace, db=good), provider_name="none", notice=notices.append)
    index.sync()
    assert index.status().files == 5


def test_identity_change_rebuilds_and_keeps_working(workspace, make_settings):
    index = fts_index(make_settings(workspace))
    index.sync()
    index2 = fts_index(make_settings(workspace, chunk_tokens=50, chunk_overlap=0))
    report = index2.sync()
    assert report.full_rebuild and report.rebuild_reason == "chunkTokens changed"
    assert index2.store.get_identity()["chunkTokens"] == 50
    assert index.retrieve("oolong tea").candidates  # the first handle keeps answering after the swap
    assert not list(Path(index2.settings.db_path).parent.glob("*.tmp-*"))


def test_cancel_keeps_index_consistent(tmp_path, make_settings):
    ws = tmp_path / "big"
    for i in range(450):
        write(ws / "memory" / f"note-{i:04d}.md", f"# Note {i}\nsome words about topic {i}\n")
    index = fts_index(make_settings(ws))
    index.sync()
    for i in range(450):
        write(ws / "memory" / f"note-{i:04d}.md", f"# Note {i}\nchanged words about topic {i}\n")
    flag = threading.Event()

    def progress(p):
        if p.phase == "index" and p.done == 250:
            flag.set()

    report = index.sync(progress=progress, cancel=flag)
    assert report.cancelled
    # everything committed before the cancel is whole; the rest is picked up by the next sync
    resumed = index.sync()
    assert not resumed.cancelled and resumed.files_indexed == 450 - 250
    assert index.reader().execute("SELECT count(*) FROM chunks WHERE text LIKE '%changed words%'").fetchone()[0] == 450


def _indexed_big_workspace(tmp_path, make_settings):
    ws = tmp_path / "big"
    for i in range(600):
        write(ws / "memory" / f"note-{i:04d}.md", f"# Note {i}\nkeyword{i} text\n")
    db = tmp_path / "live.sqlite"
    index = fts_index(make_settings(ws, db=db))
    index.sync()
    index.close()
    return ws, db


def _rebuild_paused_midway(ws, db) -> subprocess.Popen:
    """A real process that starts a full rebuild (chunking changed) and stops half-way through it."""
    script = textwrap.dedent(f"""
        import time
        from dataclasses import replace
        from pathlib import Path
        from openclaw_memtui.core.config import index_settings, validate
        from openclaw_memtui.engine.index import MemoryIndex
        settings = replace(index_settings(validate({{}}), Path({str(ws)!r}), Path({str(db)!r})), chunk_tokens=100)
        index = MemoryIndex(settings, provider_name="none")
        def progress(p):
            if p.phase == "index" and p.done == 300:
                print("MIDWAY", flush=True)
                time.sleep(60)
        index.sync(progress=progress)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, env=env_for_subprocess(), text=True)
    assert proc.stdout.readline().strip() == "MIDWAY"
    return proc


def test_killed_rebuild_leaves_old_index_usable(tmp_path, make_settings):
    ws, db = _indexed_big_workspace(tmp_path, make_settings)
    proc = _rebuild_paused_midway(ws, db)
    assert list(tmp_path.glob("live.sqlite.tmp-*")), "the rebuild should be happening beside the live file"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    reopened = fts_index(make_settings(ws, db=db))
    assert reopened.store.get_identity()["chunkTokens"] == 400  # still the old, complete index
    assert reopened.status(check_dirty=False).files == 600
    assert not list(tmp_path.glob("live.sqlite.tmp-*")), "leftovers of the dead rebuild are cleaned up"


def test_backend_detection_reports_binding():
    backend = detect_backend()
    assert backend.can_load_extensions
    assert backend.vector_available and backend.vec_version.startswith("v")


def test_second_process_searches_while_first_rebuilds(tmp_path, make_settings):
    ws, db = _indexed_big_workspace(tmp_path, make_settings)
    proc = _rebuild_paused_midway(ws, db)
    try:
        temp = list(tmp_path.glob("live.sqlite.tmp-*"))
        out = subprocess.run([sys.executable, "-m", "openclaw_memtui", "search", "keyword42", "--workspace", str(ws),
                              "--db", str(db), "--provider", "none", "--json"], capture_output=True, text=True,
                             env=env_for_subprocess(), timeout=60)
        assert out.returncode == 0, out.stderr
        assert '"memory/note-0042.md"' in out.stdout
        assert temp and all(t.exists() for t in temp), "the other process's half-built index must survive"
        other = fts_index(make_settings(ws, db=db))
        assert other.sync(wait=False) is None  # never a competing rebuild
    finally:
        proc.kill()
        proc.wait()


def test_long_lived_index_follows_a_file_swapped_by_another_process(tmp_path, make_settings):
    ws = tmp_path / "ws"
    write(ws / "MEMORY.md", "# Memory\nalpha\n")
    db = tmp_path / "shared.sqlite"
    app_side = fts_index(make_settings(ws, db=db))
    app_side.sync()
    assert app_side.retrieve("alpha").candidates
    write(ws / "MEMORY.md", "# Memory\nbravo\n")
    cli_side = fts_index(make_settings(ws, db=db))
    assert cli_side.sync(force=True).full_rebuild  # swaps a new file in under the app's feet
    assert app_side.retrieve("bravo").candidates  # the reader notices the new file
    assert app_side.sync().files_indexed == 0  # and the writer too: nothing left to do


def test_needs_sync_is_empty_dirty_or_unembedded(tmp_path, make_settings):
    """The one rule every front end asks before it syncs on its own."""
    from .app_helpers import SeededProvider, use_provider

    ws = tmp_path / "ws"
    write(ws / "MEMORY.md", "# Memory\n- the heron survey\n")
    index = MemoryIndex(make_settings(ws), provider_name="none")
    use_provider(index, SeededProvider())
    assert index.needs_sync()  # never built
    index.sync(embed=False)
    assert not index.is_dirty() and index.needs_sync()  # built, but its chunks wait for vectors
    index.sync()
    assert not index.needs_sync()
    write(ws / "memory" / "2026-12-01.md", "# Today\n- the egret census\n")
    assert index.needs_sync()  # a new file
    index.sync()
    assert not index.needs_sync()


def test_keyword_rows_match_their_chunks_whether_copied_in_sqlite_or_segmented(tmp_path, make_settings):
    """A batch whose keyword text is the chunks' own is copied inside SQLite; one with CJK text is bound
    segmented: either way each keyword row carries its chunk's id, path, lines and indexed text."""
    from openclaw_memtui.engine.index import MemoryIndex
    from openclaw_memtui.engine.textutil import segment_cjk_for_index

    ws = tmp_path / "ws"
    write(ws / "memory" / "a.md", "Plain English note about kestrels.\n")
    index = MemoryIndex(make_settings(ws, db=tmp_path / "one.sqlite"), provider_name="none")
    index.sync()  # every text as it is: the copied batch
    write(ws / "memory" / "b.md", "鉴权方案 uses tokens.\n")
    write(ws / "memory" / "c.md", "Another plain note.\n")
    index.sync()  # a batch with CJK: bound row by row
    conn = index.store.conn
    chunks = conn.execute("SELECT rowid, id, path, source, model, start_line, end_line, text FROM chunks").fetchall()
    fts = {row[0]: row[1:] for row in conn.execute(
        "SELECT rowid, id, path, source, model, start_line, end_line, text FROM chunks_fts")}
    assert len(chunks) == len(fts) == 3
    for rowid, *columns, text in chunks:
        assert fts[rowid] == (*columns, segment_cjk_for_index(text))
    assert conn.execute("SELECT path FROM chunks_fts WHERE chunks_fts MATCH '鉴权'").fetchall() == [("memory/b.md",)]
    index.close()


def test_a_rebuild_lists_without_a_stat_per_note_and_stamps_each_from_its_read(tmp_path, make_settings, monkeypatch):
    """A rebuild reads every note, so its listing takes no stat of each (10,000 system calls for nothing
    in a first index); the file rows still carry each note's mtime and size, and the next sync finds
    every note unchanged without reading one."""
    from openclaw_memtui.engine.index import MemoryIndex
    from openclaw_memtui.engine.ingest import listing
    from openclaw_memtui.engine.sync import file_pass

    ws = tmp_path / "ws"
    for i in range(12):
        write(ws / "memory" / "sub" / f"n{i}.md", f"kestrel note {i}\n" * (i + 1))
    write(ws / "MEMORY.md", "# Memory\nkestrel root\n")
    listed: list[list] = []
    real = listing.list_sources
    monkeypatch.setattr(file_pass, "list_sources", lambda *a, **k: listed.append(real(*a, **k)) or listed[-1])
    index = MemoryIndex(make_settings(ws), provider_name="none")
    assert index.sync().full_rebuild
    assert [sf.stamp for sf in listed[0] if "/sub/" in sf.path] == [None] * 12
    for path, mtime, size in index.store.conn.execute("SELECT path, mtime, size FROM files"):
        st = os.stat(ws / path)
        assert (mtime, size) == (st.st_mtime_ns / 1e6, st.st_size)
    report = index.sync()
    assert not report.full_rebuild and report.files_unchanged == 13 and report.files_indexed == 0
    assert all(sf.stamp is not None for sf in listed[1])  # an ordinary sync compares stamps: it has them
    index.close()
