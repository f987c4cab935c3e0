"""`memtui serve`: answer the OpenClaw plugin `memtui-memory` on a unix socket.

`memtui connect --agent ID` loads the plugin beside OpenClaw's own memory plugin; its `memory_search`
and `memory_get` send each call of a connected agent here and hand the answer to the agent. One
process serves every connected agent of an OpenClaw state (one index, one worker thread each; the
embedding model is loaded once); the plugin starts it on its first call (detached, so the next turn
finds it warm) and it ends after `--idle-exit` seconds without a call.

Wire (version 1): one connection per call; the plugin writes one JSON line
`{"v": 1, "op": "memory_search" | "memory_get" | "ping", "agent": "<id>", "args": {...},
"sessionKey": "agent:<id>:…" | null, "sandboxed": bool, "citations": bool, "plugin": "<its version>"}`
and reads one JSON line back: `{"v": 1, "ok": true, "result": {...}}`, `{"v": 1, "ok": false, "error":
"one line"}`, or `{"v": 1, "ok": false, "busy": true, …}` (every handler at work: send it again). New
fields are only ever added, so an older plugin keeps working after a memtui upgrade; a request of a
newer version than this server knows is refused with a line saying to run `memtui connect` again.

Nothing lost, nothing held: the listen backlog takes a burst of calls; each connection has one total
deadline (a client trickling bytes cannot hold a thread); at an idle exit the socket is removed
first, then every connection already queued is answered, so a call either reaches this server or
finds no socket and starts the next one (which waits for this one's lock).

Answers are what `memtui mcp` serves (core/tools.MemoryTools through the answer gate, core/gate.py: the
saved ranking re-read on change, every field masked, forgotten and withheld sessions left out) in
OpenClaw's own result shape: `corpus`, the `citation` and its "Source: path#Lx-Ly" line, `status` for reads.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import errno
import fcntl
import json
import logging
import os
import signal
import socket
import socketserver
import stat
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import UserError
from ..version import package_version as _version

if TYPE_CHECKING:
    from ..core.caller import Caller
    from ..core.config_types import AppConfig
    from ..core.session import Session

log = logging.getLogger("memtui.serve")

PROTOCOL = 1
MAX_REQUEST_BYTES = 1 << 20  # a query is at most 2,000 characters: anything this long is not ours
CONNECTION_DEADLINE_S = 10.0  # all of reading one request: a trickling client is cut off here
MAX_HANDLERS = 256  # connections handled at once; more are told "busy" (the plugin sends again)
LISTEN_BACKLOG = 512  # connections the kernel queues before accept: a burst of calls is never refused
CLAIM_WAIT_S = 30.0  # how long a new server waits for a retiring one to let go of the lock
SEARCH_CORPORA = ("memory", "wiki", "all", "sessions")  # what OpenClaw's memory_search takes
GET_CORPORA = ("memory", "wiki", "all")
GET_DEFAULT_LINES = 120  # OpenClaw's memory_get reads a bounded excerpt when `lines` is omitted


# -- answers -------------------------------------------------------------------------------------

def citation(result: dict[str, Any]) -> str:
    """OpenClaw's citation of a hit: `path#L3` or `path#L3-L9` (tools.citations.ts)."""
    start, end = result["startLine"], result["endLine"]
    return f"{result['path']}#L{start}" if start == end else f"{result['path']}#L{start}-L{end}"


def present_search(answer: dict[str, Any], citations: bool) -> dict[str, Any]:
    """memtui's answer shaped as OpenClaw's memory_search answers: each hit gets `corpus` (its source)
    and, when the chat shows citations, `citation` and a last snippet line "Source: <citation>"."""
    results = []
    for hit in answer["results"]:
        shown = dict(hit, corpus=hit["source"])
        if citations:
            shown["citation"] = citation(hit)
            shown["snippet"] = f"{hit['snippet'].rstrip()}\n\nSource: {shown['citation']}"
        results.append(shown)
    out = dict(answer, results=results, citations="on" if citations else "off", engine="memtui")
    if answer.get("warnings"):
        out["warning"] = " ".join(answer["warnings"])  # the field OpenClaw's prompt tells the agent to report
    return out


def unavailable(error: str, warning: str, action: str) -> dict[str, Any]:
    """An answer saying memory cannot be searched now, in the shape OpenClaw's own failures take."""
    return {"results": [], "disabled": True, "unavailable": True, "error": error, "warning": warning, "action": action}


