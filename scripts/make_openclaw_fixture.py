#!/usr/bin/env python3
"""Turn a state built by the real OpenClaw (shared/openclaw-real/make-state.sh ROOT) into a test fixture.

    python3 scripts/make_openclaw_fixture.py ROOT tests/fixtures/openclaw-2026.9.6

Copies the config, each agent's database and both workspaces, replaces the absolute ROOT in
openclaw.json by `{ROOT}` (tests substitute their tmp folder: the fixture is relocatable), and
records what OpenClaw itself reports (`agents list`, `memory status`, its indexed sources and
session chunk line ranges) in expected.json, so tests compare memtui with OpenClaw offline.
Needs `openclaw` on PATH (source ROOT/env.sh first). Never writes into ROOT.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path


def openclaw_json(*args: str) -> object:
    out = subprocess.run(["openclaw", *args, "--json"], check=True, capture_output=True, text=True).stdout
    return json.loads(out[out.index("[") if out.lstrip().startswith("[") else out.index("{"):])


def templated(value: object, root: str) -> object:
    return json.loads(json.dumps(value).replace(root, "{ROOT}"))


def main() -> int:
    root, dest = Path(sys.argv[1]).resolve(), Path(sys.argv[2])
    if dest.exists():
        shutil.rmtree(dest)
    (dest / "state").mkdir(parents=True)
    cfg_text = (root / "state" / "openclaw.json").read_text(encoding="utf-8")
    (dest / "state" / "openclaw.json").write_text(cfg_text.replace(str(root), "{ROOT}"), encoding="utf-8")
    for ws in ("ws-main", "ws-research"):
        shutil.copytree(root / ws, dest / ws, ignore=shutil.ignore_patterns(".git", ".openclaw"))
    agents = openclaw_json("agents", "list")
    expected: dict[str, object] = {"version": "2026.9.6", "agents": templated(agents, str(root)), "status": {},
                                   "indexed_sources": {}, "session_chunks": {}}
    for agent in agents:  # type: ignore[union-attr]
        agent_id = agent["id"]
        src = root / "state" / "agents" / agent_id / "agent" / "openclaw-agent.sqlite"
        out = dest / "state" / "agents" / agent_id / "agent"
        out.mkdir(parents=True)
        with tempfile.TemporaryDirectory() as tmp:  # read a private copy: ROOT stays untouched
            for f in src.parent.glob("openclaw-agent.sqlite*"):
                shutil.copy2(f, Path(tmp) / f.name)
            copy = sqlite3.connect(Path(tmp) / src.name)
            copy.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            expected["indexed_sources"][agent_id] = sorted(  # type: ignore[index]
                r[0] for r in copy.execute("SELECT path FROM memory_index_sources"))
            expected["session_chunks"][agent_id] = sorted(  # type: ignore[index]
                [r[0], r[1], r[2]] for r in copy.execute(
                    "SELECT path, start_line, end_line FROM memory_index_chunks WHERE source = 'sessions'"))
            copy.close()
            shutil.copy2(Path(tmp) / src.name, out / src.name)
        status = openclaw_json("memory", "status", "--agent", agent_id)[0]["status"]  # type: ignore[index]
        expected["status"][agent_id] = templated({k: status[k] for k in (  # type: ignore[index]
            "files", "chunks", "dbPath", "workspaceDir", "sources", "extraPaths", "sourceCounts")}, str(root))
    (dest / "expected.json").write_text(json.dumps(expected, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.chmod(dest / "state" / "openclaw.json", 0o600)
    print(f"fixture written to {dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
