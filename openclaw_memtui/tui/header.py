"""The header's subtitle: the workspace, where it came from, and who embeds its notes."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..render import safe
from .widgets.result_list import cut_middle

if TYPE_CHECKING:
    from ..engine.index import MemoryIndex
    from ..interop.agents import Agent

DEMO_NAME = "demo workspace"
HEADER_SIDES = 20  # the header's icon and clock space on either side of its title, and a margin


def embeds_label(index: MemoryIndex) -> str:
    """Who embeds the notes, for the header: "local" (the offline model), "keywords" (none), or "via" the remote
    provider's name (its fallback once it switched), without creating the provider."""
    name = index.fallback.to_id if index.fallback is not None else index.provider_name
    if name == "none":  # short: at 80 columns the workspace's own name must still fit beside it
        return "keywords"
    return "local" if name == "local" else f"via {name}"


def workspace_subtitle(title: str, origin: str, agent: Agent | None, index: MemoryIndex, width: int) -> str:
    """The workspace, `~` for home and cut in the middle to fit `width`, so its origin (`[demo]`,
    `[agent main]`) and the folder's own name always show (the header cut the end)."""
    from ..paths import is_demo_workspace

    demo = is_demo_workspace(index.settings.workspace)
    # the bundled demo lives inside the installed package: its path says nothing a person can use
    told = f"  [{safe(origin, one_line=True)}]" if origin and not demo else ""
    if agent is not None and agent.search_disabled:
        told += "  [OpenClaw memory search off]"  # F2 says why
    elif agent is not None and agent.connected:
        told += "  [connected to OpenClaw]"
    told += f" · {embeds_label(index)}"  # which provider sees the notes: offline, or which remote one
    if demo:
        return DEMO_NAME + told
    path = str(index.settings.workspace)
    home = str(Path.home())
    if path.startswith(home + "/"):
        path = "~" + path[len(home):]
    room = width - HEADER_SIDES - len(f"{title} — ") - len(told)
    return cut_middle(safe(path, one_line=True), max(12, room)) + told