def caller_of(request: dict[str, Any], agent_id: str | None) -> Caller:
    """The Caller of one plugin request: OpenClaw's session key and sandbox flag as the plugin passes
    them (`sessionKey`, `sandboxed`: ctx.sessionKey / ctx.sandboxed), and whether the chat shows citations."""
    from ..core.caller import Caller

    key = request.get("sessionKey")
    return Caller("plugin", agent_id, key.strip() if isinstance(key, str) and key.strip() else None,
                  request.get("sandboxed") is True, request.get("citations") is True)


class PluginTools:
    """The plugin's two calls over one `MemoryTools` (opened lazily, on the worker thread). What may
    be answered is the gate's (core/gate.py); this only shapes the answer as OpenClaw's tools do."""

    def __init__(self, tools: Any) -> None:
        self.tools = tools

    def memory_search(self, args: dict[str, Any], caller: Caller) -> dict[str, Any]:
        from ..core.gate import Refused, mask_answer
        from ..core.tools import BadArguments

        args = dict(args)
        corpus = args.pop("corpus", None)
        if corpus is not None and corpus not in SEARCH_CORPORA:
            raise BadArguments(f"memory_search: corpus must be one of: {', '.join(SEARCH_CORPORA)}")
        try:
            self.tools.gate.admit(caller)
        except Refused as exc:
            return refused(str(exc))
        searched = self.tools.session.index.settings.search_sources or self.tools.session.index.settings.sources
        if corpus == "sessions" and "sessions" not in searched:
            return unavailable("Session transcript search is not enabled.",
                               "Session transcript search is unavailable for this agent.",
                               "Ask the operator to add \"sessions\" to memory.search.sources (with "
                               "memory.search.experimental.sessionMemory) for this agent.")
        sources = {"memory": ("memory",), "sessions": ("sessions",)}.get(corpus or "")
        if corpus == "wiki":  # memtui indexes no compiled-wiki supplements: an empty, honest answer
            answer = {"results": [], "warnings": ["memtui has no compiled-wiki corpus; nothing was searched"]}
        else:
            answer = self.tools.call("memory_search", args, caller, sources=sources)
        return mask_answer(present_search(answer, caller.citations))  # the citation repeats the path: masked too

    def memory_get(self, args: dict[str, Any], caller: Caller) -> dict[str, Any]:
        from ..core.gate import Refused, TranscriptRefused, mask_answer
        from ..core.tools import BadArguments
        from ..engine.ingest.memory_files import AccessRefused

        args = dict(args)
        corpus = args.pop("corpus", None)
        if corpus is not None and corpus not in GET_CORPORA:
            raise BadArguments(f"memory_get: corpus must be one of: {', '.join(GET_CORPORA)}")
        path = args.get("path")
        if corpus == "wiki":
            return mask_answer({"status": "not_found", "path": path, "text": "",
                                "warning": "memtui has no compiled-wiki corpus"})
        args.setdefault("lines", GET_DEFAULT_LINES)
        try:
            piece = self.tools.call("memory_get", args, caller)
        except Refused as exc:
            return refused(str(exc))
        except TranscriptRefused as exc:  # OpenClaw's answer to a path memory_get does not read
            return mask_answer({"status": "error", "code": exc.code, "path": path, "text": "", "error": str(exc)})
        except AccessRefused as exc:
            return mask_answer({"status": "not_found", "path": path, "text": "", "error": str(exc)})
        return mask_answer({"status": "ok", **piece})


def refused(reason: str) -> dict[str, Any]:
    """The answer for an agent OpenClaw gives no memory search: OpenClaw's disabled shape, masked."""
    from ..core.gate import mask_answer

    return mask_answer({"results": [], "status": "disabled", "disabled": True, "error": reason,
                        "warning": "Memory search is off for this agent.",
                        "action": "Answer without memory; the operator turned memory search off in OpenClaw."})


# -- the server ---------------------------------------------------------------------------------

