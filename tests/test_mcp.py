"""`memtui mcp` as agents meet it: a real server subprocess on stdio, driven by the MCP SDK's own client."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from openclaw_memtui.cli.main import main as memtui_main
from openclaw_memtui.core.settings_io import save_to_config
from openclaw_memtui.engine.search.rank import SearchParams

from . import test_openclaw_2026 as oc2026
from .fake_api import FakeAPI
from .helpers import env_for_subprocess, transcript, write
from .test_openclaw_2026 import SESSION_MAIN, _append_turn, std_sqlite

copied_openclaw_state = oc2026.oc  # that module's `oc` fixture (a private copy of a real 2026.9 state), reused

REPO = Path(__file__).resolve().parents[1]


@asynccontextmanager
async def server(tmp_path: Path, *argv: str, env: dict[str, str] | None = None):
    """A ClientSession to `python -m openclaw_memtui mcp ARGV`; the server's stderr goes to tmp/stderr.txt."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "openclaw_memtui", "mcp", *argv],
                                   env=env or env_for_subprocess(), cwd=str(REPO))
    with open(tmp_path / "stderr.txt", "a", encoding="utf-8") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write_stream), ClientSession(read, write_stream) as session:
            await session.initialize()
            yield session


async def call(session: ClientSession, tool: str, **arguments) -> dict:
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, result.content[0].text
    return json.loads(result.content[0].text)


async def refused(session: ClientSession, tool: str, **arguments) -> str:
    result = await session.call_tool(tool, arguments)
    assert result.is_error
    return result.content[0].text


def keyword_args(tmp_path: Path, ws: Path) -> list[str]:
    return ["--workspace", str(ws), "--provider", "none", "--db", str(tmp_path / "i.sqlite")]


async def test_lists_both_tools_with_descriptions_and_schemas(tmp_path, workspace):
    async with server(tmp_path, *keyword_args(tmp_path, workspace)) as s:
        tools = {t.name: t for t in (await s.list_tools()).tools}
    assert set(tools) == {"memory_search", "memory_get"}
    assert "before answering" in tools["memory_search"].description  # tells an agent when to call it
    assert "memory_search" in tools["memory_get"].description
    assert tools["memory_search"].input_schema["required"] == ["query"]
    assert set(tools["memory_get"].input_schema["properties"]) == {"path", "from", "lines", "offset"}
    assert tools["memory_get"].annotations.read_only_hint is True


async def test_search_answers_with_openclaws_fields_breakdown_and_time_window(tmp_path, workspace):
    async with server(tmp_path, *keyword_args(tmp_path, workspace)) as s:
        answer = await call(s, "memory_search", query="Zebra memory line")
        dated = await call(s, "memory_search", query="what did we ship on 2026-11-02", minScore=0)
    top = answer["results"][0]
    assert (top["path"], top["startLine"], top["source"]) == ("memory/2026-11-01.md", 1, "memory")
    assert {"endLine", "score", "snippet"} <= set(top) and "Zebra" in top["snippet"]
    assert top["breakdown"]["text"] > 0 and top["breakdown"]["vector"] is None and top["breakdown"]["rank"] == 1
    assert answer["mode"] == "keyword" and answer["timeWindow"] is None
    assert dated["timeWindow"]["start"] == "2026-11-02" == dated["timeWindow"]["end"]
    assert dated["results"][0]["path"] == "memory/2026-11-02-deploy.md"


