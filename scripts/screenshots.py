"""Regenerate screenshots/*.svg headless from the bundled demo workspace (fixed size and clock).

    python3 scripts/screenshots.py

Shots: the main screen, the tuning panel, a sync in progress, the main screen in a second theme, and
the tuning panel's judged metric over the demo's shipped judgements after a change.

    python3 scripts/screenshots.py judging   # only the shots named
"""

from __future__ import annotations

import asyncio
import shutil
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from openclaw_memtui.core.config import index_settings, search_params, validate
from openclaw_memtui.engine.index import MemoryIndex
from openclaw_memtui.engine.tuning.judgements import JudgementStore, judgements_path
from openclaw_memtui.paths import demo_judgements, demo_workspace
from openclaw_memtui.tui.app import MemtuiApp

OUT = Path(__file__).resolve().parent.parent / "screenshots"
NOW_MS = 1796040000000.0  # 2026-11-30T12:00:00Z
SIZE = (120, 36)


async def until(pilot, predicate, seconds=60.0) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end and not predicate():
        await pilot.pause(0.02)


def make_app(tmp: Path, theme: str = "memtui-dark", query: str = "", extra_notes: int = 0) -> MemtuiApp:
    ws = tmp / ("workspace" if not extra_notes else "bigger")
    if not ws.exists():
        shutil.copytree(demo_workspace(), ws)
        for i in range(extra_notes):  # enough fresh text that the embedding phase is still running
            (ws / "memory" / "archive").mkdir(exist_ok=True)
            (ws / "memory" / "archive" / f"2026-09-{1 + i % 28:02d}-log-{i}.md").write_text(
                f"# Log {i}\n" + " ".join(f"entry{i}-{k} about release {k % 7}" for k in range(60)) + "\n", encoding="utf-8")
    cfg = validate({"tui": {"theme": theme}})
    index = MemoryIndex(index_settings(cfg, ws, tmp / f"{ws.name}.sqlite"), provider_name="local")
    # the demo's shipped judgements, as `memtui --demo` reads them until the first mark
    judged = JudgementStore(judgements_path(index.settings.db_path), seed=demo_judgements())
    app = MemtuiApp(index, cfg, origin="demo", now_ms=NOW_MS, watch=False, initial_query=query, params=search_params(cfg),
                    judgements=judged)
    return app


async def shot(app: MemtuiApp, name: str, prepare, settle: bool = True) -> None:
    async with app.run_test(size=SIZE) as pilot:
        if settle:
            await until(pilot, lambda: not app.sync_running)
        app.sub_title = "demo workspace"
        await prepare(pilot, app)
        app.clear_notifications()
        await pilot.pause(0.3)
        app.save_screenshot(filename=f"{name}.svg", path=str(OUT))
        print(f"wrote screenshots/{name}.svg")


async def main(only: list[str]) -> int:
    OUT.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        if only:  # shots not asked for are not taken
            global shot
            take = shot

            async def shot(app: MemtuiApp, name: str, prepare, settle: bool = True) -> None:  # type: ignore[no-redef]
                if name in only:
                    await take(app, name, prepare, settle)

        async def results(pilot, app):
            await until(pilot, lambda: bool(app.search_screen.results) and app.search_screen.pool.mode == "hybrid")
            app.query_one("#results").focus()
            await pilot.press("down")

        await shot(make_app(tmp, query="what did we decide about API authentication"), "main", results)

        async def tuning(pilot, app):
            await until(pilot, lambda: bool(app.search_screen.results))
            await pilot.press("ctrl+t")
            app.search_screen.apply_preset("recent-first")
            mmr = app.query_one("#sw-mmr")
            mmr.value = True
            await pilot.pause(0.2)

        await shot(make_app(tmp, query="database migration"), "tuning", tuning)

        async def syncing(pilot, app):
            await pilot.press("f2")
            await until(pilot, lambda: app.sync_progress is not None and app.sync_progress.phase == "embed"
                        and app.sync_progress.done >= 32)

        await shot(make_app(tmp, extra_notes=120), "sync", syncing, settle=False)

        async def light(pilot, app):
            await until(pilot, lambda: bool(app.search_screen.results))

        await shot(make_app(tmp, theme="memtui-light", query="鉴权"), "light-theme", light)

        async def judging(pilot, app):
            await until(pilot, lambda: bool(app.search_screen.results)
                        and app.search_screen.judging.metric_view.current is not None)
            await pilot.press("ctrl+t")
            # minScore down to 0.10: the metric moves against the saved settings
            app.query_one("#tuning").apply(replace(app.search_screen.params, min_score=0.1))
            judging = app.search_screen.judging
            await until(pilot, lambda: app.search_screen.params.min_score == 0.1
                        and judging.metric_shown == judging.metric_generation
                        and judging.metric_view.current != judging.metric_view.saved)
            app.query_one("#results").focus()

        await shot(make_app(tmp, query="rate limiting policy"), "judging", judging)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
