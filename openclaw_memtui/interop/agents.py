"""Find OpenClaw's state dir, read its JSON5 config, and list its agents as OpenClaw sees them.

Two layouts exist, detected per installation and never mixed:

* **2026.9** (what OpenClaw 2026.9.x writes): agents in the map `agents.entries.<id>`, search
  settings in `memory.search` and `agents.entries.<id>.memory.search`, one SQLite file per agent at
  `<state>/agents/<id>/agent/openclaw-agent.sqlite` holding both its memory index (`memory_index_*`)
  and its live transcripts (`transcript_events`). Rules follow OpenClaw's own code
  (`agent-scope-config`, `memory-search`, `memory-search-source-policy`): per key the agent's value
  wins over `memory.search`, `extraPaths` are concatenated, chunking is fixed at 400/80, and
  transcripts are a source whenever "remember across conversations" is on (its default).
* **legacy** (the builtin engine of `shared/reference`): agents in `agents.list`, settings in
  `agents.defaults.memorySearch` deep-merged with each agent's own `memorySearch` (spec §2.2, §4.1,
  §9.1, §12), the index at `<state>/memory/<id>.sqlite`, transcripts in `sessions/*.jsonl`.

Workspaces in both: the agent's own, else the defaults' (the default agent gets it, others
`<defaults.workspace>/<id>`), else `~/.openclaw/workspace` / `<state>/workspace-<id>`.

Each agent's effective search settings are resolved by `memory_search`; who answers its searches
(the memory slot, `memtui connect`) by `memory_slot`.
"""

from __future__ import annotations

import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..engine.errors import MemtuiError
from ..engine.ingest.openclaw_db import AGENT_DB_NAME
from ..engine.settings import IndexSettings
from ..paths import openclaw_state_dir
from .config_file import json_object
from .envrefs import config_env, read_by_memtui, resolve_refs
from .memory_search import deep_merge as deep_merge  # core.session imports these two from here
from .memory_search import effective_memory_search_2026, effective_memory_search_legacy, resolved_key
from .memory_search import memtui_overrides as memtui_overrides
from .memory_slot import BUILTIN_MEMORY_PLUGIN, SLOT_BUILTIN, mark_connected, memory_slot, search_disabled_reason
from .openclaw_scope import scope_inputs

CONFIG_NAMES = ("openclaw.json", "clawdbot.json")
DEFAULT_AGENT = "main"
Layout = Literal["2026.9", "legacy"]
NEW_LAYOUT: Layout = "2026.9"
LEGACY_LAYOUT: Layout = "legacy"
# files at the workspace root that each layout indexes besides memory/**
ROOT_FILES = {NEW_LAYOUT: ("MEMORY.md", "USER.md"), LEGACY_LAYOUT: ("MEMORY.md", "memory.md")}
# OpenClaw 2026.9 splits transcript messages longer than this into several lines (session-files.ts)
NEW_LAYOUT_WRAP_CHARS = 800


class OpenClawError(MemtuiError, ValueError):
    """A problem with the OpenClaw installation, phrased for the user."""


@dataclass
class Agent:
    id: str
    default: bool
    workspace: str
    agent_dir: str
    sessions_dir: str  # JSONL transcripts (the legacy layout's live ones; 2026.9's archives)
    index_path: str  # OpenClaw's own index: what `openclaw memory status --json` calls dbPath
    layout: Layout = LEGACY_LAYOUT
    transcripts: str = "jsonl"  # "sqlite": live transcripts in index_path's transcript_events
    sources: list[str] = field(default_factory=lambda: ["memory"])  # what OpenClaw indexes for it
    memory_search: dict[str, Any] = field(default_factory=dict)  # effective settings, memorySearch-shaped
    # 2026.9: what OpenClaw's index scope is made of (openclaw_scope.scope_inputs); not printed
    scope: dict[str, Any] = field(default_factory=dict)
    # which plugin holds OpenClaw's memory slot (`plugins.slots.memory`), see memory_slot()
    memory_slot: str = SLOT_BUILTIN
    memory_plugin: str | None = BUILTIN_MEMORY_PLUGIN
    # why this agent has no memory search, in the user's words ("" when it has one): memtui then does
    # not serve it over MCP unless told to (`memtui mcp --serve-disabled`)
    search_disabled: str = ""
    # `memtui connect`ed: its memory_search / memory_get are answered by memtui (interop/connect.py)
    connected: bool = False
    # why a connected agent is not answered by memtui after all ("": it is), e.g. the plugin folder is gone
    connect_problem: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The agent as `memtui agents --json` prints it: credentials in `remote` masked (the values
        memtui uses stay in `memory_search`; only what is shown changes)."""
        out = asdict(self)
        out.pop("scope")
        out["memory_search"] = _shown_search(out["memory_search"])
        # named as `memtui connect` and its plugin read them
        out["memorySlot"] = out.pop("memory_slot")
        out["memoryPlugin"] = out.pop("memory_plugin")
        out["searchDisabled"] = out.pop("search_disabled") or None
        out["connectProblem"] = out.pop("connect_problem") or None
        return out

    @property
    def transcripts_db(self) -> str:
        return self.index_path if self.transcripts == "sqlite" else ""

    @property
    def sessions_prefix(self) -> str:
        """How OpenClaw names this agent's transcripts in its index: `sessions/<agent>/<id>.jsonl` in 2026.9."""
        return f"sessions/{self.id}" if self.layout == NEW_LAYOUT else "sessions"


