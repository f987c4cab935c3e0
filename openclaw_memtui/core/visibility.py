"""Which conversations an OpenClaw agent's memory_search may quote: OpenClaw's session visibility.

A port of OpenClaw 2026.9.6's `filterMemorySearchHitsBySessionVisibility`
(`dist/session-search-visibility-*.mjs`) and the guard it uses (`createSessionVisibilityGuard`,
`resolveEffectiveSessionToolsVisibility`, `createAgentToAgentPolicy` in `dist/session-visibility-*.mjs`),
for the plain tool call (no "conversation recall"). Notes always pass; a transcript hit passes when:

* a requesting session key is known (without one OpenClaw withholds every transcript);
* it is the served agent's transcript (`sessions/<agent>/…`);
* one of the session keys whose current session id (or, for an archive, whose archive row) names
  it passes the guard, or, when no key names it, it is a live transcript and visibility is
  `agent` or `all`.

The guard, for a target key of the requester's agent: `self` allows only the requesting session;
`tree` also the sessions it spawned (`spawnedBy`/`parentSessionKey` is the requester, and the link is
still live: running, or ended within 30 minutes) — and, when the requester is the agent's main
session, every session of the agent; `agent` and `all` every session of the agent. A key of another
agent needs `all` and `tools.agentToAgent`. Incognito keys are never visible. A sandboxed run is
clamped to `tree` (unless `agents.defaults.sandbox.sessionToolsVisibility` is "all"); the default
visibility is `all`.

Where memtui knows less than OpenClaw: the gateway's live subagent-run registry (memtui reads the
stored `spawned_by`/`parent_session_key` and status only), and the `session.scope: "global"` alias.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from ..interop.session_store import SessionEntry, SessionStore

Visibility = Literal["self", "tree", "agent", "all"]
VISIBILITIES: tuple[Visibility, ...] = ("self", "tree", "agent", "all")
_INCOGNITO = re.compile(r"^agent:[^:]+:(?:dashboard|subagent|internal-session-effects):incognito-[^:]+$")
_ARCHIVE = re.compile(r"^(.+?)\.jsonl\.(reset|deleted)\.[^/]+$")
CHILD_LINK_ENDED_MS = 30 * 60 * 1000  # OpenClaw keeps an ended child's link this long (18e5)
_TERMINAL = ("done", "failed", "killed", "timeout")


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def normalize_agent_id(raw: str) -> str:
    from ..interop.agents import normalize_agent_id as normalize

    return normalize(raw)


def agent_of_key(key: str | None) -> str | None:
    """The agent a session key names (`agent:<id>:…`), normalised; None for any other key."""
    if not key:
        return None
    parts = key.strip().split(":")
    if len(parts) >= 3 and parts[0].lower() == "agent" and parts[1].strip():
        return normalize_agent_id(parts[1])
    return None


def _rest(key: str) -> str:
    parts = key.strip().split(":", 2)
    return parts[2] if len(parts) == 3 and parts[0].lower() == "agent" else key.strip()


def is_incognito(key: str) -> bool:
    return bool(_INCOGNITO.match(key.strip().lower()))


def _spawn_like(key: str) -> bool:
    rest = _rest(key).lower()
    return rest.startswith("subagent:") or rest.startswith("acp:") or key.strip().lower().startswith(("subagent:", "acp:"))


def configured_visibility(oc_cfg: dict[str, Any]) -> Visibility:
    """`tools.sessions.visibility`, "all" when unset or not one of the four (OpenClaw's default)."""
    raw = _dict(_dict(oc_cfg.get("tools")).get("sessions")).get("visibility")
    value = raw.strip().lower() if isinstance(raw, str) else ""
    for known in VISIBILITIES:
        if value == known:
            return known
    return "all"


def sandbox_visibility(oc_cfg: dict[str, Any]) -> str:
    raw = _dict(_dict(_dict(oc_cfg.get("agents")).get("defaults")).get("sandbox")).get("sessionToolsVisibility")
    return raw if isinstance(raw, str) else "spawned"


def effective_visibility(oc_cfg: dict[str, Any], sandboxed: bool) -> Visibility:
    """The visibility a run gets: a sandboxed run is clamped to "tree" (OpenClaw clamps any other
    value, "self" included, when the sandbox's sessionToolsVisibility is "spawned", its default)."""
    visibility = configured_visibility(oc_cfg)
    if sandboxed and sandbox_visibility(oc_cfg) == "spawned" and visibility != "tree":
        return "tree"
    return visibility


def main_session_key(oc_cfg: dict[str, Any], agent_id: str) -> str:
    session = _dict(oc_cfg.get("session"))
    if session.get("scope") == "global":
        return "global"
    main = session.get("mainKey")
    main_key = main.strip().lower() if isinstance(main, str) and main.strip() else "main"
    return f"agent:{normalize_agent_id(agent_id)}:{main_key}"


@dataclass(frozen=True)
class _A2A:
    enabled: bool
    allow: tuple[str, ...]

    def matches(self, agent_id: str) -> bool:
        if not self.allow:
            return True
        for pattern in self.allow:
            if not pattern:  # deny
                continue
            if pattern == "*":
                return True
            if "*" not in pattern:
                if pattern == agent_id:
                    return True
                continue
            if re.fullmatch(".*".join(map(re.escape, pattern.lower().split("*"))), agent_id.lower()):
                return True
        return False

    def allowed(self, requester: str, target: str) -> bool:
        return requester == target or (self.enabled and self.matches(requester) and self.matches(target))


def _a2a(oc_cfg: dict[str, Any]) -> _A2A:
    a2a = _dict(_dict(oc_cfg.get("tools")).get("agentToAgent"))
    raw = a2a.get("allow")
    allow: list[Any] = raw if isinstance(raw, list) else []
    # an entry that is empty or not a string is OpenClaw's "deny" pattern ("" here): it matches nothing,
    # but the list is not empty, so it does not let every agent through (`compileAgentAllowPattern`)
    return _A2A(a2a.get("enabled") is not False, tuple(p.strip() if isinstance(p, str) else "" for p in allow))


def _child_link_live(entry: SessionEntry, now_ms: float) -> bool:
    """OpenClaw's `shouldKeepStoreOnlyChildLink`: a spawned session stays in its parent's tree while
    it runs, and for 30 minutes after it ended."""
    if entry.status in _TERMINAL or entry.ended_at > 0:
        ended = entry.ended_at if entry.ended_at > 0 else entry.updated_at
        return ended > 0 and now_ms - ended <= CHILD_LINK_ENDED_MS
    return entry.status == "running" or entry.started_at > 0 or entry.updated_at > 0


@dataclass(frozen=True)
class Requester:
    """Who asks: the served agent, the requesting session key, whether the run is sandboxed."""

    agent_id: str
    session_key: str | None
    sandboxed: bool = False


class SessionGuard:
    """The verdict on one session key for one requester (OpenClaw's `createSessionVisibilityGuard`)."""

    def __init__(self, oc_cfg: dict[str, Any], requester: Requester, store: SessionStore, now_ms: float) -> None:
        self.visibility = effective_visibility(oc_cfg, requester.sandboxed)
        self.key = (requester.session_key or "").strip()
        self.agent = agent_of_key(self.key) or normalize_agent_id(requester.agent_id)
        with_main = not requester.sandboxed or sandbox_visibility(oc_cfg) == "all"
        self.main_key = main_session_key(oc_cfg, self.agent) if with_main else None
        self.a2a = _a2a(oc_cfg)
        self.spawned: set[str] = set()
        if self.visibility in ("tree", "all"):
            self.spawned = {k for k, e in store.entries.items() if self.key and self.key in (e.spawned_by, e.parent_session_key)
                            and k != self.key and _child_link_live(e, now_ms)}

    def allows(self, target: str) -> bool:
        if is_incognito(target):
            return False
        is_requester = target == self.key or target == "current"
        target_agent = agent_of_key(target) or self.agent
        owned = target in self.spawned or (self.visibility == "tree" and target_agent == self.agent
                                           and self.main_key is not None and self.key == self.main_key)
        cross = target_agent != self.agent
        if (not is_requester and owned and (not cross or _spawn_like(target))
                and self.visibility in ("tree", "all")):
            return True
        if cross:
            return self.visibility == "all" and self.a2a.enabled and self.a2a.allowed(self.agent, target_agent)
        if self.visibility == "self" and not is_requester:
            return False
        return not (self.visibility == "tree" and not is_requester and not owned)


@dataclass(frozen=True)
class TranscriptIdentity:
    stem: str  # the session id the transcript belongs to
    owner: str | None  # the agent its path names (`sessions/<agent>/<file>`)
    archived: bool
    name: str  # the file name


def transcript_identity(path: str) -> TranscriptIdentity | None:
    """OpenClaw's `extractTranscriptIdentityFromSessionsMemoryHit` for a hit path."""
    normalized = path.replace("\\", "/")
    rest = normalized[len("sessions/"):] if normalized.startswith("sessions/") else normalized
    parts = [p for p in rest.split("/") if p]
    if not parts:
        return None
    base = parts[-1]
    owner = normalize_agent_id(parts[0]) if normalized.startswith("sessions/") and len(parts) == 2 else None
    archived = _ARCHIVE.match(base)
    if archived:
        return TranscriptIdentity(archived.group(1), owner, True, base)
    if base.endswith(".jsonl") and len(base) > len(".jsonl"):
        return TranscriptIdentity(base[: -len(".jsonl")], owner, False, base)
    return None


def keys_of(identity: TranscriptIdentity, store: SessionStore) -> list[str]:
    """The session keys a transcript belongs to (`resolveTranscriptStemToSessionKeys`)."""
    if identity.archived and identity.name in store.archives:
        return [store.archives[identity.name][1]]
    keys = [key for key, entry in store.entries.items() if entry.session_id == identity.stem and not is_incognito(key)]
    if keys or not identity.archived or not identity.owner:
        return keys
    fallback = f"agent:{identity.owner}:{identity.stem}"
    return [] if is_incognito(fallback) else [fallback]


def visible_paths(paths: Iterable[str], oc_cfg: dict[str, Any], requester: Requester, store: SessionStore,
                  now_ms: float) -> set[str]:
    """Of the transcript `paths` (hits with source "sessions"), those the requester may see."""
    paths = list(paths)
    if not paths or not requester.session_key or not requester.session_key.strip():
        return set()  # OpenClaw withholds every transcript from a call without a session key
    guard = SessionGuard(oc_cfg, requester, store, now_ms)
    scoped = normalize_agent_id(requester.agent_id)
    kept = set()
    for path in paths:
        identity = transcript_identity(path)
        if identity is None:
            continue
        if identity.owner and identity.owner != scoped:
            continue
        keys = [k for k in keys_of(identity, store) if (agent_of_key(k) or scoped) == scoped]
        if not keys:
            if not identity.archived and identity.owner == scoped and guard.visibility in ("agent", "all"):
                kept.add(path)
            continue
        if any(guard.allows(k) for k in keys):
            kept.add(path)
    return kept


def own_session_ids(requester: Requester, store: SessionStore) -> set[str]:
    """The session ids of the requesting session (its current transcript): memtui never answers an
    agent with the conversation it is having."""
    key = (requester.session_key or "").strip()
    entry = store.entries.get(key) if key else None
    return {entry.session_id} if entry is not None and entry.session_id else set()
