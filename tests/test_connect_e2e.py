"""End to end with the real OpenClaw 2026.9.6: `memtui connect --agent main` (OpenClaw itself confirms
the plugin resolves), then real `openclaw agent --local` turns whose model calls
`tool_call {"id": "memory_search"}`: the connected agent is answered by memtui (its breakdown), the
other agent by OpenClaw's own memory-core, and both keep the system prompt's Memory Recall section;
with `memory.search.enabled: false` the connected agent gets no memtui answer; after `memtui
disconnect` memory-core answers again.

Slow (each turn takes a minute or more on a loaded 2-core machine), so it runs only when asked:
MEMTUI_E2E_OPENCLAW=<a folder made by shared/openclaw-real/make-state.sh>, with `openclaw` and
node on PATH (`source ROOT/env.sh`); it skips cleanly otherwise. The state is copied first; the
folder itself is not changed."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .helpers import env_for_subprocess

ROOT = os.environ.get("MEMTUI_E2E_OPENCLAW")
TOOL_SERVER = Path("/work/shared/openclaw-real/tool_chat_server.py")
pytestmark = pytest.mark.skipif(
    not ROOT or shutil.which("openclaw") is None or shutil.which("node") is None or not TOOL_SERVER.exists(),
    reason="needs MEMTUI_E2E_OPENCLAW=<make-state.sh folder>, openclaw and node on PATH")

PLAN = json.dumps([{"tool": "tool_call", "args": {"id": "memory_search", "args": {"query": "Kafka consumer lag"}}}])


def free(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


def turn(env: dict[str, str], port: int, log: Path, agent: str = "main") -> list[dict]:
    server = subprocess.Popen([sys.executable, str(TOOL_SERVER), str(port), str(log)], env=env | {"FAKE_PLAN": PLAN})
    try:
        deadline = time.monotonic() + 30
        while free(port):
            assert time.monotonic() < deadline, "the fake model did not start"
            time.sleep(0.05)
        subprocess.run(["openclaw", "agent", "--local", "--agent", agent, "--message", "Where is the Kafka lag note?",
                        "--json"], env=env, capture_output=True, timeout=1200, stdin=subprocess.DEVNULL)
    finally:
        server.terminate()
        server.wait(timeout=10)
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def memtui(env: dict[str, str], *argv: str) -> str:
    done = subprocess.run([sys.executable, "-m", "openclaw_memtui", *argv], env=env, capture_output=True, text=True,
                          timeout=600, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    return done.stdout


def tool_answer(requests: list[dict]) -> dict:
    answer: dict = json.loads(requests[-1]["tool_results"][-1])
    return answer


def test_connected_agent_searches_with_memtui_beside_memory_core(tmp_path):
    state = tmp_path / "state"
    shutil.copytree(Path(ROOT) / "state", state, symlinks=True)
    env = env_for_subprocess() | {"OPENCLAW_STATE_DIR": str(state), "OPENCLAW_HIDE_BANNER": "1",
                                  "HOME": str(Path(ROOT) / "home")}
    config_file = state / "openclaw.json"
    base_url = json.loads(config_file.read_text(encoding="utf-8"))["models"]["providers"]["fake"]["baseUrl"]
    port = int(base_url.rsplit(":", 1)[1].split("/")[0])
    if not free(port):
        pytest.skip(f"port {port} of the state's fake model is in use")

    out = memtui(env, "connect", "--agent", "main")
    assert "OpenClaw confirms" in out and "plugins.slots.memory" not in out
    assert "connected: memory_search answers from memtui" in memtui(env, "agents")
    requests = turn(env, port, tmp_path / "connected.jsonl")
    assert all(r["memory_recall_prompt"] for r in requests)
    answer = tool_answer(requests)
    assert answer["tool"]["id"] == "openclaw:memtui-memory:memory_search"
    result = json.loads(answer["result"]["content"][0]["text"])
    assert result["engine"] == "memtui" and result["results"][0]["breakdown"]["rank"] == 1
    assert "Kafka" in result["results"][0]["snippet"]

    requests = turn(env, port, tmp_path / "other.jsonl", agent="research")  # not connected: memory-core answers
    assert all(r["memory_recall_prompt"] for r in requests)
    assert tool_answer(requests)["tool"]["id"] == "openclaw:memory-core:memory_search"

    cfg = json.loads(config_file.read_text(encoding="utf-8"))
    cfg["agents"]["entries"]["main"].setdefault("memory", {}).setdefault("search", {})["enabled"] = False
    config_file.write_text(json.dumps(cfg, indent=2), encoding="utf-8")
    requests = turn(env, port, tmp_path / "off.jsonl")  # memory search off: memtui answers nothing either
    assert "memtui-memory" not in json.dumps(requests[-1].get("tool_results") or [])
    cfg["agents"]["entries"]["main"]["memory"]["search"].pop("enabled")
    config_file.write_text(json.dumps(cfg, indent=2), encoding="utf-8")

    assert "plugins.entries.memtui-memory: removed" in memtui(env, "disconnect", "--agent", "main")
    requests = turn(env, port, tmp_path / "disconnected.jsonl")
    answer = tool_answer(requests)
    assert answer["tool"]["id"] == "openclaw:memory-core:memory_search"
    assert "breakdown" not in answer["result"]["content"][0]["text"]
