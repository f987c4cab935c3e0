import json
import os

from openclaw_memtui.engine.ingest.memory_listing import list_memory_files
from openclaw_memtui.engine.ingest.session_listing import is_transcript_name, list_session_files
from openclaw_memtui.engine.ingest.sources import is_evergreen, note_date_ms
from openclaw_memtui.engine.ingest.transcripts import flatten_session
from openclaw_memtui.engine.textutil import sha256_hex

from .helpers import write


def test_discovery_rules(tmp_path):
    ws = tmp_path / "ws"
    write(ws / "MEMORY.md", "m")
    write(ws / "memory" / "a.md", "a")
    write(ws / "memory" / "deep" / "b.md", "b")
    write(ws / "memory" / "notes.txt", "not markdown")
    write(ws / "memory" / "node_modules" / "pkg" / "README.md", "dependency docs")
    write(ws / "memory" / ".git" / "x.md", "vcs")
    write(tmp_path / "outside" / "secret.md", "outside")
    os.symlink(tmp_path / "outside" / "secret.md", ws / "memory" / "link.md")
    write(tmp_path / "extra" / "e.md", "extra")
    paths = [f.path for f in list_memory_files(ws, [str(tmp_path / "extra"), "."])]
    assert paths[:3] == ["MEMORY.md", "memory/a.md", "memory/deep/b.md"]
    assert "../extra/e.md" in paths
    assert not any("node_modules" in p or ".git" in p or p.endswith("link.md") for p in paths)
    assert paths.count("MEMORY.md") == 1  # extra path "." does not double-index
    followed = [f.path for f in list_memory_files(ws, [], follow_symlinks=True)]
    assert "memory/link.md" in followed


def test_a_listing_given_known_stamps_names_unchanged_memory_files_only_by_path(tmp_path):
    ws = tmp_path / "ws"
    write(ws / "MEMORY.md", "m")
    for name in ("a.md", "b.md", "deep/c.md"):
        write(ws / "memory" / name, name)
    everything = {f.path: f for f in list_memory_files(ws)}
    known = {path: f.stamp for path, f in everything.items() if f.stamp is not None}
    known["memory/b.md"] = (known["memory/b.md"][0] + 0.001, known["memory/b.md"][1])  # 1 µs off: changed
    known["memory/gone.md"] = (1.0, 1)
    unchanged: list[str] = []
    listed = [f.path for f in list_memory_files(ws, known=known, unchanged=unchanged)]
    assert sorted(unchanged) == ["memory/a.md", "memory/deep/c.md"]
    assert listed == ["MEMORY.md", "memory/b.md"]  # root files are always listed; the caller compares them
    # with an extra path the same file may be found twice: everything is listed, then compared by real path
    unchanged.clear()
    listed = [f.path for f in list_memory_files(ws, ["memory"], known=known, unchanged=unchanged)]
    assert unchanged == [] and sorted(listed) == sorted(everything)


def test_transcript_names(tmp_path):
    assert is_transcript_name("abc.jsonl")
    assert is_transcript_name("abc.jsonl.reset.2026-01-01T00-00-00.000Z")
    assert is_transcript_name("abc.jsonl.deleted.2026-01-01T00-00-00.000Z")
    assert not is_transcript_name("sessions.json")
    assert not is_transcript_name("abc.jsonl.bak.2026-01-01T00-00-00.000Z")
    write(tmp_path / "s" / "one.jsonl", "{}")
    write(tmp_path / "s" / "notes.txt", "x")
    assert [f.path for f in list_session_files(tmp_path / "s")] == ["sessions/one.jsonl"]


def _msg(role, content, **extra):
    return json.dumps({"type": "message", "message": {"role": role, "content": content}, **extra})


def test_flatten_matches_openclaw_example():
    raw = "\n".join([
        json.dumps({"type": "session", "version": 3, "id": "x"}),
        json.dumps({"type": "model_change"}),
        json.dumps({"type": "thinking_level_change"}),
        _msg("user", "Hello world"),
        json.dumps({"type": "custom", "customType": "model-snapshot"}),
        _msg("assistant", [{"type": "text", "text": "Hi there, how can I help?"}, {"type": "toolCall", "name": "x"}]),
        _msg("user", "Tell me a joke"),
    ])
    flat = flatten_session(raw)
    assert flat.content == "User: Hello world\nAssistant: Hi there, how can I help?\nUser: Tell me a joke"
    assert flat.line_map == [4, 6, 7]
    digest = sha256_hex(flat.content + "\n" + ",".join(map(str, flat.line_map)) + "\n" + "0,0,0")
    assert digest == "cc93a15d726197dff850b6c7cfb177fecd272fba7605412c6f507becc8921d29"


def test_flatten_skips_and_counts_malformed_lines():
    raw = "\n".join(["", "not valid json", _msg("user", "First"), "", _msg("assistant", "Second"), '{"type": "mess'])
    flat = flatten_session(raw)
    assert flat.line_map == [3, 5]
    assert flat.malformed_lines == 2


def test_flatten_timestamps_and_tool_results():
    raw = "\n".join([
        _msg("user", "a", timestamp="2026-04-05T10:00:00.000Z"),
        json.dumps({"type": "message", "timestamp": "x",
                    "message": {"role": "assistant", "content": "b", "timestamp": "2026-04-05T10:01:00.000Z"}}),
        json.dumps({"type": "message", "message": {"role": "toolResult", "content": "tool output"}}),
    ])
    flat = flatten_session(raw)
    assert flat.timestamps_ms == [1775383200000.0, 1775383260000.0]
    assert "tool output" not in flat.content


def test_secrets_redacted_in_transcripts():
    flat = flatten_session(_msg("user", "my key is sk-abcdefghijklmnopqrstuvwx and OPENAI_API_KEY=hunter2"))
    assert "sk-abcdefghijklmnopqrstuvwx" not in flat.content and "hunter2" not in flat.content
    assert "sk-abc…uvwx" in flat.content


def test_note_dates_and_evergreen():
    assert note_date_ms("memory/2026-02-10.md") == 1770681600000.0
    assert note_date_ms("memory/2026-02-10-standup.md") == 1770681600000.0
    assert note_date_ms("memory/archive/2026-02-10.md") == 1770681600000.0
    assert note_date_ms("memory/2026-02-30.md") is None
    assert note_date_ms("notes/2026-02-10.md") is None
    # UTC midnight on either side of 1970 and at the ends of the calendar
    assert note_date_ms("memory/1969-12-31.md") == -86_400_000.0
    assert note_date_ms("memory/0001-01-01.md") == -62_135_596_800_000.0
    assert note_date_ms("memory/2024-02-29-leap.md") == 1709164800000.0
    assert is_evergreen("MEMORY.md", "memory") and is_evergreen("memory/projects.md", "memory")
    assert not is_evergreen("memory/2026-02-10.md", "memory")
    assert not is_evergreen("sessions/a.jsonl", "sessions")