async def test_search_ranks_with_the_saved_settings_and_rereads_them_after_a_save(tmp_path, workspace):
    for day in range(10, 14):
        write(workspace / "memory" / f"2026-11-{day}.md", f"# Day {day}\nWe tasted green tea number {day}.\n")
    config = tmp_path / "config.toml"
    save_to_config(SearchParams(max_results=1, min_score=0.0), config)  # what the tuning panel's Save writes
    async with server(tmp_path, *keyword_args(tmp_path, workspace), "--config", str(config)) as s:
        first = await call(s, "memory_search", query="green tea")
        save_to_config(SearchParams(max_results=3, min_score=0.0, mmr=False), config)
        second = await call(s, "memory_search", query="green tea")
        asked = await call(s, "memory_search", query="green tea", maxResults=2)
    assert len(first["results"]) == 1 and first["settings"]["maxResults"] == 1
    assert len(second["results"]) == 3 and second["settings"]["maxResults"] == 3 and second["settings"]["mmr"] is False
    assert len(asked["results"]) == 2  # an agent's maxResults wins over the saved one


async def test_an_explicit_min_score_is_a_floor_and_zero_scores_never_come_back(tmp_path, workspace):
    write(workspace / "memory" / "2026-11-03.md", "# Market\nWe bought a kiwi and some mangoes.\n")
    config = tmp_path / "config.toml"
    # the saved settings keep the keyword rescue on (memtui's default); a floor of 0 lets a dated note far
    # outside a query's time window score ~0 (1.25 * 0.5^150), which only the rescue would bring back
    save_to_config(SearchParams(min_score=0.35, keyword_rescue=True, time_floor=0.0), config)
    async with server(tmp_path, *keyword_args(tmp_path, workspace), "--config", str(config)) as s:
        default = await call(s, "memory_search", query="kiwi")
        floored = await call(s, "memory_search", query="kiwi", minScore=1)
        half = await call(s, "memory_search", query="kiwi mangoes oolong", minScore=0.5)
        far = await call(s, "memory_search", query="kiwi on 2025-06-01")
    assert [r["path"] for r in default["results"]] == ["memory/2026-11-03.md"]  # the note is found...
    assert floored["results"] == []  # ...but scores below the floor the agent asked for
    assert half["results"] and all(r["score"] >= 0.5 for r in half["results"])
    assert far["timeWindow"] is not None and far["results"] == []  # its score would read 0.0


async def test_a_note_written_while_serving_is_found_by_the_next_search(tmp_path, workspace):
    async with server(tmp_path, *keyword_args(tmp_path, workspace)) as s:
        assert (await call(s, "memory_search", query="quokka"))["results"] == []
        write(workspace / "memory" / "2026-11-05.md", "# Zoo\nWe adopted a quokka named Biscuit.\n")
        answer = await call(s, "memory_search", query="quokka")
    assert [r["path"] for r in answer["results"]] == ["memory/2026-11-05.md"] and answer["warnings"] == []


async def test_a_search_that_cannot_wait_for_the_sync_answers_with_a_warning(tmp_path, workspace):
    async with server(tmp_path, *keyword_args(tmp_path, workspace), "--sync-wait", "0") as s:
        early = await call(s, "memory_search", query="oolong tea")
    assert any("still syncing" in w for w in early["warnings"])


async def test_get_reads_a_slice_of_a_memory_file_and_a_masked_transcript(tmp_path, workspace):
    transcript(workspace / "sessions" / "s2.jsonl", [("user", "my key is sk-abcdefghijklmnopqrstuvwx1234"),
                                                     ("assistant", "Noted, I will not repeat it.")])
    async with server(tmp_path, *keyword_args(tmp_path, workspace)) as s:
        note = await call(s, "memory_get", path="MEMORY.md", **{"from": 3, "lines": 2})
        whole = await call(s, "memory_get", path="./memory/projects/../2026-11-01.md")
        chat = await call(s, "memory_get", path="sessions/s2.jsonl", **{"from": 2, "lines": 1})
        past_end = await call(s, "memory_get", path="MEMORY.md", **{"from": 50})
    assert note["text"] == "The user prefers oolong tea.\nDatabase: PostgreSQL 16." and note["lineNumbers"] == [3, 4]
    assert whole["path"] == "memory/2026-11-01.md" and whole["text"].startswith("# Log\nAlpha memory line.")
    assert chat["lineNumbers"] == [2] and chat["text"].startswith("User: my key is sk-")  # JSONL line 2, as results cite
    assert "abcdefghijklmnopqrstuvwx1234" not in chat["text"]  # masked as the index masks it
    assert past_end["text"] == "" and past_end["totalLines"] == 5


