"""A small OpenClaw 2026.9 state for the connect and plugin-server tests."""

from __future__ import annotations

import json
from pathlib import Path

STRIPE_KEY = "sk_live_51HxQeKJ2mYz8Rt4uVw9AbCdEfGhIjKlMnOpQr"


def make_state(tmp_path: Path, monkeypatch, agent_query: dict | None = None) -> Path:
    """Two agents with notes (one quoting a key), mode 0600 as OpenClaw writes it; OPENCLAW_STATE_DIR set."""
    root = tmp_path / "oc"
    for ws in ("ws-main", "ws-research"):
        (root / ws / "memory").mkdir(parents=True)
        (root / ws / "MEMORY.md").write_text("# memory\n- Kafka consumer lag peaked at 48k.\n", encoding="utf-8")
    (root / "ws-main" / "memory" / "2026-11-22.md").write_text(
        "# 2026-11-22\n\n- Kafka consumer lag on the invoices topic: rebalance storm.\n"
        f"- the stripe key {STRIPE_KEY} was rotated\n", encoding="utf-8")
    main: dict = {"workspace": str(root / "ws-main")}
    if agent_query:
        main["memory"] = {"search": {"query": agent_query}}
    cfg = {
        "meta": {"lastTouchedVersion": "2026.9.6"},
        "gateway": {"auth": {"token": "tok-123"}},
        "agents": {"entries": {"main": main, "research": {"workspace": str(root / "ws-research")}}},
        "memory": {"search": {"provider": "none", "sources": ["memory"]}},
    }
    (root / "state").mkdir()
    path = root / "state" / "openclaw.json"
    path.write_text(json.dumps(cfg, indent=2) + "\n", encoding="utf-8")
    path.chmod(0o600)
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(root / "state"))
    return root