class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    allow_reuse_address = False
    request_queue_size = LISTEN_BACKLOG  # socketserver's 5 refused most of a burst of 64 calls (EAGAIN)

    def __init__(self, path: Path, handler: Any) -> None:
        self.last_call = time.monotonic()
        self.active = 0  # connections being handled now
        self.active_changed = threading.Condition()
        # Bound beside the path and renamed into place once listening: a socket file that exists
        # always accepts (bind creates the file before listen, and a client connecting in between
        # was refused). The rename replaces only memtui's own stale socket: _claim holds the lock.
        staging = path.with_name(path.name + ".new")
        with contextlib.suppress(FileNotFoundError):
            os.unlink(staging)
        super().__init__(str(staging), handler, bind_and_activate=False)
        try:
            self.server_bind()
            self.server_activate()
            os.replace(staging, path)
            self.inode = os.lstat(path).st_ino
            self.path = path
        except BaseException:
            self.server_close()
            with contextlib.suppress(FileNotFoundError):
                os.unlink(staging)
            raise
        self.server_address = str(path)

    def process_request(self, request: Any, client_address: Any) -> None:
        with self.active_changed:
            self.active += 1
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._done()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._done()

    def _done(self) -> None:
        with self.active_changed:
            self.active -= 1
            self.active_changed.notify_all()

    def retire(self) -> None:
        """Stop being reachable: remove the socket file (only this server's own), so a call from now
        on finds no socket and starts the next server, instead of queuing on one about to close."""
        with contextlib.suppress(OSError):
            if os.lstat(self.path).st_ino == self.inode:
                os.unlink(self.path)

    def drain(self, wait: float) -> None:
        """Answer every connection that reached the listen queue before `retire`, then wait (at most
        `wait` seconds) for the calls being answered: at an idle exit no accepted call is dropped."""
        self.socket.setblocking(False)
        while True:
            try:
                request, address = self.socket.accept()
            except OSError:  # BlockingIOError: the queue is empty (nothing new can arrive: no socket file)
                break
            request.setblocking(True)
            self.process_request(request, address)
        with self.active_changed:
            self.active_changed.wait_for(lambda: self.active <= 0, wait)


def answer_line(server_state: ServeState, line: bytes) -> dict[str, Any]:
    """The reply to one request line, every string of it masked (the gate's `mask_answer`): the
    replies made here (an agent this server does not answer, an index it cannot open, the plugin's
    version) quote what the request or an error said; never raises."""
    from ..core.gate import mask_answer

    return mask_answer(_answer_line(server_state, line))


def _answer_line(server_state: ServeState, line: bytes) -> dict[str, Any]:
    from ..core.gate import mask_error
    from ..engine.errors import MemtuiError, describe

    try:
        request = json.loads(line)
    except (ValueError, RecursionError):
        return {"v": PROTOCOL, "ok": False, "error": "the request is not one JSON object on one line"}
    if not isinstance(request, dict):
        return {"v": PROTOCOL, "ok": False, "error": "the request is not one JSON object on one line"}
    version = request.get("v")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        return {"v": PROTOCOL, "ok": False, "error": "the request has no protocol version 'v'"}
    asked = request.get("agent")
    agent_id = asked if isinstance(asked, str) and asked else server_state.fixed_agent or ""
    who = agent_id or "ID"
    if version > PROTOCOL:  # a plugin newer than this memtui (memtui downgraded): the agent is told, nothing breaks
        return {"v": PROTOCOL, "ok": True, "result": unavailable(
            f"this memtui speaks protocol {PROTOCOL}, OpenClaw's memtui-memory plugin {version}",
            "Memory search is unavailable: the memtui-memory plugin is newer than memtui.",
            f"Run `memtui connect --agent {who}` with the memtui now installed.")}
    op = request.get("op")
    if op == "stop":  # `memtui disconnect` of the last agent: OpenClaw's own tools answer from now on
        server_state.stop_requested.set()
        return {"v": PROTOCOL, "ok": True, "result": {"stopping": True}}
    if op == "ping":
        return {"v": PROTOCOL, "ok": True, "result": {"pong": True, "pid": os.getpid(), "memtui": server_state.version,
                                                      "agents": server_state.readiness()}}
    args = request.get("args")
    if op not in ("memory_search", "memory_get") or not isinstance(args, dict):
        return {"v": PROTOCOL, "ok": False, "error": "op must be memory_search, memory_get or ping, with an args object"}
    served = server_state.agent(agent_id)
    if isinstance(served, str):
        return {"v": PROTOCOL, "ok": True, "result": unavailable(
            served, "Memory search is unavailable: memtui does not answer this agent.",
            f"Run `memtui connect --agent {who}` (or `memtui disconnect --agent {who}` for OpenClaw's own memory).")}
    job = served.worker.submit(served.run, op, args, caller_of(request, served.agent_id))
    try:
        result = job.result(timeout=server_state.request_wait)
    except TimeoutError:
        return {"v": PROTOCOL, "ok": True, "result": unavailable(
            f"memtui did not answer within {server_state.request_wait:g}s", "Memory search is unavailable: memtui is busy.",
            "Retry memory_search after a short wait.")}
    except MemtuiError as exc:
        return {"v": PROTOCOL, "ok": False, "error": mask_error(str(exc))}
    except Exception as exc:  # one line for the agent, the rest to the log
        log.exception("%s failed", op)
        return {"v": PROTOCOL, "ok": False, "error": mask_error(f"{op} failed: {describe(exc)}")}
    plugin = request.get("plugin")
    if op == "memory_search" and isinstance(plugin, str) and plugin != server_state.version and "results" in result:
        # an older copy keeps working (the wire only gains fields); the agent's answer says how to refresh it
        result.setdefault("warnings", []).append(
            f"OpenClaw loaded the memtui-memory plugin of memtui {plugin}; memtui is {server_state.version}: run "
            f"`memtui connect --agent {served.agent_id}` to refresh it")
    return {"v": PROTOCOL, "ok": True, "result": result}


