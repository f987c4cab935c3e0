"""Find OpenClaw's state dir, read its JSON5 config, and list agents with their effective settings.

Rules follow OpenClaw (spec §2.2, §4.1, §9.1, §12): `agents.defaults.memorySearch` deep-merged with
each agent's own `memorySearch` (the agent wins; `extraPaths` are concatenated), under the newer
top-level `memory.search` block when present; workspace from the agent, else the defaults (other
agents get `<defaults.workspace>/<id>`), else `~/.openclaw/workspace` / `<state>/workspace-<id>`.
"""

from __future__ import annotations

import copy
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..paths import openclaw_state_dir

CONFIG_NAMES = ("openclaw.json", "clawdbot.json")
DEFAULT_AGENT = "main"


class OpenClawError(ValueError):
    """A problem with the OpenClaw installation, phrased for the user."""


@dataclass
class Agent:
    id: str
    default: bool
    workspace: str
    sessions_dir: str
    index_path: str
    memory_search: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def config_path(state_dir: Path | None = None) -> Path | None:
    env = os.environ.get("OPENCLAW_CONFIG_PATH")
    if env:
        return Path(os.path.expanduser(env))
    state = state_dir or openclaw_state_dir()
    for name in CONFIG_NAMES:
        if (state / name).is_file():
            return state / name
    return None


def read_config(path: Path | None) -> dict[str, Any]:
    if path is None:
        return {}
    import json5

    try:
        data = json5.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise OpenClawError(f"cannot read OpenClaw config {path}: {exc.strerror}") from None
    except ValueError as exc:
        raise OpenClawError(f"OpenClaw config {path} is not valid JSON5: {exc}") from None
    if not isinstance(data, dict):
        raise OpenClawError(f"OpenClaw config {path} must hold an object")
    return data


def deep_merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for key, value in override.items():
        if key == "extraPaths" and isinstance(value, list):
            out[key] = list(dict.fromkeys([*out.get(key, []), *value]))  # concatenated, not replaced
        elif isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _normalize_extra_paths(ms: dict[str, Any]) -> dict[str, Any]:
    """The newer `{path, pattern}` form becomes a plain path (patterns are not applied)."""
    paths = []
    for item in ms.get("extraPaths") or []:
        raw = item.get("path") if isinstance(item, dict) else item
        if isinstance(raw, str) and raw.strip():
            paths.append(raw.strip())
    if "extraPaths" in ms:
        ms = dict(ms, extraPaths=list(dict.fromkeys(paths)))
    return ms


def list_agents(state_dir: Path | None = None) -> tuple[list[Agent], Path | None]:
    state = state_dir or openclaw_state_dir()
    path = config_path(state)
    cfg = read_config(path)
    agents_cfg = cfg.get("agents") if isinstance(cfg.get("agents"), dict) else {}
    defaults = agents_cfg.get("defaults") if isinstance(agents_cfg.get("defaults"), dict) else {}
    listed = [a for a in agents_cfg.get("list") or [] if isinstance(a, dict) and isinstance(a.get("id"), str)]
    if not listed:
        listed = [{"id": DEFAULT_AGENT}]
    default_id = next((a["id"] for a in listed if a.get("default")), listed[0]["id"])
    newer = cfg.get("memory", {}).get("search") if isinstance(cfg.get("memory"), dict) else None
    base = _normalize_extra_paths(newer) if isinstance(newer, dict) else {}
    base = deep_merge(base, _normalize_extra_paths(defaults.get("memorySearch") or {}))
    home = Path(os.environ.get("OPENCLAW_HOME") or Path.home())
    agents = []
    for entry in listed:
        agent_id = entry["id"]
        is_default = agent_id == default_id
        ms = deep_merge(base, _normalize_extra_paths(entry.get("memorySearch") or {}))
        if entry.get("workspace"):
            workspace = Path(os.path.expanduser(entry["workspace"]))
        elif defaults.get("workspace"):
            root = Path(os.path.expanduser(defaults["workspace"]))
            workspace = root if is_default else root / agent_id
        else:
            workspace = home / ".openclaw" / "workspace" if is_default else state / f"workspace-{agent_id}"
        store = (ms.get("store") or {}).get("path") if isinstance(ms.get("store"), dict) else None
        index = Path(os.path.expanduser(store.replace("{agentId}", agent_id))) if store else state / "memory" / f"{agent_id}.sqlite"
        agents.append(Agent(agent_id, is_default, str(workspace), str(state / "agents" / agent_id / "sessions"), str(index), ms))
    return agents, path


def find_agent(agent_id: str, state_dir: Path | None = None) -> Agent:
    agents, path = list_agents(state_dir)
    for agent in agents:
        if agent.id == agent_id:
            return agent
    known = ", ".join(a.id for a in agents) or "none"
    where = f" in {path}" if path else " (no OpenClaw config found)"
    raise OpenClawError(f"no OpenClaw agent '{agent_id}'{where}; known agents: {known}")


def memtui_overrides(ms: dict[str, Any]) -> dict[str, Any]:
    """Translate an effective `memorySearch` block into memtui config keys (only those present)."""
    out: dict[str, Any] = {}
    if isinstance(ms.get("sources"), list):
        out["sources"] = [s for s in ms["sources"] if s in ("memory", "sessions")] or ["memory"]
    if isinstance(ms.get("extraPaths"), list):
        out["extraPaths"] = list(ms["extraPaths"])
    for key in ("provider", "model"):  # OpenClaw's `fallback` has no memtui twin: a failing provider degrades to keywords
        if isinstance(ms.get(key), str) and ms[key]:
            out[key] = ms[key] if key != "provider" or ms[key] in ("auto", "local", "openai", "gemini", "voyage", "mistral",
                                                                     "ollama", "none") else "auto"
    remote = ms.get("remote") if isinstance(ms.get("remote"), dict) else {}
    r = {k: remote[k] for k in ("baseUrl", "apiKey") if isinstance(remote.get(k), str)}
    if isinstance(remote.get("headers"), dict):
        r["headers"] = {str(k): str(v) for k, v in remote["headers"].items()}
    if r:
        out["remote"] = r
    chunking = ms.get("chunking") if isinstance(ms.get("chunking"), dict) else {}
    c = {k: int(chunking[k]) for k in ("tokens", "overlap") if isinstance(chunking.get(k), (int, float))}
    if c:
        out["chunking"] = c
    query = ms.get("query") if isinstance(ms.get("query"), dict) else {}
    q: dict[str, Any] = {}
    if isinstance(query.get("maxResults"), (int, float)):
        q["maxResults"] = int(query["maxResults"])
    if isinstance(query.get("minScore"), (int, float)):
        q["minScore"] = float(query["minScore"])
    hybrid = query.get("hybrid") if isinstance(query.get("hybrid"), dict) else {}
    h: dict[str, Any] = {}
    for key in ("vectorWeight", "textWeight"):
        if isinstance(hybrid.get(key), (int, float)):
            h[key] = float(hybrid[key])
    for block, keys in (("mmr", ("enabled", "lambda")), ("temporalDecay", ("enabled", "halfLifeDays"))):
        src = hybrid.get(block) if isinstance(hybrid.get(block), dict) else {}
        part = {k: (bool(src[k]) if k == "enabled" else float(src[k])) for k in keys if k in src}
        if part:
            h[block] = part
    if h:
        q["hybrid"] = h
    if q:
        out["query"] = q
    return out
