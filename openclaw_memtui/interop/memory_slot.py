"""Who answers an agent's memory searches: OpenClaw's memory slot (`plugins.slots.memory`), whether
its memory search is on, and whether `memtui connect` handed it to memtui (whose plugin answers the
agents it lists, beside the slot's plugin, which answers all the others)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from .config_file import json_object

if TYPE_CHECKING:
    from .agents import Agent

# OpenClaw's memory engine is a plugin in one slot (`plugins.slots.memory`); memtui's own plugin,
# installed by `memtui connect`, answers beside it under this id (an older memtui put it in the slot)
BUILTIN_MEMORY_PLUGIN = "memory-core"
MEMTUI_MEMORY_PLUGIN = "memtui-memory"
SLOT_BUILTIN, SLOT_NONE, SLOT_CONNECTED, SLOT_OTHER = "builtin", "none", "connected", "other"


def memory_slot(cfg: dict[str, Any]) -> tuple[str, str | None]:
    """(state, plugin id) of OpenClaw's memory slot, as its `resolveSlotSelection` reads it: unset or
    blank is the builtin memory-core, "none" (any case) turns memory off, any other id is that plugin
    (memtui's own is "connected")."""
    raw = json_object(json_object(json_object(cfg.get("plugins")).get("slots"))).get("memory")
    value = raw.strip() if isinstance(raw, str) else ""
    if not value:
        return SLOT_BUILTIN, BUILTIN_MEMORY_PLUGIN
    if value.lower() == "none":
        return SLOT_NONE, None
    if value.lower() == BUILTIN_MEMORY_PLUGIN:
        return SLOT_BUILTIN, BUILTIN_MEMORY_PLUGIN
    if value.lower() == MEMTUI_MEMORY_PLUGIN:
        return SLOT_CONNECTED, MEMTUI_MEMORY_PLUGIN
    return SLOT_OTHER, value


def search_disabled_reason(slot: tuple[str, str | None], enabled: Any, where: str) -> str:
    """Why OpenClaw gives an agent no memory search ("" when it does): `enabled` is the effective
    `memory.search.enabled` (False: off), `where` the key that set it."""
    from ..render import safe

    state, plugin = slot
    if state == SLOT_NONE:
        return 'plugins.slots.memory is "none": OpenClaw has no memory search'
    if state == SLOT_OTHER:
        return (f'plugins.slots.memory is "{safe(str(plugin), one_line=True)}": another memory plugin, '
                "not OpenClaw's builtin memory search, serves this agent")
    if enabled is False:
        return f"{where} is false: OpenClaw's memory search is off for this agent"
    return ""


def memory_search_text(agent: Agent) -> str:
    """One line on who answers this agent's memory searches, for `agents`, `status` and the app."""
    from ..render import safe

    who = safe(agent.id, one_line=True)
    if agent.search_disabled:
        also = " (it is connected, and memtui answers nothing either)" if agent.connected else ""
        return f"off — {agent.search_disabled}{also}"
    if agent.connected and agent.connect_problem:
        return f"connected, but {agent.connect_problem}"
    if agent.connected:
        return f"connected: memory_search answers from memtui (`memtui disconnect --agent {who}` undoes it)"
    plugin = agent.memory_plugin if agent.memory_plugin and agent.memory_plugin != MEMTUI_MEMORY_PLUGIN else BUILTIN_MEMORY_PLUGIN
    if plugin == BUILTIN_MEMORY_PLUGIN:
        return f"on: OpenClaw's builtin {BUILTIN_MEMORY_PLUGIN} answers (`memtui connect --agent {who}` hands it to memtui)"
    return f"on: plugin {safe(plugin, one_line=True)} answers"


def mark_connected(agents: list[Agent], cfg: dict[str, Any]) -> None:
    """Which agents `memtui connect` handed to memtui. Every other agent keeps the memory slot's plugin:
    OpenClaw's memory-core (also while an older memtui held the slot: OpenClaw then still loads
    memory-core as its dreaming sidecar, whose tools answer the agents memtui's plugin returns none for)."""
    connected = set(connected_agents(cfg))
    problem = plugin_missing(cfg) if connected else ""
    for agent in agents:
        agent.connected = agent.id in connected
        agent.connect_problem = problem if agent.connected else ""
        if agent.memory_plugin == MEMTUI_MEMORY_PLUGIN:  # an older connect's slot: memory-core still answers
            agent.memory_plugin = BUILTIN_MEMORY_PLUGIN


# -- memtui's plugin entry, as `memtui connect` writes it --------------------------------------------

def plugin_missing(data: dict[str, Any]) -> str:
    """Why OpenClaw cannot load memtui's plugin for the agents connected in `data` ("" when it can):
    its folder is gone. OpenClaw then gives those agents memory-core's tools, so memtui says so."""
    for p in json_object(json_object(json_object(data.get("plugins")).get("load"))).get("paths") or []:
        if isinstance(p, str) and is_our_plugin_path(p) and not (Path(p) / "index.js").is_file():
            return (f"the plugin folder {p} is missing: OpenClaw's memory-core answers instead "
                    "(`memtui connect` copies it again)")
    return ""


def current_slot(data: dict[str, Any]) -> str:
    """The plugin in the memory slot as `memory_slot` reads it (memory-core when unset, "none" when off)."""
    plugin = memory_slot(data)[1]
    return plugin if plugin is not None else "none"


def entry_of(data: dict[str, Any]) -> dict[str, Any]:
    return json_object(json_object(json_object(data.get("plugins")).get("entries")).get(MEMTUI_MEMORY_PLUGIN))


def connected_agents(data: dict[str, Any]) -> list[str]:
    """The agents whose memory_search memtui answers: listed in the plugin's config while it is enabled
    (a list since memtui answers beside memory-core; a map of agent → socket when an older memtui held
    the memory slot, which counted only while it held it)."""
    entry = entry_of(data)
    if entry.get("enabled") is False:
        return []
    agents = json_object(entry.get("config")).get("agents")
    if isinstance(agents, list):
        return sorted({a for a in agents if isinstance(a, str)})
    if isinstance(agents, dict) and current_slot(data) == MEMTUI_MEMORY_PLUGIN:
        return sorted(agents)
    return []


def is_our_plugin_path(p: str) -> bool:
    return Path(p).name == MEMTUI_MEMORY_PLUGIN and "openclaw-plugin" in p
