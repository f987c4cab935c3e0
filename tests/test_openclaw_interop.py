"""A fake OpenClaw home: JSON5 config, two agents, transcripts of every kind, OpenClaw's own index."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3 as std_sqlite
import subprocess
import sys
from pathlib import Path

import pytest

from openclaw_memtui.engine.ingest.session_listing import list_session_files
from openclaw_memtui.engine.ingest.transcripts import flatten_session
from openclaw_memtui.engine.search.rank import SearchParams
from openclaw_memtui.interop.agents import OpenClawError, find_agent, list_agents, memtui_overrides
from openclaw_memtui.interop.export import build_export, legacy_query_block, write_export
from openclaw_memtui.interop.inspect_index import inspect_openclaw_index

from .helpers import env_for_subprocess, write

CONFIG = """
// OpenClaw config written by hand: comments and trailing commas are allowed (JSON5)
{
  agents: {
    defaults: {
      workspace: "WS_ROOT",
      memorySearch: {
        extraPaths: ["../shared-notes"],
        query: { maxResults: 4, minScore: 0.2, hybrid: { vectorWeight: 0.6, textWeight: 0.4, }, },
        chunking: { tokens: 500, overlap: 100 },
      },
    },
    list: [
      { id: "main", default: true },
      {
        id: "research",
        workspace: "RESEARCH_WS",
        memorySearch: {
          extraPaths: ["papers"],                 // concatenated with the defaults
          query: { maxResults: 8, hybrid: { mmr: { enabled: true, lambda: 0.5 } } },
          store: { path: "STATE/custom/{agentId}.sqlite" },
        },
      },
    ],
  },
}
"""

OPENCLAW_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE files (path TEXT PRIMARY KEY, source TEXT NOT NULL DEFAULT 'memory', hash TEXT NOT NULL, mtime INTEGER NOT NULL,
  size INTEGER NOT NULL);
CREATE TABLE chunks (id TEXT PRIMARY KEY, path TEXT NOT NULL, source TEXT NOT NULL DEFAULT 'memory', start_line INTEGER NOT NULL,
  end_line INTEGER NOT NULL, hash TEXT NOT NULL, model TEXT NOT NULL, text TEXT NOT NULL, embedding TEXT NOT NULL,
  updated_at INTEGER NOT NULL);
CREATE TABLE embedding_cache (provider TEXT NOT NULL, model TEXT NOT NULL, provider_key TEXT NOT NULL, hash TEXT NOT NULL,
  embedding TEXT NOT NULL, dims INTEGER, updated_at INTEGER NOT NULL, PRIMARY KEY (provider, model, provider_key, hash));
"""


def jl(*records):
    return "\n".join(json.dumps(r) for r in records) + "\n"


