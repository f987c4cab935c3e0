"""What OpenClaw's own state tells memtui not to index, search or serve, and what it must not lose.

States are the real OpenClaw 2026.9.6's: the `oc` fixture of test_openclaw_2026 (a private copy of a
state made by make-state.sh) and tests/fixtures/openclaw-2026.9.6-forget, the main agent's database
just before and just after `openclaw memory forget --agent main --session S` (see its README)."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from openclaw_memtui.engine.index import MemoryIndex
from openclaw_memtui.engine.ingest.memory_files import AccessRefused, read_memory_file
from openclaw_memtui.engine.ingest.reading import read_indexed_file
from openclaw_memtui.engine.settings import IndexSettings

from . import test_openclaw_2026 as oc2026
from .helpers import env_for_subprocess
from .test_openclaw_2026 import SESSION_MAIN, indexed_paths, run, std_sqlite

oc = oc2026.oc  # the real 2026.9.6 state, copied per test

FORGET = Path(__file__).parent / "fixtures" / "openclaw-2026.9.6-forget"
FORGOTTEN_ID = "32bd09fc-018d-4be6-bd2b-8fde3e557181"
FORGOTTEN = f"sessions/main/{FORGOTTEN_ID}.jsonl"
REPO = Path(__file__).resolve().parents[1]


def agent_db(root: Path, agent: str = "main") -> Path:
    return root / "state" / "agents" / agent / "agent" / "openclaw-agent.sqlite"


def use_db(root: Path, name: str) -> None:
    """Put the before/after-forget database OpenClaw wrote in place of main's."""
    target = agent_db(root)
    for side in ("-wal", "-shm"):
        Path(f"{target}{side}").unlink(missing_ok=True)
    shutil.copyfile(FORGET / f"{name}.sqlite", target)


def main_index(db: Path) -> MemoryIndex:
    from openclaw_memtui.interop.agents import agent_index_settings, find_agent

    agent = find_agent("main")
    settings = IndexSettings(workspace=Path(agent.workspace), db_path=db, sessions_dir=Path(agent.sessions_dir),
                             sources=("memory", "sessions"))
    return MemoryIndex(agent_index_settings(settings, agent), "none")


def config(root: Path) -> Path:
    return root / "state" / "openclaw.json"


def edit_config(root: Path, change) -> None:
    data = json.loads(config(root).read_text(encoding="utf-8"))
    change(data)
    config(root).write_text(json.dumps(data, indent=2), encoding="utf-8")


# -- forget tombstones ---------------------------------------------------------------------------

def test_a_forgotten_session_is_neither_searched_served_shown_nor_called_never_indexed(oc, capsys, tmp_path):
    """`openclaw memory forget` tombstoned the session: memtui indexed it and returned it first."""
    db = tmp_path / "m.sqlite"
    use_db(oc, "before")
    index = main_index(db)
    index.sync()
    assert FORGOTTEN in indexed_paths(db)
    _, before = index.search("stripe key AWS")
    assert before and before[0].path == FORGOTTEN  # the session is what this query finds
    use_db(oc, "after")  # OpenClaw forgot it; memtui has not synced since
    _, results = index.search("stripe key AWS")
    assert FORGOTTEN not in [r.path for r in results]
    with pytest.raises(FileNotFoundError, match="forget"):
        read_indexed_file(index.settings, FORGOTTEN, "sessions")  # the app's file view
    with pytest.raises(AccessRefused):
        read_memory_file(index.settings, FORGOTTEN)  # MCP memory_get
    # a JSONL archive of the same session in the folder is the same conversation (OpenClaw keys by id)
    sessions = Path(index.settings.sessions_dir)
    sessions.mkdir(parents=True, exist_ok=True)
    (sessions / f"{FORGOTTEN_ID}.jsonl.reset.2026-11-30T10-00-00.000Z").write_text(
        '{"type":"session","version":4,"id":"x"}\n{"type":"message","message":{"role":"user","content":"stripe key"}}\n',
        encoding="utf-8")
    report = index.sync()
    assert report.files_removed == 1 and not any(FORGOTTEN_ID in p for p in indexed_paths(db))
    index.close()
    code, out, _ = run(capsys, "status", "--agent", "main", "--openclaw-index", "--json")
    status = json.loads(out)
    assert code == 0 and FORGOTTEN in status["forgotten"] and FORGOTTEN not in status["not_indexed"]
    code, out, _ = run(capsys, "status", "--agent", "main", "--openclaw-index")
    assert "never indexed: sessions" not in out
    assert f"forgotten (openclaw memory forget; memtui neither indexes nor serves it): {FORGOTTEN}" in out


