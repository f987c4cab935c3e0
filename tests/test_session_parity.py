"""Transcripts flattened as OpenClaw 2026.9 flattens them: every transcript in tests/fixtures/sessions
was flattened by the real OpenClaw 2026.9.6 (`make_oracle.mjs`, its buildSessionEntryInProcess):
heartbeat and memory-recall turns, messages from other sessions, system envelopes, cron prompts,
heartbeat prompts, silent replies, heartbeat acks and exec notices are left out; channel metadata
blocks and OpenClaw's runtime context are taken out of a message; long messages are wrapped; secrets
masked. `filters-fuzz.jsonl` (`make_filters_fuzz.py`) is 400 random mixes of those pieces."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from openclaw_memtui.engine.index import MemoryIndex
from openclaw_memtui.engine.ingest import transcript_filters
from openclaw_memtui.engine.ingest.sources import flatten_session
from openclaw_memtui.engine.sync import syncer as sync_module

from .helpers import write

FIXTURES = Path(__file__).parent / "fixtures" / "sessions"
EXPECTED = json.loads((FIXTURES / "openclaw-2026.9.6.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_same_lines_as_openclaw(name):
    flat = flatten_session((FIXTURES / name).read_text(encoding="utf-8"), wrap_chars=800, openclaw_filters=True)
    assert flat.content == EXPECTED[name]["content"]
    assert flat.line_map == EXPECTED[name]["lineMap"]


def test_without_the_filters_the_older_layout_keeps_every_message():
    flat = flatten_session((FIXTURES / "mixed.jsonl").read_text(encoding="utf-8"))
    assert "HEARTBEAT_OK" in flat.content and "heartbeat tick" in flat.content and "[cron:" in flat.content


def test_without_the_filters_channel_metadata_stays_as_the_older_engine_kept_it():
    flat = flatten_session((FIXTURES / "channel-metadata.jsonl").read_text(encoding="utf-8"))
    assert "telegram:4242" in flat.content and "<<<" not in flat.content


def _agent_index(tmp_path: Path, make_settings) -> MemoryIndex:
    ws, sessions = tmp_path / "ws", tmp_path / "sessions"
    write(ws / "MEMORY.md", "# Notes\n\nNothing yet.\n")
    sessions.mkdir(exist_ok=True)
    (sessions / "s1.jsonl").write_text((FIXTURES / "channel-metadata.jsonl").read_text(encoding="utf-8"), encoding="utf-8")
    settings = make_settings(ws, sessions_dir=sessions, sources=("memory", "sessions"), chunker="openclaw-v5",
                             transcript_wrap_chars=800)
    return MemoryIndex(settings, provider_name="none")


def _transcript_text(index: MemoryIndex) -> str:
    rows = index.store.conn.execute("SELECT text FROM chunks WHERE source = 'sessions'").fetchall()
    return "\n".join(row[0] for row in rows)


def test_an_index_built_before_the_filters_changed_is_rebuilt_once_without_the_metadata(tmp_path, make_settings,
                                                                                          monkeypatch):
    with monkeypatch.context() as before:  # what the previous release indexed: metadata and all
        before.setattr(sync_module, "TRANSCRIPT_FILTERS", "transcript-filters")
        before.setattr(transcript_filters, "strip_inbound_metadata", lambda text: text)
        old = _agent_index(tmp_path, make_settings)
        old.sync()
        assert "telegram:4242" in _transcript_text(old)
        old.close()
    index = _agent_index(tmp_path, make_settings)
    report = index.sync()
    assert report.full_rebuild and report.rebuild_reason == "scopeHash changed"
    text = _transcript_text(index)
    assert "telegram:4242" not in text and "Conversation info" not in text
    assert "What did we name the Nebula release?" in text
    assert not index.sync().full_rebuild  # once
    index.close()
