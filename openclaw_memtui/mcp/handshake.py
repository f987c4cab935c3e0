"""`memtui mcp` answers `initialize` before the MCP SDK has loaded.

Importing the SDK costs about 0.6 s of CPU (its pydantic models), seconds on a busy machine, and
OpenClaw gives a server 5 s to answer `initialize`. The answer depends only on the SDK's version, on
memtui's (its name, version and instructions) and on the protocol version the client asks for, so it
is learnt from the SDK itself: the first time the SDK answers an `initialize`, its answer is kept (one
private file in memtui's cache dir, stamped with the files it came from) with the protocol versions
the SDK accepts. From then on the server answers a well-formed `initialize` from that file while the
SDK loads beside it, then hands the same line to the SDK (so its session knows the client) and drops
the SDK's own answer to it. Anything else (no file yet, another SDK or memtui, a request the simple
checks here do not vouch for) goes to the SDK as before.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
from pathlib import Path
from typing import Any

CACHE_NAME = "mcp-initialize.json"
FORMAT = 1


def _stamp() -> dict[str, Any]:
    """Size, mtime and inode of the files the answer comes from: the SDK's packages and memtui's server
    (its instructions) and package (its version). Any upgrade or edit changes one of them."""
    import importlib.util

    files = {}
    for name in ("mcp", "mcp_types"):
        spec = importlib.util.find_spec(name)  # a top-level package: found, not imported
        if spec is None or spec.origin is None:
            raise OSError(f"{name} not found")
        files[name] = spec.origin
    here = Path(__file__).resolve().parent
    files["server"] = str(here / "server.py")
    files["package"] = str(here.parent / "__init__.py")
    out = {}
    for key, path in files.items():
        st = os.stat(path)
        out[key] = [st.st_size, st.st_mtime_ns, st.st_ino]
    return {"format": FORMAT, "files": out}


def _request_id(message: dict[str, Any]) -> str | int | None:
    request_id = message.get("id")
    return request_id if isinstance(request_id, (str, int)) and not isinstance(request_id, bool) else None


def parse_initialize(line: bytes | str) -> dict[str, Any] | None:
    """The request in `line` if it is an `initialize` the SDK would accept as it stands: a JSON-RPC 2.0
    request with a string or whole-number id, a protocol version, capabilities and the client's name
    and version. None for anything else (the SDK answers it, errors included)."""
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" or message.get("method") != "initialize":
        return None
    params = message.get("params")
    if _request_id(message) is None or not isinstance(params, dict):
        return None
    client = params.get("clientInfo")
    if not (isinstance(params.get("protocolVersion"), str) and isinstance(params.get("capabilities"), dict)
            and isinstance(client, dict) and isinstance(client.get("name"), str)
            and isinstance(client.get("version"), str)):
        return None
    return message


class Handshake:
    """The learnt answer to `initialize` (see the module's docstring)."""

    def __init__(self, cache_dir: Path) -> None:
        self.path = cache_dir / CACHE_NAME
        self.stamp: dict[str, Any] | None = None
        self.template: dict[str, Any] | None = None
        try:
            self.stamp = _stamp()
            kept = json.loads(self.path.read_text(encoding="utf-8"))
            if (isinstance(kept, dict) and kept.get("stamp") == self.stamp and isinstance(kept.get("result"), dict)
                    and isinstance(kept.get("versions"), list) and isinstance(kept.get("latest"), str)):
                self.template = kept
        except (OSError, ValueError):
            pass  # none kept yet, or unreadable: the SDK answers, and its answer is kept

    def answer(self, request: dict[str, Any]) -> bytes | None:
        """The answer to this `initialize` request (from parse_initialize), or None when none is known."""
        template = self.template
        if template is None:
            return None
        requested = request["params"]["protocolVersion"]
        result = copy.deepcopy(template["result"])
        result["protocolVersion"] = requested if requested in template["versions"] else template["latest"]
        body = {"jsonrpc": "2.0", "id": request["id"], "result": result}
        return (json.dumps(body, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")

    def learn(self, response: dict[str, Any]) -> None:
        """Keep the SDK's own answer to an `initialize` (its `result`, the protocol versions it accepts)."""
        result = response.get("result")
        if self.stamp is None or not isinstance(result, dict):
            return
        from mcp.server.runner import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION

        kept = {"stamp": self.stamp, "versions": list(HANDSHAKE_PROTOCOL_VERSIONS), "latest": LATEST_HANDSHAKE_VERSION,
                "result": result}
        if kept == self.template:
            return
        self.template = kept
        from ..engine.store.files import write_private_atomic  # off the initialize path: loaded once learnt

        with contextlib.suppress(OSError):  # a read-only cache dir: the SDK answers next time too
            write_private_atomic(self.path, json.dumps(kept, ensure_ascii=False, indent=1))


class AnsweredEarly:
    """The SDK's output, minus its answer to the `initialize` already answered from the Handshake (that
    answer is learnt, as is any answer of the SDK to the first `initialize`, to keep the file current)."""

    def __init__(self, stdout: Any, handshake: Handshake, request: dict[str, Any] | None, answered: bool) -> None:
        self.stdout = stdout
        self.handshake = handshake
        self.request_id = request.get("id") if request is not None else None
        self.pending = request is not None
        self.answered = answered

    async def write(self, text: str) -> None:
        if self.pending:
            try:
                message = json.loads(text)
            except ValueError:
                message = None
            if isinstance(message, dict) and "method" not in message and message.get("id") == self.request_id:
                self.pending = False
                if "result" in message:
                    self.handshake.learn(message)
                if self.answered:
                    return  # the client has its answer already
        await self.stdout.write(text)

    async def flush(self) -> None:
        await self.stdout.flush()
