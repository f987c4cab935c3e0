"""The agent's own searches (`memtui recalls`, the Agent searches screen) on searches the real OpenClaw
2026.9.6 recorded: tests/fixtures/openclaw-2026.9.6-recalls, made by scripts/make_recalls_fixture.py
(`openclaw memory search` runs and agent turns whose model called memory_search)."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from openclaw_memtui.cli.main import main as memtui_main
from openclaw_memtui.engine.store import detect_backend
from openclaw_memtui.interop.recalls import workspace_keys

from .helpers import use_openclaw_state

sqlite = detect_backend().module  # OpenClaw's triggers need a modern SQLite
FIXTURE = Path(__file__).parent / "fixtures" / "openclaw-2026.9.6-recalls"
EXPECTED = json.loads((FIXTURE / "expected.json").read_text(encoding="utf-8"))
STATE_DB = Path("state") / "state" / "openclaw.sqlite"


@pytest.fixture
def oc(tmp_path, monkeypatch) -> Path:
    """A private copy of the real state, its paths pointed at this test's folder and its events filed
    under this folder's workspace keys, as OpenClaw would have filed them here."""
    root = use_openclaw_state(FIXTURE, tmp_path, monkeypatch)
    conn = sqlite.connect(root / STATE_DB)
    for agent, old in EXPECTED["workspace_keys"].items():
        new = workspace_keys(root / f"ws-{agent}")[0]
        conn.execute("UPDATE plugin_state_entries SET entry_key = ? || substr(entry_key, ?) WHERE entry_key LIKE ?",
                     (new, len(old) + 1, f"{old}:%"))
    conn.commit()
    conn.close()
    return root


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = memtui_main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def recalls_json(capsys, tmp_path, agent: str = "main", *extra: str) -> dict:
    code, out, err = run(capsys, "recalls", "--agent", agent, "--provider", "none", "--db", str(tmp_path / f"{agent}.sqlite"),
                         "--json", *extra)
    assert code == 0, err
    return json.loads(out)


def fingerprint(folder: Path) -> dict[str, tuple[str, int]]:
    return {str(f.relative_to(folder)): (hashlib.sha256(f.read_bytes()).hexdigest(), f.stat().st_mtime_ns)
            for f in sorted(folder.rglob("*")) if f.is_file()}


def openclaw_answer(query: str, agent: str = "main") -> list[dict]:
    """What `openclaw memory search --json` returned for the query when the fixture was made."""
    found = next(a["answer"] for a in EXPECTED["cli_searches"] if a["query"] == query and a["agent"] == agent)
    return found["results"]


def add_events(root: Path, rows: list[tuple[str, str, str, str]]) -> None:
    conn = sqlite.connect(root / STATE_DB)
    conn.executemany("INSERT INTO plugin_state_entries (plugin_id, namespace, entry_key, value_json, created_at)"
                     " VALUES (?, ?, ?, ?, 0)", rows)
    conn.commit()
    conn.close()


def event(query: str, results: list[dict], ts: str = "2026-12-24T10:00:00.000Z", kind: str = "memory.recall.recorded") -> str:
    return json.dumps({"kind": "event", "event": {"type": kind, "timestamp": ts, "query": query,
                                                  "resultCount": len(results), "results": results},
                       "recordedAt": 0, "sequence": 1})


# -- the command ------------------------------------------------------------------------------------