class AgentServe:
    """One agent's index, opened on its own worker thread, which also runs every call for it: a slow
    search of one agent never holds up another's."""

    def __init__(self, state: ServeState, agent_id: str) -> None:
        from ..core.tools import DaemonWorker

        self.state, self.agent_id = state, agent_id
        self.worker = DaemonWorker(f"memtui-serve-{agent_id}")
        self.tools: PluginTools | None = None
        self.session: Session | None = None  # closed by close(), as the server ends
        self.open_error = ""
        self.opened = threading.Event()
        self.warm: concurrent.futures.Future[Any] | None = None  # the model and vectors loading

    def ready(self) -> dict[str, Any]:
        """How far this agent is: its index open, its model loaded (for `ping`, the bench, the log)."""
        return {"open": self.opened.is_set(), "error": self.open_error or None,
                "warm": self.warm is not None and self.warm.done()}

    def open(self) -> None:
        """Open the agent's index and start loading its model. A failure is kept and given as the
        answer to every call: the agent learns why, the server stays up."""
        from ..core.session import SessionOptions, open_session
        from ..core.tools import MemoryTools
        from ..engine.errors import describe

        args = argparse.Namespace(**dict(vars(self.state.args), agent=self.agent_id))
        try:
            self.session = session = open_session(SessionOptions.from_args(args), self.state.cfg)
            tools = MemoryTools(args, session, args.sync_wait, args.embed_wait)
        except UserError as exc:
            self.open_error = str(exc)
        except Exception as exc:
            self.open_error = describe(exc)
            log.exception("cannot open the index of agent %s", self.agent_id)
        else:
            tools.freshness.request()  # catch up with the files before the first search asks
            self.warm = tools.warm_up()  # the model loads while the first call is on its way: its answer is hybrid
            self.tools = PluginTools(tools)
        finally:
            self.opened.set()

    def run(self, op: str, args: dict[str, Any], caller: Caller) -> dict[str, Any]:
        if self.tools is None:
            return unavailable(self.open_error, "Memory search is unavailable: memtui cannot open this agent's memory.",
                               f"Run `memtui status --agent {self.agent_id}` to see why.")
        if op == "memory_search":
            return self.tools.memory_search(args, caller)
        return self.tools.memory_get(args, caller)

    def close(self) -> None:
        if self.tools is not None:
            job = self.worker.submit(self.tools.tools.close)
            with contextlib.suppress(Exception):
                job.result(timeout=5)
        if self.session is not None:  # also when the worker is stuck, or the tools were never made
            with contextlib.suppress(Exception):
                self.session.close()


