"""The one answer gate (core/gate.py), through every front end: `memtui serve` (the OpenClaw plugin's
wire, over its real unix socket), `memtui mcp` (a real stdio server and the SDK's client),
`memtui search --json` and the app, all over one hostile copy of a real OpenClaw 2026.9.6 state
(tests/gate_helpers.py): notes named after keys, a key in a note, a forgotten session, other sessions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from openclaw_memtui.cli.main import main as memtui_main
from openclaw_memtui.interop.connect import call

from .gate_helpers import (
    API_KEY,
    CHILD,
    FORGOTTEN,
    GH_TOKEN,
    INLINE_TOKEN,
    MAIN_SESSION,
    OTHER,
    QUERY,
    make_hostile_state,
    transcript_path,
)
from .test_mcp import server as mcp_server
from .test_plugin_server import start_server, stop

SECRETS = (GH_TOKEN, API_KEY, INLINE_TOKEN)
NOTES = {"memory/[redacted].md", "memory/tokens.md"}  # the two notes named after keys both read [redacted]
ALL_SESSIONS = {transcript_path(s) for s in (OTHER, CHILD, MAIN_SESSION)}


def places(hits: list[dict], path="path", start="startLine", end="endLine") -> set[tuple[str, int, int]]:
    return {(h[path], h[start], h[end]) for h in hits}


def no_secret(text: str) -> None:
    for secret in SECRETS:
        assert secret not in text, f"{secret[:6]}… leaked"


@pytest.fixture
def hostile(tmp_path, monkeypatch) -> Path:
    return make_hostile_state(tmp_path, monkeypatch)


def cli_search(capsys) -> tuple[dict, str]:
    assert memtui_main(["search", QUERY, "--agent", "main", "--provider", "none", "--json", "--min-score", "0",
                        "--max-results", "20"]) == 0
    out, err = capsys.readouterr()
    return json.loads(out), out + err


@pytest.fixture
def served(hostile, tmp_path):
    proc = start_server(tmp_path / "run" / "main.sock")
    yield tmp_path / "run" / "main.sock"
    stop(proc)


def plugin(sock: Path, op: str, args: dict, **request) -> dict:
    reply = call(sock, {"v": 1, "op": op, "args": args, **request})
    assert reply["ok"] is True, reply
    no_secret(json.dumps(reply))
    return reply["result"]


async def test_every_front_end_gets_the_same_masked_answer(hostile, served, tmp_path, capsys):
    """Same masked paths and snippets everywhere; transcripts as each caller may see them."""
    cli, cli_text = cli_search(capsys)
    no_secret(cli_text)
    cli_hits = {(r["path"], r["start_line"], r["end_line"]): r["snippet"] for r in cli["results"]}
    assert {p for p, _, _ in cli_hits} == NOTES | ALL_SESSIONS  # a person: every session but the forgotten one

    wire = plugin(served, "memory_search", {"query": QUERY, "maxResults": 20, "minScore": 0},
                  sessionKey="agent:main:main", citations=True)
    plugin_hits = {(r["path"], r["startLine"], r["endLine"]): r for r in wire["results"]}
    # the requesting session's own transcript is left out; the rest as OpenClaw's default visibility (all)
    assert {p for p, _, _ in plugin_hits} == NOTES | {transcript_path(OTHER), transcript_path(CHILD)}
    for place, hit in plugin_hits.items():
        assert hit["citation"].startswith(hit["path"] + "#L")  # the citation masked as the path is
        assert hit["snippet"] == f"{cli_hits[place].rstrip()}\n\nSource: {hit['citation']}"

    async with mcp_server(tmp_path, "--agent", "main", "--provider", "none") as s:
        result = await s.call_tool("memory_search", {"query": QUERY, "maxResults": 20, "minScore": 0})
    no_secret(result.content[0].text + json.dumps(result.structured_content))
    mcp_hits = {(r["path"], r["startLine"], r["endLine"]): r["snippet"] for r in json.loads(result.content[0].text)["results"]}
    assert mcp_hits == cli_hits  # an MCP client of the agent, visibility "all": what the person sees

    from openclaw_memtui.core.config import load_config
    from openclaw_memtui.core.session import SessionOptions, open_session
    from openclaw_memtui.engine.search.rank import SearchParams
    from openclaw_memtui.tui.app import MemtuiApp

    from .app_helpers import wait_for
    from .test_tui import type_query

    session = open_session(SessionOptions(agent="main", provider="none"), load_config(None))
    app = MemtuiApp.from_session(session, watch=False, params=SearchParams(min_score=0.0, max_results=20))
    async with app.run_test(size=(120, 36)) as pilot:
        assert await wait_for(pilot, lambda: not app.sync_running, 60)
        await type_query(pilot, app, QUERY)
        assert await wait_for(pilot, lambda: bool(app.search_screen.results), 30)
        tui_hits = {(r.path, r.start_line, r.end_line): r.snippet for r in app.search_screen.results}
    session.close()
    assert tui_hits == cli_hits


def test_the_forgotten_session_is_neither_found_nor_read(served, capsys):
    answer = plugin(served, "memory_search", {"query": "forget them secret plans", "minScore": 0},
                    sessionKey="agent:main:main")
    assert transcript_path(FORGOTTEN) not in {r["path"] for r in answer["results"]}
    cli, _ = cli_search(capsys)
    assert transcript_path(FORGOTTEN) not in {r["path"] for r in cli["results"]}


def test_an_agent_reads_no_transcript_with_memory_get_as_openclaw_refuses_it(served):
    got = plugin(served, "memory_get", {"path": transcript_path(OTHER)}, sessionKey="agent:main:main")
    assert got["status"] == "error" and got["code"] == "MEMORY_PATH_NOT_ALLOWED" and got["text"] == ""
    assert "Session transcript paths are unsupported" in got["error"]
    note = plugin(served, "memory_get", {"path": "memory/tokens.md"}, sessionKey="agent:main:main")
    assert note["status"] == "ok" and "pelican rota bot token" in note["text"]


def test_hits_carry_openclaws_provenance(served):
    answer = plugin(served, "memory_search", {"query": QUERY, "maxResults": 20, "minScore": 0},
                    sessionKey="agent:main:main")
    by_path = {r["path"]: r["provenance"] for r in answer["results"]}
    assert by_path["memory/tokens.md"]["originClass"] == "agent"  # memory/**/*.md is the agent's own
    assert by_path["memory/tokens.md"]["sessionKind"] == "unknown" and by_path["memory/tokens.md"]["observedAt"] > 0
    # a stranger's message (senderIsOwner false) makes the chunk untrusted; the owner's subagent's is the agent's
    assert by_path[transcript_path(OTHER)] == {"originClass": "untrusted", "sessionKind": "interactive",
                                               "observedAt": 1796076002000}
    assert by_path[transcript_path(CHILD)]["originClass"] == "agent"
    assert by_path[transcript_path(CHILD)]["sessionKind"] == "subagent"


@pytest.mark.parametrize(("visibility", "key", "sandboxed", "seen"), [
    ("self", "agent:main:main", False, set()),
    ("tree", "agent:main:telegram:direct:alice", False, set()),  # not the main session, spawned nothing
    ("tree", "agent:main:main", False, {OTHER, CHILD}),  # the main session's tree is the whole agent
    ("agent", "agent:main:telegram:direct:alice", False, {CHILD, MAIN_SESSION}),  # the agent's sessions but its own
    ("all", "agent:main:subagent:abc", True, set()),  # sandboxed: clamped to tree, and the child spawned nothing
    ("all", None, False, set()),  # no session key: OpenClaw withholds every transcript
])
def test_openclaws_session_visibility_decides_which_conversations_an_agent_sees(tmp_path, monkeypatch, visibility, key,
                                                                               sandboxed, seen):
    make_hostile_state(tmp_path, monkeypatch, {"tools": {"sessions": {"visibility": visibility}}})
    proc = start_server(tmp_path / "run" / "main.sock")
    try:
        request = {"sandboxed": sandboxed, **({"sessionKey": key} if key else {})}
        answer = plugin(tmp_path / "run" / "main.sock", "memory_search",
                        {"query": QUERY, "maxResults": 20, "minScore": 0}, **request)
    finally:
        stop(proc)
    sessions = {r["path"] for r in answer["results"] if r["source"] == "sessions"}
    assert sessions == {transcript_path(s) for s in seen}
    assert {r["path"] for r in answer["results"] if r["source"] == "memory"} == NOTES  # notes always pass
    assert answer["debug"]["withheldHits"] >= 3 - len(seen)


def test_an_agent_whose_memory_search_openclaw_turns_off_is_not_answered(tmp_path, monkeypatch):
    root = make_hostile_state(tmp_path, monkeypatch)
    proc = start_server(tmp_path / "run" / "main.sock")
    sock = tmp_path / "run" / "main.sock"
    try:
        assert plugin(sock, "memory_search", {"query": QUERY}, sessionKey="agent:main:main")["results"]
        # switched off inside an $include, while the server runs: the next call is refused
        (root / "state" / "memory-off.json").write_text(json.dumps({"search": {"enabled": False}}), encoding="utf-8")
        cfg_path = root / "state" / "openclaw.json"
        cfg = json.loads(cfg_path.read_text(encoding="utf-8"))
        cfg["agents"]["entries"]["main"]["memory"] = {"$include": "./memory-off.json"}
        cfg_path.write_text(json.dumps(cfg), encoding="utf-8")
        off = plugin(sock, "memory_search", {"query": QUERY}, sessionKey="agent:main:main")
        got = plugin(sock, "memory_get", {"path": "memory/tokens.md"}, sessionKey="agent:main:main")
    finally:
        stop(proc)
    assert off["results"] == [] and off["status"] == "disabled" and "memory.search.enabled" in off["error"]
    assert got["status"] == "disabled" and "text" not in got


def test_a_database_nobody_can_read_hides_every_transcript(tmp_path, monkeypatch):
    """Which sessions are visible cannot be told without OpenClaw's session store: none is quoted."""
    from openclaw_memtui.core.caller import Caller
    from openclaw_memtui.core.gate import Gate
    from openclaw_memtui.interop import session_store

    make_hostile_state(tmp_path, monkeypatch)
    monkeypatch.setattr(session_store, "session_store", lambda db: session_store.SessionStore(readable=False))

    class Index:
        settings = type("S", (), {"transcripts_db": None, "sessions_prefix": "sessions/main"})()

    gate = Gate(Index(), "main")  # type: ignore[arg-type]
    monkeypatch.setattr("openclaw_memtui.engine.ingest.forgotten.settings_forgotten", lambda settings: frozenset())
    paths = {transcript_path(OTHER)}
    assert gate.visible_transcripts(Caller("plugin", "main", "agent:main:main"), paths) == set()
    assert gate.visible_transcripts(Caller("cli", "main"), paths) == paths  # a person's own search


