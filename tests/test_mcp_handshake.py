"""`memtui mcp` answers `initialize` before the MCP SDK has loaded, with the answer the SDK itself gave
(learnt once, kept privately, dropped when the SDK or memtui changes); the SDK's own answer to that
request never reaches the client a second time, and the session goes on as before."""

from __future__ import annotations

import json
import stat
import subprocess
import sys

import pytest

from openclaw_memtui.mcp import handshake
from openclaw_memtui.mcp.handshake import Handshake, parse_initialize

from .helpers import env_for_subprocess
from .test_mcp import REPO, keyword_args


def initialize(request_id, version="2025-06-18") -> str:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})


def session(tmp_path, workspace, lines: list[str], until_id) -> tuple[list[dict], str]:
    """One server process: send `lines`, read answers until `until_id` is answered, then close."""
    env = env_for_subprocess() | {"MEMTUI_CACHE_DIR": str(tmp_path / "cache")}  # nothing learnt by other tests
    proc = subprocess.Popen([sys.executable, "-m", "openclaw_memtui", "mcp", *keyword_args(tmp_path, workspace)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=REPO)
    proc.stdin.write(("\n".join(lines) + "\n").encode())
    proc.stdin.flush()
    answers = []
    while not answers or answers[-1].get("id") != until_id:
        answers.append(json.loads(proc.stdout.readline()))
    proc.stdin.close()
    answers += [json.loads(line) for line in proc.stdout.read().splitlines() if line.strip()]
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0, err
    return answers, err


def test_the_second_start_answers_initialize_before_the_sdk_and_only_once(tmp_path, workspace):
    listing = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    initialized = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})
    first, err = session(tmp_path, workspace, [initialize(1), initialized, listing], 2)
    assert "answered initialize before the SDK loaded" not in err  # nothing learnt yet: the SDK answered
    kept = tmp_path / "cache" / handshake.CACHE_NAME
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    second, err = session(tmp_path, workspace, [initialize(1), initialized, listing], 2)
    assert "answered initialize before the SDK loaded" in err
    assert [a["id"] for a in second] == [1, 2]  # the SDK's own answer to request 1 was dropped
    assert second[0] == first[0]  # the same answer the SDK gave
    assert {t["name"] for t in second[1]["result"]["tools"]} == {"memory_search", "memory_get"}


@pytest.fixture
def learnt(tmp_path):
    """A Handshake that learnt the SDK's answer, and a function giving the SDK's answer to any request."""
    from mcp.server import Server
    from mcp.server.runner import ServerRunner

    from openclaw_memtui.mcp.server import INSTRUCTIONS, _version

    server = Server("memtui", version=_version(), instructions=INSTRUCTIONS)
    runner = ServerRunner(server, None, None)

    def sdk(request):
        result = runner._handle_initialize(request["params"])
        return {"jsonrpc": "2.0", "id": request["id"],
                "result": result.model_dump(by_alias=True, exclude_none=True, mode="json")}

    shake = Handshake(tmp_path)
    shake.learn(sdk(json.loads(initialize(1))))
    return shake, sdk


@pytest.mark.parametrize("version", ["2024-11-05", "2025-06-18", "2025-11-25", "1999-01-01", "not a date"])
def test_the_early_answer_is_the_sdks_for_every_protocol_version(learnt, tmp_path, version):
    shake, sdk = learnt
    request = parse_initialize(initialize("r-7", version))
    fresh = Handshake(tmp_path)  # as the next process reads it
    assert json.loads(fresh.answer(request)) == sdk(request)


def test_a_changed_sdk_or_memtui_forgets_the_answer(learnt, tmp_path, monkeypatch):
    real = handshake._stamp()
    moved = {**real, "files": {**real["files"], "server": [1, 2, 3]}}  # memtui's server.py was edited
    monkeypatch.setattr(handshake, "_stamp", lambda: moved)
    assert Handshake(tmp_path).answer(parse_initialize(initialize(1))) is None


@pytest.mark.parametrize("line", [
    "not json", "[" + initialize(1) + "]", initialize(True), initialize(1.5),
    json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}}),
    json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
    json.dumps({"jsonrpc": "1.0", "id": 1, "method": "initialize", "params": json.loads(initialize(1))["params"]}),
])
def test_only_a_well_formed_initialize_is_answered_early(line):
    assert parse_initialize(line) is None