async def test_a_note_the_index_skips_as_not_utf8_is_refused_by_get_too(tmp_path, workspace):
    (workspace / "memory" / "badutf.md").write_bytes(b"# Latin-1\ncaf\xe9 with the walrus team\n")
    async with server(tmp_path, *keyword_args(tmp_path, workspace)) as s:
        found = await call(s, "memory_search", query="walrus team", minScore=0)
        refusal = await refused(s, "memory_get", path="memory/badutf.md")
    assert found["results"] == []
    assert "'memory/badutf.md' is not valid UTF-8 (byte 13)" in refusal and "save it as UTF-8" in refusal


async def test_a_deleted_workspace_is_a_warning_not_a_silent_empty_answer(tmp_path, workspace):
    async with server(tmp_path, *keyword_args(tmp_path, workspace)) as s:
        before = await call(s, "memory_search", query="oolong tea")
        shutil.rmtree(workspace)
        after = await call(s, "memory_search", query="oolong tea")
    assert before["results"] and not any("not found" in w for w in before["warnings"])
    assert after["results"] == [] and any(f"workspace {workspace} not found" in w for w in after["warnings"])


async def test_get_refuses_everything_but_this_workspaces_memory(tmp_path, workspace):
    write(tmp_path / "outside" / "secret.md", "TOP SECRET outside the workspace\n")
    write(workspace / "AGENTS.md", "# Agents\nnot a memory file\n")
    write(workspace / "memory" / "notes.txt", "not markdown\n")
    os.symlink(tmp_path / "outside" / "secret.md", workspace / "memory" / "link.md")
    os.symlink(tmp_path / "outside", workspace / "memory" / "linked-dir")
    async with server(tmp_path, *keyword_args(tmp_path, workspace)) as s:
        answers = [await refused(s, "memory_get", path=p) for p in (
            "memory/../../outside/secret.md", "../outside/secret.md", str(tmp_path / "outside" / "secret.md"),
            "memory/link.md", "memory/linked-dir/secret.md", "AGENTS.md", "memory/notes.txt", "/etc/passwd",
            "sessions/../../outside/secret.md", "memory/no-such-note.md")]
        still_serving = await call(s, "memory_get", path="MEMORY.md", lines=1)
    assert all("not a memory file, transcript or extra path" in a for a in answers)
    assert not any("TOP SECRET" in a for a in answers)
    assert still_serving["text"] == "# Memory"


async def test_bad_arguments_are_tool_errors_that_say_what_to_pass(tmp_path, workspace):
    async with server(tmp_path, *keyword_args(tmp_path, workspace)) as s:
        missing = await refused(s, "memory_search")
        typed = await refused(s, "memory_search", query="tea", maxResults="ten")
        ranged = await refused(s, "memory_search", query="tea", minScore=2)
        unknown = await refused(s, "memory_search", query="tea", max_results=3)
        bad_from = await refused(s, "memory_get", path="MEMORY.md", **{"from": 0})
        no_tool = await refused(s, "memory_delete", path="MEMORY.md")
        after = await call(s, "memory_search", query="oolong tea")
    assert "needs 'query'" in missing
    assert "'maxResults' must be a whole number" in typed
    assert "'minScore' must be between 0 and 1" in ranged
    assert "no argument 'max_results'" in unknown and "maxResults" in unknown
    assert "'from' must be at least 1, got 0" in bad_from
    assert "memory_delete" in no_tool
    assert after["results"][0]["path"] == "MEMORY.md"  # the server is still there


