"""OpenClaw's `memorySearch.fallback` (spec §5.4) over real HTTP on 127.0.0.1: a failing provider hands
over to the fallback at creation, during a sync and at search; the switch is recorded in `status`
without any secret; a later process goes on with the fallback's vectors and tries the provider again."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from openclaw_memtui.core.config import ConfigError, validate
from openclaw_memtui.engine.index import MemoryIndex
from openclaw_memtui.interop.agents import effective_memory_search_2026, memtui_overrides

from .fake_api import FakeAPI
from .helpers import env_for_subprocess, write

SECRET = "sk-test-secret-key-123456"
REMOTE = {"maxRetries": 2, "timeoutSeconds": 5.0}


def failing(times: int = 30, body: object = None) -> list[tuple]:
    """`times` HTTP 500 answers: each retried, then reported."""
    return [(500, {}, body or {"error": "upstream down"}, 0)] * times


@pytest.fixture
def apis(monkeypatch):
    """The configured provider (OpenAI's wire format) and the fallback (Ollama's), each on its own port;
    neither is given `remote.baseUrl`, which belongs to the configured provider alone."""
    primary, fallback = FakeAPI("openai"), FakeAPI("ollama")
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("OPENAI_BASE_URL", primary.url)
    monkeypatch.setenv("OLLAMA_HOST", fallback.url)
    yield primary, fallback
    primary.close()
    fallback.close()


@pytest.fixture
def ws(tmp_path):
    for i in range(6):
        write(tmp_path / "ws" / "memory" / f"2026-11-0{i + 1}.md", f"# Day {i}\nThe kayak trip number {i} by the lake.\n")
    return tmp_path / "ws"


def open_index(make_settings, ws, waits, provider="openai", fallback="ollama", remote=None):
    return MemoryIndex(make_settings(ws), provider, remote=remote or REMOTE, fallback=fallback, sleep=waits.append)


def everything_said(index, report=None) -> str:
    status = index.status()
    return json.dumps([status.to_dict(), index.notices, report.to_dict() if report else None])


def test_a_sync_that_fails_hands_over_to_the_fallback_and_rebuilds(make_settings, ws, apis):
    primary, fallback = apis
    # two 500s (retried after the injected sleep), then a 400 whose body echoes the key
    primary.script = failing(2) + [(400, {}, {"error": f"bad request for key {SECRET}"}, 0)]
    waits: list[float] = []
    index = open_index(make_settings, ws, waits, remote={**REMOTE, "apiKey": SECRET})  # OpenAI's key, in the config
    report = index.sync()
    assert len(waits) == 2 and len(primary.requests) == 3  # retried with backoff, then given up
    assert report.embed_error == "" and report.full_rebuild and report.chunks_embedded == 6
    status = index.status()
    assert (status.provider, status.model, status.embedded, status.provider_error) == ("ollama", "nomic-embed-text", 6, "")
    assert status.fallback is not None and status.fallback["from"] == "openai" and status.fallback["to"] == "ollama"
    assert "HTTP 400" in status.fallback["reason"] and "bad request for key" in status.fallback["reason"]
    assert any(n.startswith("fallback from openai: ") for n in index.notices)
    assert SECRET not in everything_said(index, report)
    assert all(r["headers"].get("Authorization") is None for r in fallback.requests)  # the key stays with OpenAI

    asked = len(fallback.requests)
    pool = index.retrieve("kayak trip lake")
    assert pool.mode == "hybrid" and not pool.warnings and len(fallback.requests) == asked + 1  # the query, by the fallback
    assert len(primary.requests) == 3  # the failed provider is not asked again in this process

    from openclaw_memtui.tui.screens.status_rows import read_status, status_rows
    from openclaw_memtui.tui.state import SyncState

    rows = dict(status_rows(read_status(index, None), "test", SyncState()))  # the app's status screen (f2)
    assert rows["Fallback"].startswith("fallback from openai: openai: HTTP 400") and SECRET not in rows["Fallback"]
    index.close()


def test_the_next_process_keeps_the_fallback_until_the_provider_answers_again(make_settings, ws, apis):
    primary, fallback = apis
    primary.script = failing()
    waits: list[float] = []
    first = open_index(make_settings, ws, waits)
    first.sync()
    first.close()
    primary.script = failing()
    later = open_index(make_settings, ws, waits)
    status = later.status()  # read from the index: nothing asked of either service
    assert status.provider == "ollama" and status.fallback["from"] == "openai" and status.embedded == 6
    sent = len(primary.requests)
    assert later.retrieve("kayak trip").mode == "hybrid"  # the fallback's vectors, the fallback's query
    assert len(primary.requests) == sent
    report = later.sync()  # still failing: one check, no rebuild
    assert not report.full_rebuild and later.status().provider == "ollama" and len(primary.requests) == sent + 3
    later.close()

    primary.script = []  # the provider answers again
    again = open_index(make_settings, ws, waits)
    report = again.sync()
    assert report.full_rebuild and report.embed_error == ""
    status = again.status()
    assert (status.provider, status.fallback, status.embedded) == ("openai", None, 6)
    assert any("openai answers again" in n for n in again.notices)
    again.close()
    final = open_index(make_settings, ws, waits)
    assert final.status().fallback is None and final.status().provider == "openai"
    final.close()


def test_a_failing_query_embedding_switches_and_the_next_sync_rebuilds(make_settings, ws, apis):
    primary, fallback = apis
    waits: list[float] = []
    index = open_index(make_settings, ws, waits)
    assert index.sync().chunks_embedded == 6 and index.status().provider == "openai"
    primary.script = failing()
    pool = index.retrieve("kayak trip")
    assert pool.candidates and any("query embedding failed" in w for w in pool.warnings)  # keywords meanwhile
    status = index.status()
    assert status.provider == "ollama" and status.fallback["from"] == "openai" and "HTTP 500" in status.fallback["reason"]
    # the fallback's model made none of the index's vectors: said as such, not "no chunk has a vector yet"
    (warning,) = index.retrieve("kayak trip").warnings
    assert warning.startswith(f"keyword-only: this search embeds with model {status.model}, but the index's vectors "
                              "were made with ") and "(6)" in warning
    report = index.sync()
    assert report.full_rebuild and report.chunks_embedded == 6
    assert index.retrieve("kayak trip").mode == "hybrid"
    assert SECRET not in everything_said(index, report)
    index.close()


def test_a_provider_that_cannot_be_made_falls_back_at_once(make_settings, ws, apis, monkeypatch):
    primary, fallback = apis
    monkeypatch.delenv("OPENAI_API_KEY")
    waits: list[float] = []
    index = open_index(make_settings, ws, waits)
    status = index.status()
    assert status.provider == "ollama" and status.fallback["reason"].startswith("No API key found for provider openai")
    assert index.sync().chunks_embedded == 6 and primary.requests == []
    index.close()

    # the fallback fails too: one line naming both, and keyword search still works
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    both = open_index(make_settings, ws, waits, fallback="gemini", remote={**REMOTE, "apiKey": ""})
    status = both.status()
    assert status.provider == "none" and status.fallback is None
    assert status.provider_error.startswith("No API key found for provider openai")
    assert "; fallback to gemini failed: No API key found for provider gemini" in status.provider_error
    assert both.retrieve("kayak").candidates
    both.close()


def test_no_fallback_or_the_same_provider_changes_nothing(make_settings, ws, apis):
    primary, fallback = apis
    for name in ("none", "openai"):
        primary.script = failing()
        index = open_index(make_settings, ws, [], fallback=name)
        report = index.sync()
        assert "HTTP 500" in report.embed_error and index.status().fallback is None and fallback.requests == []
        index.close()


def test_the_cli_reports_the_fallback_without_a_secret(tmp_path, ws, apis):
    primary, _ = apis
    primary.script = failing(3, {"error": f"key {SECRET} is over quota"})
    config = write(tmp_path / "memtui.toml", 'fallback = "ollama"\n[remote]\nmaxRetries = 0\n')
    base = [sys.executable, "-m", "openclaw_memtui", "--config", str(config), "--workspace", str(ws),
            "--db", str(tmp_path / "cli.sqlite"), "--provider", "openai"]
    env = env_for_subprocess() | {"MEMTUI_CONFIG_DIR": str(tmp_path / "cfg")}
    index = subprocess.run([*base[:3], "index", *base[3:]], capture_output=True, text=True, env=env, timeout=60)
    assert index.returncode == 0, index.stderr
    assert "fallback from openai: openai: HTTP 500" in index.stderr and "Traceback" not in index.stderr
    status = subprocess.run([*base[:3], "status", *base[3:]], capture_output=True, text=True, env=env, timeout=60)
    assert "Fallback:    fallback from openai: openai: HTTP 500" in status.stdout
    assert "(now ollama / nomic-embed-text)" in status.stdout
    as_json = subprocess.run([*base[:3], "status", "--json", *base[3:]], capture_output=True, text=True, env=env, timeout=60)
    assert json.loads(as_json.stdout)["fallback"]["to"] == "ollama"
    for out in (index, status, as_json):
        assert SECRET not in out.stdout + out.stderr
    assert SECRET.encode() not in (tmp_path / "cli.sqlite").read_bytes()


def test_fallback_setting_is_checked_and_imported_from_openclaw():
    assert validate({"fallback": "local"}).fallback == "local"
    with pytest.raises(ConfigError, match="'fallback' must be one of"):
        validate({"fallback": "auto"})
    cfg = {"memory": {"search": {"provider": "openai", "fallback": "local"}},
           "agents": {"entries": {"main": {}, "research": {"memory": {"search": {"fallback": "ollama"}}}}}}
    assert memtui_overrides(effective_memory_search_2026(cfg, cfg["agents"]["entries"]["main"]))["fallback"] == "local"
    assert memtui_overrides(effective_memory_search_2026(cfg, cfg["agents"]["entries"]["research"]))["fallback"] == "ollama"
    assert "fallback" not in memtui_overrides({"provider": "openai", "fallback": "bedrock"})  # one memtui lacks
    assert memtui_overrides({"provider": "openai", "fallback": "none"})["fallback"] == "none"


async def test_the_app_tells_of_the_fallback_once_and_shows_it_on_the_status_screen(tmp_path, make_settings, ws, apis):
    from openclaw_memtui.engine.search.rank import SearchParams

    from .app_helpers import NOW_MS, RecordingApp, status_screen_text, wait_for

    primary, _ = apis
    primary.script = failing(body={"error": f"key {SECRET} revoked"})
    index = open_index(make_settings, ws, [])
    app = RecordingApp(index, validate({}), origin="test", now_ms=NOW_MS, params=SearchParams(min_score=0.0), watch=False)
    async with app.run_test(size=(120, 36)) as pilot:
        assert await wait_for(pilot, lambda: not app.sync_running and index.status().embedded == 6, 30)
        assert await wait_for(pilot, lambda: any("fallback from openai" in t for _, t in app.toasts))
        app.query_one("#query").value = "kayak trip"
        app.search_screen.start_search()
        assert await wait_for(pilot, lambda: app.search_screen.pool is not None and app.search_screen.pool.mode == "hybrid")
        await pilot.press("f2")

        def shown() -> str:
            return status_screen_text(app)

        assert await wait_for(pilot, lambda: "Fallback" in shown())
        assert "fallback from openai: openai: HTTP 500" in shown() and "now ollama / nomic-embed-text" in shown()
    told = [t for _, t in app.toasts if "fallback from openai" in t]
    assert len(told) == 1 and "now ollama (nomic-embed-text)" in told[0]
    assert SECRET not in json.dumps(app.toasts)


async def test_the_app_says_to_sync_when_a_search_switched_to_the_fallback(tmp_path, make_settings, ws, apis):
    from openclaw_memtui.engine.search.rank import SearchParams

    from .app_helpers import NOW_MS, RecordingApp, wait_for

    primary, _ = apis
    index = open_index(make_settings, ws, [])
    app = RecordingApp(index, validate({}), origin="test", now_ms=NOW_MS, params=SearchParams(min_score=0.0), watch=False)
    async with app.run_test(size=(120, 36)) as pilot:
        assert await wait_for(pilot, lambda: not app.sync_running and index.status().embedded == 6, 30)
        primary.script = failing()  # the provider goes down after the index was built with it
        app.query_one("#query").value = "kayak trip"
        app.search_screen.start_search()
        assert await wait_for(pilot, lambda: any("fallback from openai" in t for _, t in app.toasts))
        assert app.search_screen.pool.mode == "keyword" and app.search_screen.results  # keywords meanwhile
        assert any("sync (ctrl+r) to build its vectors" in t for _, t in app.toasts)
        await pilot.press("ctrl+r")
        assert await wait_for(pilot, lambda: not app.sync_running and index.status().provider == "ollama"
                              and index.status().embedded == 6, 30)
        app.search_screen.start_search()
        assert await wait_for(pilot, lambda: app.search_screen.pool is not None and app.search_screen.pool.mode == "hybrid")


def test_an_index_with_no_chunks_does_not_advise_a_sync(tmp_path):
    """Nothing to embed: "no chunk has a vector yet (run a sync)" sent users to a sync that changes nothing."""
    from openclaw_memtui.core.config import index_settings, validate
    from openclaw_memtui.engine.index import MemoryIndex

    empty = tmp_path / "empty"
    empty.mkdir()
    index = MemoryIndex(index_settings(validate({}), empty, tmp_path / "i.sqlite"), provider_name="local")
    index.sync()
    pool = index.retrieve("kayak trip")
    assert pool.mode == "keyword" and pool.candidates == [] and pool.warnings == []
    index.close()