def test_mcp_never_returns_a_forgotten_session(oc, tmp_path):
    from .test_mcp import call, refused, server

    use_db(oc, "after")
    env = env_for_subprocess() | {"OPENCLAW_STATE_DIR": str(oc / "state"), "HOME": str(tmp_path / "home")}

    async def ask() -> tuple[dict, str]:
        async with server(tmp_path, "--agent", "main", "--provider", "none", "--db", str(tmp_path / "m.sqlite"),
                          env=env) as s:
            return await call(s, "memory_search", query="stripe key AWS"), await refused(s, "memory_get", path=FORGOTTEN)

    hits, refusal = asyncio.run(ask())
    assert FORGOTTEN not in [h["path"] for h in hits["results"]] and "not a memory file" in refusal


# -- memory search turned off ----------------------------------------------------------------------

@pytest.mark.parametrize(("change", "slot", "disabled"), [
    (lambda d: d["memory"]["search"].update(enabled=False), "builtin", "memory.search.enabled is false"),
    (lambda d: d["agents"]["entries"]["main"].setdefault("memory", {}).setdefault("search", {}).update(enabled=False),
     "builtin", "agents.entries.main.memory.search.enabled is false"),
    (lambda d: d.setdefault("plugins", {}).setdefault("slots", {}).update(memory="none"), "none", '"none"'),
    (lambda d: d.setdefault("plugins", {}).setdefault("slots", {}).update(memory="memory-lancedb"), "other",
     '"memory-lancedb": another memory plugin'),
    # memtui's plugin in the slot (an older connect), this agent not connected: OpenClaw still answers it with
    # memory-core (loaded as its dreaming sidecar), so it has memory search and memtui serves it
    (lambda d: d.setdefault("plugins", {}).setdefault("slots", {}).update(memory="memtui-memory"), "connected",
     None),
    # the agent's own value wins over the global one, both ways
    (lambda d: (d["memory"]["search"].update(enabled=False),
                d["agents"]["entries"]["main"].setdefault("memory", {}).setdefault("search", {}).update(enabled=True)),
     "builtin", None),
], ids=["global-off", "agent-off", "slot-none", "slot-other-plugin", "slot-memtui", "agent-on-over-global-off"])
def test_an_agent_without_memory_search_is_said_so_and_not_served(oc, capsys, tmp_path, change, slot, disabled):
    edit_config(oc, change)
    code, out, _ = run(capsys, "agents", "--json")
    main = next(a for a in json.loads(out)["agents"] if a["id"] == "main")
    assert code == 0 and main["memorySlot"] == slot
    assert (main["searchDisabled"] is None) if disabled is None else (disabled in main["searchDisabled"])
    code, out, _ = run(capsys, "agents")
    line = next(x for x in out.splitlines() if "memory search" in x)  # main is listed first
    assert ("off — " in line) == (disabled is not None)
    code, out, _ = run(capsys, "status", "--agent", "main", "--provider", "none", "--db", str(tmp_path / "s.sqlite"))
    assert code == 0 and ("Memory:      off — " in out) == (disabled is not None)
    from openclaw_memtui.interop.agents import find_agent
    from openclaw_memtui.tui.screens.status_rows import openclaw_rows

    rows = dict(openclaw_rows(find_agent("main")))  # F2
    assert rows["OpenClaw memory"].startswith("off — ") == (disabled is not None)
    mcp = subprocess.run([sys.executable, "-m", "openclaw_memtui", "mcp", "--agent", "main", "--provider", "none",
                          "--db", str(tmp_path / "m.sqlite")], input="", capture_output=True, text=True, cwd=REPO,
                         env=env_for_subprocess() | {"OPENCLAW_STATE_DIR": str(oc / "state"), "HOME": str(tmp_path / "h")})
    if disabled is None:
        assert mcp.returncode == 0, mcp.stderr  # stdin closed at once: it served, then ended
    else:
        assert mcp.returncode == 2 and mcp.stderr.count("\n") == 1 and "--serve-disabled" in mcp.stderr
        assert "Traceback" not in mcp.stderr and mcp.stdout == ""


def test_serve_disabled_serves_an_agent_whose_search_is_off(oc, tmp_path):
    edit_config(oc, lambda d: d["memory"]["search"].update(enabled=False))
    mcp = subprocess.run([sys.executable, "-m", "openclaw_memtui", "mcp", "--agent", "main", "--serve-disabled",
                          "--provider", "none", "--db", str(tmp_path / "m.sqlite")], input="", capture_output=True,
                         text=True, cwd=REPO,
                         env=env_for_subprocess() | {"OPENCLAW_STATE_DIR": str(oc / "state"), "HOME": str(tmp_path / "h")})
    assert mcp.returncode == 0, mcp.stderr