def test_a_range_message_names_only_the_bounds_there_are_and_a_huge_number_briefly():
    from openclaw_memtui.core.tools import BadArguments, check_arguments

    def refusal(tool: str, **arguments) -> str:
        with pytest.raises(BadArguments) as caught:
            check_arguments(tool, arguments)
        return str(caught.value)

    assert refusal("memory_get", path="MEMORY.md", **{"from": -5}) == "memory_get: 'from' must be at least 1, got -5"
    huge = refusal("memory_search", query="tea", maxResults=1e308)  # a JSON number a client may send
    assert huge.startswith("memory_search: 'maxResults' must be between 1 and 100, got 100000000000… (309 digits)")
    assert refusal("memory_search", query="tea", minScore=-0.5) == (
        "memory_search: 'minScore' must be between 0 and 1, got -0.5")


async def test_a_failing_provider_leaves_a_keyword_search_with_a_warning_and_no_key(tmp_path, workspace):
    api = FakeAPI("openai")
    api.script = [(500, {}, {"error": "internal error"}, 0)] * 50
    key = "sk-live-do-not-print-0123456789"
    write(workspace / "memory" / "keys.md", f"# Keys\nThe staging deploy token is {key} (rotate monthly).\n")
    config = write(tmp_path / "config.toml", f'provider = "openai"\n[remote]\nbaseUrl = "{api.url}/v1"\n'
                                             f'apiKey = "{key}"\nmaxRetries = 0\n')
    try:
        async with server(tmp_path, "--workspace", str(workspace), "--db", str(tmp_path / "i.sqlite"),
                          "--config", str(config)) as s:
            result = await s.call_tool("memory_search", {"query": "oolong tea"})
            quoted = await s.call_tool("memory_search", {"query": "staging deploy token"})
            note = await s.call_tool("memory_get", {"path": "memory/keys.md"})
    finally:
        api.close()
    answer = json.loads(result.content[0].text)
    assert answer["mode"] == "keyword" and answer["results"][0]["path"] == "MEMORY.md"
    assert any(w.startswith("keyword-only") for w in answer["warnings"])
    assert api.requests  # the provider was really tried
    assert key not in result.content[0].text and key not in (tmp_path / "stderr.txt").read_text(encoding="utf-8")
    # a note quoting the configured key: found, and the key itself replaced
    assert "The staging deploy token is [redacted]" in json.loads(quoted.content[0].text)["results"][0]["snippet"]
    assert key not in str(quoted.structured_content) and key not in quoted.content[0].text
    assert "[redacted]" in json.loads(note.content[0].text)["text"] and key not in str(note.structured_content)


async def test_secrets_in_notes_are_masked_in_snippets_and_reads_as_in_transcripts(tmp_path, workspace):
    key = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
    jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    pem_body = "MIIEowIBAAKCAQEA7bq98fakefakefakefakefakefakefake"
    write(workspace / "memory" / "creds.md",
          f"# Staging credentials\nOpenAI key {key} for the pelican bot.\nAuthorization: Bearer {jwt}\n"
          f"-----BEGIN RSA PRIVATE KEY-----\n{pem_body}\n{pem_body}\n{pem_body}\n-----END RSA PRIVATE KEY-----\n"
          "Pelican bot owner: Dana.\n")
    async with server(tmp_path, *keyword_args(tmp_path, workspace)) as s:
        found = await s.call_tool("memory_search", {"query": "pelican bot staging credentials"})
        read = await s.call_tool("memory_get", {"path": "memory/creds.md"})
    for result in (found, read):
        for shown in (result.content[0].text, json.dumps(result.structured_content)):
            assert key not in shown and jwt not in shown and pem_body not in shown
    snippet = json.loads(found.content[0].text)["results"][0]["snippet"]
    assert "OpenAI key sk-pro" in snippet and "pelican bot" in snippet  # masked in place, the rest kept
    got = json.loads(read.content[0].text)
    lines = got["text"].split("\n")
    assert len(lines) == len(got["lineNumbers"]) == got["totalLines"]  # still line for line with the file
    assert lines[2].startswith("Authorization: Bearer ") and lines[8] == "Pelican bot owner: Dana."