def test_the_mcp_server_honours_a_restricted_visibility_it_cannot_place(tmp_path, monkeypatch, capsys):
    """An MCP client cannot say which session asks: with visibility self or tree it sees no transcript."""
    from openclaw_memtui.core.caller import Caller
    from openclaw_memtui.core.config import load_config
    from openclaw_memtui.core.gate import Gate
    from openclaw_memtui.core.session import SessionOptions, open_session

    make_hostile_state(tmp_path, monkeypatch, {"tools": {"sessions": {"visibility": "tree"}}})
    with open_session(SessionOptions(agent="main", provider="none"), load_config(None)) as session:
        gate = Gate(session.index, "main")
        paths = {transcript_path(OTHER), transcript_path(CHILD)}
        assert gate.visible_transcripts(Caller("mcp", "main"), paths) == set()
        assert gate.visible_transcripts(Caller("plugin", "main", "agent:main:main"), paths) == paths
        assert gate.visible_transcripts(Caller("tui", "main"), paths) == paths


def test_state_db_is_only_read(served, hostile):
    """The gate reads OpenClaw's database (sessions, tombstones); it never writes it."""
    db = hostile / "state" / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    before = db.stat().st_mtime_ns, db.stat().st_size
    plugin(served, "memory_search", {"query": QUERY}, sessionKey="agent:main:main")
    assert (db.stat().st_mtime_ns, db.stat().st_size) == before
    assert not list(db.parent.glob("*.memtui*"))