def _shown_search(ms: dict[str, Any]) -> dict[str, Any]:
    """`ms` with its API key and header values replaced by "[redacted]" and any credentials in its
    base URL scrubbed. A secret reference (`{source: "env", id: …}`) only names where a key lives: kept."""
    from ..engine.scrub import REDACTED, scrub

    remote = ms.get("remote")
    if not isinstance(remote, dict):
        return ms
    shown = dict(remote)
    if isinstance(shown.get("apiKey"), str) and shown["apiKey"]:
        shown["apiKey"] = REDACTED
    if isinstance(shown.get("headers"), dict):
        shown["headers"] = {name: REDACTED for name in shown["headers"]}
    if isinstance(shown.get("baseUrl"), str):
        shown["baseUrl"] = scrub(shown["baseUrl"])
    return dict(ms, remote=shown)


@dataclass
class Installation:
    state_dir: str
    config: str | None
    layout: Layout
    version: str | None  # meta.lastTouchedVersion of the config
    agents: list[Agent]
    warnings: list[str] = field(default_factory=list)  # what OpenClaw itself would refuse in the config

    @property
    def found(self) -> bool:
        """Whether anything is installed: a config file, or at least the state folder. Without either,
        `agents` lists only what a new install would create, and must say so."""
        return self.config is not None or Path(self.state_dir).is_dir()

    def to_dict(self) -> dict[str, Any]:
        return asdict(self) | {"agents": [a.to_dict() for a in self.agents], "found": self.found}


def config_path(state_dir: Path | None = None) -> Path | None:
    env = os.environ.get("OPENCLAW_CONFIG_PATH")
    if env:
        return Path(os.path.expanduser(env))
    state = state_dir or openclaw_state_dir()
    for name in CONFIG_NAMES:
        # a folder or a dangling link by that name is a broken config, not a missing one: returned, so
        # reading it says what is wrong instead of memtui describing an OpenClaw with no settings
        if os.path.lexists(state / name):
            return state / name
    return None


def read_config(path: Path | None) -> dict[str, Any]:
    if path is None:
        return {}
    from .config_file import ConfigFileError, load_config_tree
    from .validate import OpenClawConfigTypeError, check_openclaw_config

    try:
        data = load_config_tree(path)  # JSON5, `$include`s resolved as OpenClaw does, no lone surrogates
    except ConfigFileError as exc:
        raise OpenClawError(str(exc)) from None
    try:
        check_openclaw_config(data, path)  # wrong types: one line naming the key, not Python's own text
    except OpenClawConfigTypeError as exc:
        raise OpenClawError(str(exc)) from None
    return data


_INVALID_ID_CHARS = re.compile(r"[^a-z0-9_-]+")
_VALID_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$", re.I)


def normalize_agent_id(raw: Any) -> str:
    """OpenClaw's `normalizeAgentId`: lower case, filesystem-safe, `main` when nothing is left."""
    trimmed = raw.strip() if isinstance(raw, str) else ""
    if _VALID_ID.match(trimmed):
        return trimmed.lower()
    cleaned = _INVALID_ID_CHARS.sub("-", trimmed.lower()).strip("-")[:64]
    return cleaned or DEFAULT_AGENT


def detect_layout(cfg: dict[str, Any], state: Path) -> Layout:
    """Which OpenClaw wrote this state. The config decides; without one, the files on disk do."""
    agents = json_object(cfg.get("agents"))
    if "entries" in agents or "search" in json_object(cfg.get("memory")):
        return NEW_LAYOUT
    if "list" in agents or "memorySearch" in json_object(agents.get("defaults")):
        return LEGACY_LAYOUT
    version = json_object(cfg.get("meta")).get("lastTouchedVersion")
    if isinstance(version, str) and _version_tuple(version) >= (2026, 9):
        return NEW_LAYOUT
    if any((state / "agents").glob(f"*/agent/{AGENT_DB_NAME}")):
        return NEW_LAYOUT
    return LEGACY_LAYOUT