def test_recalls_lists_what_openclaw_returned_and_what_memtui_ranks(oc, capsys, tmp_path):
    data = recalls_json(capsys, tmp_path)
    assert data["agent"] == "main"
    by_query = {r["query"]: r for r in data["recalls"]}
    # OpenClaw (under load) answered the agent's second turn without recording it: the transcript has it
    assert data["source"] == "events+transcripts"
    assert by_query["invoice PDF renderer"]["origin"] == "event"  # recorded: the tool call is not counted again
    assert by_query["invoice PDF renderer"]["count"] == 1
    assert by_query["staging TLS certificate"]["origin"] == "transcript"
    kafka = by_query["Kafka consumer lag"]
    assert kafka["count"] >= 2 and len(kafka["timestamps"]) == kafka["count"]  # asked more than once, grouped once
    # OpenClaw's memory-file hits as `openclaw memory search` printed them (its records hold no transcript hits)
    theirs = [{k: h[k] for k in ("path", "startLine", "endLine")} for h in openclaw_answer("Kafka consumer lag")
              if h["source"] == "memory"]
    assert [{k: h[k] for k in ("path", "startLine", "endLine")} for h in kafka["openclaw"]] == theirs
    assert kafka["memtui"] and all({"path", "startLine", "endLine", "score"} <= set(h) for h in kafka["memtui"])
    first = kafka["compared"][0]
    assert first["path"] == "memory/2026-11-22.md" and first["found"] == "both" and first["openclawRank"] == 1
    # newest first: the agent turns ran after the CLI searches
    stamps = [r["timestamps"][0] for r in data["recalls"]]
    assert stamps == sorted(stamps, reverse=True)
    assert {t[2] for t in EXPECTED["agent_turns"] if t[0] == "main"} <= set(by_query)


def test_each_agent_sees_only_its_own_searches(oc, capsys, tmp_path):
    main = {r["query"] for r in recalls_json(capsys, tmp_path, "main")["recalls"]}
    research = {r["query"] for r in recalls_json(capsys, tmp_path, "research")["recalls"]}
    assert "weighted score fusion" in research and "weighted score fusion" not in main
    assert "Kafka consumer lag" not in research


def test_text_output_marks_both_and_only_openclaw(oc, capsys, tmp_path):
    code, out, err = run(capsys, "recalls", "--agent", "main", "--provider", "none", "--db", str(tmp_path / "m.sqlite"))
    assert code == 0, err
    assert re.search(r"“Kafka consumer lag”  \d+×, last 20\d\d-\d\d-\d\d \d\d:\d\d", out)
    assert "both" in out and "memory/2026-11-22.md:" in out


def test_places_only_memtui_returns_below_the_agents_min_score_are_hidden_unless_asked(oc, capsys, tmp_path):
    """At the agent's minScore memtui still listed keyword hits it kept below it (its keyword rescue) as
    "only memtui": noise beside OpenClaw's answer. They are hidden, counted, and shown with --all."""
    config = oc / "state" / "openclaw.json"
    config.write_text(config.read_text(encoding="utf-8").replace('"minScore": 0,', '"minScore": 0.75,'), encoding="utf-8")
    shown, every = recalls_json(capsys, tmp_path), recalls_json(capsys, tmp_path, "main", "--all")
    assert shown["params"]["min_score"] == 0.75  # the agent's own
    hidden = 0
    for mine, whole in zip(shown["recalls"], every["recalls"], strict=True):
        below = [c for c in whole["compared"] if c["found"] == "memtui" and c["memtuiScore"] < 0.75]
        assert mine["hiddenBelowMinScore"] == len(below) and whole["hiddenBelowMinScore"] == 0
        assert mine["compared"] == [c for c in whole["compared"] if c not in below]  # "both" rows stay, whatever their score
        assert len(mine["memtui"]) == len(whole["memtui"]) - len(below)
        hidden += len(below)
    assert hidden > 0
    code, out, err = run(capsys, "recalls", "--agent", "main", "--provider", "none", "--db", str(tmp_path / "main.sqlite"))
    assert code == 0, err
    assert "only memtui returns below the agent's minScore 0.75 hidden: --all shows" in out
    code, out, err = run(capsys, "recalls", "--agent", "main", "--provider", "none", "--db", str(tmp_path / "main.sqlite"),
                         "--all")
    assert code == 0 and "hidden" not in out


def test_since_and_limit(oc, capsys, tmp_path):
    assert len(recalls_json(capsys, tmp_path, "main", "--limit", "1")["recalls"]) == 1
    assert recalls_json(capsys, tmp_path, "main", "--since", "2100-01-01")["recalls"] == []
    code, _, err = run(capsys, "recalls", "--agent", "main", "--since", "yesterday-ish")
    assert code == 2 and "is not a date like 2026-11-30" in err and "Traceback" not in err


def test_reading_changes_no_openclaw_file(oc, capsys, tmp_path):
    before = fingerprint(oc / "state")
    recalls_json(capsys, tmp_path)
    assert fingerprint(oc / "state") == before