@pytest.fixture
def openclaw_home(tmp_path, monkeypatch):
    state = tmp_path / "state"
    ws_root = tmp_path / "workspaces" / "main"
    research = tmp_path / "workspaces" / "research"
    config = CONFIG.replace("WS_ROOT", str(ws_root)).replace("RESEARCH_WS", str(research)).replace("STATE", str(state))
    write(state / "openclaw.json", config)
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(state))
    write(ws_root / "MEMORY.md", "# Main memory\nThe main agent remembers the deploy checklist.\n")
    write(ws_root / "memory" / "2026-11-01.md", "# Day\nOriginal text.\n")
    write(ws_root / "memory" / "2026-11-02.md", "# Day two\nNew note never indexed.\n")
    write(research / "MEMORY.md", "# Research memory\nPapers about retrieval.\n")
    write(research / "papers" / "bm25.md", "# BM25\nOkapi ranking.\n")
    sessions = state / "agents" / "main" / "sessions"
    write(sessions / "abc.jsonl", jl(
        {"type": "session", "version": 3, "id": "abc", "timestamp": "2026-11-01T10:00:00Z", "cwd": "/tmp"},
        {"type": "message", "id": "1", "timestamp": "2026-11-01T10:00:01Z",
         "message": {"role": "user", "content": "Plain string question about zebras"}},
        {"type": "message", "id": "2", "message": {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "secret chain of thought"}, {"type": "text", "text": "Zebras have stripes."},
            {"type": "toolCall", "id": "t1", "name": "search", "arguments": {"q": "zebra"}}, {"type": "image", "data": "…"}]}},
        {"type": "message", "id": "3", "message": {"role": "toolResult", "content": [{"type": "text", "text": "TOOL OUTPUT"}]}},
        {"type": "custom", "customType": "model-snapshot", "data": {}},
        {"type": "custom_message", "content": "injected context"},
        {"type": "compaction", "summary": "COMPACTED SUMMARY", "firstKeptEntryId": "2", "tokensBefore": 100},
        {"type": "branch_summary", "summary": "BRANCH SUMMARY"},
        {"type": "message", "id": "4", "message": {"role": "user", "content": "my token is ghp_abcdefghijklmnopqrstuvwxyz0123"}},
    ))
    write(sessions / "old.jsonl.reset.2026-10-01T00-00-00.000Z",
          jl({"type": "message", "message": {"role": "user", "content": "reset archive"}}))
    write(sessions / "gone.jsonl.deleted.2026-10-02T00-00-00.000Z",
          jl({"type": "message", "message": {"role": "user", "content": "deleted archive"}}))
    write(sessions / "abc.jsonl.bak.2026-10-03T00-00-00.000Z", "backup")
    write(sessions / "sessions.json", "{}")
    return {"state": state, "main_ws": ws_root, "research_ws": research, "sessions": sessions}


def build_openclaw_index(home) -> str:
    path = home["state"] / "memory" / "main.sqlite"
    path.parent.mkdir(parents=True)
    conn = std_sqlite.connect(path)
    conn.executescript(OPENCLAW_SCHEMA)
    meta = {"model": "text-embedding-3-small", "provider": "openai", "providerKey": "k", "sources": ["memory", "sessions"],
            "scopeHash": "s", "chunkTokens": 400, "chunkOverlap": 80, "ftsTokenizer": "unicode61", "vectorDims": 1536}
    conn.execute("INSERT INTO meta VALUES (?, ?)", ("memory_index_meta_v1", json.dumps(meta)))
    ws = home["main_ws"]
    mem = (ws / "MEMORY.md").read_text()
    st = os.stat(ws / "MEMORY.md")
    rows = [
        ("MEMORY.md", "memory", hashlib.sha256(mem.encode()).hexdigest(), st.st_mtime_ns / 1e6, st.st_size),
        ("memory/2026-11-01.md", "memory", hashlib.sha256(b"# Day\nOld text before an edit.\n").hexdigest(), 1, 10),
        ("memory/2025-01-01.md", "memory", "deadbeef", 1, 10),
    ]
    s = os.stat(home["sessions"] / "abc.jsonl")
    rows.append(("sessions/abc.jsonl", "sessions", "whatever", s.st_mtime_ns / 1e6, s.st_size))
    conn.executemany("INSERT INTO files VALUES (?, ?, ?, ?, ?)", rows)
    for i, (p, src, *_r) in enumerate(rows):
        conn.execute("INSERT INTO chunks VALUES (?, ?, ?, 1, 2, 'h', 'text-embedding-3-small', 'text', '[0.1,0.2]', 0)",
                     (f"c{i}", p, src))
    conn.commit()
    conn.close()
    return str(path)


def test_discovery_and_effective_settings(openclaw_home):
    agents, path = list_agents()
    assert path == openclaw_home["state"] / "openclaw.json"
    by_id = {a.id: a for a in agents}
    main, research = by_id["main"], by_id["research"]
    assert main.default and main.workspace == str(openclaw_home["main_ws"])
    assert main.sessions_dir == str(openclaw_home["state"] / "agents" / "main" / "sessions")
    assert main.index_path == str(openclaw_home["state"] / "memory" / "main.sqlite")
    assert research.workspace == str(openclaw_home["research_ws"])
    assert research.index_path == str(openclaw_home["state"] / "custom" / "research.sqlite")
    ms = research.memory_search
    assert ms["extraPaths"] == ["../shared-notes", "papers"]
    assert ms["query"]["maxResults"] == 8 and ms["query"]["minScore"] == 0.2
    assert ms["query"]["hybrid"] == {"vectorWeight": 0.6, "textWeight": 0.4, "mmr": {"enabled": True, "lambda": 0.5}}
    assert ms["chunking"] == {"tokens": 500, "overlap": 100}
    over = memtui_overrides(ms)
    assert over["query"]["hybrid"]["mmr"] == {"enabled": True, "lambda": 0.5} and over["chunking"]["tokens"] == 500
    with pytest.raises(OpenClawError, match="no OpenClaw agent 'nope'.*known agents: main, research"):
        find_agent("nope")


