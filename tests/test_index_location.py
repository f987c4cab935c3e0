"""The index follows the memory, not the install path (issue 31 item 7).

The bundled demo is one memory wherever the package is installed (site-packages, then a checkout with
`pip install -e`), so it keeps one index and the judgements made in it. An OpenClaw agent's view of a
folder and the same folder opened as a plain workspace index different sources, so each has its own
file and switching between them rebuilds nothing.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import openclaw_memtui.paths as paths
from openclaw_memtui.cli.main import main as memtui_main
from openclaw_memtui.engine.tuning.judgements import judgements_path

from .helpers import copy_openclaw_state

FIXTURE = Path(__file__).parent / "fixtures" / "openclaw-2026.9.6"


@pytest.fixture
def isolated(tmp_path, monkeypatch) -> Path:
    """memtui with its own data and config folders and no OpenClaw installed."""
    monkeypatch.setenv("MEMTUI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("MEMTUI_CONFIG", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(tmp_path / "no-openclaw"))
    return tmp_path / "data" / "indexes"


@pytest.fixture
def oc(tmp_path, monkeypatch, isolated) -> Path:
    """A private copy of the state the real OpenClaw 2026.9.6 wrote, its paths pointed at this test."""
    root = copy_openclaw_state(FIXTURE, tmp_path / "oc")
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(root / "state"))
    return root


def index(capsys, *argv: str) -> str:
    assert memtui_main(["index", "--provider", "none", *argv]) == 0
    out, _ = capsys.readouterr()
    return out


def install_demo_at(folder: Path, monkeypatch) -> None:
    """The package as if installed at `folder`: its demo workspace and judgements live there."""
    shutil.copytree(paths.PACKAGE_DIR / "demo", folder / "demo")
    monkeypatch.setattr(paths, "PACKAGE_DIR", folder)


def test_the_demo_keeps_its_index_and_judgements_when_the_install_moves(tmp_path, monkeypatch, capsys, isolated):
    install_demo_at(tmp_path / "site-packages", monkeypatch)
    first = index(capsys)
    assert "full rebuild" in first
    [db] = [p for p in isolated.glob("*.sqlite")]
    judgements_path(db).write_text('{"query": "kept"}\n', encoding="utf-8")

    install_demo_at(tmp_path / "checkout", monkeypatch)  # `pip install -e .` after `pip install .`
    second = index(capsys)
    assert "full rebuild" not in second and "incremental" in second
    assert sorted(p.name for p in isolated.glob("*.sqlite")) == [db.name]
    assert judgements_path(db).read_text(encoding="utf-8") == '{"query": "kept"}\n'


def test_an_agent_and_its_folder_as_a_plain_workspace_do_not_rebuild_each_other(oc, capsys, isolated):
    assert "full rebuild" in index(capsys, "--agent", "main")
    assert "full rebuild" in index(capsys, "--workspace", str(oc / "ws-main"))
    assert len(list(isolated.glob("*.sqlite"))) == 2

    again_agent = index(capsys, "--agent", "main")
    again_plain = index(capsys, "--workspace", str(oc / "ws-main"))
    assert "incremental" in again_agent and "full rebuild" not in again_agent
    assert "incremental" in again_plain and "full rebuild" not in again_plain


def test_an_agent_first_opened_after_the_change_starts_from_the_shared_index(oc, capsys, isolated):
    shared = paths.default_db_path(oc / "ws-main")
    # what an earlier memtui left: the agent's index at the folder's path, with judgements beside it
    index(capsys, "--agent", "main", "--db", str(shared))
    judgements_path(shared).write_text('{"query": "made before"}\n', encoding="utf-8")
    shared_bytes = shared.read_bytes()

    out = index(capsys, "--agent", "main")
    assert "full rebuild" not in out  # the copy of the shared index was the agent's: nothing to rebuild
    [own] = [p for p in isolated.glob("*.sqlite") if p != shared]
    assert judgements_path(own).read_text(encoding="utf-8") == '{"query": "made before"}\n'
    assert (own.stat().st_mode & 0o777) == 0o600 and (judgements_path(own).stat().st_mode & 0o777) == 0o600
    assert shared.read_bytes() == shared_bytes  # copied, never moved or changed


def test_a_read_command_creates_no_index_for_the_agent(oc, capsys, isolated):
    shared = paths.default_db_path(oc / "ws-main")
    index(capsys, "--agent", "main", "--db", str(shared))
    before = sorted(p.name for p in isolated.iterdir())
    assert memtui_main(["status", "--agent", "main"]) == 0
    capsys.readouterr()
    assert sorted(p.name for p in isolated.iterdir()) == before


def test_the_shared_index_is_copied_from_a_data_folder_named_with_query_characters(oc, capsys, tmp_path, monkeypatch):
    # '?' and '#' end the path of an unquoted SQLite URI: the copy would read another file, or none
    monkeypatch.setenv("MEMTUI_DATA_DIR", str(tmp_path / "data?v=1#x"))
    shared = paths.default_db_path(oc / "ws-main")
    index(capsys, "--agent", "main", "--db", str(shared))
    out = index(capsys, "--agent", "main")
    assert "full rebuild" not in out and str(shared) not in out
    assert sorted(p.name for p in shared.parent.glob("*.sqlite*") if ".tmp-" in p.name) == []
