"""The app's first query and its quit, on the demo, with the local model, side by side with keywords only.

    python3 bench/app_instant.py [--rounds 3]

1. first query: a fresh process starts the app headless (Pilot) on a copy of the demo, its index built,
   and types a query at once; timed from the moment the debounce starts the search to (a) the first
   results on screen and (b) the hybrid ranking, with the model's prepared form built ("warm") and
   with none yet ("first start": the model is prepared in the background meanwhile). The floor is the
   same with `--provider none`.
2. quit: a fresh process starts the app headless and presses ctrl+q 0.2 s after launch (the model is
   loading and the launch check or a sync running); timed from the key to the end of the process.
   The floor: ctrl+q once the app is idle.

Writes bench/results/app_instant.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import as_installed_env, table, write_json  # noqa: E402

QUERY = "what did we decide about API auth"

DRIVER = r"""
import asyncio, json, sys, time
from pathlib import Path
from openclaw_memtui.core.config import index_settings, validate
from openclaw_memtui.engine.index import MemoryIndex
from openclaw_memtui.tui.app import MemtuiApp
from openclaw_memtui.tui.quit import end_process, exit_now_if_busy

mode, provider, ws, db, out = sys.argv[1:6]
index = MemoryIndex(index_settings(validate({}), Path(ws), Path(db)), provider_name=provider)
app = MemtuiApp(index, validate({}), origin="bench", watch=False)
marks = {}
screen = app.search_screen
real_start = screen.start_search

def start_search():  # the debounce's timer calls the screen's attribute: its moment is the start
    marks.setdefault("debounced", time.perf_counter())
    real_start()

screen.start_search = start_search

async def drive(pilot):
    if mode == "query":
        app.query_one("#query").value = QUERY_TEXT
        while "final" not in marks:  # polled every 5 ms: the figures are ±5 ms
            pool = app.search_screen.pool
            if pool is not None and pool.query == QUERY_TEXT:  # on screen (minScore may leave it empty)
                if "first" not in marks:
                    marks["first"], marks["first_mode"] = time.perf_counter(), pool.mode
                    marks["first_results"] = len(app.search_screen.results)
                if pool.mode == "hybrid" or provider == "none":
                    marks["final"] = time.perf_counter()
            await asyncio.sleep(0.005)
        await pilot.press("ctrl+q")
    else:
        await asyncio.sleep(0.2 if mode == "quit-busy" else 0)
        if mode == "quit-idle":
            await app.workers.wait_for_complete()
            while app.sync_running:
                await asyncio.sleep(0.05)
        marks["running"] = sorted({w.group for w in app.workers if w.is_running})
        marks["pressed"] = time.time()
        Path(out).write_text(json.dumps(marks))
        await pilot.press("ctrl+q")

app.run(headless=True, size=(120, 36), auto_pilot=drive)
if mode == "query":
    Path(out).write_text(json.dumps(marks))
exit_now_if_busy(getattr(app, "executor", None), 0)
index.close()
end_process(0)  # as memtui's launch does once the session is closed
""".replace("QUERY_TEXT", repr(QUERY))


def driver(mode: str, provider: str, ws: Path, db: Path, env: dict[str, str]) -> dict:
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        started = time.time()
        done = subprocess.run([sys.executable, "-c", DRIVER, mode, provider, str(ws), str(db), out.name], env=env,
                              capture_output=True, text=True, timeout=300)
        ended = time.time()
        if done.returncode != 0:
            raise SystemExit(f"{mode} {provider} failed: {done.stderr[-600:]}")
        marks = json.loads(Path(out.name).read_text())
    marks["process_s"] = ended - started
    if "pressed" in marks:
        marks["quit_s"] = ended - marks["pressed"]
    return marks


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    from openclaw_memtui.paths import demo_workspace

    out: dict[str, object] = {"load_avg_at_start": os.getloadavg()}
    rows, quit_rows = [], []
    with tempfile.TemporaryDirectory() as tmp:
        env = as_installed_env()
        env.update(MEMTUI_DATA_DIR=f"{tmp}/data", MEMTUI_CONFIG_DIR=f"{tmp}/config")
        ws = Path(tmp) / "demo"
        shutil.copytree(demo_workspace(), ws)
        dbs = {p: Path(tmp) / f"{p}.sqlite" for p in ("none", "local")}
        for provider, db in dbs.items():
            subprocess.run([sys.executable, "-m", "openclaw_memtui", "index", "--workspace", str(ws), "--db", str(db),
                            "--provider", provider], env=env | {"MEMTUI_CACHE_DIR": f"{tmp}/cache"}, check=True,
                           capture_output=True)
        warm = env | {"MEMTUI_CACHE_DIR": f"{tmp}/cache"}
        first: dict[str, list[dict]] = {"keywords only (floor)": [], "local, model prepared": [],
                                        "local, first start (model being prepared)": []}
        for r in range(args.rounds):
            first["keywords only (floor)"].append(driver("query", "none", ws, dbs["none"], warm))
            first["local, model prepared"].append(driver("query", "local", ws, dbs["local"], warm))
            first["local, first start (model being prepared)"].append(
                driver("query", "local", ws, dbs["local"], env | {"MEMTUI_CACHE_DIR": f"{tmp}/cold{r}"}))
        summary = {}
        for name, runs in first.items():
            to_first = statistics.median(m["first"] - m["debounced"] for m in runs)
            to_final = statistics.median(m["final"] - m["debounced"] for m in runs)
            summary[name] = {"debounce_to_first_results_s": to_first, "debounce_to_hybrid_s": to_final,
                             "first_modes": [m["first_mode"] for m in runs]}
            rows.append([name, f"{to_first:.3f}", f"{to_final:.3f}", ", ".join(sorted(set(summary[name]["first_modes"])))])
        out["first_query"] = summary
        quits: dict[str, list[dict]] = {"idle (floor)": [], "0.2 s after launch, first start": []}
        for r in range(args.rounds):
            quits["idle (floor)"].append(driver("quit-idle", "local", ws, dbs["local"], warm))
            quits["0.2 s after launch, first start"].append(
                driver("quit-busy", "local", ws, dbs["local"], env | {"MEMTUI_CACHE_DIR": f"{tmp}/qcold{r}"}))
        out["quit"] = {name: {"key_to_exit_s": statistics.median(m["quit_s"] for m in runs),
                              "all_s": [round(m["quit_s"], 3) for m in runs],
                              "running_at_key": sorted({g for m in runs for g in m["running"]})} for name, runs in quits.items()}
        for name, m in out["quit"].items():  # type: ignore[union-attr]
            quit_rows.append([name, f"{m['key_to_exit_s']:.3f}", ", ".join(m["running_at_key"]) or "-"])
    print(table(rows, ["first query on the demo", "debounce → first results s", "debounce → hybrid s", "first shown as"]))
    print()
    print(table(quit_rows, ["ctrl+q", "key → process ended s (median)", "running when pressed"]))
    out["load_avg_at_end"] = os.getloadavg()
    print(f"wrote {write_json('app_instant', out)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
