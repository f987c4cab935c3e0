"""One bad row of OpenClaw's `memory-host.events` (a time of 1e308, a lone surrogate, bytes that are not
UTF-8, a bit-rotted page) is skipped and counted, never the whole read: `memtui recalls` and the app's
Agent searches show every other search, and say in one line what was skipped or damaged."""

from __future__ import annotations

import json

import pytest

from openclaw_memtui.interop.recalls import MAX_TIME_MS, parse_event_row, parse_query, parse_time_ms, workspace_keys

from .test_recalls import STATE_DB, add_events, app_on_agent, event, oc, run, sqlite  # noqa: F401  (oc: the fixture)

GOOD = "Kafka consumer lag"  # one of the fixture's real recorded searches


def recalls(capsys, tmp_path, *extra: str) -> tuple[int, str, str]:
    return run(capsys, "recalls", "--agent", "main", "--provider", "none", "--db", str(tmp_path / "m.sqlite"), *extra)


def key_of(root) -> str:
    return workspace_keys(root / "ws-main")[0]


def add_raw(root, entry_key: str, value: bytes) -> None:
    """A row whose value_json holds these exact bytes as TEXT (how a bad disk or another writer leaves it)."""
    conn = sqlite.connect(root / STATE_DB)
    conn.execute("INSERT INTO plugin_state_entries (plugin_id, namespace, entry_key, value_json, created_at)"
                 " VALUES ('memory-core', 'memory-host.events', ?, CAST(? AS TEXT), 0)", (entry_key, value))
    conn.commit()
    conn.close()


def test_bad_rows_are_skipped_counted_and_the_rest_shown(oc, capsys, tmp_path):  # noqa: F811
    key = key_of(oc)
    add_events(oc, [
        ("memory-core", "memory-host.events", f"{key}:event:9:1", event("a huge time", [], ts=1e308)),
        ("memory-core", "memory-host.events", f"{key}:event:9:2", event("a huge negative time", [], ts=-1e308)),
        ("memory-core", "memory-host.events", f"{key}:event:9:3", json.dumps({"kind": "event", "event": {
            "type": "memory.recall.recorded", "timestamp": "2026-12-24T10:00:00Z", "query": 42}})),
        ("memory-core", "memory-host.events", f"{key}:event:9:4", "{not json"),
        # not a search: OpenClaw's other events are no fault, never counted
        ("memory-core", "memory-host.events", f"{key}:event:9:5", json.dumps({"kind": "event", "event": {
            "type": "memory.dream.completed", "timestamp": "2026-12-24T10:00:00Z"}})),
    ])
    add_raw(oc, f"{key}:event:9:6", event("not utf-8 here", []).encode("utf-8").replace(b" here", b" \xff\xfe"))
    for extra in ((), ("--json",)):
        code, out, err = recalls(capsys, tmp_path, *extra)
        assert code == 0, err
        assert GOOD in out and "huge" not in out and "not utf-8" not in out
        assert err.count("\n") == 1 and "skipped 5 recorded searches" in err
    data = json.loads(recalls(capsys, tmp_path, "--json")[1])
    assert all(t.startswith("20") for r in data["recalls"] for t in r["timestamps"])


def test_a_lone_surrogate_in_a_query_or_path_is_shown_not_fatal(oc, capsys, tmp_path):  # noqa: F811
    key = key_of(oc)
    add_events(oc, [("memory-core", "memory-host.events", f"{key}:event:9:1",
                     event("emoji cut \ud83d", [{"path": "memory/\udc80.md", "startLine": 1, "endLine": 2,
                                                  "score": 0.5}]))])
    code, out, err = recalls(capsys, tmp_path)
    assert code == 0 and err == "", err
    assert "emoji cut \ufffd" in out and GOOD in out
    assert "(outside the workspace: not opened)" in out  # a path no file can have: never opened
    code, out, _ = recalls(capsys, tmp_path, "--json")
    hit = next(r for r in json.loads(out)["recalls"] if r["query"].startswith("emoji cut"))
    assert hit["query"] == "emoji cut \ufffd" and hit["openclaw"][0]["outside"] is True


