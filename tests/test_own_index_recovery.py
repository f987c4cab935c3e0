"""An index memtui made, damaged on disk (garbage over it, a torn first page), is set aside and rebuilt:
its header may be gone, so memtui proves the file is its own by the record it keeps in its data dir
(the path, device, inode and owner it created), never by the damaged bytes. A file memtui cannot prove
it made stays refused and untouched."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from openclaw_memtui.cli.main import main
from openclaw_memtui.engine.store.ownership import record_index, recorded_as_ours
from openclaw_memtui.engine.tuning.judgements import JudgementStore, judgements_path
from openclaw_memtui.paths import data_dir, default_db_path

GARBAGE = b"\xde\xad torn write \xbe\xef" * 4096


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def build(capsys, workspace: Path, *extra: str) -> None:
    assert run(capsys, "index", "--workspace", str(workspace), "--provider", "none", *extra)[0] == 0


def overwrite(path: Path, data: bytes, *, whole: bool) -> bytes:
    """Write `data` over the file in place (same inode, as a torn write or a bad disk does): all of it,
    or only its first pages."""
    with open(path, "r+b") as fh:
        if whole:
            fh.truncate(0)
        fh.write(data)
    return path.read_bytes()


@pytest.mark.parametrize("whole", [True, False], ids=["garbage-over-all", "torn-first-page"])
def test_a_damaged_index_in_the_data_dir_is_set_aside_and_rebuilt(workspace, capsys, whole):
    build(capsys, workspace)
    db = default_db_path(workspace)
    judged = judgements_path(db)
    judged.write_text(json.dumps({"qid": "j-1", "question": "what tea", "targets": [{"path": "MEMORY.md",
                                                                                      "line": 3}]}) + "\n")
    config = Path(os.environ["MEMTUI_CONFIG_DIR"]) / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("[query]\nmaxResults = 3\n")
    kept = {p: p.read_bytes() for p in (judged, config)}
    damaged = overwrite(db, GARBAGE[:8192], whole=whole)

    # a read command names the fault in one line and changes nothing
    code, out, err = run(capsys, "status", "--workspace", str(workspace), "--provider", "none")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "run `memtui index` to rebuild" in err and "did not create" not in err
    assert db.read_bytes() == damaged and not list(db.parent.glob("*.invalid-*"))

    code, out, err = run(capsys, "index", "--workspace", str(workspace), "--provider", "none")
    assert code == 0
    (aside,) = [p for p in db.parent.glob(db.name + ".invalid-*") if not p.name.endswith(("-wal", "-shm"))]
    assert aside.read_bytes() == damaged and stat.S_IMODE(aside.stat().st_mode) == 0o600  # kept, private
    (line,) = [x for x in err.splitlines() if "was not trusted" in x]
    assert f"moved it to {aside}" in line
    code, out, _ = run(capsys, "search", "oolong", "--workspace", str(workspace), "--provider", "none", "--json")
    assert code == 0 and "oolong" in out
    assert {p: p.read_bytes() for p in kept} == kept  # judgements and settings live outside the index
    assert [j.question for j in JudgementStore(judged).load().judgements] == ["what tea"]


def test_index_force_recovers_too_and_the_rebuilt_file_is_recorded_again(workspace, capsys):
    build(capsys, workspace)
    db = default_db_path(workspace)
    overwrite(db, GARBAGE, whole=True)
    build(capsys, workspace, "--force")
    assert recorded_as_ours(data_dir() / "index-records", db)  # a second fault is recovered as well
    overwrite(db, GARBAGE, whole=True)
    build(capsys, workspace)
    assert len([p for p in db.parent.glob(db.name + ".invalid-*") if p.name[-4:] not in ("-wal", "-shm")]) == 2


def test_the_app_session_recovers_its_own_damaged_index(workspace, capsys):
    from openclaw_memtui.core.config import load_config
    from openclaw_memtui.core.session import SessionOptions, open_session

    build(capsys, workspace)
    db = default_db_path(workspace)
    overwrite(db, GARBAGE, whole=True)
    options = SessionOptions(workspace=str(workspace), provider="none")
    with open_session(options, load_config(), repair=True) as session:
        assert session.index.store.get_meta("memtui_schema_version") == "2"
        notices = session.index.notices
    assert any("was not trusted" in n and "moved it to" in n for n in notices)


def test_a_db_file_replaced_by_another_is_not_taken_for_the_one_memtui_made(tmp_path, workspace, capsys):
    """The record names an inode: a different file moved to the same path (the user's own database,
    another program's file) is not the one memtui made, even at a path where memtui made one."""
    db = tmp_path / "i.sqlite"
    build(capsys, workspace, "--db", str(db))
    other = tmp_path / "mine.bin"
    other.write_bytes(GARBAGE)
    os.replace(other, db)
    before = db.read_bytes()
    code, _, err = run(capsys, "index", "--workspace", str(workspace), "--db", str(db), "--provider", "none")
    assert code == 2 and "memtui will not move or replace a file it did not create" in err
    assert db.read_bytes() == before and not list(tmp_path.glob("i.sqlite.invalid-*"))


def test_a_record_in_a_folder_others_can_write_proves_nothing(tmp_path, workspace, capsys):
    db = tmp_path / "i.sqlite"
    build(capsys, workspace, "--db", str(db))
    records = data_dir() / "index-records"
    assert recorded_as_ours(records, db)
    os.chmod(records, 0o777)  # anyone could have written the record
    assert not recorded_as_ours(records, db)
    overwrite(db, GARBAGE, whole=True)
    code, _, err = run(capsys, "index", "--workspace", str(workspace), "--db", str(db), "--provider", "none")
    assert code == 2 and "did not create" in err and db.read_bytes() == GARBAGE


def test_a_file_memtui_never_opened_as_a_writer_has_no_record(tmp_path):
    records = tmp_path / "records"
    note = tmp_path / "notes.db"
    note.write_bytes(GARBAGE)
    assert not recorded_as_ours(records, note) and not records.exists()
    record_index(records, note)  # what a writer does once the file holds its index
    assert recorded_as_ours(records, note)
    assert stat.S_IMODE(records.stat().st_mode) == 0o700
    assert {stat.S_IMODE(p.stat().st_mode) for p in records.iterdir()} == {0o600}


def test_a_record_that_is_a_link_proves_nothing(tmp_path):
    """A link in the records folder could point at a record someone else wrote: only a regular file counts."""
    records = tmp_path / "records"
    index = tmp_path / "i.sqlite"
    index.write_bytes(GARBAGE)
    record_index(records, index)
    (record,) = records.iterdir()
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_bytes(record.read_bytes())
    record.unlink()
    record.symlink_to(elsewhere)
    assert not recorded_as_ours(records, index)
