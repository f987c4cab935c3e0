"""`memtui serve`: answer the OpenClaw plugin `memtui-memory` on a unix socket.

`memtui connect --agent ID` puts the plugin in OpenClaw's memory slot; the plugin's `memory_search`
and `memory_get` send each call here and hand the answer to the agent. One process per agent,
started by the plugin on its first call (detached, so the next `openclaw agent` turn finds it warm)
and ended after `--idle-exit` seconds without a call.

Wire (version 1): one connection per call; the plugin writes one JSON line
`{"v": 1, "op": "memory_search" | "memory_get" | "ping", "args": {...}, "citations": bool,
"plugin": "<its version>"}` and reads one JSON line back: `{"v": 1, "ok": true, "result": {...}}` or
`{"v": 1, "ok": false, "error": "one line"}`. New fields are only ever added, so an older plugin keeps
working after a memtui upgrade; a request of a newer version than this server knows is refused with
a line saying to run `memtui connect` again.

Answers are what `memtui mcp` serves (mcp_tools.MemoryTools: the saved ranking re-read on change,
secrets masked, forgotten sessions left out) in OpenClaw's own result shape: `corpus`, the
`citation` and its "Source: path#Lx-Ly" line, `status` for reads.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import fcntl
import json
import logging
import os
import socketserver
import stat
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import UserError

if TYPE_CHECKING:
    from ..core.caller import Caller
    from ..core.config_types import AppConfig
    from ..core.session import Session

log = logging.getLogger("memtui.serve")

PROTOCOL = 1
MAX_REQUEST_BYTES = 1 << 20  # a query is at most 2,000 characters: anything this long is not ours
REQUEST_WAIT_S = 20.0  # a call waiting longer for the index is answered "unavailable" (OpenClaw waits 30 s)
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


# -- the server ----------------------------------------------------------------------------------

class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    allow_reuse_address = False

    def __init__(self, path: Path, handler: Any) -> None:
        self.last_call = time.monotonic()
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
        except BaseException:
            self.server_close()
            with contextlib.suppress(FileNotFoundError):
                os.unlink(staging)
            raise
        self.server_address = str(path)


def answer_line(server_state: ServeState, line: bytes) -> dict[str, Any]:
    """The reply to one request line; never raises."""
    from ..core.tools import hide_secrets
    from ..engine.errors import MemtuiError, describe
    from ..engine.scrub import scrub

    try:
        request = json.loads(line)
    except (ValueError, RecursionError):
        return {"v": PROTOCOL, "ok": False, "error": "the request is not one JSON object on one line"}
    if not isinstance(request, dict):
        return {"v": PROTOCOL, "ok": False, "error": "the request is not one JSON object on one line"}
    version = request.get("v")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        return {"v": PROTOCOL, "ok": False, "error": "the request has no protocol version 'v'"}
    if version > PROTOCOL:  # a plugin newer than this memtui (memtui downgraded): the agent is told, nothing breaks
        return {"v": PROTOCOL, "ok": True, "result": unavailable(
            f"this memtui speaks protocol {PROTOCOL}, OpenClaw's memtui-memory plugin {version}",
            "Memory search is unavailable: the memtui-memory plugin is newer than memtui.",
            f"Run `memtui connect --agent {server_state.agent_id}` with the memtui now installed.")}
    op = request.get("op")
    if op == "stop":  # `memtui disconnect`: this agent's calls go to OpenClaw's own tools from now on
        server_state.stop_requested.set()
        return {"v": PROTOCOL, "ok": True, "result": {"stopping": True}}
    if op == "ping":
        return {"v": PROTOCOL, "ok": True, "result": {"pong": True, "agent": server_state.agent_id,
                                                      "memtui": server_state.version}}
    args = request.get("args")
    if op not in ("memory_search", "memory_get") or not isinstance(args, dict):
        return {"v": PROTOCOL, "ok": False, "error": "op must be memory_search, memory_get or ping, with an args object"}
    job = server_state.worker.submit(server_state.run, op, args, caller_of(request, server_state.agent_id))
    try:
        result = job.result(timeout=server_state.request_wait)
    except TimeoutError:
        return {"v": PROTOCOL, "ok": True, "result": unavailable(
            f"memtui did not answer within {server_state.request_wait:g}s", "Memory search is unavailable: memtui is busy.",
            "Retry memory_search after a short wait.")}
    except MemtuiError as exc:
        return {"v": PROTOCOL, "ok": False, "error": hide_secrets(scrub(str(exc)))}
    except Exception as exc:  # one line for the agent, the rest to the log
        log.exception("%s failed", op)
        return {"v": PROTOCOL, "ok": False, "error": hide_secrets(f"{op} failed: {describe(exc)}")}
    plugin = request.get("plugin")
    if op == "memory_search" and isinstance(plugin, str) and plugin != server_state.version and "results" in result:
        # an older copy keeps working (the wire only gains fields); the agent's answer says how to refresh it
        result.setdefault("warnings", []).append(
            f"OpenClaw loaded the memtui-memory plugin of memtui {plugin}; memtui is {server_state.version}: run "
            f"`memtui connect --agent {server_state.agent_id}` to refresh it")
    return {"v": PROTOCOL, "ok": True, "result": result}


class ServeState:
    """What the handlers share: the one worker thread that owns the index, and how to open it."""

    def __init__(self, args: argparse.Namespace, cfg: AppConfig, request_wait: float) -> None:
        from ..core.tools import DaemonWorker

        self.args, self.cfg = args, cfg
        self.agent_id: str = args.agent
        self.request_wait = request_wait
        self.version = _version()
        self.worker = DaemonWorker("memtui-serve")
        self.tools: PluginTools | None = None
        self.session: Session | None = None  # closed by close(), as the server ends
        self.open_error = ""
        self.stop_requested = threading.Event()

    def open(self) -> None:
        """Open the agent's index (on the worker thread, as every later call). A failure is kept and
        given as the answer to every call: the agent learns why, the server stays up."""
        from ..core.session import SessionOptions, open_session
        from ..core.tools import MemoryTools
        from ..engine.errors import describe

        try:
            self.session = session = open_session(SessionOptions.from_args(self.args), self.cfg)
            tools = MemoryTools(self.args, session, self.args.sync_wait, self.args.embed_wait)
        except UserError as exc:
            self.open_error = str(exc)
        except Exception as exc:
            self.open_error = describe(exc)
            log.exception("cannot open the index")
        else:
            tools.freshness.request()  # catch up with the files before the first search asks
            self.tools = PluginTools(tools)

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


def _handler(state: ServeState) -> Any:
    class Handler(socketserver.StreamRequestHandler):
        timeout = 10  # a client that connects and sends nothing does not hold a thread for ever

        def handle(self) -> None:
            self.server.last_call = time.monotonic()  # type: ignore[attr-defined]
            try:
                line = self.rfile.readline(MAX_REQUEST_BYTES + 1)
            except OSError:
                return
            if not line.strip():
                return
            if len(line) > MAX_REQUEST_BYTES:
                reply: dict[str, Any] = {"v": PROTOCOL, "ok": False, "error": "the request is larger than 1 MiB"}
            else:
                reply = answer_line(state, line)
            with contextlib.suppress(OSError):
                self.wfile.write(json.dumps(reply, ensure_ascii=False).encode("utf-8") + b"\n")
            self.server.last_call = time.monotonic()  # type: ignore[attr-defined]

    return Handler


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("openclaw-memtui")
    except PackageNotFoundError:
        return "0"


def _claim(path: Path) -> Any:
    """The lock that makes this the agent's only server; None when another one holds it. A stale
    socket file left by a killed server is removed (only a socket: never another kind of file)."""
    from ..engine.store import make_private_dirs

    make_private_dirs(path.parent)
    st = os.lstat(path.parent)
    if st.st_uid != os.getuid() or stat.S_IMODE(st.st_mode) & 0o077:
        raise UserError(f"{path.parent} must be a folder of yours that only you can open (mode 0700); fix it or remove it")
    lock = open(path.with_name(path.name + ".lock"), "a")  # noqa: SIM115 - held for the process's life
    os.chmod(lock.name, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        lock.close()
        if exc.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
            return None
        raise
    with contextlib.suppress(FileNotFoundError):
        if stat.S_ISSOCK(os.lstat(path).st_mode):
            os.unlink(path)
        else:
            lock.close()
            raise UserError(f"{path} exists and is not a socket; memtui will not replace it")
    return lock


def cmd_serve(args: argparse.Namespace, cfg: AppConfig) -> int:
    from ..core.logs import log_to_stderr

    if not args.agent:
        raise UserError("pass --agent ID: the OpenClaw agent whose memory this server answers")
    for flag, value in (("--sync-wait", args.sync_wait), ("--embed-wait", args.embed_wait),
                        ("--idle-exit", args.idle_exit), ("--request-wait", args.request_wait)):
        if not 0 <= value <= 86400:
            raise UserError(f"{flag} must be between 0 and 86400 seconds, got {value:g}")
    log_to_stderr()
    log.setLevel(logging.INFO)
    from ..interop.connect import socket_path

    path = Path(args.socket).expanduser() if args.socket else socket_path(args.agent)
    lock = _claim(path)
    if lock is None:
        print(f"memtui serve: another memtui serve answers agent {args.agent} on {path}; nothing to do", file=sys.stderr)
        return 0
    state = ServeState(args, cfg, args.request_wait)
    old_umask = os.umask(0o177)  # the socket is created 0600: only this user can call it
    try:
        server = Server(path, _handler(state))
    finally:
        os.umask(old_umask)
    # listen first, open second: the plugin can connect at once and its first call waits in the
    # worker's queue behind the opening, instead of polling a socket that is not there yet
    state.worker.submit(state.open)
    log.info("answering agent %s on %s (idle exit after %gs)", args.agent, path, args.idle_exit)

    def idle_watch() -> None:
        while True:
            state.stop_requested.wait(min(1.0, max(args.idle_exit / 4, 0.05)) if args.idle_exit > 0 else 1.0)
            if state.stop_requested.is_set():
                log.info("asked to stop; exiting")
                server.shutdown()
                return
            if args.idle_exit > 0 and time.monotonic() - server.last_call > args.idle_exit:
                log.info("no call for %gs; exiting", args.idle_exit)
                server.shutdown()
                return

    threading.Thread(target=idle_watch, name="memtui-serve-idle", daemon=True).start()
    try:
        server.serve_forever(poll_interval=0.5)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        state.close()
        lock.close()
    return 0
