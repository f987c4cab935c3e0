"""Config rewrites that must be safe: backups that never overwrite each other, symlinks written
through, mode kept, a full disk leaving the original intact, and comments kept by Save."""

from __future__ import annotations

import errno
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from openclaw_memtui.cli.main import main
from openclaw_memtui.core.settings_io import RewriteError, rewrite_file, save_to_config
from openclaw_memtui.engine.search.rank import SearchParams

from .helpers import env_for_subprocess, write

OPENCLAW = json.dumps({"gateway": {"port": 1}, "agents": {"defaults": {"memorySearch": {"provider": "openai"}}}}, indent=2) + "\n"


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def listing(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()}


def export(capsys, cfg: Path, *extra: str) -> tuple[int, str]:
    code = main(["export-settings", "--write", "--openclaw-config", str(cfg), "--mmr", *extra])
    out, err = capsys.readouterr()
    return code, err


@pytest.fixture
def same_second(monkeypatch):
    """Every backup stamp falls in the same second, as two quick runs do."""
    from openclaw_memtui.interop import safe_rewrite as settings_io

    monkeypatch.setattr(settings_io.time, "strftime", lambda fmt, *a: "20261130-120000")


def test_writes_in_the_same_second_keep_every_backup(tmp_path, capsys, same_second):
    cfg = write(tmp_path / "openclaw.json", OPENCLAW)
    versions = [cfg.read_text()]
    for lam in ("0.5", "0.6", "0.7"):
        code, err = export(capsys, cfg, "--mmr-lambda", lam)
        assert code == 0, err
        versions.append(cfg.read_text())
    backups = sorted(tmp_path.glob("openclaw.json.bak-*"), key=lambda p: (len(p.name), p.name))
    assert len(backups) == 3
    assert [b.read_text() for b in backups] == versions[:3]  # each one the file as it was before that write
    assert not list(tmp_path.glob("*.tmp"))


def test_symlinked_config_is_written_through_and_stays_a_link(tmp_path, capsys):
    real = write(tmp_path / "dotfiles" / "openclaw.json", OPENCLAW)
    link = tmp_path / "state" / "openclaw.json"
    link.parent.mkdir()
    link.symlink_to(Path("..") / "dotfiles" / "openclaw.json")
    code, err = export(capsys, link)
    assert code == 0, err
    assert link.is_symlink() and os.readlink(link) == str(Path("..") / "dotfiles" / "openclaw.json")
    assert json.loads(real.read_text())["agents"]["defaults"]["memorySearch"]["query"]["hybrid"]["mmr"]["enabled"] is True
    assert json.loads(real.read_text())["gateway"] == {"port": 1}


def test_rewrite_keeps_mode_0600_for_openclaw_json_and_config_toml(tmp_path, capsys):
    old = os.umask(0o022)
    try:
        cfg = write(tmp_path / "openclaw.json", OPENCLAW)
        os.chmod(cfg, 0o600)
        assert export(capsys, cfg)[0] == 0
        assert mode(cfg) == 0o600 and all(mode(b) == 0o600 for b in tmp_path.glob("openclaw.json.bak-*"))
        toml = write(tmp_path / "config.toml", 'workspace = "/notes"\n')
        os.chmod(toml, 0o640)
        save_to_config(SearchParams(), toml)
        assert mode(toml) == 0o640  # whatever it was, it stays
        fresh = tmp_path / "newdir" / "config.toml"
        save_to_config(SearchParams(), fresh)
        assert mode(fresh) == 0o600 and mode(fresh.parent) == 0o700  # may come to hold remote.apiKey
    finally:
        os.umask(old)


