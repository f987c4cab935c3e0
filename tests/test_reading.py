"""Reading a note for the index: through the descriptor it opened, whole, and never a half-written file."""

from __future__ import annotations

import pytest

from openclaw_memtui.engine.ingest import reading


def test_a_note_is_read_whole_with_the_stat_of_what_was_opened(tmp_path):
    note = tmp_path / "n.md"
    note.write_bytes("\ufeffhéllo\n".encode() * 50_000)  # several pages; the BOM is dropped
    text, st = reading.read_file_text(str(note), [str(tmp_path)], True, stable=True)
    assert text == ("\ufeffhéllo\n" * 50_000).removeprefix("\ufeff")
    assert (st.st_size, st.st_ino) == (note.stat().st_size, note.stat().st_ino)


def test_the_size_limit_is_the_opened_files(tmp_path):
    note = tmp_path / "n.md"
    note.write_text("x" * 100)
    assert reading.read_file_text(str(note), None, True, 100)[0] == "x" * 100
    with pytest.raises(reading.TooLarge):
        reading.read_file_text(str(note), None, True, 99)


@pytest.mark.parametrize("stable", [True, False])
def test_a_note_written_to_while_read_is_left_for_the_next_sync(tmp_path, monkeypatch, stable):
    note = tmp_path / "n.md"
    note.write_text("first half")
    real = reading._read_up_to

    def read_then_append(fd: int, limit: int) -> bytes:
        data = real(fd, limit)
        with note.open("a") as fh:  # a writer appends while the sync holds what it read
            fh.write(" and the rest")
        return data

    monkeypatch.setattr(reading, "_read_up_to", read_then_append)
    if stable:  # what a sync reads by
        with pytest.raises(reading.ChangedWhileRead):
            reading.read_file_text(str(note), [str(tmp_path)], True, stable=True)
    else:
        assert reading.read_file_text(str(note), [str(tmp_path)], True)[0] == "first half"
