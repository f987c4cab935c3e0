"""A connected agent's first answer after a cold start: `memtui serve` started fresh over an index synced
before, the agent's conversation grown since (as it grows every turn), asked through the plugin's wire.

    python3 bench/first_answer_serve.py [--runs 3] [--provider local] [--code DIR] [--name first_answer_serve]

Each run copies the real OpenClaw 2026.9.6 state in tests/fixtures, builds the agent's index once
(`memtui index --agent main`), then per run: appends a turn to the agent's live transcript, starts
`memtui serve` (nothing warm), and times from the process start to the first memory_search answer on
its unix socket (the plugin's JSON line, with the session key OpenClaw passes). It records the
answer's `mode` and `warnings`: a complete first answer is hybrid with no warning. `--code DIR` runs
another checkout of memtui (e.g. the previous commit) for a before/after comparison.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import as_installed_env, table, write_json  # noqa: E402

from openclaw_memtui.interop.connect import call  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
FIXTURE = REPO / "tests" / "fixtures" / "openclaw-2026.9.6"
SESSION = "c2b41606-f542-483b-b12e-c1ee957fd8c0"
QUERY = "Kafka consumer lag on the invoices topic"


def make_state(root: Path) -> Path:
    sys.path.insert(0, str(REPO))
    from tests.helpers import copy_openclaw_state

    return copy_openclaw_state(FIXTURE, root / "oc")


def grow_conversation(db: Path, n: int) -> None:
    from openclaw_memtui.engine.store import detect_backend

    conn = detect_backend().module.connect(db)  # OpenClaw's triggers call octet_length(): a modern binding
    seq, last = conn.execute("SELECT max(seq), max(created_at) FROM transcript_events WHERE session_id = ?",
                             (SESSION,)).fetchone()
    event = json.dumps({"type": "message", "id": f"bench{n}", "parentId": None, "timestamp": "2026-12-01T10:00:00Z",
                        "message": {"role": "user", "content": f"turn {n}: what about the Kafka consumer lag?",
                                    "timestamp": last + 60_000}})
    conn.execute("INSERT INTO transcript_events(session_id, seq, event_json, created_at, event_utf8_bytes) "
                 "VALUES (?, ?, ?, ?, ?)", (SESSION, seq + 1, event, last + 60_000, len(event.encode())))
    conn.execute("UPDATE session_windows SET updated_at = ?, transcript_updated_at = ? WHERE session_id = ?",
                 (last + 60_000, last + 60_000, SESSION))
    conn.commit()
    conn.close()


def ask(sock: Path, deadline: float) -> dict:
    while not sock.exists():
        if time.monotonic() > deadline:
            raise TimeoutError("no socket")
        time.sleep(0.01)
    request = {"v": 1, "op": "memory_search", "args": {"query": QUERY}, "sessionKey": "agent:main:main",
               "sandboxed": False, "citations": False}
    return call(sock, request, timeout=max(1.0, deadline - time.monotonic()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--provider", default="local")
    parser.add_argument("--code", default=str(REPO), help="the memtui checkout to run (PYTHONPATH)")
    parser.add_argument("--name", default="first_answer_serve")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="memtui-first-answer-"))
    root = make_state(tmp)
    env = as_installed_env() | {"OPENCLAW_STATE_DIR": str(root / "state"), "HOME": str(tmp / "home"),
                                "MEMTUI_DATA_DIR": str(tmp / "data"), "MEMTUI_CONFIG_DIR": str(tmp / "config"),
                                "PYTHONPATH": args.code}
    memtui = [sys.executable, "-m", "openclaw_memtui"]
    subprocess.run([*memtui, "index", "--agent", "main", "--provider", args.provider], env=env, check=True,
                   capture_output=True, cwd=args.code)
    db = root / "state" / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    rows, runs = [], []
    for n in range(args.runs):
        grow_conversation(db, n)
        sock = tmp / "run" / f"s{n}.sock"
        started = time.monotonic()
        proc = subprocess.Popen([*memtui, "serve", "--agent", "main", "--socket", str(sock), "--idle-exit", "0",
                                 "--provider", args.provider], env=env, cwd=args.code,
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=open(tmp / f"serve{n}.log", "w"))  # noqa: SIM115
        try:
            reply = ask(sock, started + 120)
            seconds = time.monotonic() - started
        finally:
            proc.terminate()
            proc.wait(30)
        result = reply.get("result", {})
        warnings = result.get("warnings", [])
        runs.append({"seconds": round(seconds, 3), "mode": result.get("mode"), "warnings": warnings,
                     "hits": len(result.get("results", []))})
        rows.append([n + 1, f"{seconds:.2f}", result.get("mode"), len(result.get("results", [])),
                     "; ".join(w[:60] for w in warnings) or "none"])
    load = os.getloadavg()[0]
    print(table(rows, ["run", "first answer s", "mode", "hits", "warnings"]))
    print(f"median {statistics.median(r['seconds'] for r in runs):.2f} s; load average {load:.1f}; code {args.code}")
    path = write_json(args.name, {"provider": args.provider, "code": args.code, "load": load, "runs": runs})
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
