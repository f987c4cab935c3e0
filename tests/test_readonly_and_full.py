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