# -- older installs: the transcripts -----------------------------------------------------------------

def test_without_recorded_searches_the_transcripts_memory_search_calls_are_used(oc, capsys, tmp_path):
    (oc / STATE_DB).unlink()
    data = recalls_json(capsys, tmp_path)
    assert data["source"] == "transcripts"
    asked = {t[2] for t in EXPECTED["agent_turns"] if t[0] == "main"}
    assert {r["query"] for r in data["recalls"]} == asked  # only the agent's tool calls: the CLI's are in no transcript
    assert all(r["openclaw"] for r in data["recalls"])  # the tool's answer, with its hits


def test_a_forgotten_sessions_searches_are_not_shown(oc, capsys, tmp_path):
    (oc / STATE_DB).unlink()
    db = oc / "state" / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    conn = sqlite.connect(db)
    sessions = [r[0] for r in conn.execute("SELECT DISTINCT session_id FROM transcript_events")]
    # what `openclaw memory forget --session` writes (2026.9.6's schema)
    conn.executemany("INSERT INTO memory_session_tombstones (session_id, agent_id, reason, created_at)"
                     " VALUES (?, 'main', 'forgotten', 0)", [(sid,) for sid in sessions])
    conn.commit()
    conn.close()
    assert recalls_json(capsys, tmp_path)["recalls"] == []


def test_jsonl_transcripts_of_an_older_install(oc, capsys, tmp_path):
    (oc / STATE_DB).unlink()
    call = {"type": "message", "timestamp": "2026-11-30T09:00:00.000Z", "message": {
        "role": "assistant", "content": [{"type": "toolCall", "id": "call_1", "name": "memory_search",
                                          "arguments": {"query": "backup restore drill"}}]}}
    answer = {"type": "message", "timestamp": "2026-11-30T09:00:01.000Z", "message": {
        "role": "toolResult", "toolCallId": "call_1", "toolName": "memory_search",
        "content": [{"type": "text", "text": json.dumps({"results": [
            {"path": "memory/2026-11-24.md", "startLine": 1, "endLine": 4, "score": 0.61, "source": "memory"}]})}]}}
    folder = oc / "state" / "agents" / "main" / "sessions"
    (folder / "old-session.jsonl").write_text("\n".join(json.dumps(e) for e in (call, answer)) + "\n", encoding="utf-8")
    data = recalls_json(capsys, tmp_path)
    drill = next(r for r in data["recalls"] if r["query"] == "backup restore drill")
    assert drill["openclaw"] == [{"path": "memory/2026-11-24.md", "startLine": 1, "endLine": 4, "score": 0.61}]
    assert drill["compared"][0]["found"] == "both"


# -- hostile states ----------------------------------------------------------------------------------------

def test_hostile_rows_are_shown_safely_and_never_opened(oc, capsys, tmp_path):
    key = workspace_keys(oc / "ws-main")[0]
    secret = tmp_path / "outside.md"
    secret.write_text("# outside\n\nnot the agent's\n", encoding="utf-8")
    add_events(oc, [
        ("memory-core", "memory-host.events", f"{key}:event:9:1",
         event("\x1b]52;c;evil\x07 \u202e" + "lag " * 3000, [
             {"path": str(secret), "startLine": 1, "endLine": 3, "score": 0.9},
             {"path": "../outside.md", "startLine": 1, "endLine": 3, "score": 0.8},
             {"path": "memory/2026-11-22.md", "startLine": 1, "endLine": 4, "score": 0.7}])),
        ("another-plugin", "memory-host.events", f"{key}:event:9:2", event("from another plugin", [])),
        ("memory-core", "something-else", f"{key}:event:9:3", event("another namespace", [])),
        ("memory-core", "memory-host.events", f"{key}:event:9:4", "{not json"),
        ("memory-core", "memory-host.events", f"{key}:event:9:5", json.dumps({"kind": "event", "event": {"type": 7}})),
    ])
    code, out, err = run(capsys, "recalls", "--agent", "main", "--provider", "none", "--db", str(tmp_path / "m.sqlite"))
    assert code == 0, err
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert "\\x1b]52" in out and "\\u202e" in out
    assert "from another plugin" not in out and "another namespace" not in out
    assert "(outside the workspace: not opened)" in out and "not the agent's" not in out
    data = recalls_json(capsys, tmp_path)
    hostile = data["recalls"][0]
    assert len(hostile["query"]) <= 2048
    assert [h.get("outside", False) for h in hostile["openclaw"]] == [True, True, False]
    assert [c["found"] for c in hostile["compared"][:2]] == ["openclaw", "openclaw"]  # never matched to a file


