"""Helpers for tests that drive the Textual app with Pilot: a demo copy, an app that records, waiting on a condition."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from openclaw_memtui.config import index_settings, validate
from openclaw_memtui.engine.index import MemoryIndex
from openclaw_memtui.engine.search.rank import SearchParams
from openclaw_memtui.paths import demo_workspace
from openclaw_memtui.tui.app import MemtuiApp

NOW_MS = 1764547200000.0  # 2025-12-01, fixed for deterministic ages


class RecordingApp(MemtuiApp):
    def __init__(self, *args, **kwargs):
        self.toasts: list[tuple[str, str]] = []
        self.sync_events: list[str] = []
        super().__init__(*args, **kwargs)

    def notify(self, message, *, title="", severity="information", timeout=None, markup=True):
        self.toasts.append((severity, str(message)))
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def on_sync_progressed(self, message):
        self.sync_events.append(message.progress.phase)
        super().on_sync_progressed(message)


def make_app(ws: Path, tmp_path: Path, provider="none", cfg=None, **kwargs) -> RecordingApp:
    cfg = validate(cfg or {})
    settings = index_settings(cfg, ws, tmp_path / "tui.sqlite")
    from dataclasses import replace

    settings = replace(settings, watch_debounce_ms=200)
    index = MemoryIndex(settings, provider_name=provider)
    kwargs.setdefault("watch", False)
    return RecordingApp(index, cfg, origin="test", now_ms=NOW_MS, params=SearchParams(min_score=0.0), **kwargs)


async def wait_for(pilot, predicate, seconds=15.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        await pilot.pause(0.05)
        if predicate():
            return True
    return False


def copy_demo(tmp_path: Path) -> Path:
    target = tmp_path / "demo"
    shutil.copytree(demo_workspace(), target)
    return target
