"""Helpers for tests that drive the Textual app with Pilot: a demo copy, an app that records, waiting on a condition.

An app on the local model replays the model's passage vectors for the demo from tests/fixtures (embedding the
demo takes 10-20 s on 2 cores); test_local_model.py checks the recording against the model, and
scripts/record_demo_vectors.py writes it again when the demo or the model changes.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from openclaw_memtui.core.config import AppConfig, index_settings, validate
from openclaw_memtui.engine.index import MemoryIndex
from openclaw_memtui.engine.search.rank import SearchParams
from openclaw_memtui.engine.textutil import sha256_hex
from openclaw_memtui.paths import demo_workspace
from openclaw_memtui.tui.app import MemtuiApp

NOW_MS = 1764547200000.0  # 2025-12-01, fixed for deterministic ages
DEMO_VECTORS = Path(__file__).parent / "fixtures" / "demo-local-vectors.npz"


def recorded_vectors() -> dict[str, np.ndarray]:
    """The local model's passage vectors for the demo's chunks, by the chunk text's sha256."""
    if not DEMO_VECTORS.exists():
        return {}
    with np.load(DEMO_VECTORS) as data:
        return dict(zip(data["hashes"].tolist(), data["vectors"], strict=True))


def replay_recorded_vectors(provider) -> None:
    """Answer `provider.embed_batch` from the recording; texts it does not hold still go to the model."""
    recorded, model = recorded_vectors(), provider.embed_batch

    def embed_batch(texts: Sequence[str]) -> np.ndarray:
        missing = [t for t in texts if sha256_hex(t) not in recorded]
        fresh = dict(zip(missing, model(missing), strict=True)) if missing else {}
        if not texts:
            return model(texts)
        return np.stack([recorded[sha256_hex(t)] if t not in fresh else fresh[t] for t in texts]).astype(np.float32)

    provider.embed_batch = embed_batch


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
    cfg = cfg if isinstance(cfg, AppConfig) else validate(cfg or {})
    settings = index_settings(cfg, ws, tmp_path / "tui.sqlite")
    from dataclasses import replace

    settings = replace(settings, watch_debounce_ms=200)
    index = MemoryIndex(settings, provider_name=provider)
    if provider == "local":
        replay_recorded_vectors(index.provider)
    kwargs.setdefault("watch", False)
    return RecordingApp(index, cfg, origin="test", now_ms=NOW_MS, params=SearchParams(min_score=0.0), **kwargs)


# How long a wait may take before the test is failed as hung. Only a failing test ever reaches it: a passing
# one returns as soon as its condition holds. On a 2-core machine shared with other suites and a CPU burner
# a 4 s sync took over 15 s, so a tighter figure failed correct code (the old default of 15 s, and the
# 20 or 30 s some tests passed). `seconds` above this figure still lengthens a wait.
HANG_GUARD_S = 180.0


async def wait_for(pilot, predicate, seconds=HANG_GUARD_S):
    """Wait until `predicate()` holds (True), the app running meanwhile; False once the hang guard passes."""
    deadline = time.monotonic() + max(seconds, HANG_GUARD_S)
    while time.monotonic() < deadline:
        await pilot.pause(0.05)
        if predicate():
            return True
    return False


async def settled_search(pilot, app, query: str = "database migration") -> None:
    """Search `query` once the launch sync is over, and wait until its results are on screen."""
    from textual.widgets import Input

    assert await wait_for(pilot, lambda: not app.sync_running)
    app.query_one("#query", Input).value = query
    app.search_screen.start_search()
    assert await wait_for(pilot, lambda: app.search_screen.pool is not None and app.search_screen.pool.query == query
                          and bool(app.search_screen.results))


async def settle(pilot, app) -> None:
    """Wait until the app's background work is over: no worker running once the messages the last ones
    posted were handled (a finished sync starts the judged questions' load, which starts the metric)."""
    while True:
        await app.workers.wait_for_complete()
        await pilot.pause()
        if not any(worker.is_running for worker in app.workers):
            return


def status_screen_text(app) -> str:
    """What the status screen (F2) shows, "" while another screen is up."""
    found = app.screen.query("#sync-status")
    return str(found.first().render()) if found else ""


async def open_status_screen(pilot, app) -> str:
    """Press F2 and wait until the screen shows its first status read (it opens saying it is reading)."""
    await pilot.press("f2")
    assert await wait_for(pilot, lambda: status_screen_text(app) and "reading the index" not in status_screen_text(app))
    return status_screen_text(app)


def copy_demo(tmp_path: Path) -> Path:
    target = tmp_path / "demo"
    shutil.copytree(demo_workspace(), target)
    return target


class SeededProvider:
    """A deterministic embedding provider with small batches, so a sync can be cancelled mid-embedding."""

    id = "seeded"
    model = "seeded-64"
    max_input_tokens = 8192
    batch_max_items = 4
    sync_batch_items = 4
    batch_max_bytes = 1 << 20
    dims = 64

    def provider_key(self):
        return "seeded-key"

    def _vec(self, text):
        import hashlib

        seed = int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)
        return np.random.default_rng(seed).standard_normal(self.dims)

    def embed_query(self, text):
        from openclaw_memtui.engine.embeddings.base import normalize_rows

        return normalize_rows(self._vec(text))[0]

    def embed_batch(self, texts):
        from openclaw_memtui.engine.embeddings.base import normalize_rows

        return normalize_rows(np.vstack([self._vec(t) for t in texts]))


def use_provider(index: MemoryIndex, provider) -> None:
    index._provider, index._provider_ready = provider, True


def rendered_lines(widget) -> list[str]:
    """The widget's lines as drawn at its current size (what a user sees, wrapping included)."""
    from textual.geometry import Region

    return [strip.text.rstrip() for strip in widget.render_lines(Region(0, 0, widget.size.width, widget.size.height))]