def test_a_state_without_the_events_table(oc, capsys, tmp_path):
    conn = sqlite.connect(oc / STATE_DB)
    conn.execute("DROP TABLE plugin_state_entries")
    conn.commit()
    conn.close()
    code, out, err = run(capsys, "recalls", "--agent", "main", "--provider", "none", "--db", str(tmp_path / "m.sqlite"),
                         "--json")
    assert code == 0
    assert "has no plugin_state_entries table" in err
    assert json.loads(out)["source"] == "transcripts"  # the agent's tool calls are still there


def test_a_state_database_that_is_not_sqlite(oc, capsys, tmp_path):
    (oc / STATE_DB).write_bytes(b"garbage" * 100)
    code, out, err = run(capsys, "recalls", "--agent", "main", "--provider", "none", "--db", str(tmp_path / "m.sqlite"))
    assert code == 0 and "is not an SQLite database" in err and "Traceback" not in err


def test_without_an_agent_one_line_says_what_to_do(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(tmp_path / "none"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "ws").mkdir()
    code, _, err = run(capsys, "recalls", "--workspace", str(tmp_path / "ws"), "--provider", "none",
                       "--db", str(tmp_path / "x.sqlite"))
    assert code == 2 and "pass --agent ID" in err


# -- the app -------------------------------------------------------------------------------------------------

def app_on_agent(tmp_path: Path):
    """The app as `memtui --agent main` opens it over the copied state (keywords only, its own index file)."""
    from openclaw_memtui.cli.parser import build_parser, load_cfg
    from openclaw_memtui.core.session import SessionOptions, open_session

    from .app_helpers import RecordingApp

    args = build_parser().parse_args(["search", "x", "--agent", "main", "--provider", "none",
                                      "--db", str(tmp_path / "app.sqlite")])
    return RecordingApp.from_session(open_session(SessionOptions.from_args(args), load_cfg(args)), watch=False)

async def test_agent_searches_screen_runs_a_query_with_openclaws_hits_marked_and_judged(oc, tmp_path):
    from openclaw_memtui.tui.screens.agent_searches import AgentSearchesScreen

    from .app_helpers import wait_for

    app = app_on_agent(tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        assert await wait_for(pilot, lambda: app.search_screen.recalls.recall_set is not None and not app.sync_running)
        hinted = lambda: any("Agent searches" in t and "searched its memory" in t for _, t in app.toasts)  # noqa: E731
        assert await wait_for(pilot, hinted)  # the first-run hint, with how often the agent searched
        await pilot.press("ctrl+o")
        assert isinstance(app.screen, AgentSearchesScreen)
        queries = [r.query for r in app.screen.found.recalls]
        assert "Kafka consumer lag" in queries
        for _ in range(queries.index("Kafka consumer lag")):
            await pilot.press("down")
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: app.search_screen.pool is not None
                              and app.search_screen.pool.query == "Kafka consumer lag"
                              and app.search_screen.results)
        listing = app.query_one("#results")
        marks = listing.openclaw
        assert marks and all(m.startswith("◆") for m in marks.values())
        top = next(r for r in app.search_screen.results if r.path == "memory/2026-11-22.md")
        assert marks[top.id] == "◆1"
        assert "OpenClaw" in str(app.query_one("#breakdown").render())  # its own score beside memtui's
        # judge OpenClaw's first hit relevant: stored like any judgement
        listing.highlighted = [r.id for r in app.search_screen.results].index(top.id)
        listing.focus()
        await pilot.press("plus")
        store = app.search_screen.judging.judgement_store.path
        assert await wait_for(pilot, lambda: store.exists() and "Kafka consumer lag" in store.read_text(encoding="utf-8"))
        saved = [json.loads(line) for line in store.read_text(encoding="utf-8").splitlines()]
        judged = next(j for j in saved if j["question"] == "Kafka consumer lag")
        assert judged["targets"][0]["path"] == "memory/2026-11-22.md"
    app.index.close()


async def test_agent_searches_name_the_conversation_a_search_was_asked_in_by_its_first_user_line(oc, tmp_path):
    """A search the agent ran inside a conversation said nothing of which one; its session is a UUID. The row
    names it as the result list names transcripts: by the conversation's first user line."""
    from openclaw_memtui.cli.parser import build_parser, load_cfg
    from openclaw_memtui.core.session import SessionOptions, open_session
    from openclaw_memtui.engine.search.titles import session_title
    from openclaw_memtui.tui.screens.agent_searches import AgentSearchesScreen

    from .app_helpers import RecordingApp, wait_for

    args = build_parser().parse_args(["search", "x", "--agent", "main", "--provider", "none",
                                      "--db", str(tmp_path / "app.sqlite")])
    session = open_session(SessionOptions.from_args(args), load_cfg(args))
    app = RecordingApp.from_session(session, watch=False)
    async with app.run_test(size=(160, 36)) as pilot:
        assert await wait_for(pilot, lambda: not app.sync_running and app.search_screen.recalls.titles)
        asked = {e.session for r in app.search_screen.recalls.recall_set.recalls for e in r.events if e.session}
        assert asked and set(app.search_screen.recalls.titles) <= asked
        session_id, title = next(iter(app.search_screen.recalls.titles.items()))
        first = app.index.reads().first_chunk_texts([f"sessions/main/{session_id}.jsonl"])
        assert title == session_title(next(iter(first.values())))  # the first user line, as the result list has it
        await pilot.press("ctrl+o")
        assert isinstance(app.screen, AgentSearchesScreen)
        listing = app.screen.query_one("#searches")
        rows = [str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count)]
        by_session = [r for r in app.screen.found.recalls if r.events[0].session == session_id]
        assert by_session and all(f"asked in “{title}”" in rows[app.screen.found.recalls.index(r)] for r in by_session)
        assert not any(session_id in row for row in rows)
        others = [n for n, r in enumerate(app.screen.found.recalls) if not r.events[0].session]
        assert all("asked in" not in rows[n] for n in others)  # OpenClaw's own records name no conversation
    session.close()


