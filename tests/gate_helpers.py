"""A hostile copy of the real OpenClaw 2026.9.6 state for the answer-gate tests.

Agent `main` gets, beside what OpenClaw wrote:
* a note named after a GitHub token, a note named after the configured API key, a note quoting a token;
* four more conversations, each mentioning "pelican": another direct chat (`agent:main:telegram:direct:alice`),
  a subagent spawned by the main session (running), a session OpenClaw was told to forget (tombstone),
  and the main session itself (`agent:main:main`, the requesting session in the plugin tests).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from openclaw_memtui.engine.store import detect_backend

from .helpers import copy_openclaw_state

FIXTURE = Path(__file__).parent / "fixtures" / "openclaw-2026.9.6"
GH_TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"  # 36 characters after the prefix
API_KEY = "Zq8Xv2Lp9Ws4Nd7Hk3Mb6Tc"  # the configured key (OPENAI_API_KEY): no well-known shape
INLINE_TOKEN = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"
MAIN_SESSION = "c2b41606-f542-483b-b12e-c1ee957fd8c0"  # agent:main:main's transcript, written by OpenClaw
OTHER, CHILD, FORGOTTEN = ("11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222",
                           "33333333-3333-4333-8333-333333333333")
KEYS = {OTHER: "agent:main:telegram:direct:alice", CHILD: "agent:main:subagent:abc", FORGOTTEN: "agent:main:dashboard:old"}
QUERY = "pelican rota"


def transcript_path(session_id: str) -> str:
    return f"sessions/main/{session_id}.jsonl"


def _add_session(conn: Any, session_id: str, key: str | None, text: str, *, owner: bool,
                 spawned_by: str | None = None, now: int = 0) -> None:
    events = [{"type": "session", "version": 4, "id": session_id, "timestamp": "2026-11-30T22:00:00.000Z"},
              {"type": "message", "id": "u1", "parentId": None, "timestamp": "2026-11-30T22:00:01.000Z",
               "message": {"role": "user", "content": text, "timestamp": 1796076001000,
                           "__openclaw": {"senderIsOwner": owner}}},
              {"type": "message", "id": "a1", "parentId": "u1", "timestamp": "2026-11-30T22:00:02.000Z",
               "message": {"role": "assistant", "content": [{"type": "text", "text": "Noted the pelican rota."}],
                           "timestamp": 1796076002000}}]
    start = conn.execute("SELECT coalesce(max(seq), -1) FROM transcript_events WHERE session_id = ?",
                         (session_id,)).fetchone()[0] + 1
    for seq, event in enumerate(events if start == 0 else events[1:], start):
        raw = json.dumps(event)
        conn.execute("INSERT INTO transcript_events(session_id, seq, event_json, created_at, event_utf8_bytes) "
                     "VALUES (?, ?, ?, ?, ?)", (session_id, seq, raw, 1796076000000 + seq, len(raw.encode())))
    if key is not None:
        entry = {"sessionId": session_id, "updatedAt": now, "startedAt": now, **({"spawnedBy": spawned_by} if spawned_by else {})}
        conn.execute("INSERT INTO session_nodes(session_key, current_session_id, entry_json, updated_at, status, "
                     "spawned_by) VALUES (?, ?, ?, ?, ?, ?)",
                     (key, session_id, json.dumps(entry), now, "running" if spawned_by else None, spawned_by))


def make_hostile_state(tmp_path: Path, monkeypatch, oc_config: dict | None = None) -> Path:
    """The copy, its env set (OPENCLAW_STATE_DIR, HOME, OPENAI_API_KEY); `oc_config` merged into openclaw.json."""
    import time

    root = copy_openclaw_state(FIXTURE, tmp_path / "oc")
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(root / "state"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    ws = root / "ws-main" / "memory"
    (ws / f"{GH_TOKEN}.md").write_text("# Pelican rota\n- pelican rota kept by Dana on Mondays\n", encoding="utf-8")
    (ws / f"{API_KEY}.md").write_text("# Feeding\n- pelican rota feeding is at noon\n", encoding="utf-8")
    (ws / "tokens.md").write_text(f"# Bot\n- the pelican rota bot token is {INLINE_TOKEN} (rotate monthly)\n",
                                  encoding="utf-8")
    now = int(time.time() * 1000)
    db = root / "state" / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    sqlite = detect_backend().module  # OpenClaw's triggers call octet_length(): a modern SQLite binding
    conn = sqlite.connect(db)
    with conn:
        _add_session(conn, MAIN_SESSION, None, "Who keeps the pelican rota this week?", owner=True)
        _add_session(conn, OTHER, KEYS[OTHER], "Alice asked about the pelican rota for the zoo.", owner=False, now=now)
        _add_session(conn, CHILD, KEYS[CHILD], "Subagent: summarise the pelican rota.", owner=True,
                     spawned_by="agent:main:main", now=now)
        _add_session(conn, FORGOTTEN, KEYS[FORGOTTEN], "Secret pelican rota plans, forget them.", owner=True, now=now)
        conn.execute("INSERT INTO memory_session_tombstones(session_id, agent_id, reason, created_at) "
                     "VALUES (?, 'main', 'forgotten', ?)", (FORGOTTEN, now))
    conn.close()
    if oc_config:
        from openclaw_memtui.interop.agents import deep_merge

        cfg_path = root / "state" / "openclaw.json"
        cfg = json.loads(cfg_path.read_text(encoding="utf-8"))
        cfg_path.write_text(json.dumps(deep_merge(cfg, oc_config), indent=2), encoding="utf-8")
    return root