def test_the_app_header_says_openclaw_memory_search_is_off(oc, tmp_path):
    from openclaw_memtui.tui.app import MemtuiApp

    edit_config(oc, lambda d: d.setdefault("plugins", {}).setdefault("slots", {}).update(memory="none"))
    from openclaw_memtui.interop.agents import find_agent

    index = main_index(tmp_path / "t.sqlite")

    async def header() -> str:
        from openclaw_memtui.core.config import validate

        app = MemtuiApp(index, validate({}), origin="agent main", agent=find_agent("main"), watch=False)
        async with app.run_test(size=(160, 40)):
            return app.sub_title

    try:
        assert "[OpenClaw memory search off]" in asyncio.run(header())
    finally:
        index.close()


# -- a busy database is never a deletion ------------------------------------------------------------

WRITER = r"""
import sys
import time
from openclaw_memtui.engine.store import detect_backend
conn = detect_backend().module.connect(sys.argv[1], isolation_level=None)
conn.execute("PRAGMA journal_mode=WAL")
conn.execute("PRAGMA synchronous=NORMAL")  # as OpenClaw runs it: no fsync per commit in WAL mode
conn.execute("CREATE TABLE IF NOT EXISTS hammer(n INTEGER)")
for line in sys.stdin:
    if line.strip() == "touch":  # the live session changed: memtui must read it again
        conn.execute("UPDATE session_windows SET updated_at = updated_at + 1, transcript_updated_at ="
                     " transcript_updated_at + 1 WHERE session_id = ?", (sys.argv[2],))
        # a database of a few dozen MB, as a used agent's is: copying it spans several mtime ticks
        conn.execute("CREATE TABLE IF NOT EXISTS ballast(b BLOB)")
        conn.executemany("INSERT INTO ballast VALUES (randomblob(4194304))", [()] * 8)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        print("touched", flush=True)
    elif line.strip() == "hammer":  # commits hundreds of times a second, as OpenClaw does while it works
        n = 0
        while True:
            conn.execute("INSERT INTO hammer VALUES (?)", (n,))
            n += 1
            if n == 200:
                print("hammering", flush=True)
            # OpenClaw's rate, not this machine's top speed: unthrottled on an idle machine, the WAL
            # restarted (a checkpoint, then frames from its start) every few ms, faster than any copy of a
            # 34 MB database, so the read failed by the machine's speed rather than by memtui's rule
            time.sleep(0.002)
"""


def test_a_session_openclaw_is_writing_hard_is_kept_not_deleted(oc, tmp_path):
    """A sync read the live session while OpenClaw committed hundreds of times a second: every read
    "kept changing", and the read failure deleted the session from the index."""
    db = tmp_path / "m.sqlite"
    index = main_index(db)
    index.sync()
    assert SESSION_MAIN in indexed_paths(db)
    session_id = SESSION_MAIN.split("/")[-1].removesuffix(".jsonl")
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(agent_db(oc)), session_id], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, cwd=REPO, env=env_for_subprocess())
    try:
        assert writer.stdin is not None and writer.stdout is not None
        writer.stdin.write("touch\n")
        writer.stdin.flush()
        assert writer.stdout.readline().strip() == "touched"

        def hammer_when_reading(progress) -> None:
            if progress.phase == "index" and progress.path == SESSION_MAIN:  # just before memtui reads it
                writer.stdin.write("hammer\n")
                writer.stdin.flush()
                assert writer.stdout.readline().strip() == "hammering"

        report = index.sync(progress=hammer_when_reading)
        assert report.files_removed == 0 and SESSION_MAIN in indexed_paths(db)  # kept, whatever the read gave
        from openclaw_memtui.engine.ingest.openclaw_db import list_sessions, read_consistent

        listed = read_consistent(agent_db(oc), list_sessions)  # and it can be read while OpenClaw writes
        assert session_id in [s.session_id for s in listed]
    finally:
        writer.kill()
        writer.wait()
        index.close()


# -- openclaw.json: lone surrogates and $include ----------------------------------------------------

def test_a_lone_surrogate_in_openclaw_json_is_one_line_naming_the_key(oc, capsys):
    text = config(oc).read_text(encoding="utf-8")
    bad = text.replace('"workspace": ', '"label": "caf\\ud800", "workspace": ', 1)
    config(oc).write_text(bad, encoding="utf-8")
    for argv in (["agents"], ["agents", "--json"], ["export-settings", "--write", "--max-results", "7"]):
        code, out, err = run(capsys, *argv)
        assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, (argv, err)
        assert "label" in err and "surrogate" in err
    assert config(oc).read_text(encoding="utf-8") == bad  # nothing written


