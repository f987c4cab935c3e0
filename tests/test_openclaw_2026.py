"""memtui against what the real OpenClaw 2026.9.6 wrote (tests/fixtures/openclaw-2026.9.6, made by
scripts/make_openclaw_fixture.py from shared/openclaw-real/make-state.sh): agents, effective
settings, indexed files, live transcripts in SQLite, the stale report and a settings export that
OpenClaw accepts. A last test repeats the comparison against a live OpenClaw when one is on PATH."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import subprocess
import threading
from pathlib import Path

import pytest

from openclaw_memtui.cli.main import main as memtui_main
from openclaw_memtui.engine.store import detect_backend

from .helpers import use_openclaw_state

# OpenClaw's triggers call octet_length() (SQLite 3.43+): write to its database with the same modern
# SQLite binding memtui uses, not whatever the interpreter was built with
std_sqlite = detect_backend().module

FIXTURE = Path(__file__).parent / "fixtures" / "openclaw-2026.9.6"
EXPECTED = json.loads((FIXTURE / "expected.json").read_text(encoding="utf-8"))
SESSION_MAIN = "sessions/main/c2b41606-f542-483b-b12e-c1ee957fd8c0.jsonl"


@pytest.fixture
def oc(tmp_path, monkeypatch) -> Path:
    """A private copy of the real state, with its absolute paths pointed at this test's folder."""
    return use_openclaw_state(FIXTURE, tmp_path, monkeypatch)


def expected(value: object, root: Path) -> object:
    return json.loads(json.dumps(value).replace("{ROOT}", str(root)))


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = memtui_main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def fingerprint(folder: Path) -> dict[str, tuple[str, int, int]]:
    """Every file of OpenClaw's agent folder: content hash, size and mtime."""
    out = {}
    for f in sorted(folder.iterdir()):
        data = f.read_bytes()
        st = f.stat()
        out[f.name] = (hashlib.sha256(data).hexdigest(), st.st_size, st.st_mtime_ns)
    return out


def indexed_paths(db: Path) -> list[str]:
    conn = std_sqlite.connect(db)
    try:
        return sorted(r[0] for r in conn.execute("SELECT path FROM files"))
    finally:
        conn.close()


# -- agents and settings ----------------------------------------------------------------------------

