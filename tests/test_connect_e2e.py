"""End to end with the real OpenClaw 2026.9.6: `memtui connect --agent main` (OpenClaw itself confirms
the plugin resolves), then real `openclaw agent` turns (embedded `--local`, and through `openclaw gateway
run`) whose model calls `tool_call {"id": "memory_search"}` / `memory_get`:

- the connected agent is answered by memtui, the other agent by OpenClaw's own memory-core, and both keep
  the system prompt's Memory Recall section; `memtui recalls` lists memtui's answers as memtui's;
- with `memory.search.enabled: false` the agent is offered no memory tool at all, memtui's included;
- OpenClaw's session visibility (`tools.sessions.visibility`) withholds another session's transcript from
  memtui's answer as it does from memory-core's, the requesting session's own transcript never comes back,
  a sandboxed request is clamped to `tree`, hits carry memory-core's `provenance`, `memory_get` of a
  transcript is refused with memory-core's code, and `openclaw memory forget` removes a session from the
  very next answer;
- after `memtui disconnect` memory-core answers again.

Slow (a turn takes 10-60 s on a loaded 2-core machine), so it runs only when asked:
MEMTUI_E2E_OPENCLAW=<a folder made by shared/openclaw-real/make-state.sh>, with `openclaw` and node on
PATH (`source ROOT/env.sh`); it skips cleanly otherwise. The whole folder (state, home, workspaces) is
copied and every path in the copy's openclaw.json pointed at the copy, with free ports for the fake model
and the gateway: the folder itself is never written."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from .helpers import env_for_subprocess

ROOT = os.environ.get("MEMTUI_E2E_OPENCLAW")
# the kit's fake model that makes tool calls (shared/openclaw-real/tool_chat_server.py beside make-state.sh)
TOOL_SERVER = Path(os.environ.get("MEMTUI_E2E_TOOL_SERVER") or "/work/shared/openclaw-real/tool_chat_server.py")
pytestmark = pytest.mark.skipif(
    not ROOT or shutil.which("openclaw") is None or shutil.which("node") is None or not TOOL_SERVER.exists(),
    reason="needs MEMTUI_E2E_OPENCLAW=<make-state.sh folder>, openclaw and node on PATH")

# make-state.sh's main agent has one earlier conversation (session key agent:main:main) that asked this
QUERY = "Grafana dashboard invoice latency"


def search(query: str = QUERY) -> dict[str, Any]:
    return {"tool": "tool_call", "args": {"id": "memory_search", "args": {"query": query}}}


def get(path: str) -> dict[str, Any]:
    return {"tool": "tool_call", "args": {"id": "memory_get", "args": {"path": path}}}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


@dataclass
class Live:
    """A private copy of a make-state.sh folder and how to drive OpenClaw and memtui on it."""

    root: Path
    env: dict[str, str]
    model_port: int
    gateway_port: int

    @property
    def config_file(self) -> Path:
        return self.root / "state" / "openclaw.json"

    def config(self) -> dict[str, Any]:
        cfg: dict[str, Any] = json.loads(self.config_file.read_text(encoding="utf-8"))
        return cfg

    def save(self, cfg: dict[str, Any]) -> None:
        self.config_file.write_text(json.dumps(cfg, indent=2), encoding="utf-8")

    def set_visibility(self, value: str) -> None:
        cfg = self.config()
        cfg.setdefault("tools", {}).setdefault("sessions", {})["visibility"] = value
        self.save(cfg)

    def turn(self, log: Path, plan: list[dict[str, Any]], *, agent: str = "main", key: str | None = None,
             gateway: bool = False) -> list[dict[str, Any]]:
        """One real agent turn against the fake model that makes `plan`'s calls: the model's request log."""
        server = subprocess.Popen([sys.executable, str(TOOL_SERVER), str(self.model_port), str(log)],
                                  env=self.env | {"FAKE_PLAN": json.dumps(plan)})
        try:
            deadline = time.monotonic() + 30
            while not listening(self.model_port):
                assert server.poll() is None and time.monotonic() < deadline, "the fake model did not start"
                time.sleep(0.05)
            argv = ["openclaw", "agent", *([] if gateway else ["--local"]), "--agent", agent,
                    "--message", "Where is the Grafana dashboard for invoice latency?", "--json"]
            if key:
                argv += ["--session-key", key]
            done = subprocess.run(argv, env=self.env, capture_output=True, text=True, timeout=1200,
                                  stdin=subprocess.DEVNULL)
            assert done.returncode == 0, done.stderr[-2000:]
        finally:
            server.terminate()
            server.wait(timeout=10)
        return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]

    def memtui(self, *argv: str) -> str:
        done = subprocess.run([sys.executable, "-m", "openclaw_memtui", *argv], env=self.env, capture_output=True,
                              text=True, timeout=600, stdin=subprocess.DEVNULL)
        assert done.returncode == 0, done.stderr
        return done.stdout

    def openclaw(self, *argv: str) -> str:
        done = subprocess.run(["openclaw", *argv], env=self.env, capture_output=True, text=True, timeout=600,
                              stdin=subprocess.DEVNULL)
        assert done.returncode == 0, done.stderr[-2000:]
        return done.stdout

    def session_id(self, key: str) -> str:
        """The session id OpenClaw's session store gives `key` (an agent main session)."""
        import sqlite3

        db = self.root / "state" / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            row = con.execute("SELECT current_session_id FROM session_nodes WHERE session_key = ?", (key,)).fetchone()
        finally:
            con.close()
        assert row and row[0], f"OpenClaw has no session {key}"
        return str(row[0])

    def ask_memtui(self, request: dict[str, Any]) -> dict[str, Any]:
        """One request on the plugin's wire to the `memtui serve` connect set up (as the plugin sends it)."""
        path = self.config()["plugins"]["entries"]["memtui-memory"]["config"]["server"]["socket"]
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(60)
            s.connect(path)
            s.sendall((json.dumps({"v": 1} | request) + "\n").encode())
            data = b""
            while not data.endswith(b"\n"):
                chunk = s.recv(1 << 16)
                assert chunk, "memtui closed the connection without an answer"
                data += chunk
        reply: dict[str, Any] = json.loads(data)
        assert reply.get("ok") is True, reply
        result: dict[str, Any] = reply["result"]
        return result


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Live]:
    assert ROOT is not None
    root = tmp_path / "oc"
    shutil.copytree(ROOT, root, symlinks=True)
    cfg_file = root / "state" / "openclaw.json"
    # every absolute path (workspaces, agent dirs) at the copy, so no turn writes the original folder
    text = cfg_file.read_text(encoding="utf-8").replace(str(Path(ROOT).resolve()), str(root)).replace(ROOT, str(root))
    cfg = json.loads(text)
    model_port, gateway_port = free_port(), free_port()
    cfg["models"]["providers"]["fake"]["baseUrl"] = f"http://127.0.0.1:{model_port}/v1"
    cfg["gateway"]["port"] = gateway_port
    cfg_file.write_text(json.dumps(cfg, indent=2), encoding="utf-8")
    os.chmod(cfg_file, 0o600)
    env = env_for_subprocess() | {"OPENCLAW_STATE_DIR": str(root / "state"), "OPENCLAW_HIDE_BANNER": "1",
                                  "HOME": str(root / "home")}
    for key in ("OPENCLAW_CONFIG_PATH", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        env.pop(key, None)
    state = Live(root, env, model_port, gateway_port)
    yield state
    # leave no `memtui serve` behind (disconnect stops it); nothing to do when the test disconnected
    if "memtui-memory" in json.dumps(state.config().get("plugins", {})):
        subprocess.run([sys.executable, "-m", "openclaw_memtui", "disconnect", "--agent", "main"], env=env,
                       capture_output=True, timeout=600, stdin=subprocess.DEVNULL)


def tool_answers(requests: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """(resolved tool id, the tool's JSON answer) for every tool result the model saw in the turn."""
    out = []
    for raw in requests[-1].get("tool_results") or []:
        answer = json.loads(raw)
        tool = answer.get("tool")  # {"id": ...} when OpenClaw resolved it, the bare tool name in an error
        out.append((tool.get("id", "") if isinstance(tool, dict) else str(tool), answer))
    return out


def payload(answer: dict[str, Any]) -> dict[str, Any]:
    inner: dict[str, Any] = json.loads(answer["result"]["content"][0]["text"])
    return inner


def session_paths(result: dict[str, Any]) -> set[str]:
    return {h["path"] for h in result.get("results", []) if h.get("source") == "sessions"}


def test_connected_agent_searches_with_memtui_beside_memory_core(live: Live, tmp_path: Path) -> None:
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"  # a GitHub token's shape, as a note's file name
    (live.root / "ws-main" / "memory" / f"{token}.md").write_text("# Rota\n\nThe zebrafish rota is kept by Ilse.\n",
                                                                  encoding="utf-8")
    out = live.memtui("connect", "--agent", "main")
    assert "OpenClaw confirms" in out and "plugins.slots.memory" not in out
    assert "connected: memory_search answers from memtui" in live.memtui("agents")
    requests = live.turn(tmp_path / "connected.jsonl", [search("zebrafish rota"), search("Kafka consumer lag")])
    assert all(r["memory_recall_prompt"] for r in requests)
    [(_, masked), (tool, answer)] = tool_answers(requests)
    # the key in the note's name is masked in every field the agent gets (path, citation, snippet)
    assert token not in json.dumps(requests) and "ghp_" not in json.dumps(payload(masked))
    assert payload(masked)["results"][0]["path"] == "memory/[redacted].md"
    assert tool == "openclaw:memtui-memory:memory_search"
    result = payload(answer)
    assert result["engine"] == "memtui" and result["results"][0]["breakdown"]["rank"] == 1
    assert "Kafka" in result["results"][0]["snippet"]

    requests = live.turn(tmp_path / "other.jsonl", [search()], agent="research")  # not connected: memory-core
    assert all(r["memory_recall_prompt"] for r in requests)
    assert tool_answers(requests)[0][0] == "openclaw:memory-core:memory_search"

    # memtui's answers are listed as memtui's, never in an OpenClaw column
    recalls = json.loads(live.memtui("recalls", "--agent", "main", "--json"))["recalls"]
    [kafka] = [r for r in recalls if r["query"] == "Kafka consumer lag"]
    assert kafka["answeredBy"] == "memtui" and kafka["frontEnd"] == "plugin" and kafka["openclaw"] == []
    assert kafka["answered"][0]["path"] == result["results"][0]["path"]

    cfg = live.config()
    cfg["agents"]["entries"]["main"].setdefault("memory", {}).setdefault("search", {})["enabled"] = False
    live.save(cfg)
    requests = live.turn(tmp_path / "off.jsonl", [search(), get("MEMORY.md")])  # off: no memory tool at all
    assert not any(r["memory_recall_prompt"] for r in requests)
    answers = tool_answers(requests)
    assert [a["error"].split(".")[0] for _, a in answers] == ["Unknown tool id: memory_search",
                                                              "Unknown tool id: memory_get"]
    # and memtui answers nothing either, should a search reach it on the plugin's wire (as memory-core's
    # {"disabled": true} answer)
    off = live.ask_memtui({"op": "memory_search", "agent": "main", "args": {"query": QUERY},
                           "sessionKey": "agent:main:main", "sandboxed": False})
    assert off["disabled"] is True and off["results"] == [], off
    assert "memory.search.enabled is false" in json.dumps(off)
    cfg["agents"]["entries"]["main"]["memory"]["search"].pop("enabled")
    live.save(cfg)

    assert "plugins.entries.memtui-memory: removed" in live.memtui("disconnect", "--agent", "main")
    requests = live.turn(tmp_path / "disconnected.jsonl", [search("Kafka consumer lag")])
    [(tool, answer)] = tool_answers(requests)
    assert tool == "openclaw:memory-core:memory_search"
    assert "breakdown" not in answer["result"]["content"][0]["text"]


def test_gateway_turns_get_each_agent_its_engine(live: Live, tmp_path: Path) -> None:
    live.memtui("connect", "--agent", "main")
    log = (tmp_path / "gateway.log").open("w")
    gateway = subprocess.Popen(["openclaw", "gateway", "run", "--port", str(live.gateway_port)], env=live.env,
                               stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 300
        while not listening(live.gateway_port):
            assert gateway.poll() is None, (tmp_path / "gateway.log").read_text(encoding="utf-8")[-2000:]
            assert time.monotonic() < deadline, "the gateway did not start"
            time.sleep(0.2)
        requests = live.turn(tmp_path / "main.jsonl", [search()], gateway=True)
        assert all(r["memory_recall_prompt"] for r in requests)
        [(tool, answer)] = tool_answers(requests)
        assert tool == "openclaw:memtui-memory:memory_search" and payload(answer)["engine"] == "memtui"
        requests = live.turn(tmp_path / "research.jsonl", [search()], agent="research", gateway=True)
        assert all(r["memory_recall_prompt"] for r in requests)
        assert tool_answers(requests)[0][0] == "openclaw:memory-core:memory_search"
    finally:
        os.killpg(gateway.pid, signal.SIGTERM)
        try:
            gateway.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(gateway.pid, signal.SIGKILL)
            gateway.wait(timeout=10)
        log.close()


def test_session_rules_forget_and_provenance_as_memory_core(live: Live, tmp_path: Path) -> None:
    other = live.session_id("agent:main:main")  # make-state.sh's conversation: another session for agent:main:probe
    other_path = f"sessions/main/{other}.jsonl"
    # memory-core first (not connected yet): what OpenClaw itself gives the probe session under "self"
    live.set_visibility("self")
    requests = live.turn(tmp_path / "core-self.jsonl", [search(), get(other_path)], key="agent:main:probe")
    [(tool, core), (_, core_get)] = tool_answers(requests)
    assert tool == "openclaw:memory-core:memory_search"
    core_result = payload(core)
    assert core_result["debug"]["withheldHits"] >= 1 and other_path not in session_paths(core_result)
    assert payload(core_get)["code"] == "MEMORY_PATH_NOT_ALLOWED"

    live.memtui("connect", "--agent", "main")
    requests = live.turn(tmp_path / "memtui-self.jsonl", [search(), get(other_path)], key="agent:main:probe")
    [(tool, mine), (get_tool, mine_get)] = tool_answers(requests)
    assert (tool, get_tool) == ("openclaw:memtui-memory:memory_search", "openclaw:memtui-memory:memory_get")
    result = payload(mine)
    assert result["engine"] == "memtui" and result["results"], result
    assert session_paths(result) == set() and result["debug"]["withheldHits"] >= 1
    refused = payload(mine_get)
    assert refused["code"] == "MEMORY_PATH_NOT_ALLOWED" and refused["text"] == ""
    assert refused["error"].startswith("Session transcript paths are unsupported")

    live.set_visibility("tree")  # the probe session spawned nothing: the other conversation stays out
    result = payload(tool_answers(live.turn(tmp_path / "memtui-tree.jsonl", [search()], key="agent:main:probe"))[0][1])
    assert other_path not in session_paths(result) and result["debug"]["withheldHits"] >= 1

    live.set_visibility("agent")  # every session of the agent, except the one asking
    requests = live.turn(tmp_path / "memtui-agent.jsonl", [search()], key="agent:main:probe")
    result = payload(tool_answers(requests)[0][1])
    assert other_path in session_paths(result)
    # the probe session's transcript (by now it quotes the earlier answers) is the asker's own: left out
    assert f"sessions/main/{live.session_id('agent:main:probe')}.jsonl" not in session_paths(result)
    assert session_paths(result) == {other_path}
    # provenance as memory-core gives it for the same conversation (its CLI answers beside memtui)
    core_prov = {h["path"]: h["provenance"] for query in (QUERY, "Kafka consumer lag invoices", "Priya billing")
                 for h in json.loads(live.openclaw("memory", "search", query, "--agent", "main", "--json"))["results"]}
    shared = [h for h in result["results"] if h["path"] in core_prov]
    assert other_path in {h["path"] for h in shared} and any(h["source"] == "memory" for h in shared)
    assert [h["provenance"] for h in shared] == [core_prov[h["path"]] for h in shared]

    # a sandboxed run is clamped to "tree" (the plugin passes ctx.sandboxed on the wire)
    sandboxed = live.ask_memtui({"op": "memory_search", "agent": "main", "args": {"query": QUERY},
                                 "sessionKey": "agent:main:probe", "sandboxed": True})
    assert other_path not in session_paths(sandboxed) and sandboxed["debug"]["withheldHits"] >= 1

    forgot = json.loads(live.openclaw("memory", "forget", "--agent", "main", "--session", other, "--json"))
    assert forgot["artifacts"]["indexChunks"] >= 1
    result = payload(tool_answers(live.turn(tmp_path / "forgotten.jsonl", [search()], key="agent:main:probe"))[0][1])
    assert result["engine"] == "memtui" and other_path not in session_paths(result)

    # memory-core answered the query once before connect, memtui five times since: one entry each
    recalls = json.loads(live.memtui("recalls", "--agent", "main", "--json"))["recalls"]
    asked = sorted((r["answeredBy"], r["count"]) for r in recalls if r["query"] == QUERY)
    assert asked == [("memtui", 5), ("openclaw", 1)], asked
