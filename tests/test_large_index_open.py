"""Opening a large index skips the full-file quick_check, yet a truncated file is still refused."""

from __future__ import annotations

import pytest

from openclaw_memtui.engine.index import MemoryIndex
from openclaw_memtui.engine.store import InvalidIndex, schema

from .helpers import write


@pytest.mark.parametrize("quick_check_bytes", [0, 64 * 1024 * 1024])
def test_a_truncated_index_is_refused_with_or_without_quick_check(tmp_path, make_settings, monkeypatch, quick_check_bytes):
    monkeypatch.setattr(schema, "QUICK_CHECK_BYTES", quick_check_bytes)  # 0: every file counts as large
    ws = tmp_path / "ws"
    for i in range(200):
        write(ws / "memory" / f"n{i}.md", f"note {i} " + "words " * 200 + "\n")
    settings = make_settings(ws)
    index = MemoryIndex(settings, provider_name="none")
    index.sync()
    index.close()
    assert schema.holds_index(settings.db_path)
    data = settings.db_path.read_bytes()
    settings.db_path.write_bytes(data[: len(data) - 8192])  # the last pages: the schema still reads
    with pytest.raises(InvalidIndex, match="damaged|truncated"):
        schema.holds_index(settings.db_path)