def _version_tuple(version: str) -> tuple[int, ...]:
    parts = []
    for piece in version.split(".")[:3]:
        digits = re.match(r"\d+", piece)
        parts.append(int(digits.group(0)) if digits else 0)
    return tuple(parts)


def _roster(cfg: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(id, entry) in config order from `agents.entries` (2026.9) or `agents.list` (legacy)."""
    agents = json_object(cfg.get("agents"))
    if isinstance(agents.get("entries"), dict):
        listed = [(str(key), entry) for key, entry in agents["entries"].items() if isinstance(entry, dict)]
    elif isinstance(agents.get("list"), list):
        listed = [(entry["id"], entry) for entry in agents["list"]
                  if isinstance(entry, dict) and isinstance(entry.get("id"), str)]
    else:
        return [(DEFAULT_AGENT, {})]  # no roster at all: OpenClaw's implicit single agent
    seen: set[str] = set()
    out = []
    for raw_id, entry in listed:
        agent_id = normalize_agent_id(raw_id)
        if agent_id not in seen:  # OpenClaw keeps the first of two entries that normalise alike
            seen.add(agent_id)
            out.append((agent_id, entry))
    return out


def _default_agent_id(cfg: dict[str, Any], ids: list[str]) -> str:
    """OpenClaw's ambient owner: defaults.systemAgent, a single `default: true`, the sole agent."""
    agents = json_object(cfg.get("agents"))
    system = json_object(json_object(agents.get("defaults")).get("systemAgent")).get("agentId")
    if isinstance(system, str) and normalize_agent_id(system) in ids:
        return normalize_agent_id(system)
    if agents.get("ownership") != "explicit":
        marked = [agent_id for agent_id, entry in _roster(cfg) if entry.get("default") is True]
        if len(marked) == 1:
            return marked[0]
    if DEFAULT_AGENT in ids or not ids:
        return DEFAULT_AGENT
    return ids[0]


def _workspace(entry: dict[str, Any], defaults: dict[str, Any], agent_id: str, is_default: bool, state: Path) -> Path:
    if isinstance(entry.get("workspace"), str) and entry["workspace"].strip():
        return Path(os.path.expanduser(entry["workspace"].strip()))
    fallback = defaults.get("workspace")
    if isinstance(fallback, str) and fallback.strip():
        root = Path(os.path.expanduser(fallback.strip()))
        return root if is_default else root / agent_id
    home = Path(os.environ.get("OPENCLAW_HOME") or Path.home())
    return home / ".openclaw" / "workspace" if is_default else state / f"workspace-{agent_id}"


def _enabled_key(cfg: dict[str, Any], entry: dict[str, Any], agent_id: str, layout: Layout) -> str:
    """The config key that decided an agent's `enabled` (the agent's own wins over the defaults)."""
    if layout == NEW_LAYOUT:
        own = json_object(json_object(entry.get("memory")).get("search")).get("enabled")
        return f"agents.entries.{agent_id}.memory.search.enabled" if own is not None else "memory.search.enabled"
    if json_object(entry.get("memorySearch")).get("enabled") is not None:
        return f"memorySearch.enabled of agent {agent_id}"
    if json_object(json_object(json_object(cfg.get("agents")).get("defaults")).get("memorySearch")).get("enabled") is not None:
        return "agents.defaults.memorySearch.enabled"
    return "memory.search.enabled"


def load_installation(state_dir: Path | None = None) -> Installation:
    """The OpenClaw installation: its layout, version and agents with their effective settings."""
    state = state_dir or openclaw_state_dir()
    path = config_path(state)
    raw = read_config(path)
    cfg_env = config_env(raw)
    unset: set[tuple[str, str]] = set()
    cfg = resolve_refs(raw, cfg_env, unset)  # every string, as OpenClaw loads its config
    layout = detect_layout(cfg, state)
    defaults = json_object(json_object(cfg.get("agents")).get("defaults"))
    roster = _roster(cfg)
    slot = memory_slot(cfg)
    ids = [agent_id for agent_id, _ in roster]
    default_id = _default_agent_id(cfg, ids)
    agents = []
    for agent_id, entry in roster:
        is_default = agent_id == default_id
        workspace = _workspace(entry, defaults, agent_id, is_default, state)
        configured_dir = entry.get("agentDir")
        agent_dir = (Path(os.path.expanduser(configured_dir.strip())) if isinstance(configured_dir, str)
                     and configured_dir.strip() else state / "agents" / agent_id / "agent")
        sessions_dir = state / "agents" / agent_id / "sessions"
        if layout == NEW_LAYOUT:
            ms = effective_memory_search_2026(cfg, entry)
            # OpenClaw resolves the database under the state dir, whatever agentDir says
            index = state / "agents" / agent_id / "agent" / AGENT_DB_NAME
            transcripts = "sqlite"
        else:
            ms = effective_memory_search_legacy(cfg, entry)
            store = json_object(ms.get("store")).get("path")
            index = (Path(os.path.expanduser(store.replace("{agentId}", agent_id))) if isinstance(store, str) and store
                     else state / "memory" / f"{agent_id}.sqlite")
            transcripts = "jsonl"
        ms = resolved_key(ms, cfg_env)
        scope = scope_inputs(cfg, entry) if layout == NEW_LAYOUT else {}
        off = search_disabled_reason(slot, ms.get("enabled"), _enabled_key(cfg, entry, agent_id, layout))
        agents.append(Agent(agent_id, is_default, str(workspace), str(agent_dir), str(sessions_dir), str(index),
                            layout, transcripts, list(ms["sources"]), ms, scope, slot[0], slot[1], off))
    if layout == NEW_LAYOUT:
        mark_connected(agents, cfg)
    version = json_object(cfg.get("meta")).get("lastTouchedVersion")
    entries = json_object(json_object(cfg.get("agents")).get("entries"))
    warnings = [f"OpenClaw refuses the agent key {key!r} (letters, digits, '-' and '_' only); memtui reads it as "
                f"'{normalize_agent_id(key)}' — rename it or run `openclaw doctor --fix`"
                for key in entries if not _VALID_ID.match(str(key))]
    warnings += [f"openclaw.json's {where} refers to ${{{name}}}, which is set neither in the environment nor in "
                 "its env block; memtui uses the text as written" for name, where in sorted(unset) if read_by_memtui(where)]
    return Installation(str(state), str(path) if path else None, layout,
                        version if isinstance(version, str) else None, agents, warnings)


def list_agents(state_dir: Path | None = None) -> tuple[list[Agent], Path | None]:
    inst = load_installation(state_dir)
    return inst.agents, Path(inst.config) if inst.config else None


def find_agent(agent_id: str, state_dir: Path | None = None) -> Agent:
    inst = load_installation(state_dir)
    wanted = normalize_agent_id(agent_id) if isinstance(agent_id, str) and agent_id.strip() else agent_id
    for agent in inst.agents:
        if agent.id == wanted:
            return agent
    from ..render import safe

    known = ", ".join(a.id for a in inst.agents) or "none"
    where = f" in {inst.config}" if inst.config else " (no OpenClaw config found)"
    raise OpenClawError(f"no OpenClaw agent '{safe(agent_id, keep_newlines=False)}'{where}; known agents: {known}")


def reread_agent(agent: Agent) -> Agent:
    """`agent` as OpenClaw's config describes it now (`memtui connect` in another terminal, its memory search
    turned off); the agent as it was when the config cannot be read or no longer names it."""
    try:
        return find_agent(agent.id)
    except Exception:  # gone, unreadable, half-written: what was known stays, the next read tries again
        return agent


def agent_index_settings(settings: IndexSettings, agent: Agent) -> IndexSettings:
    """An IndexSettings for indexing `agent` the way OpenClaw does: its root files, transcripts and names."""
    from dataclasses import replace

    patterns = tuple((path, pattern) for path, pattern in agent.memory_search.get("extraPathPatterns") or [])
    settings = replace(settings, extra_path_patterns=patterns)
    if agent.layout == NEW_LAYOUT:
        searched = tuple(s for s in agent.memory_search.get("searchSources") or agent.sources if s in settings.sources)
        if searched and searched != settings.sources:
            settings = replace(settings, search_sources=searched)
        return replace(settings, root_files=ROOT_FILES[NEW_LAYOUT], transcripts_db=Path(agent.index_path),
                       sessions_prefix=agent.sessions_prefix, transcript_wrap_chars=NEW_LAYOUT_WRAP_CHARS,
                       chunker="openclaw-v5")
    return replace(settings, root_files=ROOT_FILES[LEGACY_LAYOUT])
