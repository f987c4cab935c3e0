from __future__ import annotations

from pathlib import Path

import pytest

from openclaw_memtui.core.config import index_settings, validate

from .helpers import transcript, write
from .lanes import pytest_collection_modifyitems, pytest_ignore_collect  # noqa: F401  (the hooks that mark each test unit, app or e2e)


@pytest.fixture(scope="session")
def shared_cache_dir(tmp_path_factory) -> Path:
    """One cache dir per test process: the prepared model is built once there, not once per test."""
    return tmp_path_factory.mktemp("memtui-cache")


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path_factory, monkeypatch, shared_cache_dir):
    """Never touch the real user's config, data or cache dirs; never pick up real API keys."""
    base = tmp_path_factory.mktemp("memtui-home")
    monkeypatch.setenv("MEMTUI_CACHE_DIR", str(shared_cache_dir))
    monkeypatch.setenv("MEMTUI_DATA_DIR", str(base / "data"))
    monkeypatch.setenv("MEMTUI_CONFIG_DIR", str(base / "config"))
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(base / "openclaw"))
    monkeypatch.delenv("MEMTUI_CONFIG", raising=False)
    for key in ("OPENAI_API_KEY", "GEMINI_API_KEY", "VOYAGE_API_KEY", "MISTRAL_API_KEY", "OPENAI_BASE_URL", "OLLAMA_HOST"):
        monkeypatch.delenv(key, raising=False)
    yield


@pytest.fixture
def workspace(tmp_path) -> Path:
    ws = tmp_path / "ws"
    write(ws / "MEMORY.md", "# Memory\n\nThe user prefers oolong tea.\nDatabase: PostgreSQL 16.\n")
    write(ws / "memory" / "2026-11-01.md", "# Log\nAlpha memory line.\nZebra memory line.\n")
    write(ws / "memory" / "2026-11-02-deploy.md", "# Deploy\nWe shipped the canary build to staging.\n")
    write(ws / "memory" / "projects" / "roadmap.md", "# Roadmap\nOffline sync for mobile next quarter.\n")
    transcript(ws / "sessions" / "s1.jsonl", [("user", "What is the Nebula codename?"),
                                              ("assistant", "The current Project Nebula codename is ORBIT-10.")])
    return ws


@pytest.fixture
def make_settings(tmp_path):
    def factory(ws: Path, **overrides):
        cfg = validate(overrides.pop("cfg", {}))
        settings = index_settings(cfg, ws, overrides.pop("db", tmp_path / "index.sqlite"))
        if overrides:
            from dataclasses import replace

            settings = replace(settings, **overrides)
        return settings

    return factory