def test_save_keeps_comments_and_layout_of_config_toml(tmp_path):
    text = ('# my memtui settings\nworkspace = "/notes"  # where my notes live\n\n[query]\n# tuned by hand\n'
            'maxResults = 6\nminScore = 0.35  # unrelated key stays\n\n[query.hybrid]\nvectorWeight = 0.4\n'
            'mmr = { enabled = false, lambda = 0.7 }  # inline stays inline\n\n[tui]\ntheme = "phosphor" # dark\n')
    cfg = write(tmp_path / "config.toml", text)
    save_to_config(SearchParams(max_results=9, mmr=True, mmr_lambda=0.5, vector_weight=0.3, text_weight=0.7), cfg)
    out = cfg.read_text()
    for comment in ("# my memtui settings", "# where my notes live", "# tuned by hand", "# unrelated key stays",
                    "# inline stays inline", "# dark"):
        assert comment in out
    assert "mmr = {enabled = true, lambda = 0.5}" in out.replace("{ ", "{").replace(" }", "}")
    from openclaw_memtui.core.config import load_config, search_params

    loaded = load_config(cfg)
    p = search_params(loaded)
    assert (p.max_results, p.mmr, p.mmr_lambda, p.vector_weight) == (9, True, 0.5, 0.3)
    assert loaded.to_tree()["tui"]["theme"] == "phosphor"


def test_full_disk_during_rewrite_keeps_the_original_and_leaves_nothing(tmp_path, monkeypatch):
    cfg = write(tmp_path / "config.toml", "# keep me\nworkspace = '/notes'\n")
    before = cfg.read_bytes()
    real_write = os.write
    calls = {"n": 0}

    def full_disk(fd, data):
        if fd <= 2:
            return real_write(fd, data)
        calls["n"] += 1
        if calls["n"] == failing_call:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data[: max(1, len(data) // 2)])  # partial writes, as a filling disk does

    monkeypatch.setattr(os, "write", full_disk)
    for failing_call in (1, 2, 3):  # noqa: B007 (full_disk reads it) while writing the backup, at its end, the new text
        calls["n"] = 0
        with pytest.raises(RewriteError, match="No space left on device; the original is unchanged"):
            save_to_config(SearchParams(max_results=9), cfg)
        assert cfg.read_bytes() == before
        assert listing(tmp_path) == {"config.toml"}  # no partial temp file, no truncated backup


RLIMIT_SCRIPT = """
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)   # writes past the limit fail with EFBIG instead
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[1]), int(sys.argv[1])))
from openclaw_memtui.cli.main import main
sys.exit(main(["export-settings", "--write", "--openclaw-config", sys.argv[2], "--mmr"]))
"""


@pytest.mark.parametrize("limit, original_size", [(1000, 900), (1000, 2000)])
def test_file_size_limit_during_export_write_reports_one_line(tmp_path, limit, original_size):
    """A real write failure from the kernel: the new file (1st case) or the backup (2nd) cannot be written."""
    data = json.loads(OPENCLAW)
    data["padding"] = "p" * max(0, original_size - len(OPENCLAW))
    cfg = write(tmp_path / "openclaw.json", json.dumps(data, indent=2) + "\n")
    before = cfg.read_bytes()
    out = subprocess.run([sys.executable, "-c", RLIMIT_SCRIPT, str(limit), str(cfg)], capture_output=True, text=True,
                         env=env_for_subprocess(), timeout=60)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "the original is unchanged" in lines[0] and "Traceback" not in out.stderr
    assert cfg.read_bytes() == before
    assert listing(tmp_path) == {"openclaw.json"}


def test_rewrite_file_returns_the_backup_and_creates_missing_files(tmp_path):
    target = tmp_path / "a.json"
    assert rewrite_file(target, "one") is None and target.read_text() == "one"
    backup = rewrite_file(target, "two")
    assert backup is not None and backup.read_text() == "one" and target.read_text() == "two"


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="giving a file to another user needs root")
def test_as_root_the_rewritten_file_and_its_backup_keep_the_owner(tmp_path):
    """`sudo memtui export-settings --write` on a user's openclaw.json: the file kept its owner, but its
    backup (the user's keys included) became root's, which the user could neither read nor remove."""
    cfg = write(tmp_path / "openclaw.json", OPENCLAW)
    os.chmod(cfg, 0o640)
    os.chown(cfg, 4321, 4322)
    backup = rewrite_file(cfg, "{}\n")
    assert backup is not None and backup.read_text() == OPENCLAW
    for path in (cfg, backup):
        st = os.stat(path)
        assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (4321, 4322, 0o640), path.name