def test_masking_a_note_keeps_it_line_for_line_when_the_redactor_adds_or_removes_lines():
    from openclaw_memtui.engine.served import mask_note

    empty_block = "x\n-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----\ny"  # the redactor adds a marker line
    long_block = "-----BEGIN PRIVATE KEY-----\n" + "MIIEabcdefghijklmnop\n" * 5 + "-----END PRIVATE KEY-----\nz"
    for text in (empty_block, long_block):
        masked = mask_note(text)
        assert len(masked.split("\n")) == len(text.split("\n")) and "MIIEabcdefghijklmnop" not in masked
        assert masked.split("\n")[-1] == text.split("\n")[-1]


async def test_a_provider_that_hangs_costs_a_search_embed_wait_not_the_turn(tmp_path, workspace):
    api = FakeAPI("openai")
    config = write(tmp_path / "config.toml", f'provider = "openai"\n[remote]\nbaseUrl = "{api.url}/v1"\n'
                                             'apiKey = "sk-test-0123456789"\nmaxRetries = 0\ntimeoutSeconds = 30\n')
    argv = ["--workspace", str(workspace), "--db", str(tmp_path / "i.sqlite"), "--config", str(config)]
    try:
        assert memtui_main(["index", *argv]) == 0  # a healthy provider first: the index gets its vectors
        api.script = [(None, {}, None, 8)] * 10  # then every answer takes 8 s
        async with server(tmp_path, *argv, "--embed-wait", "0.5") as s:
            slow = await call(s, "memory_search", query="oolong tea")
            again = await call(s, "memory_search", query="canary build")
    finally:
        api.close()
    assert slow["mode"] == "keyword" and slow["results"][0]["path"] == "MEMORY.md"
    assert "did not answer within 0.5s" in " ".join(slow["warnings"])
    assert again["mode"] == "keyword" and "still answering an earlier query" in " ".join(again["warnings"])


async def test_an_openclaw_2026_agents_live_transcripts_are_served_masked(copied_openclaw_state, tmp_path):
    oc = copied_openclaw_state
    db_file = oc / "state" / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    conn = std_sqlite.connect(db_file)
    _append_turn(conn, SESSION_MAIN.split("/")[-1].removesuffix(".jsonl"), "Deploy key ghp_abcdefghijklmnopqrstuvwxyz0123456789")
    conn.commit()
    conn.close()
    env = env_for_subprocess() | {"OPENCLAW_STATE_DIR": str(oc / "state"), "HOME": str(tmp_path / "home")}
    async with server(tmp_path, "--agent", "main", "--provider", "none", "--db", str(tmp_path / "m.sqlite"), env=env) as s:
        hits = await call(s, "memory_search", query="replication quota Frankfurt")
        hit = hits["results"][0]
        chat = await call(s, "memory_get", path=hit["path"], **{"from": hit["startLine"],
                                                                  "lines": hit["endLine"] - hit["startLine"] + 1})
        tail = await call(s, "memory_get", path=SESSION_MAIN, **{"from": 11})
        other_agent = await refused(s, "memory_get", path=SESSION_MAIN.replace("/main/", "/research/"))
    assert hit["path"] == SESSION_MAIN and hit["source"] == "sessions"
    assert "Frankfurt" in chat["text"] and chat["lineNumbers"][0] >= hit["startLine"]
    assert tail["text"].startswith("User: Deploy key ghp_") and "abcdefghijklmnopqrstuvwxyz0123456789" not in tail["text"]
    assert "not a memory file" in other_agent


