"""An index on a read-only mount is searched read-only; a full disk under the index is said as such.

Both use a real file system (a small tmpfs, remounted read-only) when the tests run as root; root
ignores file modes, so only a mount shows what a read-only disk does. Elsewhere they skip.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from openclaw_memtui.cli.main import main

from .helpers import write


@contextlib.contextmanager
def tmpfs(folder: Path, size: str) -> Iterator[Path]:
    folder.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
                                           capture_output=True).returncode != 0:
        pytest.skip("needs root and mount(8) for a real tmpfs")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True)


def remount_read_only(folder: Path) -> None:
    subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True, capture_output=True)


def test_search_on_a_read_only_mount_reads_the_index_as_it_is(tmp_path, workspace, capsys):
    with tmpfs(tmp_path / "ro", "8m") as mnt:
        db = mnt / "i.sqlite"
        argv = ["--workspace", str(workspace), "--db", str(db), "--provider", "none"]
        assert main(["index", *argv]) == 0
        before = sorted(p.name for p in mnt.iterdir())  # the index and its lock, as `index` leaves them
        remount_read_only(mnt)
        capsys.readouterr()
        code = main(["search", "oolong", "--json", *argv])
        out, err = capsys.readouterr()
        assert code == 0, err
        assert json.loads(out)["results"][0]["path"] == "MEMORY.md"
        assert sorted(p.name for p in mnt.iterdir()) == before


def test_a_full_disk_under_the_index_is_said_in_one_line_with_what_to_do(tmp_path, capsys, monkeypatch):
    from .fake_api import FakeAPI

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret-key-123456")
    api = FakeAPI("openai")
    api.dims = 1536  # 6 KB a vector: the vectors fill the disk
    try:
        ws = tmp_path / "ws"
        for i in range(300):
            write(ws / "memory" / f"n{i}.md", f"note {i} about manatees " * 20 + "\n")
        cfg = write(tmp_path / "c.toml", f'provider = "openai"\n[remote]\nbaseUrl = "{api.url}"\n')
        with tmpfs(tmp_path / "small", "400k") as mnt:
            code = main(["index", "-w", str(ws), "--db", str(mnt / "i.sqlite"), "--config", str(cfg)])
            err = capsys.readouterr().err
    finally:
        api.close()
    assert code == 1 and err.count("\n") == 1, err
    assert f"the disk holding the index folder {mnt} is full" in err and "free some space" in err
    assert "Error" not in err and "vector blob" not in err


@pytest.mark.parametrize("command", ["eval", "tune"])
def test_eval_and_tune_on_a_read_only_mount_score_the_index_as_it_is(tmp_path, workspace, capsys, command):
    """`eval` said "the index file is read-only … pass --db" where search and status read the same index."""
    queries = write(tmp_path / "q.jsonl", json.dumps({"qid": "q1", "question": "oolong tea",
                                                      "targets": [{"path": "MEMORY.md", "line": 3}]}) + "\n")
    with tmpfs(tmp_path / "ro", "8m") as mnt:
        db = mnt / "i.sqlite"
        argv = ["--workspace", str(workspace), "--db", str(db), "--provider", "none"]
        assert main(["index", *argv]) == 0
        if command == "tune":  # tune reads the judgements stored beside the index
            assert main(["judgements", "import", str(queries), *argv]) == 0
        before = sorted(p.name for p in mnt.iterdir())
        remount_read_only(mnt)
        capsys.readouterr()
        write(workspace / "memory" / "2026-12-01.md", "# New\nwritten after the last sync\n")
        extra = ["--queries", str(queries)] if command == "eval" else []
        code = main([command, *extra, "--json", *argv])
        out, err = capsys.readouterr()
        assert "read-only" not in err and "pass --db" not in err
        assert "the index is out of date" in err  # what is true: scored as it was last synced
        if command == "eval":
            assert code == 0 and json.loads(out)["scored"] == 1
        else:  # one judged question is too few to tune: the answer says so, not that the disk is read-only
            assert json.loads(out)["judged"] == 1
        assert sorted(p.name for p in mnt.iterdir()) == before


def test_a_read_only_openclaw_state_folder_is_named_as_such_by_connect(tmp_path, capsys, monkeypatch):
    from .connect_helpers import make_state

    validator = write(tmp_path / "openclaw", "#!/bin/sh\necho '{\"valid\": true}'\n")
    validator.chmod(0o755)
    monkeypatch.setenv("MEMTUI_OPENCLAW", str(validator))
    with tmpfs(tmp_path / "ro", "8m") as mnt:
        root = make_state(mnt, monkeypatch)
        remount_read_only(mnt)
        code = main(["connect", "--agent", "main"])
        err = capsys.readouterr().err
        state = root / "state"
        assert code != 0 and err.count("\n") == 1
        assert f"OpenClaw's folder {state} cannot be written (Read-only file system)" in err
        assert "nothing was changed" in err and ".memtui-check" not in err
        assert "index file" not in err and "pass --db" not in err


def test_a_read_only_file_system_error_names_the_folder_not_the_index():
    import errno

    from openclaw_memtui.engine.errors import describe

    line = describe(OSError(errno.EROFS, "Read-only file system", "/mnt/state/.memtui-check-1.json"))
    assert line == "/mnt/state is on a read-only file system: memtui cannot write .memtui-check-1.json there"
    assert "index" in describe(Exception("attempt to write a readonly database"))  # SQLite's own: the index


def test_an_index_not_made_yet_is_writable_where_its_first_existing_folder_is(tmp_path):
    """A `--db` in folders memtui would create: the first folder that exists decides, on a read-only
    mount too (where the file and its folders cannot be made at all)."""
    from openclaw_memtui.core.session import writable_index

    assert writable_index(tmp_path / "new" / "deeper" / "i.sqlite")  # memtui makes the folders
    with tmpfs(tmp_path / "ro", "1m") as mnt:
        (mnt / "kept").mkdir()
        remount_read_only(mnt)
        assert not writable_index(mnt / "i.sqlite")
        assert not writable_index(mnt / "new" / "i.sqlite")
        assert not writable_index(mnt / "kept" / "i.sqlite")