def _split_config(root: Path) -> dict:
    """openclaw.json with its agents in ./conf/agents.json5 (which includes ./defaults.json5 beside it)."""
    data = json.loads(config(root).read_text(encoding="utf-8"))
    agents = data.pop("agents")
    defaults = agents.pop("defaults")
    conf = config(root).parent / "conf"
    conf.mkdir()
    (conf / "agents.json5").write_text("// agents live here\n" + json.dumps(
        {"$include": "./defaults.json5", **agents}, indent=2), encoding="utf-8")
    (conf / "defaults.json5").write_text(json.dumps({"defaults": defaults}), encoding="utf-8")
    data["agents"] = {"$include": "./conf/agents.json5"}
    config(root).write_text(json.dumps(data, indent=2), encoding="utf-8")
    return data


def test_include_is_resolved_as_openclaw_does(oc, capsys, tmp_path):
    _split_config(oc)
    other = tmp_path / "elsewhere"
    other.mkdir()
    (config(oc).parent / "conf" / "ws.json5").write_text(json.dumps({"entries": {"main": {"workspace": str(other)}}}),
                                                          encoding="utf-8")
    agents_file = config(oc).parent / "conf" / "agents.json5"
    spec = json.loads(agents_file.read_text(encoding="utf-8").split("\n", 1)[1])
    spec["$include"] = ["./defaults.json5", "./ws.json5"]  # an array: merged in order, objects key by key
    agents_file.write_text(json.dumps(spec), encoding="utf-8")
    code, out, err = run(capsys, "agents", "--json")
    assert code == 0, err
    ours = {a["id"]: a for a in json.loads(out)["agents"]}
    # keys beside $include win over the included ones: main's own workspace stays
    assert ours["main"]["workspace"] == str(oc / "ws-main") and ours["research"]["workspace"] == str(oc / "ws-research")
    spec.pop("entries")
    agents_file.write_text(json.dumps(spec), encoding="utf-8")
    code, out, _ = run(capsys, "agents", "--json")
    assert {a["id"]: a for a in json.loads(out)["agents"]}["main"]["workspace"] == str(other)


@pytest.mark.parametrize(("include", "message"), [
    ("./conf/loop.json5", "circular $include"),
    ("../outside.json5", "outside the config folder"),
    ("./conf/missing.json5", "cannot read"),
])
def test_a_bad_include_is_one_line(oc, capsys, include, message):
    data = json.loads(config(oc).read_text(encoding="utf-8"))
    (config(oc).parent / "conf").mkdir()
    (config(oc).parent / "conf" / "loop.json5").write_text('{"$include": "./loop2.json5"}', encoding="utf-8")
    (config(oc).parent / "conf" / "loop2.json5").write_text('{"$include": "./loop.json5"}', encoding="utf-8")
    (config(oc).parent.parent / "outside.json5").write_text("{}", encoding="utf-8")
    data["ui"] = {"$include": include}
    config(oc).write_text(json.dumps(data), encoding="utf-8")
    code, _, err = run(capsys, "agents")
    assert code == 2 and err.count("\n") == 1 and message in err and "Traceback" not in err


def test_export_settings_write_keeps_includes_and_never_writes_an_included_file(oc, capsys):
    _split_config(oc)
    conf = config(oc).parent / "conf"
    included = {p.name: p.read_bytes() for p in conf.iterdir()}
    code, _, err = run(capsys, "export-settings", "--write", "--agent", "research", "--max-results", "7")
    assert code == 0, err
    assert {p.name: p.read_bytes() for p in conf.iterdir()} == included  # included files untouched
    data = json.loads(config(oc).read_text(encoding="utf-8"))
    assert data["agents"]["$include"] == "./conf/agents.json5"  # not flattened
    assert data["agents"]["entries"]["research"] == {"memory": {"search": {"query": {"maxResults": 7}}}}
    code, out, _ = run(capsys, "agents", "--json")  # as OpenClaw merges it: the agent keeps its workspace
    research = {a["id"]: a for a in json.loads(out)["agents"]}["research"]
    assert research["workspace"] == str(oc / "ws-research") and research["memory_search"]["query"]["maxResults"] == 7


# -- the version after `openclaw doctor --fix` -------------------------------------------------------

def test_the_version_is_the_primary_schema_meta_row(oc, capsys):
    """`openclaw doctor --fix` adds a schema_meta row whose app_version holds its migration state."""
    conn = std_sqlite.connect(agent_db(oc))
    conn.execute("INSERT INTO schema_meta(meta_key, role, schema_version, agent_id, app_version, created_at, updated_at)"
                 " VALUES ('historical-transcript-directives-v1', 'agent', 1, 'main', '{\"phase\":\"complete\"}', 1,"
                 " 9999999999999)")  # the row 2026.9.6's doctor --fix wrote (seen on a real state)
    conn.commit()
    conn.close()
    code, out, _ = run(capsys, "status", "--agent", "main", "--openclaw-index")
    assert code == 0 and "written by OpenClaw 2026.9.6" in out and "phase" not in out