def test_agents_are_the_ones_openclaw_lists(oc, capsys):
    code, out, _ = run(capsys, "agents", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["layout"] == "2026.9" and data["version"] == "2026.9.6" and data["found"] is True
    ours = {a["id"]: a for a in data["agents"]}
    theirs = {a["id"]: a for a in expected(EXPECTED["agents"], oc)}
    assert list(ours) == list(theirs) == ["main", "research"]
    for agent_id, agent in theirs.items():
        status = expected(EXPECTED["status"][agent_id], oc)
        mine = ours[agent_id]
        assert mine["default"] == agent["isDefault"]
        assert mine["workspace"] == agent["workspace"] == status["workspaceDir"]
        assert mine["agent_dir"] == agent["agentDir"]
        assert mine["index_path"] == status["dbPath"]  # what `openclaw memory status --json` calls dbPath
        assert mine["transcripts"] == "sqlite" and mine["layout"] == "2026.9"
        # the effective settings merged as OpenClaw merges them
        assert mine["sources"] == status["sources"]
        assert mine["memory_search"]["extraPaths"] == status["extraPaths"]
    # research overrides sources to ["memory"], yet OpenClaw indexes its transcripts: remember-across-
    # conversations is on by default; and its own maxResults (5) wins over the global 10
    assert ours["research"]["memory_search"]["searchSources"] == ["memory"]
    assert ours["research"]["memory_search"]["query"] == {"maxResults": 5, "minScore": 0}


def test_agents_without_an_openclaw_says_none_is_installed(capsys):
    code, out, err = run(capsys, "agents")  # the test's OPENCLAW_STATE_DIR does not exist
    assert code == 0 and "(not found)" in out
    assert "no OpenClaw installed at" in err and err.count("\n") == 1
    code, out, _ = run(capsys, "agents", "--json")
    assert json.loads(out)["found"] is False
    code, out, err = run(capsys, "export-settings")
    assert code == 0 and "memorySearch" in out and "no OpenClaw config found" in err


def test_an_openclaw_json_that_is_not_a_file_is_named_not_taken_for_no_config(capsys):
    state = Path(os.environ["OPENCLAW_STATE_DIR"])
    (state / "openclaw.json").mkdir(parents=True)
    code, _, err = run(capsys, "agents")
    assert code != 0 and "openclaw.json" in err and "Is a directory" in err and err.count("\n") == 1
    code, _, err = run(capsys, "export-settings")
    assert code != 0 and "Is a directory" in err and "no OpenClaw config found" not in err
    (state / "openclaw.json").rmdir()
    (state / "openclaw.json").symlink_to(state / "gone.json")
    code, _, err = run(capsys, "agents")
    assert code != 0 and "No such file" in err and "Traceback" not in err


def test_agents_text_output_names_layout_and_existing_index(oc, capsys):
    code, out, _ = run(capsys, "agents")
    assert code == 0
    assert "2026.9 layout" in out and "OpenClaw 2026.9.6" in out
    assert "(not built)" not in out and "openclaw-agent.sqlite" in out


@pytest.mark.parametrize("agent_id", ["main", "research"])
def test_indexes_the_same_files_as_openclaw(oc, capsys, tmp_path, agent_id):
    db = tmp_path / f"{agent_id}.sqlite"
    code, _, err = run(capsys, "index", "--agent", agent_id, "--provider", "none", "--db", str(db))
    assert code == 0, err
    assert indexed_paths(db) == EXPECTED["indexed_sources"][agent_id]  # USER.md and live transcripts included


def test_live_transcript_chunks_match_openclaws_line_ranges(oc, capsys, tmp_path):
    db = tmp_path / "m.sqlite"
    assert run(capsys, "index", "--agent", "main", "--provider", "none", "--db", str(db))[0] == 0
    conn = std_sqlite.connect(db)
    rows = conn.execute("SELECT path, start_line, end_line FROM chunks WHERE source = 'sessions'")
    ours = sorted([p, s, e] for p, s, e in rows)
    conn.close()
    assert ours == EXPECTED["session_chunks"]["main"]
    code, out, _ = run(capsys, "search", "replication quota Frankfurt", "--agent", "main", "--provider", "none",
                       "--db", str(db), "--json")
    assert code == 0
    hits = json.loads(out)["results"]
    assert hits and hits[0]["path"] == SESSION_MAIN and hits[0]["source"] == "sessions"


def test_reads_never_touch_openclaws_files(oc, capsys, tmp_path):
    agent_dir = oc / "state" / "agents" / "main" / "agent"
    before = fingerprint(agent_dir)
    db = tmp_path / "m.sqlite"
    for argv in (["index", "--agent", "main", "--provider", "none", "--db", str(db)],
                 ["search", "Kafka", "--agent", "main", "--provider", "none", "--db", str(db)],
                 ["status", "--agent", "main", "--openclaw-index", "--json"],
                 ["status", "--agent", "main", "--provider", "none", "--db", str(db)]):
        assert run(capsys, *argv)[0] == 0
    assert fingerprint(agent_dir) == before  # same files (no -shm, -wal or journal created), same bytes and mtimes


def test_a_wal_with_frames_is_read_from_a_private_copy(oc, capsys, tmp_path):
    """While OpenClaw holds unflushed WAL frames, even a read-only open would write -shm read marks."""
    db_file = oc / "state" / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    writer = std_sqlite.connect(db_file)  # plays OpenClaw: writes a turn and keeps it in the WAL
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    _append_turn(writer, "c2b41606-f542-483b-b12e-c1ee957fd8c0", "The pager escalation policy moved to Opsgenie.")
    try:
        assert os.path.getsize(f"{db_file}-wal") > 0
        before = fingerprint(db_file.parent)
        db = tmp_path / "m.sqlite"
        assert run(capsys, "index", "--agent", "main", "--provider", "none", "--db", str(db))[0] == 0
        code, out, _ = run(capsys, "search", "Opsgenie escalation", "--agent", "main", "--provider", "none",
                           "--db", str(db), "--json")
        assert json.loads(out)["results"][0]["path"] == SESSION_MAIN  # the WAL's content was seen
        assert fingerprint(db_file.parent) == before
    finally:
        writer.close()


def _append_turn(conn: object, session_id: str, text: str, *, compress: bool = False) -> None:
    """Add a user message the way OpenClaw stores one (optionally as its zstd-compressed form)."""
    (seq, last) = conn.execute("SELECT max(seq), max(created_at) FROM transcript_events WHERE session_id = ?",
                               (session_id,)).fetchone()
    now = last + 60_000
    event = json.dumps({"type": "message", "id": f"t{seq + 1}", "parentId": None, "timestamp": "2026-11-30T23:30:00.000Z",
                        "message": {"role": "user", "content": text, "timestamp": now}}, ensure_ascii=False)
    raw = event.encode("utf-8")
    if compress:
        import zstandard

        blob = zstandard.ZstdCompressor(level=1, write_checksum=True).compress(raw)
        # OpenClaw stores a compressed row with a small navigation projection beside it (schema CHECK)
        navigation = json.dumps({"version": 1, "report": {"kind": "canonical"}, "navigation": {}, "reset": {}, "model": {},
                                 "modelBytes": len(raw), "modelWithoutCheckpointBytes": len(raw),
                                 "withoutCustomDataBytes": len(raw)})
        conn.execute("INSERT INTO transcript_events(session_id, seq, event_json, created_at, event_zstd, event_utf8_bytes,"
                     " navigation_json) VALUES (?, ?, NULL, ?, ?, ?, ?)", (session_id, seq + 1, now, blob, len(raw), navigation))
    else:
        conn.execute("INSERT INTO transcript_events(session_id, seq, event_json, created_at, event_utf8_bytes)"
                     " VALUES (?, ?, ?, ?, ?)", (session_id, seq + 1, event, now, len(raw)))
    conn.execute("UPDATE session_windows SET updated_at = ?, transcript_updated_at = ? WHERE session_id = ?",
                 (now, now, session_id))
    conn.commit()


def test_only_the_grown_session_is_reindexed_and_compressed_rows_are_read(oc, capsys, tmp_path):
    db = tmp_path / "m.sqlite"
    db_file = oc / "state" / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    assert run(capsys, "index", "--agent", "main", "--provider", "none", "--db", str(db))[0] == 0
    code, out, _ = run(capsys, "index", "--agent", "main", "--provider", "none", "--db", str(db), "--json")
    assert json.loads(out)["report"]["files_indexed"] == 0  # nothing changed: no session is read again
    conn = std_sqlite.connect(db_file)
    long_text = "Rotation note: " + " ".join(f"the zeppelin runbook step {i} was verified." for i in range(60))
    _append_turn(conn, "c2b41606-f542-483b-b12e-c1ee957fd8c0", long_text, compress=True)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    code, out, _ = run(capsys, "index", "--agent", "main", "--provider", "none", "--db", str(db), "--json")
    report = json.loads(out)["report"]
    assert report["files_indexed"] == 1 and report["files_unchanged"] == 6
    code, out, _ = run(capsys, "search", "zeppelin runbook", "--agent", "main", "--provider", "none",
                       "--db", str(db), "--json")
    hit = json.loads(out)["results"][0]
    assert hit["path"] == SESSION_MAIN and hit["end_line"] == 11  # line 11 = the 11th event, as OpenClaw counts
    assert "zeppelin" in hit["snippet"]


def test_an_indexed_live_transcript_is_not_dirty_and_not_read_again(oc, capsys, tmp_path, monkeypatch):
    """The session's stamp (ms from OpenClaw's database) went through nanoseconds and came back
    1796079440761.9998 for 1796079440762: never equal, so the agent was always dirty, every search
    warned the index was out of date, and every sync read the transcript from the database again."""
    from openclaw_memtui.engine.sync import file_pass as sync

    db = tmp_path / "m.sqlite"
    base = ("--agent", "main", "--provider", "none", "--db", str(db))
    assert run(capsys, "index", *base)[0] == 0
    code, out, err = run(capsys, "status", *base, "--json")
    assert code == 0 and json.loads(out)["dirty"] is False, err
    code, out, err = run(capsys, "search", "release", *base, "--json")
    assert code == 0 and json.loads(out)["warnings"] == [] and err == ""
    reads: list[str] = []
    real = sync.read_db_transcript
    monkeypatch.setattr(sync, "read_db_transcript", lambda sf, *a: reads.append(sf.path) or real(sf, *a))
    code, out, _ = run(capsys, "index", *base, "--json")
    assert json.loads(out)["report"]["files_unchanged"] == 7 and reads == []


def test_a_compressed_row_stating_more_than_openclaw_stores_is_not_decoded(oc, capsys, tmp_path):
    """zstd's max_output_size binds only frames that do not state their size, so a small row whose
    frame states gigabytes was decoded to all of them (memory); a frame over OpenClaw's 4 MiB
    event limit is now a malformed line, whatever event_utf8_bytes claims."""
    import zstandard

    db = tmp_path / "m.sqlite"
    session = "c2b41606-f542-483b-b12e-c1ee957fd8c0"
    conn = std_sqlite.connect(oc / "state" / "agents" / "main" / "agent" / "openclaw-agent.sqlite")
    (seq, last) = conn.execute("SELECT max(seq), max(created_at) FROM transcript_events WHERE session_id = ?",
                               (session,)).fetchone()
    text = "the quixotic dirigible ledger " + "x" * (5 << 20)
    raw = json.dumps({"type": "message", "id": "big", "parentId": None, "timestamp": "2026-11-30T23:30:00.000Z",
                      "message": {"role": "user", "content": text, "timestamp": last + 1}}).encode()
    blob = zstandard.ZstdCompressor(level=1).compress(raw)  # states its 5 MiB size in the frame header
    assert zstandard.frame_content_size(blob) == len(raw) and len(blob) < 1 << 20
    navigation = json.dumps({"version": 1, "report": {"kind": "canonical"}, "navigation": {}, "reset": {}, "model": {},
                             "modelBytes": 200, "modelWithoutCheckpointBytes": 200, "withoutCustomDataBytes": 200})
    conn.execute("INSERT INTO transcript_events(session_id, seq, event_json, created_at, event_zstd, event_utf8_bytes,"
                 " navigation_json) VALUES (?, ?, NULL, ?, ?, 200, ?)", (session, seq + 1, last + 1, blob, navigation))
    conn.commit()
    conn.close()
    code, out, err = run(capsys, "index", "--agent", "main", "--provider", "none", "--db", str(db))
    assert code == 0, err
    code, out, _ = run(capsys, "search", "quixotic dirigible ledger", "--agent", "main", "--provider", "none",
                       "--db", str(db), "--json")
    assert code == 0 and not any("quixotic" in r["snippet"] for r in json.loads(out)["results"])
    code, out, _ = run(capsys, "status", "--agent", "main", "--provider", "none", "--db", str(db))
    assert "1 malformed JSONL line(s)" in out


def test_watcher_sees_a_new_agent_turn(oc, tmp_path, make_settings):
    from dataclasses import replace

    from openclaw_memtui.engine.sync.watch import MemoryWatcher
    from openclaw_memtui.interop.agents import agent_index_settings, find_agent

    agent = find_agent("main")
    settings = agent_index_settings(replace(make_settings(Path(agent.workspace)), watch_debounce_ms=50), agent)
    changed: list[set[str]] = []
    seen = threading.Event()
    watcher = MemoryWatcher(settings, lambda paths: (changed.append(paths), seen.set()))
    watcher.start()
    try:
        # the watcher thread registers its inotify watch asynchronously: a write made before that is
        # not seen, so the agent keeps taking turns until one is reported (bounded, no fixed sleep)
        for turn in range(20):
            conn = std_sqlite.connect(agent.index_path)
            _append_turn(conn, "c2b41606-f542-483b-b12e-c1ee957fd8c0", f"Turn {turn} about the quokka migration.")
            conn.close()
            if seen.wait(1.0):
                break
        assert seen.is_set(), "the watcher did not report the database writes"
    finally:
        watcher.stop()
    assert any(Path(p).name.startswith("openclaw-agent.sqlite") for paths in changed for p in paths)


# -- OpenClaw's own index -----------------------------------------------------------------------------

def test_stale_report_names_exactly_what_changed(oc, capsys):
    code, out, _ = run(capsys, "status", "--agent", "main", "--openclaw-index", "--json")
    report = json.loads(out)
    assert code == 0 and report["layout"] == "2026.9" and report["openclaw_version"] == "2026.9.6"
    assert report["files"] == EXPECTED["status"]["main"]["files"]
    assert report["chunks"] == EXPECTED["status"]["main"]["chunks"]
    assert report["stale"] is False  # OpenClaw indexed this state last
    ws = oc / "ws-main"
    with open(ws / "memory" / "2026-11-22.md", "a", encoding="utf-8") as fh:
        fh.write("- Edited after indexing.\n")
    (ws / "memory" / "2026-11-29.md").write_text("# 2026-11-29\n\n- Added after indexing.\n", encoding="utf-8")
    (ws / "memory" / "2026-11-20.md").unlink()
    conn = std_sqlite.connect(oc / "state" / "agents" / "main" / "agent" / "openclaw-agent.sqlite")
    _append_turn(conn, "c2b41606-f542-483b-b12e-c1ee957fd8c0", "One more turn after indexing.")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    code, out, _ = run(capsys, "status", "--agent", "main", "--openclaw-index", "--json")
    report = json.loads(out)
    assert report["changed_since_indexed"] == ["memory/2026-11-22.md", SESSION_MAIN]
    assert report["not_indexed"] == ["memory/2026-11-29.md"]
    assert report["indexed_but_missing"] == ["memory/2026-11-20.md"]
    code, out, _ = run(capsys, "status", "--agent", "main", "--openclaw-index")
    assert "2026.9 layout" in out and "changed since indexed: memory/2026-11-22.md" in out


def test_scope_hashes_are_the_ones_the_real_openclaw_wrote():
    """Values read from indexes OpenClaw 2026.9.6 built (make-state.sh; the research agent's extraPaths
    is ["projects"]; the second state was moved and re-indexed by `openclaw memory index --force`)."""
    from openclaw_memtui.interop.openclaw_scope import expected_scope_hashes

    none = {"extraPaths": [], "multimodal": {}}
    projects = {"extraPaths": ["projects"], "multimodal": {"enabled": None, "modalities": None, "maxFileBytes": None}}
    assert expected_scope_hashes("/tmp/anywhere", none) == {
        "e861c1d291b583b9f4bf96233b72b9e6984cc92320671a0805e1063946e4b1a1"}
    assert "b9df41163083c5cf8f9f9e7ceec2c07e6628b0d85f83ae4127eb6c4929d6231c" in expected_scope_hashes(
        "/tmp/hostile-oc/ws-research", projects)
    assert "3e7073b6c5b3268d07e07225f297b86fa9d2a5c1e3c3f7f141fddbdb509dc5e0" in expected_scope_hashes(
        "/tmp/hostile-oc-copy3/ws-research", dict(projects, extraPaths=[" projects ", {"path": "projects"}]))
    assert expected_scope_hashes("/w", {"extraPaths": [], "multimodal": {"enabled": True}}) is None  # not ported
    three = {"extraPaths": ["b", {"path": "a", "pattern": "**/*.md"}, "/abs/C"], "multimodal": {}}
    assert len(expected_scope_hashes("/w", three)) == 6  # every order of three: OpenClaw sorts with ICU


def test_scope_changed_is_unknown_past_the_orders_it_can_try():
    """Up to MAX_PERMUTED extra paths every order is tried, so a hash matching none is a changed scope;
    past that only two orders are, and a miss may be OpenClaw's ICU order: unknown, not "changed"."""
    from openclaw_memtui.interop.openclaw_scope import MAX_PERMUTED, expected_scope_hashes, scope_changed

    few = {"extraPaths": ["b", "a"], "multimodal": {}}
    assert scope_changed(min(expected_scope_hashes("/w", few)), "/w", few) is False
    assert scope_changed("0" * 64, "/w", few) is True
    many = {"extraPaths": [f"p{i}" for i in range(MAX_PERMUTED + 1)], "multimodal": {}}
    assert scope_changed(min(expected_scope_hashes("/w", many)), "/w", many) is False
    assert scope_changed("0" * 64, "/w", many) is None
    assert scope_changed("0" * 64, "/w", {"extraPaths": [], "multimodal": {"enabled": True}}) is None


def test_stale_report_says_when_openclaw_built_its_index_for_other_extra_paths(oc, capsys):
    """OpenClaw reports such an index dirty ("index scope changed") and rebuilds it; memtui compared only
    files and called it current. The fixture was moved from where OpenClaw built it, so the research
    agent's extra path `projects` resolves elsewhere: OpenClaw says mismatched there too."""
    code, out, _ = run(capsys, "status", "--agent", "main", "--openclaw-index", "--json")
    assert json.loads(out)["scope_changed"] is False
    code, out, _ = run(capsys, "status", "--agent", "research", "--openclaw-index", "--json")
    report = json.loads(out)
    assert report["scope_changed"] is True and report["stale"] is True and report["changed_since_indexed"] == []
    cfg = oc / "state" / "openclaw.json"
    data = json.loads(cfg.read_text(encoding="utf-8"))
    data["agents"]["entries"]["main"].setdefault("memory", {}).setdefault("search", {})["extraPaths"] = ["notes"]
    cfg.write_text(json.dumps(data), encoding="utf-8")
    code, out, _ = run(capsys, "status", "--agent", "main", "--openclaw-index", "--json")
    report = json.loads(out)
    assert report["scope_changed"] is True and report["stale"] is True
    code, out, _ = run(capsys, "status", "--agent", "main", "--openclaw-index")
    assert "Stale:          yes\n  index scope changed: OpenClaw built it for other extra paths" in out
    from openclaw_memtui.interop.agents import find_agent
    from openclaw_memtui.tui.screens.status_rows import openclaw_rows

    rows = dict(openclaw_rows(find_agent("main")))  # the app's status screen (f2)
    assert rows["  scope"].startswith("changed: OpenClaw built it for other extra paths")


@pytest.mark.parametrize("damage", ["truncated", "overwritten"])
def test_an_unreadable_agent_database_keeps_the_transcripts_already_indexed(oc, capsys, tmp_path, damage):
    """A corrupt or half-copied openclaw-agent.sqlite was listed as holding no transcript, so the next
    sync deleted every live transcript of the agent from the index, without a word."""
    db = tmp_path / "m.sqlite"
    assert run(capsys, "index", "--agent", "main", "--provider", "none", "--db", str(db))[0] == 0
    assert SESSION_MAIN in indexed_paths(db)
    agent_db = oc / "state" / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    good = agent_db.read_bytes()
    if damage == "truncated":
        agent_db.write_bytes(good[: len(good) // 2])
    else:
        agent_db.write_bytes(b"\0" * 100 + good[100:])
    code, out, err = run(capsys, "index", "--agent", "main", "--provider", "none", "--db", str(db))
    assert code == 0, err
    assert "0 removed" in out and SESSION_MAIN in indexed_paths(db)
    code, out, _ = run(capsys, "search", "replication quota Frankfurt", "--agent", "main", "--provider", "none",
                       "--db", str(db), "--json")
    assert code == 0 and json.loads(out)["results"][0]["path"] == SESSION_MAIN
    agent_db.write_bytes(good)  # readable again: nothing to redo
    code, out, _ = run(capsys, "index", "--agent", "main", "--provider", "none", "--db", str(db))
    assert code == 0 and "0 indexed" in out and "0 removed" in out


@pytest.mark.parametrize("process", ["same", "new"])
def test_a_rebuild_while_the_agent_database_is_unreadable_keeps_the_live_index(oc, capsys, tmp_path, process):
    """A full rebuild swaps in an index built from what can be read now: with the agent database damaged, the
    rebuilt file would lack every live transcript. The rebuild is postponed and the live index kept whole."""
    db = tmp_path / "m.sqlite"
    assert run(capsys, "index", "--agent", "main", "--provider", "none", "--db", str(db))[0] == 0
    assert SESSION_MAIN in indexed_paths(db)
    agent_db = oc / "state" / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    good = agent_db.read_bytes()
    agent_db.write_bytes(b"\0" * 100 + good[100:])
    if process == "new":  # no tombstones read before either: which sessions were forgotten is unknown too
        from openclaw_memtui.engine.ingest import forgotten

        forgotten._cache.clear()
    code, out, err = run(capsys, "index", "--agent", "main", "--provider", "none", "--db", str(db), "--force")
    assert code == 0, err
    assert SESSION_MAIN in indexed_paths(db)
    assert "postponed" in out + err
    agent_db.write_bytes(good)  # readable again: the postponed rebuild runs
    assert run(capsys, "index", "--agent", "main", "--provider", "none", "--db", str(db), "--force")[0] == 0
    assert SESSION_MAIN in indexed_paths(db)


def test_missing_agent_database_says_what_to_run(oc, capsys):
    (oc / "state" / "agents" / "research" / "agent" / "openclaw-agent.sqlite").unlink()
    code, _, err = run(capsys, "status", "--agent", "research", "--openclaw-index")
    assert code != 0 and "no OpenClaw index" in err and "Traceback" not in err
    assert "`openclaw memory index --agent research` builds it" in err and "ID" not in err  # the agent named, no placeholder


# -- settings export ------------------------------------------------------------------------------------

def test_export_writes_only_keys_openclaw_2026_accepts(oc, capsys):
    cfg = oc / "state" / "openclaw.json"
    original = json.loads(cfg.read_text(encoding="utf-8"))
    code, out, err = run(capsys, "export-settings", "--write", "--max-results", "8", "--min-score", "0.2", "--mmr-lambda", "0.5",
                         "--mmr")
    assert code == 0, err
    data = json.loads(cfg.read_text(encoding="utf-8"))
    assert data["memory"]["search"]["query"] == {"maxResults": 8, "minScore": 0.2}
    assert "memorySearch" not in json.dumps(data)  # the key OpenClaw 2026.9 refuses to start with
    rest = {k: v for k, v in data.items() if k != "memory"}
    assert rest == {k: v for k, v in original.items() if k != "memory"}  # nothing else changed
    assert "weights" in err and "MMR on, λ 0.50" in err and "not honoured" in err
    assert "query.keyword.lineWeight" in err and "query.overlapPenalty" in err
    assert [line.split(";")[0] for line in err.splitlines() if "not honoured" in line] == [
        "memtui: OpenClaw 2026.9 takes only maxResults and minScore"]
    assert stat.S_IMODE(cfg.stat().st_mode) == 0o600  # holds the gateway token: stays private
    code, out, err = run(capsys, "export-settings", "--agent", "research", "--write", "--max-results", "3")
    assert code == 0, err
    data = json.loads(cfg.read_text(encoding="utf-8"))
    assert data["agents"]["entries"]["research"]["memory"]["search"]["query"]["maxResults"] == 3
    assert data["agents"]["entries"]["research"]["memory"]["search"]["sources"] == ["memory"]  # kept
    backups = sorted(p.name for p in cfg.parent.glob("openclaw.json.bak-*"))
    assert len(backups) == 2  # one per write, never overwritten


def test_export_to_unknown_agent_is_one_line(oc, capsys):
    code, _, err = run(capsys, "export-settings", "--agent", "nobody", "--write")
    assert code != 0 and "nobody" in err and err.count("\n") == 1


# -- against a live OpenClaw ------------------------------------------------------------------------------

@pytest.mark.skipif(shutil.which("openclaw") is None or not os.environ.get("OPENCLAW_STATE_DIR_LIVE"),
                    reason="needs `openclaw` on PATH and OPENCLAW_STATE_DIR_LIVE pointing at a make-state.sh state")
def test_live_openclaw_agrees(capsys, monkeypatch):
    """Run with: source ROOT/env.sh; OPENCLAW_STATE_DIR_LIVE=$OPENCLAW_STATE_DIR pytest tests/test_openclaw_2026.py"""
    state = os.environ["OPENCLAW_STATE_DIR_LIVE"]
    monkeypatch.setenv("OPENCLAW_STATE_DIR", state)
    theirs = json.loads(subprocess.run(["openclaw", "agents", "list", "--json"], capture_output=True, text=True,
                                       check=True).stdout)
    code, out, _ = run(capsys, "agents", "--json")
    ours = json.loads(out)["agents"]
    assert [a["id"] for a in ours] == [a["id"] for a in theirs]
    for mine in ours:
        raw = subprocess.run(["openclaw", "memory", "status", "--agent", mine["id"], "--json"], capture_output=True,
                             text=True, check=True).stdout
        status = json.loads(raw)[0]["status"]
        assert mine["index_path"] == status["dbPath"] and mine["sources"] == status["sources"]
        assert mine["memory_search"]["extraPaths"] == status["extraPaths"]


# -- the app ----------------------------------------------------------------------------------------------

async def test_app_status_screen_and_export_for_a_2026_agent(oc, tmp_path):
    from openclaw_memtui.cli.parser import build_parser, load_cfg
    from openclaw_memtui.core.session import SessionOptions, open_session
    from openclaw_memtui.paths import config_dir
    from openclaw_memtui.tui.app import MemtuiApp

    from .app_helpers import status_screen_text, wait_for

    (oc / "ws-main" / "memory" / "2026-11-29.md").write_text("# 2026-11-29\n\n- Added after indexing.\n", encoding="utf-8")
    args = build_parser().parse_args(["status", "--agent", "main", "--provider", "none", "--db", str(tmp_path / "m.sqlite")])
    session = open_session(SessionOptions.from_args(args), load_cfg(args))
    app = MemtuiApp.from_session(session, watch=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("f2")

        def status_text() -> str:
            return status_screen_text(app)

        assert await wait_for(pilot, lambda: "2026.9 layout" in status_text())
        text = status_text()
        assert "2026.9 layout" in text and "OpenClaw 2026.9.6" in text
        assert "never indexed" in text and "memory/2026-11-29.md" in text
        await pilot.press("escape")
        app.action_export_settings()
        exported_file = config_dir() / "openclaw-memory.search.json"
        assert await wait_for(pilot, exported_file.exists)
    exported = json.loads(exported_file.read_text(encoding="utf-8"))
    # shaped for the agent browsed, as `export-settings --agent main` is: pasted, it changes that agent only
    assert set(exported["agents"]["entries"]["main"]["memory"]["search"]["query"]) == {"maxResults", "minScore"}
    assert stat.S_IMODE(exported_file.stat().st_mode) == 0o600
    session.close()


def test_status_names_the_layout_and_version(oc, capsys, tmp_path):
    code, out, _ = run(capsys, "status", "--agent", "research", "--provider", "none", "--db", str(tmp_path / "r.sqlite"),
                       "--json")
    assert code == 0
    assert json.loads(out)["openclaw"] | {"index_path": None} == {
        "agent": "research", "layout": "2026.9", "version": "2026.9.6", "index_path": None, "transcripts": "sqlite",
        "sources": ["memory", "sessions"], "memorySlot": "builtin", "memoryPlugin": "memory-core", "searchDisabled": None,
        "connected": False, "connectProblem": None}


def test_whole_file_view_reads_a_live_transcript_from_the_database(oc):
    from openclaw_memtui.core.config import index_settings, validate
    from openclaw_memtui.engine.ingest.reading import read_indexed_file
    from openclaw_memtui.interop.agents import agent_index_settings, find_agent

    agent = find_agent("main")
    settings = agent_index_settings(index_settings(validate({}), Path(agent.workspace), oc / "x.sqlite"), agent)
    text = read_indexed_file(settings, SESSION_MAIN, "sessions")
    lines = text.split("\n")
    assert len(lines) == 10 and json.loads(lines[0])["type"] == "session"  # line N = event N, as in search results
    assert "Grafana dashboard" in lines[4]
    assert "Priya Raman" in read_indexed_file(settings, "MEMORY.md", "memory")
    with pytest.raises(FileNotFoundError):
        read_indexed_file(settings, "sessions/main/no-such-session.jsonl", "sessions")


def test_no_workspace_chosen_opens_the_default_agent(oc, capsys, tmp_path):
    code, out, _ = run(capsys, "status", "--provider", "none", "--db", str(tmp_path / "d.sqlite"), "--json")
    assert code == 0
    data = json.loads(out)
    assert data["workspace"] == str(oc / "ws-main") and data["openclaw"]["agent"] == "main"
    code, out, _ = run(capsys, "status", "--demo", "--provider", "none", "--db", str(tmp_path / "e.sqlite"), "--json")
    assert "openclaw" not in json.loads(out)  # an explicit choice wins


@pytest.mark.parametrize("shape, key", [({"agents": [], "memory": {"search": {}}}, "agents"),
                                        ({"memory": {"search": None}, "agents": {"entries": {"main": {}}}}, None),
                                        ({"memory": 5, "agents": {"entries": {}}}, "memory")])
def test_export_on_unexpected_shapes_is_one_line(tmp_path, capsys, shape, key):
    cfg = tmp_path / "openclaw.json"
    cfg.write_text(json.dumps(shape), encoding="utf-8")
    code, _, err = run(capsys, "export-settings", "--write", "--openclaw-config", str(cfg), "--max-results", "7")
    if key is None:  # a null block is simply absent: it is created
        assert code == 0 and json.loads(cfg.read_text())["memory"]["search"]["query"]["maxResults"] == 7
    else:
        assert code != 0 and f"'{key}'" in err and err.count("\n") == 1 and "Traceback" not in err
        assert json.loads(cfg.read_text()) == shape  # the original is untouched


@pytest.mark.parametrize("patch, key", [
    ({"agents": {"entries": {"main": {"workspace": 5}}}}, "agents.entries.main.workspace"),
    ({"agents": {"entries": {"research": {"memory": {"search": {"extraPaths": 5}}}}}},
     "agents.entries.research.memory.search.extraPaths"),
    ({"memory": {"search": {"experimental": {"sessionMemory": "yes"}}}}, "memory.search.experimental.sessionMemory"),
    ({"agents": {"entries": ["main"]}}, "agents.entries"),
])
def test_wrong_types_in_a_2026_config_are_one_line(oc, capsys, patch, key):
    cfg = oc / "state" / "openclaw.json"
    data = json.loads(cfg.read_text(encoding="utf-8"))

    def merge(into: dict, extra: dict) -> None:
        for k, v in extra.items():
            if isinstance(v, dict) and isinstance(into.get(k), dict):
                merge(into[k], v)
            else:
                into[k] = v

    merge(data, patch)
    cfg.write_text(json.dumps(data), encoding="utf-8")
    code, _, err = run(capsys, "agents")
    assert code != 0 and f"'{key}'" in err and err.count("\n") == 1 and "Traceback" not in err


def test_export_writes_only_what_was_asked(oc, capsys):
    cfg = oc / "state" / "openclaw.json"
    # the global block says maxResults 10, minScore 0; research has its own maxResults 5
    code, out, err = run(capsys, "export-settings", "--write", "--max-results", "9")
    assert code == 0, err
    data = json.loads(cfg.read_text(encoding="utf-8"))
    assert data["memory"]["search"]["query"] == {"maxResults": 9, "minScore": 0}  # minScore untouched
    assert json.loads(out) == {"memory": {"search": {"query": {"maxResults": 9}}}}
    code, out, err = run(capsys, "export-settings", "--agent", "research", "--write", "--max-results", "3", "--min-score", "0")
    assert code == 0, err
    data = json.loads(cfg.read_text(encoding="utf-8"))
    # minScore 0 is what research inherits: not copied into its entry, so global changes still reach it
    assert data["agents"]["entries"]["research"]["memory"]["search"]["query"] == {"maxResults": 3}
    # the printed block is shaped for the agent's entry: pasting it changes research only
    assert json.loads(out)["agents"]["entries"]["research"]["memory"]["search"]["query"]["maxResults"] == 3


def test_an_export_openclaw_already_reads_writes_nothing_and_says_so(oc, capsys):
    cfg = oc / "state" / "openclaw.json"
    before = cfg.read_bytes()
    # main sets no query of its own and inherits the global maxResults 10 / minScore 0
    code, _, err = run(capsys, "export-settings", "--agent", "main", "--write", "--max-results", "10", "--min-score", "0")
    assert code == 0, err
    assert "nothing written" in err and "backup" not in err
    assert cfg.read_bytes() == before and not list(cfg.parent.glob("openclaw.json.bak*"))


@pytest.mark.parametrize("agent_id", ["main", "research"])
def test_same_chunks_as_openclaw_per_source(oc, capsys, tmp_path, agent_id):
    """OpenClaw 2026.9's chunker (entry by entry in MEMORY.md and USER.md): the same chunk counts."""
    db = tmp_path / f"{agent_id}.sqlite"
    assert run(capsys, "index", "--agent", agent_id, "--provider", "none", "--db", str(db))[0] == 0
    code, out, _ = run(capsys, "status", "--agent", agent_id, "--provider", "none", "--db", str(db), "--json")
    ours = {source: counts["chunks"] for source, counts in json.loads(out)["sources"].items()}
    theirs = {c["source"]: c["chunks"] for c in EXPECTED["status"][agent_id]["sourceCounts"]}
    assert ours == theirs


def test_watcher_starts_watching_a_database_that_appears_later(oc, make_settings):
    """A new agent has no database folder until its first turn: the app opened before must still see it."""
    from dataclasses import replace

    from openclaw_memtui.engine.sync.watch import MemoryWatcher
    from openclaw_memtui.interop.agents import agent_index_settings, find_agent

    agent = find_agent("main")
    agent_dir = Path(agent.index_path).parent
    parked = oc / "parked-agent-dir"
    agent_dir.rename(parked)  # as before the agent's first turn
    settings = agent_index_settings(replace(make_settings(Path(agent.workspace)), watch_debounce_ms=50,
                                            poll_seconds=0.2), agent)
    changed: list[set[str]] = []
    seen = threading.Event()
    watcher = MemoryWatcher(settings, lambda paths: (changed.append(set(paths)), seen.set()))
    watcher.start()
    try:
        parked.rename(agent_dir)  # the first turn creates it
        assert seen.wait(10), "the appearing database folder was not reported"
        seen.clear()
        changed.clear()
        for turn in range(20):  # and later turns are watched like any other
            conn = std_sqlite.connect(agent.index_path)
            _append_turn(conn, "c2b41606-f542-483b-b12e-c1ee957fd8c0", f"Turn {turn} after the folder appeared.")
            conn.close()
            if seen.wait(1.0) and any(Path(p).name.startswith("openclaw-agent.sqlite") for b in changed for p in b):
                break
        assert any(Path(p).name.startswith("openclaw-agent.sqlite") for b in changed for p in b)
    finally:
        watcher.stop()


def test_watcher_starts_watching_a_memory_folder_created_later(tmp_path, make_settings):
    from dataclasses import replace

    from openclaw_memtui.engine.sync.watch import MemoryWatcher

    ws = tmp_path / "fresh-ws"
    ws.mkdir()
    (ws / "MEMORY.md").write_text("# Memory\n", encoding="utf-8")
    settings = replace(make_settings(ws), watch_debounce_ms=50, poll_seconds=0.2)
    changed: list[str] = []
    seen = threading.Event()
    watcher = MemoryWatcher(settings, lambda paths: (changed.extend(paths), seen.set()))
    watcher.start()
    try:
        (ws / "memory").mkdir()
        for n in range(20):  # notes written into the new folder are reported, not only the folder itself
            (ws / "memory" / f"2026-12-{n + 1:02d}.md").write_text(f"# Day {n}\n", encoding="utf-8")
            if seen.wait(1.0) and any(p.endswith(".md") and "/memory/" in p for p in changed):
                break
            seen.clear()
        assert any(p.endswith(".md") and "/memory/" in p for p in changed)
    finally:
        watcher.stop()


def test_extra_path_patterns_limit_the_files_as_openclaw_does(oc, capsys, tmp_path):
    """Seen with OpenClaw 2026.9.6: `{"path": "projects", "pattern": "sub/**/*.md"}` indexes only
    projects/sub/deep.md, not projects/retrieval.md."""
    cfg = oc / "state" / "openclaw.json"
    data = json.loads(cfg.read_text(encoding="utf-8"))
    data["agents"]["entries"]["research"]["memory"]["search"]["extraPaths"] = [{"path": "projects", "pattern": "sub/**/*.md"}]
    cfg.write_text(json.dumps(data), encoding="utf-8")
    (oc / "ws-research" / "projects" / "sub" / "deeper").mkdir(parents=True)
    (oc / "ws-research" / "projects" / "sub" / "deep.md").write_text("# Deep\n", encoding="utf-8")
    (oc / "ws-research" / "projects" / "sub" / "deeper" / "x.md").write_text("# X\n", encoding="utf-8")
    db = tmp_path / "r.sqlite"
    assert run(capsys, "index", "--agent", "research", "--provider", "none", "--db", str(db))[0] == 0
    paths = [p for p in indexed_paths(db) if p.startswith("projects/")]
    assert paths == ["projects/sub/deep.md", "projects/sub/deeper/x.md"]


def test_help_lists_every_command_and_version_is_known(capsys):
    from openclaw_memtui.cli.parser import COMMANDS

    with pytest.raises(SystemExit) as done:
        memtui_main(["--help"])
    out = capsys.readouterr().out
    assert done.value.code == 0
    assert all(f"  {name} " in out for name in COMMANDS) and "agents" in COMMANDS and "export-settings" in COMMANDS
    with pytest.raises(SystemExit):
        memtui_main(["--version"])
    assert capsys.readouterr().out.startswith("memtui ")


def test_agents_listing_shows_agent_dir_extra_paths_and_refused_keys(oc, capsys):
    cfg = oc / "state" / "openclaw.json"
    data = json.loads(cfg.read_text(encoding="utf-8"))
    data["agents"]["entries"]["odd agent!"] = {"workspace": str(oc / "ws-research")}
    cfg.write_text(json.dumps(data), encoding="utf-8")
    code, out, err = run(capsys, "agents")
    assert code == 0
    assert f"agent dir    {oc}/state/agents/main/agent" in out and "extra paths  projects" in out
    assert "odd-agent" in out and "refuses the agent key 'odd agent!'" in err


def test_search_reads_only_the_sources_openclaw_searches(oc, capsys, tmp_path):
    """research indexes its transcripts (remember-across-conversations) but, with sources ["memory"],
    OpenClaw's memory search returns none of them (seen with 2026.9.6): neither does memtui's."""
    db = tmp_path / "r.sqlite"
    assert run(capsys, "index", "--agent", "research", "--provider", "none", "--db", str(db))[0] == 0
    assert any(p.startswith("sessions/research/") for p in indexed_paths(db))  # indexed, as OpenClaw does
    code, out, _ = run(capsys, "search", "灰度发布 回滚", "--agent", "research", "--provider", "none", "--db", str(db),
                       "--json", "--min-score", "0")
    assert code == 0 and all(r["source"] == "memory" for r in json.loads(out)["results"])
    db_main = tmp_path / "m.sqlite"
    assert run(capsys, "index", "--agent", "main", "--provider", "none", "--db", str(db_main))[0] == 0
    code, out, _ = run(capsys, "search", "Grafana dashboard", "--agent", "main", "--provider", "none", "--db", str(db_main),
                       "--json")
    assert json.loads(out)["results"][0]["source"] == "sessions"  # main searches its transcripts
