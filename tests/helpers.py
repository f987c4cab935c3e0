"""Helpers the test modules share: files, transcripts, a clean environment for subprocesses."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def same_size_edit(path: Path, text: str, later_ns: int) -> None:
    """Rewrite `path` with text of the same size, its mtime `later_ns` on: only the mtime tells the change."""
    st = os.stat(path)
    assert len(text.encode()) == st.st_size
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + later_ns))


def transcript(path: Path, turns: list[tuple[str, str]], start: str = "2026-11-01T10:00:00Z") -> Path:
    lines = [json.dumps({"type": "session", "version": 3, "id": path.stem, "timestamp": start})]
    for i, (role, text) in enumerate(turns):
        lines.append(json.dumps({"type": "message", "id": f"m{i}", "timestamp": start,
                                 "message": {"role": role, "content": text}}))
    return write(path, "\n".join(lines) + "\n")


def env_for_subprocess() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTEST_CURRENT_TEST", None)
    return env


def use_openclaw_state(fixture: Path, tmp_path: Path, monkeypatch) -> Path:
    """A private copy of a state the real OpenClaw wrote (copy_openclaw_state, at tmp/oc), made the one this
    test's memtui and OpenClaw read: OPENCLAW_STATE_DIR at it, HOME inside the test's folder."""
    root = copy_openclaw_state(fixture, tmp_path / "oc")
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(root / "state"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return root


def copy_openclaw_state(fixture: Path, root: Path) -> Path:
    """A private copy at `root` of a state the real OpenClaw wrote: its `{ROOT}` paths pointed at `root`,
    openclaw.json 0600 as OpenClaw creates it (it holds the gateway token), the agents' session folders made."""
    shutil.copytree(fixture, root)
    cfg = root / "state" / "openclaw.json"
    cfg.write_text(cfg.read_text(encoding="utf-8").replace("{ROOT}", str(root)), encoding="utf-8")
    os.chmod(cfg, 0o600)
    for agent in ("main", "research"):
        (root / "state" / "agents" / agent / "sessions").mkdir(parents=True, exist_ok=True)
    return root