def test_nothing_but_protocol_reaches_stdout(tmp_path):
    """The stdio guard: after it, print, a C-level write to fd 1 and a child process all land on stderr."""
    probe = ("import os, subprocess, sys\n"
             "from openclaw_memtui.mcp.server import claim_stdio\n"
             "wire_in, wire_out = claim_stdio()\n"
             "print('stray print')\n"
             "os.write(1, b'stray fd write\\n')\n"
             "subprocess.run(['echo', 'stray child'])\n"
             "wire_out.write(wire_in.readline()); wire_out.flush()\n")
    out = subprocess.run([sys.executable, "-c", probe], input=b'{"jsonrpc":"2.0"}\n', capture_output=True,
                         env=env_for_subprocess(), cwd=REPO, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout == b'{"jsonrpc":"2.0"}\n'
    assert b"stray print" in out.stderr and b"stray fd write" in out.stderr and b"stray child" in out.stderr


def test_a_line_the_sdk_cannot_parse_is_logged_and_answered_when_its_id_is_readable(tmp_path, workspace):
    """The SDK drops such lines silently; the client would wait for ever for request 7's answer."""
    proc = subprocess.Popen([sys.executable, "-m", "openclaw_memtui", "mcp", *keyword_args(tmp_path, workspace)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env_for_subprocess(), cwd=REPO)
    surrogate = ('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"memory_search",'
                 '"arguments":{"query":"\\ud800 tea"}}}')
    init = json.dumps({"jsonrpc": "2.0", "id": 8, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    proc.stdin.write(f"this is not json\n{surrogate}\n{init}\n".encode())
    proc.stdin.flush()
    answers = {}
    while 8 not in answers:  # request 8 is answered after 7: its line was read after
        answer = json.loads(proc.stdout.readline())
        answers[answer["id"]] = answer
    proc.stdin.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0
    assert answers[7]["error"]["code"] == -32700 and "cannot read this request" in answers[7]["error"]["message"]
    assert "result" in answers[8]  # the server went on serving
    dropped = [line for line in err.splitlines() if "dropped a message that is not valid JSON-RPC" in line]
    assert len(dropped) == 2 and "answered request 7" in dropped[1] and "ud800" not in err


def test_a_request_whose_id_the_sdk_cannot_keep_is_answered_not_taken_for_a_notification(tmp_path, workspace):
    """The SDK read `"id": {"a": 1}` (or 1.5, null, true) as a notification: no answer, no word, and
    the client waited for ever. JSON-RPC answers it with an error whose id is null."""
    proc = subprocess.Popen([sys.executable, "-m", "openclaw_memtui", "mcp", *keyword_args(tmp_path, workspace)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env_for_subprocess(), cwd=REPO)
    bad_ids = ['{"a":1}', "1.5", "null", "true"]
    lines = [f'{{"jsonrpc":"2.0","id":{bad},"method":"ping"}}' for bad in bad_ids]
    init = json.dumps({"jsonrpc": "2.0", "id": 8, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    initialized = '{"jsonrpc":"2.0","method":"notifications/initialized"}'  # a real notification: no answer
    proc.stdin.write("\n".join([*lines, init, initialized, '{"jsonrpc":"2.0","id":9,"method":"ping"}', ""]).encode())
    proc.stdin.flush()
    answers = []
    while not answers or answers[-1].get("id") != 9:
        line = proc.stdout.readline()
        assert line, proc.stderr.read().decode()[-2000:]
        answers.append(json.loads(line))
    proc.stdin.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0, err[-2000:]
    refused_ = [a for a in answers if a["id"] is None]
    assert len(refused_) == len(bad_ids) and len(answers) == len(bad_ids) + 2
    assert all(a["error"]["code"] == -32600 and "string or a whole number" in a["error"]["message"] for a in refused_)
    assert err.count("dropped a request whose id is not a string or a whole number") == len(bad_ids)


def test_a_request_nested_too_deeply_for_pythons_parser_is_answered_and_the_server_goes_on(tmp_path, workspace):
    """100k nested brackets: the SDK refuses the line, and reading its id with `json.loads` raised
    RecursionError, which killed the stdin reader: no later request was ever answered."""
    proc = subprocess.Popen([sys.executable, "-m", "openclaw_memtui", "mcp", *keyword_args(tmp_path, workspace)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env_for_subprocess(), cwd=REPO)
    deep = "[" * 100_000 + "]" * 100_000
    nested = ('{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{"name":"memory_get",'
              f'"arguments":{{"path":{deep}}}}}}}')
    init = json.dumps({"jsonrpc": "2.0", "id": 8, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    proc.stdin.write(f"{nested}\n{init}\n".encode())
    proc.stdin.flush()
    answers = {}
    while 8 not in answers:
        line = proc.stdout.readline()
        assert line, proc.stderr.read().decode()[-2000:]  # the server stopped answering
        answer = json.loads(line)
        answers[answer["id"]] = answer
    proc.stdin.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0, err[-2000:]
    assert "cannot read this request" in answers["deep"]["error"]["message"]
    assert "result" in answers[8] and "Traceback" not in err


def test_the_id_of_a_deeply_nested_line_is_read_from_its_top_level_only():
    from openclaw_memtui.mcp.server import _request_id

    deep = "[" * 50_000 + "]" * 50_000
    assert _request_id('{"jsonrpc":"2.0","params":{"id":5,"x":' + deep + '},"method":"m","id":"a\\"b"}') == 'a"b'
    assert _request_id('{"jsonrpc":"2.0","method":"m","id":3,"p":' + deep + "}") == 3
    assert _request_id('{"jsonrpc":"2.0","id":4,"p":' + deep + "}") is None  # a response: no answer
    assert _request_id('{"method":"m","p":"id:","q":' + deep + "}") is None  # "id:" is a value, not a key
    assert _request_id(deep) is None


def test_a_bad_agent_is_one_line_on_stderr_before_any_protocol(tmp_path):
    out = subprocess.run([sys.executable, "-m", "openclaw_memtui", "mcp", "--agent", "nobody", "--provider", "none"],
                         input=b"", capture_output=True, env=env_for_subprocess(), cwd=REPO, timeout=60)
    assert out.returncode == 2 and out.stdout == b""
    assert out.stderr.decode().startswith("memtui: error:") and "nobody" in out.stderr.decode()
    assert len(out.stderr.decode().strip().splitlines()) == 1


@pytest.mark.parametrize("flag, value", [("--sync-wait", "inf"), ("--embed-wait", "1e300"), ("--sync-wait", "nan"),
                                         ("--embed-wait", "-1"), ("--sync-wait", "3601")])
def test_a_wait_that_is_not_a_sane_number_of_seconds_is_refused_before_any_protocol(tmp_path, workspace, flag, value):
    out = subprocess.run([sys.executable, "-m", "openclaw_memtui", "mcp", *keyword_args(tmp_path, workspace), flag, value],
                         input=b"", capture_output=True, env=env_for_subprocess(), cwd=REPO, timeout=60)
    err = out.stderr.decode()
    assert out.returncode == 2 and out.stdout == b""
    assert err.startswith("memtui: error:") and flag in err and "between 0 and 3600 seconds" in err
    assert len(err.strip().splitlines()) == 1


# -- a live OpenClaw --------------------------------------------------------------------------------------

def _private_openclaw(tmp_path: Path, live_state: Path) -> dict[str, str]:
    """A copy of a make-state.sh state as the default ~/.openclaw of a private HOME, and `memtui` on
    PATH running this checkout: OpenClaw starts MCP servers with a bare environment (HOME, PATH)."""
    root = live_state.parent
    home = tmp_path / "home"
    state = home / ".openclaw"
    shutil.copytree(live_state, state, symlinks=True, ignore=shutil.ignore_patterns("*.lock", "tmp"))
    for ws in root.glob("ws-*"):
        shutil.copytree(ws, tmp_path / ws.name, symlinks=True)
    cfg = state / "openclaw.json"
    text = cfg.read_text(encoding="utf-8").replace(f"{live_state}/", f"{state}/").replace(f"{root}/", f"{tmp_path}/")
    cfg.write_text(text, encoding="utf-8")
    bin_dir = tmp_path / "bin"
    write(bin_dir / "memtui", f"#!/bin/sh\nPYTHONPATH={REPO} exec {sys.executable} -m openclaw_memtui \"$@\"\n")
    (bin_dir / "memtui").chmod(0o755)
    env = env_for_subprocess() | {"HOME": str(home), "OPENCLAW_STATE_DIR": str(state), "OPENCLAW_HIDE_BANNER": "1",
                                  "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    env.pop("OPENCLAW_CONFIG_PATH", None)
    return env


@pytest.mark.skipif(shutil.which("openclaw") is None or not os.environ.get("OPENCLAW_STATE_DIR_LIVE"),
                    reason="needs `openclaw` on PATH and OPENCLAW_STATE_DIR_LIVE pointing at a make-state.sh state")
def test_live_openclaw_registers_and_probes_the_server(tmp_path):
    """Run with: source ROOT/env.sh; OPENCLAW_STATE_DIR_LIVE=$OPENCLAW_STATE_DIR pytest tests/test_mcp.py -n0
    (the state is copied: the live one is never changed)."""
    live = Path(os.environ["OPENCLAW_STATE_DIR_LIVE"])
    before = (live / "openclaw.json").read_bytes()
    env = _private_openclaw(tmp_path, live)
    added = subprocess.run(["openclaw", "mcp", "add", "memtui", "--command", "memtui", "--arg", "mcp", "--arg", "--agent",
                            "--arg", "main"], capture_output=True, text=True, env=env, timeout=300)
    assert added.returncode == 0, added.stderr
    assert 'Saved MCP server "memtui"' in added.stdout
    probe = subprocess.run(["openclaw", "mcp", "probe", "memtui", "--json"], capture_output=True, text=True, env=env,
                           timeout=300)
    assert probe.returncode == 0, probe.stderr
    report = json.loads(probe.stdout)
    assert report["servers"]["memtui"]["tools"] == 2
    assert sorted(report["tools"]) == ["memtui__memory_get", "memtui__memory_search"]
    assert (live / "openclaw.json").read_bytes() == before


async def test_a_tool_that_fails_logs_its_traceback_without_the_key_it_quotes(tmp_path, workspace):
    """The server logged an unexpected tool failure with log.exception: the traceback went to stderr raw."""
    key = "sk-live-do-not-print-0123456789"
    probe = ("import sys\n"
             "from openclaw_memtui.core.tools import MemoryTools\n"
             "def call(self, tool, arguments):\n"
             f"    raise RuntimeError('upstream refused https://api.example/v1?key={key} \\x1b]0;pwned\\x07')\n"
             "MemoryTools.call = call\n"
             "from openclaw_memtui.cli.main import main\n"
             "sys.exit(main(['mcp', *sys.argv[1:]]))\n")
    params = StdioServerParameters(command=sys.executable, args=["-c", probe, *keyword_args(tmp_path, workspace)],
                                   env=env_for_subprocess(), cwd=str(REPO))
    with open(tmp_path / "stderr.txt", "w", encoding="utf-8") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write_stream), ClientSession(read, write_stream) as s:
            await s.initialize()
            text = await refused(s, "memory_search", query="tea")
    assert text.startswith("memory_search failed: upstream refused") and key not in text
    err = (tmp_path / "stderr.txt").read_text(encoding="utf-8")
    assert "memtui mcp: ERROR tool 'memory_search' failed\nTraceback (most recent call last):" in err
    assert "RuntimeError: upstream refused https://api.example/v1?key=[redacted] \\x1b]0;pwned\\x07" in err
    assert key not in err and "\x1b" not in err and "\x07" not in err
