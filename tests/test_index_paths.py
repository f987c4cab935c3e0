"""The index file is memtui's alone: it never takes over a file it did not make, nor follows another
user's link beside it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from openclaw_memtui.cli.main import main


def tree(folder: Path) -> dict[str, tuple[bytes, int, int] | str]:
    """Every entry below `folder` (links by target): content, mode and mtime, to see that nothing changed."""
    out: dict[str, tuple[bytes, int, int] | str] = {}
    for p in sorted(folder.rglob("*")):
        if p.is_symlink():
            out[str(p.relative_to(folder))] = os.readlink(p)
        elif p.is_file():
            st = p.stat()
            out[str(p.relative_to(folder))] = (p.read_bytes(), st.st_mode, st.st_mtime_ns)
    return out


@pytest.mark.parametrize("where", ["store-MEMORY.md", "store-daily-note-not-written-yet", "db-inside-memory",
                                   "db-README", "db-in-extra-path"])
@pytest.mark.parametrize("command", ["index", "search"])
def test_an_index_path_that_is_or_may_become_a_note_is_refused_and_nothing_changes(tmp_path, workspace, capsys,
                                                                                    where, command):
    (workspace / "README.md").write_text("# Read me\nkept as it is\n", encoding="utf-8")
    (workspace / "extra").mkdir()
    config = tmp_path / "config.toml"
    store = {"store-MEMORY.md": workspace / "MEMORY.md",
             "store-daily-note-not-written-yet": workspace / "memory" / "2030-01-01.md"}.get(where)
    db = {"db-inside-memory": workspace / "memory" / "index.sqlite", "db-README": workspace / "README.md",
          "db-in-extra-path": workspace / "extra" / "i.sqlite"}.get(where)
    config.write_text('extraPaths = ["extra"]\n' + (f'[store]\npath = "{store}"\n' if store else ""), encoding="utf-8")
    before = tree(workspace)
    argv = ["index"] if command == "index" else ["search", "oolong"]
    code = main([*argv, "--workspace", str(workspace), "--provider", "none", "--config", str(config),
                 *(["--db", str(db)] if db else [])])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert "memtui will not" in err
    assert tree(workspace) == before  # nothing renamed, written, created (lock, -wal) or chmodded


def _links_beside(db: Path, target_dir: Path) -> dict[str, Path]:
    links = {}
    for suffix in ("-journal", "-wal", "-shm", ".lock", ".matrix"):
        target = target_dir / f"victim{suffix}"
        os.symlink(target, f"{db}{suffix}")
        links[suffix] = target
    return links


@pytest.mark.parametrize("state", ["dangling", "existing"])
def test_links_beside_the_index_are_never_followed(tmp_path, workspace, capsys, state):
    """Another user's symlink at <db>-journal or <db>.lock in a shared folder made memtui create (or
    chmod) the link's target, a file of the user's choosing."""
    shared = tmp_path / "shared"
    victims = tmp_path / "victims"
    shared.mkdir()
    victims.mkdir()
    db = shared / "i.sqlite"
    links = _links_beside(db, victims)
    if state == "existing":
        for target in links.values():
            target.write_text("user's own file\n", encoding="utf-8")
            os.chmod(target, 0o644)
    before = tree(victims)
    argv = ["--workspace", str(workspace), "--db", str(db), "--provider", "none"]
    code = main(["index", *argv])
    err = capsys.readouterr().err
    assert tree(victims) == before  # no target created, written or chmodded
    assert code == 2 and err.count("\n") == 1 and "symbolic link" in err, err
    for suffix in links:
        assert os.path.islink(f"{db}{suffix}")  # left for its owner to remove