def test_a_bit_rotted_page_is_one_line_about_damage(oc, capsys, tmp_path):  # noqa: F811
    key = key_of(oc)
    add_events(oc, [("memory-core", "memory-host.events", f"{key}:event:9:{n:03}",
                     event(f"private question {n} " + "words " * 60, [])) for n in range(80)])
    db = oc / STATE_DB
    conn = sqlite.connect(db)
    try:
        leaves = [p for (p,) in conn.execute("SELECT pageno FROM dbstat WHERE name = 'plugin_state_entries'"
                                             " AND pagetype = 'leaf' ORDER BY pageno")]
    except sqlite.OperationalError:
        pytest.skip("this SQLite has no dbstat table")
    (page_size,) = conn.execute("PRAGMA page_size").fetchone()
    conn.close()
    assert len(leaves) > 3
    data = bytearray(db.read_bytes())
    data[(leaves[-1] - 1) * page_size] = 0x42  # no b-tree page type: SQLite calls the file malformed
    db.write_bytes(bytes(data))
    for extra in ((), ("--json",)):
        code, out, err = recalls(capsys, tmp_path, *extra)
        assert code == 0 and "Traceback" not in err and "Error" not in err
        assert err.count("\n") == 1 and "may be corrupt" in err and str(db) in err
        assert "private question" not in err  # the damaged row's words are never quoted


def test_non_utf8_text_in_a_page_names_no_row_text(oc, capsys, tmp_path):  # noqa: F811
    """Bit rot inside the text of every recorded search: each row is skipped and counted."""
    db = oc / STATE_DB
    data = bytearray(db.read_bytes())
    at = 0
    flipped = 0
    while (at := data.find(b'"query":"', at + 1)) >= 0:
        data[at + 10] |= 0x80  # a byte of the query turned into a stray continuation byte
        flipped += 1
    db.write_bytes(bytes(data))
    code, out, err = recalls(capsys, tmp_path, "--json")
    assert code == 0 and flipped and "skipped" in err and err.count("\n") == 1
    assert json.loads(out)["source"] == "transcripts"  # the agent's tool calls are still read


def test_times_no_calendar_holds_are_no_time():
    assert parse_time_ms(1e308) is None and parse_time_ms(-1) is None and parse_time_ms(float("inf")) is None
    assert parse_time_ms(MAX_TIME_MS) == MAX_TIME_MS and parse_time_ms(MAX_TIME_MS + 1) is None
    assert parse_time_ms("0001-01-01T00:00:00Z") is None
    assert parse_time_ms("2026-12-24T10:00:00Z") == 1798106400000.0
    assert parse_query("a \ud800 b") == "a \ufffd b"
    row = event("q", [], ts=None)  # no time at all: OpenClaw's recordedAt, as before
    assert parse_event_row(row) is not None


async def test_agent_searches_open_with_bad_rows_and_say_what_was_skipped(oc, tmp_path):  # noqa: F811
    from openclaw_memtui.tui.screens.agent_searches import AgentSearchesScreen

    from .app_helpers import wait_for

    key = key_of(oc)
    add_events(oc, [
        ("memory-core", "memory-host.events", f"{key}:event:9:1", event("a huge time", [], ts=1e308)),
        ("memory-core", "memory-host.events", f"{key}:event:9:2", event("lone \udfff here", [])),
    ])
    app = app_on_agent(tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        assert await wait_for(pilot, lambda: app.search_screen.recalls.recall_set is not None and not app.sync_running)
        await pilot.press("ctrl+o")
        assert isinstance(app.screen, AgentSearchesScreen)
        queries = [r.query for r in app.screen.found.recalls]
        assert GOOD in queries and "lone \ufffd here" in queries and "a huge time" not in queries
        about = str(app.screen.query_one("#searches-about").render())
        assert "skipped 1 recorded search" in about
        await pilot.press("escape")
        assert app.is_running
    app.index.close()


def test_a_transcript_row_that_is_not_utf8_hides_only_itself(oc, capsys, tmp_path):  # noqa: F811
    """The agent database's transcript rows are read one by one: a row of bad bytes was the whole database
    "cannot be read", and every memory_search call of every session was gone."""
    conn = sqlite.connect(oc / STATE_DB)
    conn.execute("DELETE FROM plugin_state_entries")  # only the transcripts tell the agent's searches
    conn.commit()
    conn.close()
    agent_db = oc / "state" / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    conn = sqlite.connect(agent_db)
    conn.execute("UPDATE transcript_events SET event_json = CAST(X'7b2274797065223a22ff227d' AS TEXT) WHERE seq = 0")
    conn.commit()
    conn.close()
    code, out, err = recalls(capsys, tmp_path, "--json")
    assert code == 0 and err == "", err
    data = json.loads(out)
    assert data["source"] == "transcripts" and "staging TLS certificate" in [r["query"] for r in data["recalls"]]
