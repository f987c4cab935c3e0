"""memtui's own record of the searches it answers to agents (core/search_log.py), and how `memtui recalls`
and the Agent searches screen show them: as memtui's answers, never as OpenClaw's."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from openclaw_memtui.cli.main import main as memtui_main
from openclaw_memtui.core import search_log
from openclaw_memtui.core.search_log import log_path, read_searches, record_search
from openclaw_memtui.interop.recall_transcripts import transcript_recalls
from openclaw_memtui.interop.recalls import Recall, RecallEvent

from .gate_helpers import GH_TOKEN, INLINE_TOKEN, QUERY, make_hostile_state
from .test_gate import no_secret, plugin
from .test_plugin_server import start_server, stop


def test_a_plugin_search_is_recorded_privately_masked_and_shown_as_memtuis(tmp_path, monkeypatch, capsys):
    root = make_hostile_state(tmp_path, monkeypatch)
    sock = tmp_path / "run" / "main.sock"
    proc = start_server(sock)
    try:
        plugin(sock, "memory_search", {"query": f"{QUERY} {INLINE_TOKEN}", "minScore": 0}, sessionKey="agent:main:main")
    finally:
        stop(proc)
    folder = os.path.join(os.environ["MEMTUI_DATA_DIR"], search_log.FOLDER)  # conftest's private data dir
    files = os.listdir(folder)
    assert len(files) == 1 and files[0].startswith("main-") and files[0].endswith(".jsonl")
    path = os.path.join(folder, files[0])
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700 and stat.S_IMODE(os.stat(path).st_mode) == 0o600
    text = Path(path).read_text(encoding="utf-8")
    assert INLINE_TOKEN not in text and GH_TOKEN not in text  # the query as transcripts mask it; paths masked
    entry = json.loads(text)
    assert entry["frontEnd"] == "plugin" and entry["agent"] == "main" and entry["query"].startswith(QUERY)
    assert {"path", "startLine", "endLine", "score", "source"} == set(entry["hits"][0])
    assert "snippet" not in text  # the record keeps places, not the text
    assert not any(search_log.FOLDER in str(p) for p in (root / "state").rglob("*"))  # never in OpenClaw's files

    assert memtui_main(["recalls", "--agent", "main", "--provider", "none", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    mine = [r for r in shown["recalls"] if r["query"].startswith(QUERY)]
    assert len(mine) == 1 and mine[0]["answeredBy"] == "memtui" and mine[0]["frontEnd"] == "plugin"
    assert mine[0]["openclaw"] == [] and mine[0]["answered"]  # memtui's answer, not in OpenClaw's column
    assert "memtui" in shown["source"]
    assert memtui_main(["recalls", "--agent", "main", "--provider", "none"]) == 0
    out = capsys.readouterr().out
    no_secret(out)  # memtui's ranking now passes the gate too: the notes named after keys read [redacted]
    line = next(x for x in out.splitlines() if x.startswith(f"“{QUERY}"))
    assert line.endswith("answered by memtui (plugin)")
    block = out.split(line, 1)[1].split("\n\n", 1)[0]
    assert "OpenClaw" not in block and "then" in block


def test_the_record_is_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(search_log, "MAX_BYTES", 4000)
    monkeypatch.setattr(search_log, "KEEP_RECORDS", 5)
    path = tmp_path / "data" / "agent-searches" / "main-x.jsonl"
    for n in range(60):
        record_search(path, agent_id="main", front_end="mcp", query=f"question {n}",
                      hits=[{"path": "MEMORY.md", "startLine": 1, "endLine": 2, "score": 0.5, "source": "memory"}],
                      now_ms=1_796_000_000_000 + n)
    assert path.stat().st_size <= 4000 + 400
    got = read_searches(path)
    assert 5 <= len(got) <= 30 and got[-1].query == "question 59"  # the newest kept, oldest dropped
    assert all(e.engine == "memtui" and e.front_end == "mcp" for e in got)
    assert not list(path.parent.glob("*.trim"))


def test_reading_skips_what_is_not_a_record(tmp_path):
    path = tmp_path / "r.jsonl"
    good = {"v": 1, "ts": 1_796_000_000_000, "query": "ok", "hits": [], "frontEnd": "plugin"}
    path.write_bytes(b"\xff\xfe not utf-8\n" + b"[1,2]\n" + json.dumps({**good, "ts": 1e300}).encode() + b"\n"
                     + json.dumps({**good, "ts": "yesterday"}).encode() + b"\n" + json.dumps({**good, "v": 2}).encode()
                     + b"\n" + json.dumps(good).encode() + b"\n")
    got = read_searches(path)
    assert [(e.query, e.engine) for e in got] == [("ok", "memtui")]


def test_log_path_is_in_memtuis_data_dir_per_agent_and_workspace(tmp_path):
    a, b = log_path(tmp_path / "ws1", "main"), log_path(tmp_path / "ws2", "main")
    assert a != b and a.parent == b.parent and a.parent.name == "agent-searches"
    assert str(a).startswith(os.environ["MEMTUI_DATA_DIR"])
    assert log_path(tmp_path, "../../etc").name.startswith("_")  # an odd id never leaves the folder


def test_a_transcript_answer_memtui_gave_is_memtuis():
    call = {"type": "message", "timestamp": "2026-11-30T22:00:00Z", "message": {"role": "assistant", "content": [
        {"type": "toolCall", "id": "c1", "name": "memory_search", "arguments": {"query": "heron"}}]}}
    answer = {"results": [{"path": "MEMORY.md", "startLine": 1, "endLine": 2, "score": 0.4}], "engine": "memtui"}

    def result(text):
        return {"type": "message", "message": {"role": "toolResult", "toolCallId": "c1",
                                               "content": [{"type": "text", "text": text}]}}

    ours = list(transcript_recalls([json.dumps(call), json.dumps(result(json.dumps(answer)))]))
    theirs = list(transcript_recalls([json.dumps(call), json.dumps(result(json.dumps({**answer, "engine": "x"})))]))
    wrapped = json.dumps({"tool": "memory_search", "result": {"content": [{"type": "text", "text": json.dumps(answer)}]}})
    through_tool_call = list(transcript_recalls([json.dumps(call), json.dumps(result(wrapped))]))
    assert [e.engine for e in ours + theirs + through_tool_call] == ["memtui", "openclaw", "memtui"]


def test_the_agent_searches_screen_never_marks_memtuis_answers_as_openclaws():
    from openclaw_memtui.tui.screens.agent_searches import OPENCLAW_GLYPH, recall_row

    mine = Recall("heron", [RecallEvent("heron", 1_796_000_000_000, (), "memtui", engine="memtui", front_end="plugin")])
    theirs = Recall("heron", [RecallEvent("heron", 1_796_000_000_000, (), "event")])
    assert "memtui answered 0 via plugin" in str(recall_row(mine, 100)) and OPENCLAW_GLYPH not in str(recall_row(mine, 100))
    assert "OpenClaw returned 0" in str(recall_row(theirs, 100))


def test_a_query_asked_before_and_after_connect_is_listed_once_per_engine():
    # before connect memory-core answered it (OpenClaw's record), after connect memtui did (twice): memtui's
    # answers never hide OpenClaw's, and OpenClaw's answer is never counted as memtui's
    from openclaw_memtui.interop.recalls import RecallHit, RecallSet, group

    hit = RecallHit("MEMORY.md", 1, 2, 0.5)
    theirs = RecallEvent("heron", 1_796_000_000_000, (hit,), "event")
    mine = [RecallEvent("heron", 1_796_000_100_000 + n, (), "memtui", engine="memtui", front_end="plugin")
            for n in range(2)]
    recalls = group([theirs, *mine])
    assert [(r.engine, len(r.events)) for r in recalls] == [("memtui", 2), ("openclaw", 1)]
    assert recalls[1].hits == (hit,)
    # the Agent searches screen marks OpenClaw's hits for the question: the OpenClaw-answered group
    assert RecallSet(recalls, "events", []).by_question()["heron"].engine == "openclaw"