def test_transcripts_as_openclaw_writes_them(openclaw_home):
    names = [f.path for f in list_session_files(openclaw_home["sessions"])]
    assert names == ["sessions/abc.jsonl", "sessions/gone.jsonl.deleted.2026-10-02T00-00-00.000Z",
                     "sessions/old.jsonl.reset.2026-10-01T00-00-00.000Z"]
    flat = flatten_session((openclaw_home["sessions"] / "abc.jsonl").read_text())
    lines = flat.content.split("\n")
    assert lines[0] == "User: Plain string question about zebras" and lines[1] == "Assistant: Zebras have stripes."
    for hidden in ("TOOL OUTPUT", "secret chain", "COMPACTED", "BRANCH", "injected context",
                   "ghp_abcdefghijklmnopqrstuvwxyz0123"):
        assert hidden not in flat.content
    assert flat.line_map == [2, 3, 9]


def test_stale_report_leaves_the_index_untouched(openclaw_home):
    path = build_openclaw_index(openclaw_home)
    before = (Path(path).read_bytes(), os.stat(path).st_mtime_ns)
    main = find_agent("main")
    report = inspect_openclaw_index(type(openclaw_home["state"])(path), main)
    assert report["layout"] == "legacy" and main.layout == "legacy" and main.transcripts == "jsonl"
    assert report["meta"]["model"] == "text-embedding-3-small" and report["meta"]["vectorDims"] == 1536
    assert report["sources"]["memory"] == {"files": 3, "chunks": 3} and report["files"] == 4
    assert report["changed_since_indexed"] == ["memory/2026-11-01.md"]
    assert "memory/2026-11-02.md" in report["not_indexed"]
    assert "sessions/old.jsonl.reset.2026-10-01T00-00-00.000Z" in report["not_indexed"]
    assert report["indexed_but_missing"] == ["memory/2025-01-01.md"] and report["stale"]
    assert (Path(path).read_bytes(), os.stat(path).st_mtime_ns) == before
    assert not os.path.exists(path + "-wal") and not os.path.exists(path + "-journal")