class ServeState:
    """What the handlers share: one AgentServe per agent answered, and which agents those may be."""

    def __init__(self, args: argparse.Namespace, cfg: AppConfig, request_wait: float) -> None:
        self.args, self.cfg = args, cfg
        self.fixed_agent: str | None = args.agent or None  # `--agent`: this one only (a test, an older plugin)
        self.request_wait = request_wait
        self.connection_deadline: float = getattr(args, "connection_deadline", None) or CONNECTION_DEADLINE_S
        self.version = _version()
        self.agents: dict[str, AgentServe] = {}
        self._lock = threading.Lock()
        self._connected: tuple[float, frozenset[str]] = (0.0, frozenset())
        self.stop_requested = threading.Event()

    def readiness(self) -> dict[str, dict[str, Any]]:
        with self._lock:
            served = dict(self.agents)
        return {agent_id: one.ready() for agent_id, one in sorted(served.items())}

    def connected(self, fresh: bool = False) -> frozenset[str]:
        """The agents `memtui connect` lists in OpenClaw's config now (read at most once a second)."""
        from ..interop.agents import OpenClawError, load_installation

        at, agents = self._connected
        if fresh or time.monotonic() - at > 1.0:
            try:
                agents = frozenset(a.id for a in load_installation().agents if a.connected)
            except (OpenClawError, OSError) as exc:
                log.warning("cannot read OpenClaw's config: %s", exc)
            self._connected = (time.monotonic(), agents)
        return agents

    def agent(self, agent_id: str) -> AgentServe | str:
        """The agent's AgentServe (opened on first use), or why this server does not answer it."""
        from ..render import safe

        if not agent_id:
            return "the request names no agent"
        if self.fixed_agent and agent_id != self.fixed_agent:
            return f"this memtui serve answers agent {self.fixed_agent} only, not {safe(agent_id, one_line=True)}"
        with self._lock:
            served = self.agents.get(agent_id)
        if served is not None:
            return served
        if not self.fixed_agent and agent_id not in self.connected():
            return f"agent {safe(agent_id, one_line=True)} is not connected to memtui"
        return self.start(agent_id)

    def start(self, agent_id: str) -> AgentServe:
        with self._lock:
            served = self.agents.get(agent_id)
            if served is None:
                served = self.agents[agent_id] = AgentServe(self, agent_id)
                served.worker.submit(served.open)
        return served

    def warm(self) -> None:
        """Open every agent this server answers now, so no agent's first call waits for its index."""
        for agent_id in [self.fixed_agent] if self.fixed_agent else sorted(self.connected(fresh=True)):
            self.start(agent_id)

    def close(self) -> None:
        with self._lock:
            served = list(self.agents.values())
        for one in served:
            one.close()


def _read_line(sock: socket.socket, deadline: float) -> bytes | None:
    """One request line, read before `deadline` (the whole request, not each byte: a client sending
    a byte every few seconds is cut off like a silent one); None when it does not come in time."""
    data = bytearray()
    while b"\n" not in data and len(data) <= MAX_REQUEST_BYTES:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        sock.settimeout(left)
        try:
            chunk = sock.recv(65536)
        except OSError:  # a timeout, a reset
            return None
        if not chunk:
            break
        data += chunk
    end = data.find(b"\n")
    return bytes(data[: end + 1] if end >= 0 else data)


def _handler(state: ServeState) -> Any:
    class Handler(socketserver.BaseRequestHandler):
        def handle(self) -> None:
            server: Server = self.server  # type: ignore[assignment]
            server.last_call = time.monotonic()
            sock: socket.socket = self.request
            line = _read_line(sock, time.monotonic() + state.connection_deadline)
            if line is None or not line.strip():
                return
            if len(line) > MAX_REQUEST_BYTES:
                reply: dict[str, Any] = {"v": PROTOCOL, "ok": False, "error": "the request is larger than 1 MiB"}
            elif server.active > MAX_HANDLERS:
                reply = {"v": PROTOCOL, "ok": False, "busy": True, "error": "memtui is answering too many calls; retry"}
            else:
                reply = answer_line(state, line)
            with contextlib.suppress(OSError):
                sock.settimeout(state.connection_deadline)  # a client that does not read its answer is dropped too
                # a lone surrogate the request held ("\ud800", quoted back) has no UTF-8: written as the
                # JSON escape it came as (json.dumps puts characters only inside strings), never a dropped answer
                sock.sendall(json.dumps(reply, ensure_ascii=False).encode("utf-8", "backslashreplace") + b"\n")
            server.last_call = time.monotonic()

    return Handler


