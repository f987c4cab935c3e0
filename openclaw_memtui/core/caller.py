"""Who is asking: the context every answer to an agent (or a person) is judged in.

A front end builds one `Caller` per call from what it knows (the OpenClaw plugin passes the agent's
session key and whether the run is sandboxed; `memtui mcp` knows only its agent; the CLI and the TUI
are the user) and hands it to the application layer, which decides what may be answered. The front
end never decides that itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

FrontEnd = Literal["plugin", "mcp", "cli", "tui"]


@dataclass(frozen=True)
class Caller:
    """The context of one memory_search or memory_get call."""

    front_end: FrontEnd
    agent_id: str | None = None  # the OpenClaw agent the answer is for (None: a plain workspace)
    session_key: str | None = None  # OpenClaw's key of the requesting session ("agent:main:…"), when known
    sandboxed: bool = False  # OpenClaw runs the requesting session in a sandbox (visibility clamped to "tree")
    citations: bool = False  # the chat shows citations (OpenClaw's memory.citations rule, decided by the plugin)