def test_cli_agents_and_openclaw_index(openclaw_home):
    build_openclaw_index(openclaw_home)
    env = env_for_subprocess() | {"OPENCLAW_STATE_DIR": str(openclaw_home["state"])}
    out = subprocess.run([sys.executable, "-m", "openclaw_memtui", "agents", "--json"], capture_output=True, text=True, env=env)
    assert [a["id"] for a in json.loads(out.stdout)["agents"]] == ["main", "research"]
    out = subprocess.run([sys.executable, "-m", "openclaw_memtui", "status", "--agent", "main", "--openclaw-index", "--json"],
                         capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["indexed_but_missing"] == ["memory/2025-01-01.md"]
    garbage = write(openclaw_home["state"] / "garbage.sqlite", "not sqlite")
    out = subprocess.run([sys.executable, "-m", "openclaw_memtui", "status", "--openclaw-index", str(garbage)],
                         capture_output=True, text=True, env=env)
    assert out.returncode == 2 and "not an SQLite database" in out.stderr and "Traceback" not in out.stderr
    out = subprocess.run([sys.executable, "-m", "openclaw_memtui", "search", "deploy checklist", "--agent", "main",
                          "--provider", "none", "--json"], capture_output=True, text=True, env=env)
    data = json.loads(out.stdout)
    assert data["results"][0]["path"] == "MEMORY.md" and data["params"]["max_results"] == 4


def test_export_writes_exactly_the_query_keys(tmp_path):
    cfg = write(tmp_path / "openclaw.json", json.dumps({"gateway": {"port": 1}, "agents": {"defaults": {"memorySearch": {
        "provider": "openai", "query": {"hybrid": {"enabled": True}}}}}}, indent=2))
    params = SearchParams(vector_weight=0.6, text_weight=0.2, mmr=True, mmr_lambda=0.55, decay=True, half_life_days=14.7,
                          min_score=0.25, max_results=5)
    export = build_export(params, "legacy", 100)
    # written with the keys the older schema knows; memtui's own settings and the rounding are named instead
    assert export.not_exported == [
        "half-life 14.7 days, exported as 14 (OpenClaw takes whole days, at least 1)",
        "line weight 0.50 (query.keyword.lineWeight; OpenClaw scores keywords over whole chunks only)",
        "overlap penalty 0.50 (query.overlapPenalty; OpenClaw lists overlapping chunks of a file in score order)",
        "time words boost (query.time.mode; OpenClaw has no time windows)",
        "coverage fusion (query.hybrid.fusion; OpenClaw adds the raw weighted scores)"]
    backup = write_export(cfg, export)
    data = json.loads(cfg.read_text())
    query = data["agents"]["defaults"]["memorySearch"]["query"]
    assert query == {"maxResults": 5, "minScore": 0.25, "hybrid": {
        "enabled": True, "vectorWeight": 0.75, "textWeight": 0.25, "candidateMultiplier": 20,
        "mmr": {"enabled": True, "lambda": 0.55}, "temporalDecay": {"enabled": True, "halfLifeDays": 14}}}
    assert data["gateway"] == {"port": 1} and data["agents"]["defaults"]["memorySearch"]["provider"] == "openai"
    assert json.loads(backup.read_text())["agents"]["defaults"]["memorySearch"]["query"] == {"hybrid": {"enabled": True}}
    assert set(legacy_query_block(params)) == {"maxResults", "minScore", "hybrid"}
    json5_cfg = write(tmp_path / "commented.json", "// keep me\n{agents: {}}\n")
    with pytest.raises(OpenClawError, match="JSON5"):
        write_export(json5_cfg, export)
    assert json5_cfg.read_text() == "// keep me\n{agents: {}}\n"
    # plain JSON saved with a byte order mark is JSON, not JSON5: rewritten, and the mark kept
    bom_cfg = write(tmp_path / "bom.json", "\ufeff" + json.dumps({"gateway": {"port": 2}}))
    assert write_export(bom_cfg, export) is not None
    text = bom_cfg.read_text(encoding="utf-8")
    assert text.startswith("\ufeff{") and json.loads(text[1:])["agents"]["defaults"]["memorySearch"]["query"]["maxResults"] == 5


async def test_sync_screen_shows_openclaw_index(openclaw_home, tmp_path):
    from openclaw_memtui.cli.parser import build_parser, load_cfg
    from openclaw_memtui.core.session import SessionOptions, open_session
    from openclaw_memtui.tui.app import MemtuiApp

    from .app_helpers import status_screen_text, wait_for

    build_openclaw_index(openclaw_home)
    args = build_parser().parse_args(["status", "--agent", "main", "--provider", "none", "--db", str(tmp_path / "m.sqlite")])
    session = open_session(SessionOptions.from_args(args), load_cfg(args))
    app = MemtuiApp.from_session(session, watch=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("f2")

        def status_text() -> str:
            return status_screen_text(app)

        assert await wait_for(pilot, lambda: "OpenClaw index" in status_text())
        text = status_text()
        assert "OpenClaw index" in text and "1 changed" in text and "text-embedding-3-small" in text


async def test_sync_screen_says_an_openclaw_index_it_could_not_read_and_shows_its_own(openclaw_home, tmp_path, monkeypatch):
    """OpenClaw's file removed between the check and the read (OpenClaw rebuilding it) raised
    FileNotFoundError in the status worker: the screen stayed on "reading the index…" for good."""
    from openclaw_memtui.cli.parser import build_parser, load_cfg
    from openclaw_memtui.core.session import SessionOptions, open_session
    from openclaw_memtui.engine.ingest import openclaw_db
    from openclaw_memtui.tui.app import MemtuiApp

    from .app_helpers import status_screen_text, wait_for

    path = build_openclaw_index(openclaw_home)

    def vanished(p):
        raise FileNotFoundError(2, "No such file or directory", str(p))

    monkeypatch.setattr(openclaw_db, "_stamp", vanished)
    args = build_parser().parse_args(["status", "--agent", "main", "--provider", "none", "--db", str(tmp_path / "m.sqlite")])
    app = MemtuiApp.from_session(open_session(SessionOptions.from_args(args), load_cfg(args)), watch=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("f2")
        assert await wait_for(pilot, lambda: "OpenClaw index" in status_screen_text(app))
        text = status_screen_text(app)
        assert f"could not be read: file not found: {path}" in " ".join(text.split())
        assert "Files / chunks" in text and "reading the index" not in text


def test_legacy_export_names_every_setting_openclaw_will_not_honour(tmp_path, capsys, monkeypatch):
    from openclaw_memtui.cli.main import main

    monkeypatch.setenv("MEMTUI_CONFIG_DIR", str(tmp_path / "cfg"))
    legacy = write(tmp_path / "openclaw.json", json.dumps({"agents": {"defaults": {"memorySearch": {}}}}, indent=2))
    assert main(["export-settings", "--openclaw-config", str(legacy), "--max-results", "2", "--fusion", "normalized"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["memorySearch"]["query"]["hybrid"]["candidateMultiplier"] == 20
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("memtui: OpenClaw's memorySearch.query takes weights, MMR, decay")
    for key in ("query.keyword.lineWeight", "query.overlapPenalty", "query.time.mode", "query.hybrid.fusion",
                "query.keyword.orFallback", "query.keyword.cjk", "query.keyword.stemming", "query.hybrid.candidatePool"):
        assert lines[0].count(key) == 1, key
    assert "candidate pool 100 per leg (query.hybrid.candidatePool), exported as 40" in lines[0]
    assert json.loads(legacy.read_text()) == {"agents": {"defaults": {"memorySearch": {}}}}  # printed, not written

    # settings OpenClaw has too: nothing to say
    plain = write(tmp_path / "plain.toml", "[query]\noverlapPenalty = 0.0\ntime = { mode = 'off' }\n"
                  "hybrid = { fusion = 'openclaw' }\n"
                  "keyword = { orFallback = false, cjk = 'none', stemming = 'none', lineWeight = 0.0 }\n")
    assert main(["export-settings", "--openclaw-config", str(legacy), "--config", str(plain)]) == 0
    assert capsys.readouterr().err == ""


def test_export_to_a_mistyped_openclaw_config_is_one_error_not_a_legacy_block(tmp_path, capsys, monkeypatch):
    """`export-settings --openclaw-config /wrong/path.json` printed the legacy layout's block with no
    word about the path (with --write it said "cannot read"): for a 2026.9 install, the wrong shape."""
    from openclaw_memtui.cli.main import main

    monkeypatch.setenv("MEMTUI_CONFIG_DIR", str(tmp_path / "cfg"))
    for target in (tmp_path / "missing.json", tmp_path):
        for write_it in ([], ["--write"]):
            assert main(["export-settings", "--openclaw-config", str(target), *write_it]) == 2
            out, err = capsys.readouterr()
            assert out == "" and err.count("\n") == 1 and f"OpenClaw config {target} is not a file" in err
    assert not (tmp_path / "missing.json").exists()


@pytest.mark.parametrize(("preset", "layout"), [("openclaw-2026", "2026.9"), ("openclaw", "legacy")])
def test_each_openclaw_preset_is_the_ranking_that_openclaw_uses(preset, layout):
    """Exported to the OpenClaw it is named after, a preset has nothing OpenClaw would rank otherwise
    (weights, MMR, decay, time words, line weight, overlap) — apart from the keyword settings that
    come from the config, not the preset."""
    from openclaw_memtui.tui.widgets.tuning import PRESETS

    export = build_export(PRESETS[preset], layout)
    assert [m for m in export.not_exported if "query.keyword" not in m] == []
