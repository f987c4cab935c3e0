"""Transcripts flattened as OpenClaw 2026.9 flattens them: every transcript in tests/fixtures/sessions
was flattened by the real OpenClaw 2026.9.6 (`make_oracle.mjs`, its buildSessionEntryInProcess):
heartbeat and memory-recall turns, messages from other sessions, system envelopes, cron prompts,
silent replies, heartbeat acks and exec notices are left out; long messages are wrapped; secrets masked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from openclaw_memtui.engine.sources import flatten_session

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