def test_the_apps_listing_of_the_memory_passes_the_gate_too(hostile):
    """Browsing (an empty query: the memory newest first) lists through the gate: masked paths and
    snippets, and no forgotten session even while the index still holds it."""
    from openclaw_memtui.core.caller import Caller
    from openclaw_memtui.core.config import load_config
    from openclaw_memtui.core.gate import Gate
    from openclaw_memtui.core.session import SessionOptions, open_session

    with open_session(SessionOptions(agent="main", provider="none"), load_config(None)) as session:
        session.index.sync()
        db = hostile / "state" / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
        from openclaw_memtui.engine.store import detect_backend

        conn = detect_backend().module.connect(db)  # forget one more session after the sync
        conn.execute("INSERT INTO memory_session_tombstones(session_id, agent_id, reason, created_at) "
                     "VALUES (?, 'main', 'forgotten', 1)", (OTHER,))
        conn.commit()
        conn.close()
        raw = session.index.browse("all", 0, 500)
        assert transcript_path(OTHER) in {e.result.path for e in raw}  # the index still holds it
        shown = Gate(session.index, "main").browse(Caller("tui", "main"), raw)
    paths = {e.result.path for e in shown}
    assert transcript_path(OTHER) not in paths and transcript_path(FORGOTTEN) not in paths
    assert "memory/[redacted].md" in paths and transcript_path(CHILD) in paths
    no_secret(json.dumps([[e.result.path, e.result.snippet] for e in shown]))