async def test_a_hit_only_openclaw_returned_is_listed_to_judge_and_the_preset_says_what_it_approximates(oc, tmp_path):
    from openclaw_memtui.engine.textutil import sha256_hex

    from .app_helpers import wait_for

    # the agent asked about Kafka and OpenClaw also returned the TLS note, which no keyword of the query matches
    key = workspace_keys(oc / "ws-main")[0]
    add_events(oc, [("memory-core", "memory-host.events", f"{key}:event:9:1", event("Kafka consumer lag", [
        {"path": "memory/2026-11-22.md", "startLine": 1, "endLine": 5, "score": 0.79},
        {"path": "memory/2026-11-26.md", "startLine": 1, "endLine": 4, "score": 0.41}]))])
    app = app_on_agent(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        assert await wait_for(pilot, lambda: app.search_screen.recalls.recall_set is not None and not app.sync_running)
        app.query_one("#query").value = "Kafka consumer lag"
        # the empty query browsed first, and the browse list holds that note too: wait for the search's
        assert await wait_for(pilot, lambda: app.search_screen.pool is not None
                              and app.search_screen.pool.query == "Kafka consumer lag"
                              and any(r.path == "memory/2026-11-26.md" for r in app.search_screen.results))
        extra = next(r for r in app.search_screen.results if r.path == "memory/2026-11-26.md")
        assert extra.rank == 0 and app.query_one("#results").openclaw[extra.id] == "◆2"
        listing = app.query_one("#results")
        listing.highlighted = [r.id for r in app.search_screen.results].index(extra.id)
        listing.focus()
        await pilot.pause()
        pane = str(app.query_one("#breakdown").render())
        assert "memtui ranks it nowhere" in pane and "0.410" in pane
        await pilot.press("plus")
        store = app.search_screen.judging.judgement_store.path
        assert await wait_for(pilot, lambda: store.exists() and "2026-11-26" in store.read_text(encoding="utf-8"))
        target = json.loads(store.read_text(encoding="utf-8").splitlines()[0])["targets"][0]
        chunk_text = next(c for c in app.index.reads().chunks_at([("memory/2026-11-26.md", 1, 4)]).values()).text
        assert (target["path"], target["hash"]) == ("memory/2026-11-26.md", sha256_hex(chunk_text))
        # the metric now counts the agent's question: OpenClaw's hit is a target memtui misses
        assert await wait_for(pilot, lambda: app.search_screen.judging.metric_view.judged == 1)
        app.search_screen.apply_preset("openclaw-2026")
        await pilot.pause()
        note = str(app.query_one("#preset-note").render())
        assert "approximates OpenClaw 2026.9" in note and "importance" in note
    app.index.close()


def test_a_note_openclaw_recorded_under_a_keys_name_is_masked_as_memtuis_own_hits_are(oc, capsys, tmp_path):
    """`memtui search` shows a note named after a token as `memory/[redacted].md`; the same note in
    OpenClaw's recorded answer came out of `memtui recalls` whole (and, named differently from memtui's
    masked hit, was listed as found by OpenClaw only)."""
    token = "ghp_" + "Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8"
    (oc / "ws-main" / "memory" / f"{token}.md").write_text("# Kafka\n- Kafka consumer lag alarm rota\n", encoding="utf-8")
    key = workspace_keys(oc / "ws-main")[0]
    add_events(oc, [("memory-core", "memory-host.events", f"{key}:event:9:1", event("Kafka consumer lag alarm rota", [
        {"path": f"memory/{token}.md", "startLine": 1, "endLine": 2, "score": 0.79}]))])
    data = recalls_json(capsys, tmp_path)
    code, plain, err = run(capsys, "recalls", "--agent", "main", "--provider", "none", "--db", str(tmp_path / "main.sqlite"))
    assert code == 0 and token[4:14] not in json.dumps(data) + plain + err
    recall = next(r for r in data["recalls"] if r["query"] == "Kafka consumer lag alarm rota")
    assert recall["openclaw"][0]["path"] == "memory/[redacted].md"
    assert recall["compared"][0]["found"] == "both"  # the same note on both sides


async def test_the_agent_searches_screen_masks_a_note_openclaw_recorded_under_a_keys_name(oc, tmp_path):
    """The app read OpenClaw's recorded hits raw: a note named after a token showed whole in the list
    and its ◆ mark missed memtui's (masked) hit of the same note."""

    from .app_helpers import wait_for

    token = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"
    (oc / "ws-main" / "memory" / f"{token}.md").write_text("# Kafka\n- Kafka consumer lag alarm rota\n", encoding="utf-8")
    key = workspace_keys(oc / "ws-main")[0]
    add_events(oc, [("memory-core", "memory-host.events", f"{key}:event:9:1", event("Kafka consumer lag alarm rota", [
        {"path": f"memory/{token}.md", "startLine": 1, "endLine": 3, "score": 0.79}]))])
    app = app_on_agent(tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        assert await wait_for(pilot, lambda: app.search_screen.recalls.recall_set is not None and not app.sync_running)
        recall = next(r for r in app.search_screen.recalls.recall_set.recalls if r.query == "Kafka consumer lag alarm rota")
        assert [h.path for h in recall.hits] == ["memory/[redacted].md"]
        assert token[4:14] not in repr(app.search_screen.recalls.recall_set)
        query = app.query_one("#query")
        query.value = "Kafka consumer lag alarm rota"
        app.search_screen.start_search()
        assert await wait_for(pilot, lambda: app.search_screen.pool is not None and app.search_screen.pool.query == query.value
                              and app.search_screen.results)
        mine = next(r for r in app.search_screen.results if r.path == "memory/[redacted].md")
        assert app.query_one("#results").openclaw.get(mine.id) == "◆1"  # the same note on both sides
    app.index.close()
