#!/usr/bin/env python3
"""Record real OpenClaw searches in a state from shared/openclaw-real/make-state.sh, and copy it as a fixture.

    source ROOT/env.sh
    python3 scripts/make_recalls_fixture.py ROOT tests/fixtures/openclaw-2026.9.6-recalls [--skip-turns]

Runs, with the real OpenClaw of ROOT: `openclaw memory search` for a few queries (one twice), and
agent turns whose fake model (shared/openclaw-real/tool_chat_server.py, on the port of ROOT's
`models.providers.fake.baseUrl`) calls `memory_search`, so OpenClaw records the searches in
`state/openclaw.sqlite` and the tool calls land in the agents' transcripts. Then copies the config
(ROOT replaced by `{ROOT}`), the state database and both agent databases (WAL folded into private
copies, then VACUUMed: the fixture stays small) and both workspaces, and writes expected.json: the
workspace key of each agent's events at ROOT (tests re-key them for their own folder, as OpenClaw
would have filed them there) and what `openclaw memory search --json` answered.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
TOOL_SERVER = Path("/work/shared/openclaw-real/tool_chat_server.py")
CLI_SEARCHES = [("main", "Kafka consumer lag"), ("main", "Kafka consumer lag"), ("main", "deploy windows Friday"),
                ("research", "weighted score fusion")]
AGENT_TURNS = [("main", "Where is the invoice PDF renderer note?", "invoice PDF renderer"),
               ("main", "When does the staging certificate expire?", "staging TLS certificate"),
               ("research", "What is the retrieval goal?", "recall@5 goal reranker")]


def openclaw_json(*args: str) -> object:
    out = subprocess.run(["openclaw", *args, "--json"], check=True, capture_output=True, text=True).stdout
    return json.loads(out[min(i for i in (out.find("{"), out.find("[")) if i >= 0):])


def fake_port(root: Path) -> int:
    cfg = json.loads((root / "state" / "openclaw.json").read_text(encoding="utf-8"))
    return int(cfg["models"]["providers"]["fake"]["baseUrl"].rsplit(":", 1)[1].split("/")[0])


def agent_turn(port: int, agent: str, message: str, query: str, log: Path) -> None:
    plan = json.dumps([{"tool": "tool_call", "args": {"id": "memory_search", "args": {"query": query}}}])
    server = subprocess.Popen([sys.executable, str(TOOL_SERVER), str(port), str(log)], env=dict(os.environ, FAKE_PLAN=plan))
    try:
        for _ in range(100):  # until it answers
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=1).read()
                break
            except OSError:
                time.sleep(0.1)
        subprocess.run(["openclaw", "agent", "--local", "--agent", agent, "--message", message, "--json"], check=True,
                       capture_output=True, text=True)
    finally:
        server.terminate()
        server.wait()


def private_copy(src: Path, out: Path, keep: tuple[str, ...] = ()) -> None:
    """`src` (a WAL-mode SQLite file) as one self-contained, vacuumed file at `out`; src is not touched.
    With `keep`, every other table of the copy is emptied (OpenClaw's schema stays): the state database
    also holds device tokens and config history a fixture has no business carrying."""
    from openclaw_memtui.engine.store import detect_backend

    with tempfile.TemporaryDirectory() as tmp:
        for f in src.parent.glob(src.name + "*"):
            shutil.copy2(f, Path(tmp) / f.name)
        # OpenClaw's schema calls octet_length() (SQLite 3.43+): the binding memtui uses has it
        conn = detect_backend().module.connect(Path(tmp) / src.name)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        if keep:
            tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE"
                                                 " 'CREATE VIRTUAL%' AND name NOT LIKE 'sqlite_%'")]
            for table in tables:
                if table not in keep:
                    conn.execute(f'DELETE FROM "{table}"')
            conn.commit()
        conn.execute("VACUUM")
        conn.close()
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(Path(tmp) / src.name, out)


def main() -> int:
    root, dest = Path(sys.argv[1]).resolve(), Path(sys.argv[2])
    sys.path.insert(0, str(HERE.parent))
    from openclaw_memtui.interop.recalls import workspace_keys

    answers = []
    for agent, query in CLI_SEARCHES:
        answers.append({"agent": agent, "query": query,
                        "answer": openclaw_json("memory", "search", query, "--agent", agent)})
    port = fake_port(root)
    for agent, message, query in AGENT_TURNS if "--skip-turns" not in sys.argv else []:  # already run in ROOT
        agent_turn(port, agent, message, query, root / "tool-turns.log")
    if dest.exists():
        shutil.rmtree(dest)
    (dest / "state").mkdir(parents=True)
    cfg_text = (root / "state" / "openclaw.json").read_text(encoding="utf-8")
    (dest / "state" / "openclaw.json").write_text(cfg_text.replace(str(root), "{ROOT}"), encoding="utf-8")
    os.chmod(dest / "state" / "openclaw.json", 0o600)
    for ws in ("ws-main", "ws-research"):
        shutil.copytree(root / ws, dest / ws, ignore=shutil.ignore_patterns(".git", ".openclaw"))
    private_copy(root / "state" / "state" / "openclaw.sqlite", dest / "state" / "state" / "openclaw.sqlite",
                 keep=("plugin_state_entries", "schema_meta"))
    for agent in ("main", "research"):
        name = Path("agents") / agent / "agent" / "openclaw-agent.sqlite"
        private_copy(root / "state" / name, dest / "state" / name)
    expected = {"version": "2026.9.6", "cli_searches": answers, "agent_turns": AGENT_TURNS,
                "workspace_keys": {"main": workspace_keys(root / "ws-main")[0],
                                   "research": workspace_keys(root / "ws-research")[0]}}
    text = json.dumps(expected, indent=2, ensure_ascii=False).replace(str(root), "{ROOT}")
    (dest / "expected.json").write_text(text + "\n", encoding="utf-8")
    print(f"fixture written to {dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