def test_mcp_is_refused_an_agent_switched_off_while_it_runs_unless_told_to_serve_it(tmp_path, monkeypatch):
    from openclaw_memtui.core.caller import Caller
    from openclaw_memtui.core.config import load_config
    from openclaw_memtui.core.gate import Gate, Refused
    from openclaw_memtui.core.session import SessionOptions, open_session

    root = make_hostile_state(tmp_path, monkeypatch)
    with open_session(SessionOptions(agent="main", provider="none"), load_config(None)) as session:
        gate, anyway = Gate(session.index, "main"), Gate(session.index, "main", serve_disabled=True)
        gate.admit(Caller("mcp", "main"))
        cfg_path = root / "state" / "openclaw.json"
        cfg = json.loads(cfg_path.read_text(encoding="utf-8"))
        cfg["plugins"]["slots"] = {"memory": "none"}
        cfg_path.write_text(json.dumps(cfg), encoding="utf-8")
        with pytest.raises(Refused, match='plugins.slots.memory is "none"'):
            gate.admit(Caller("mcp", "main"))
        anyway.admit(Caller("mcp", "main"))  # --serve-disabled: the user's explicit choice
        gate.admit(Caller("cli", "main"))  # a person searching their own memory is never refused
        with pytest.raises(Refused):
            anyway.admit(Caller("plugin", "main", "agent:main:main"))  # the plugin has no such switch


def test_a_config_that_cannot_be_read_never_opens_the_gate(tmp_path, monkeypatch):
    """Memory switched off, then openclaw.json half saved (unreadable): the last good reading holds, as
    OpenClaw keeps its last good config; a gate that never read it answers no agent at all."""
    from openclaw_memtui.core import gate as gate_module
    from openclaw_memtui.core.caller import Caller
    from openclaw_memtui.core.gate import Gate, Refused

    root = make_hostile_state(tmp_path, monkeypatch)
    monkeypatch.setattr(gate_module, "CONFIG_RECHECK_S", 0.0)  # every call reads the config again
    cfg_path = root / "state" / "openclaw.json"
    cfg = json.loads(cfg_path.read_text(encoding="utf-8"))
    cfg["agents"]["entries"]["main"]["memory"] = {"search": {"enabled": False}}
    cfg_path.write_text(json.dumps(cfg), encoding="utf-8")
    agent, person = Caller("plugin", "main", "agent:main:main"), Caller("cli", "main")

    class Index:
        settings = None

    gate = Gate(Index(), "main")  # type: ignore[arg-type]
    with pytest.raises(Refused, match="memory search is off"):
        gate.admit(agent)
    cfg_path.write_text('{"agents": {"entries": {"main": {', encoding="utf-8")  # an edit half saved
    with pytest.raises(Refused, match="memory search is off"):
        gate.admit(agent)
    fresh = Gate(Index(), "main")  # type: ignore[arg-type]
    with pytest.raises(Refused, match="config cannot be read"):
        fresh.admit(agent)
    fresh.admit(person)  # a person searching their own memory always is answered
