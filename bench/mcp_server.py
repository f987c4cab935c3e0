"""`memtui mcp` through the protocol: server start to the first memory_search answer, and search latency.

    python3 bench/mcp_server.py [--providers none local] [--searches 50] [--workspace DIR | --notes N] [--name mcp]

Each run spawns `python -m openclaw_memtui mcp` as an agent would and drives it with the MCP SDK's
own client over stdio. The index is built beforehand (`memtui index`), so "first answer" is what
an agent sees when it starts a session on a workspace memtui already knows: process start, SDK
imports, initialize, tools/list, the freshness check and the first search. "initialize" is the
part OpenClaw limits to 5 s when it probes a server. Latency is over `--searches` searches cycling
through the queries below (each is a full tools/call: dirty check, retrieval, ranking, JSON).
(Not bench/mcp.py: run as a script, that name would shadow the SDK's `mcp` package.)
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

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import table, write_json  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
QUERIES = ["database migration", "what did we decide about the deploy last week", "tea preference", "canary release",
           "who reviews the pagination proposal", "search team trigram indexes", "roadmap offline sync",
           "incident postmortem", "standup notes October", "PostgreSQL 16"]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def run_one(argv: list[str], searches: int, env: dict[str, str]) -> dict:
    params = StdioServerParameters(command=sys.executable, args=["-m", "openclaw_memtui", "mcp", *argv], env=env,
                                   cwd=str(REPO))
    started = time.perf_counter()
    with open(Path(tempfile.gettempdir()) / "memtui-bench-mcp.stderr", "w", encoding="utf-8") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            initialized = time.perf_counter()
            await session.list_tools()
            first = await session.call_tool("memory_search", {"query": QUERIES[0]})
            answered = time.perf_counter()
            assert not first.is_error, first.content[0].text
            mode = json.loads(first.content[0].text)["mode"]
            latencies = []
            for i in range(searches):
                t = time.perf_counter()
                result = await session.call_tool("memory_search", {"query": QUERIES[i % len(QUERIES)]})
                latencies.append((time.perf_counter() - t) * 1000)
                assert not result.is_error, result.content[0].text
    return {"initialize_s": round(initialized - started, 3), "first_answer_s": round(answered - started, 3),
            "mode": mode, "searches": searches, "p50_ms": round(statistics.median(latencies), 1),
            "p95_ms": round(percentile(latencies, 0.95), 1), "max_ms": round(max(latencies), 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--providers", nargs="+", default=["none", "local"])
    ap.add_argument("--searches", type=int, default=50)
    ap.add_argument("--workspace", help="workspace to serve (default: the bundled demo)")
    ap.add_argument("--notes", type=int, help="serve a generated workspace of N notes (bench/sync.py's) instead")
    ap.add_argument("--runs", type=int, default=3, help="server starts per provider (the start time is their median)")
    ap.add_argument("--name", default="mcp", help="results file: bench/results/NAME.json")
    args = ap.parse_args()
    rows, results = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        if args.notes:
            from sync import generate

            args.workspace = f"{tmp}/ws"
            generate(Path(args.workspace), args.notes)
        where = ["--workspace", args.workspace] if args.workspace else ["--demo"]
        env = dict(os.environ) | {"MEMTUI_DATA_DIR": f"{tmp}/data", "MEMTUI_CONFIG_DIR": f"{tmp}/config"}
        for provider in args.providers:
            argv = [*where, "--provider", provider, "--db", f"{tmp}/{provider}.sqlite"]
            subprocess.run([sys.executable, "-m", "openclaw_memtui", "index", *argv], check=True, env=env, cwd=REPO,
                           capture_output=True)
            runs = [anyio.run(run_one, argv, args.searches if i == 0 else 1, env) for i in range(args.runs)]
            r = runs[0] | {"initialize_s": statistics.median(x["initialize_s"] for x in runs),
                           "first_answer_s": statistics.median(x["first_answer_s"] for x in runs), "runs": args.runs}
            results[provider] = r
            rows.append([provider, r["mode"], f"{r['initialize_s']:.2f}", f"{r['first_answer_s']:.2f}",
                         f"{r['p50_ms']:.1f}", f"{r['p95_ms']:.1f}", r["searches"]])
    print(table(rows, ["provider", "mode", "initialize s", "start→first answer s", "search p50 ms", "search p95 ms", "N"]))
    load = [round(x, 1) for x in os.getloadavg()]  # the machine is shared: say how busy it was
    print(f"\nload average during the run: {load[0]} (1 min), {load[1]} (5 min) on {os.cpu_count()} cores")
    what = f"{args.notes} generated notes" if args.notes else args.workspace or "demo"
    path = write_json(args.name, {"workspace": what, "load_average": load, "results": results})
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
