"""Opening a large index skips the quick_check, yet a truncated file is still refused; a small one checks each table."""

from __future__ import annotations

import sqlite3

import pytest

from openclaw_memtui.engine.index import MemoryIndex
from openclaw_memtui.engine.store import InvalidIndex, schema

from .helpers import write


def synced_index(tmp_path, make_settings) -> tuple:
    """200 notes of ~200 words, indexed keyword-only: an index of several pages per table."""
    ws = tmp_path / "ws"
    for i in range(200):
        write(ws / "memory" / f"n{i}.md", f"note {i} " + "words " * 200 + "\n")
    settings = make_settings(ws)
    index = MemoryIndex(settings, provider_name="none")
    index.sync()
    return settings, index


@pytest.mark.parametrize("quick_check_bytes", [0, 64 * 1024 * 1024])
def test_a_truncated_index_is_refused_with_or_without_quick_check(tmp_path, make_settings, monkeypatch, quick_check_bytes):
    monkeypatch.setattr(schema, "QUICK_CHECK_BYTES", quick_check_bytes)  # 0: every file counts as large
    settings, index = synced_index(tmp_path, make_settings)
    index.close()
    assert schema.holds_index(settings.db_path)
    data = settings.db_path.read_bytes()
    settings.db_path.write_bytes(data[: len(data) - 8192])  # the last pages: the schema still reads
    with pytest.raises(InvalidIndex, match="damaged|truncated"):
        schema.holds_index(settings.db_path)


def test_a_damaged_table_page_is_refused_by_the_per_table_check(tmp_path, make_settings):
    settings, index = synced_index(tmp_path, make_settings)
    conn = index.store.conn
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    (root,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'files'").fetchone()
    index.close()
    index.store.close()
    assert schema.quick_check_tables(sqlite3.connect(settings.db_path)) == "ok"
    data = bytearray(settings.db_path.read_bytes())
    start = (root - 1) * page_size
    data[start : start + 8] = b"\x2a" * 8  # the b-tree page header of `files`: no valid page type
    settings.db_path.write_bytes(bytes(data))
    with pytest.raises(InvalidIndex, match="damaged"):
        schema.holds_index(settings.db_path)


def test_opening_leaves_fts5s_own_consistency_check_out(tmp_path, make_settings):
    """That check re-tokenises every row (most of opening a 30 MB index): a keyword index whose words
    disagree with its stored text still opens; every b-tree was checked."""
    ws = tmp_path / "ws"
    write(ws / "memory" / "a.md", "alpha words\n")
    settings = make_settings(ws)
    index = MemoryIndex(settings, provider_name="none")
    index.sync()
    conn = index.store.conn
    conn.execute("UPDATE chunks_fts_content SET c0 = 'bravo words'")  # the text changes, its indexed words do not
    assert conn.execute("PRAGMA quick_check").fetchone()[0] != "ok"  # what the whole-file check said
    index.close()
    index.store.close()
    assert schema.holds_index(settings.db_path)