def _claim(path: Path, wait: float = CLAIM_WAIT_S) -> Any:
    """The lock that makes this the state's only server (its pid written in it, for the plugin to
    replace a hung one); None when another server answers. A server retiring at its idle exit has
    removed its socket but still holds the lock while it answers its last calls: wait for it. A
    stale socket file left by a killed server is removed (only a socket: never another kind of file)."""
    from ..engine.store import make_private_dirs

    make_private_dirs(path.parent)
    st = os.lstat(path.parent)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or stat.S_IMODE(st.st_mode) & 0o077:
        raise UserError(f"{path.parent} must be a folder of yours that only you can open (mode 0700); fix it or remove it")
    fd = os.open(path.with_name(path.name + ".lock"), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    lock = os.fdopen(fd, "r+")  # held for the process's life
    os.fchmod(fd, 0o600)
    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                lock.close()
                raise
        if _is_socket(path) or time.monotonic() > deadline:  # the holder answers (or never lets go)
            lock.close()
            return None
        time.sleep(0.05)
    lock.truncate(0)
    lock.write(f"{os.getpid()}\n")
    lock.flush()
    with contextlib.suppress(FileNotFoundError):
        if stat.S_ISSOCK(os.lstat(path).st_mode):
            os.unlink(path)
        else:
            lock.close()
            raise UserError(f"{path} exists and is not a socket; memtui will not replace it")
    return lock


def _is_socket(path: Path) -> bool:
    try:
        return stat.S_ISSOCK(os.lstat(path).st_mode)
    except OSError:
        return False


_STOPS: list[threading.Event] = []


def _stop_from_signal() -> None:
    """SIGTERM (a service manager, `kill`): end as at an idle exit, the queued calls answered first."""
    for stop in _STOPS:
        stop.set()
    if not _STOPS:
        raise SystemExit(143)


def cmd_serve(args: argparse.Namespace, cfg: AppConfig) -> int:
    from ..core.logs import log_to_stderr

    for flag, value in (("--sync-wait", args.sync_wait), ("--embed-wait", args.embed_wait),
                        ("--idle-exit", args.idle_exit), ("--request-wait", args.request_wait)):
        if not 0 <= value <= 86400:
            raise UserError(f"{flag} must be between 0 and 86400 seconds, got {value:g}")
    if args.connection_deadline is not None and not 0 < args.connection_deadline <= 3600:
        raise UserError(f"--connection-deadline must be above 0 and at most 3600 seconds, got {args.connection_deadline:g}")
    signal.signal(signal.SIGTERM, lambda *_: _stop_from_signal())
    log_to_stderr()
    log.setLevel(logging.INFO)
    from ..interop.connect import socket_path

    path = Path(args.socket).expanduser() if args.socket else socket_path()
    lock = _claim(path)
    if lock is None:
        print(f"memtui serve: another memtui serve answers on {path}; nothing to do", file=sys.stderr)
        return 0
    state = ServeState(args, cfg, args.request_wait)
    _STOPS.append(state.stop_requested)
    old_umask = os.umask(0o177)  # the socket is created 0600: only this user can call it
    try:
        server = Server(path, _handler(state))
    finally:
        os.umask(old_umask)
    # listen first, open second: the plugin can connect at once and its first call waits in the
    # worker's queue behind the opening, instead of polling a socket that is not there yet
    state.warm()
    log.info("answering %s on %s (idle exit after %gs)", f"agent {args.agent}" if args.agent else "connected agents",
             path, args.idle_exit)

    def idle_watch() -> None:
        while True:
            state.stop_requested.wait(min(1.0, max(args.idle_exit / 4, 0.05)) if args.idle_exit > 0 else 1.0)
            if state.stop_requested.is_set():
                log.info("asked to stop; exiting")
                break
            if args.idle_exit > 0 and time.monotonic() - server.last_call > args.idle_exit and server.active == 0:
                log.info("no call for %gs; exiting", args.idle_exit)
                break
        server.retire()
        server.shutdown()

    threading.Thread(target=idle_watch, name="memtui-serve-idle", daemon=True).start()
    try:
        server.serve_forever(poll_interval=0.5)
        server.drain(state.request_wait + state.connection_deadline)
    except KeyboardInterrupt:
        server.retire()
    finally:
        server.server_close()
        server.retire()
        state.close()
        lock.close()
    return 0
