"""Issue 11, "Crashes and stuck syncs": hostile files, names, queries and providers through the real CLI.

Every case runs `memtui` (in-process `main([...])`, or a subprocess where the failure mode is a hang
or a closed pipe) against real files in tmp_path and a real SQLite index.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from openclaw_memtui.cli.main import EXIT_BROKEN_PIPE, main

from .helpers import transcript, write


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def index_cmd(ws: Path, db: Path, *extra: str) -> list[str]:
    return ["index", "-w", str(ws), "--db", str(db), "--provider", "none", *extra]


def status_json(capsys, ws: Path, db: Path, *extra: str) -> dict:
    code, out, err = run(capsys, "status", "-w", str(ws), "--db", str(db), "--provider", "none", "--json", *extra)
    assert code == 0, err
    return json.loads(out)


def search_json(capsys, ws: Path, db: Path, query: str, *extra: str) -> dict:
    code, out, err = run(capsys, "search", query, "-w", str(ws), "--db", str(db), "--provider", "none", "--json",
                         "--min-score", "0", *extra)
    assert code == 0, err
    return json.loads(out)


def rows(db: Path, sql: str, *args) -> list[tuple]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


# -- duplicate chunk texts ----------------------------------------------------------------------

def test_one_line_of_40000_repeated_chars_then_edited_keeps_indexing(tmp_path, capsys):
    ws, db = tmp_path / "ws", tmp_path / "i.sqlite"
    write(ws / "memory" / "a.md", "x" * 40_000)
    write(ws / "memory" / "zz-after.md", "zebra crossing note\n")
    assert run(capsys, *index_cmd(ws, db))[0] == 0
    write(ws / "memory" / "a.md", "x" * 40_000 + "y\n")  # the edit that used to fail every later sync
    write(ws / "memory" / "zz-later.md", "quokka sighting\n")
    code, out, err = run(capsys, *index_cmd(ws, db))
    assert code == 0, err
    assert "quokka" in json.dumps(search_json(capsys, ws, db, "quokka")["results"])  # files sorted after it still index
    status = status_json(capsys, ws, db)
    integrity = status["integrity"]
    assert integrity["ok"] and integrity["fts_rows"] == status["chunks"] > 20
    assert integrity["orphan_fts_rows"] == 0 and integrity["chunks_without_fts_row"] == 0
    (ids,) = rows(db, "SELECT count(DISTINCT id) FROM chunks WHERE path = 'memory/a.md'")
    (n,) = rows(db, "SELECT count(*) FROM chunks WHERE path = 'memory/a.md'")
    assert ids == n


def test_one_line_transcript_of_repeated_text_has_one_fts_row_per_chunk(tmp_path, capsys):
    ws, db = tmp_path / "ws", tmp_path / "i.sqlite"
    transcript(ws / "sessions" / "big.jsonl", [("user", "ab " * 300_000)])
    cfg = write(tmp_path / "c.toml", "[store]\nmaxFileBytes = 50000000\n")
    assert run(capsys, *index_cmd(ws, db), "--config", str(cfg))[0] == 0
    status = status_json(capsys, ws, db, "--config", str(cfg))
    assert status["sources"]["sessions"]["chunks"] > 100
    assert status["integrity"]["ok"] and status["integrity"]["fts_rows"] == status["chunks"]


def test_index_with_orphan_fts_rows_from_older_versions_heals_and_status_reports_it(tmp_path, capsys):
    ws, db = tmp_path / "ws", tmp_path / "i.sqlite"
    write(ws / "memory" / "a.md", "alpha note\n")
    assert run(capsys, *index_cmd(ws, db))[0] == 0
    # what the old duplicate-id bug left behind: FTS rows whose chunk was replaced, on the next rowids
    (top,) = rows(db, "SELECT max(rowid) FROM chunks")[0]
    conn = sqlite3.connect(db)
    conn.executemany("INSERT INTO chunks_fts(rowid, text, id, path, source, model, start_line, end_line)"
                     " VALUES (?, 'ghost', 'gone', 'memory/a.md', 'memory', 'fts-only', 1, 1)", [(top + 1,), (top + 2,)])
    conn.commit()
    conn.close()
    status = status_json(capsys, ws, db)
    assert status["integrity"]["ok"] is False and status["integrity"]["orphan_fts_rows"] == 2
    code, out, _ = run(capsys, "status", "-w", str(ws), "--db", str(db), "--provider", "none")
    assert "Integrity:   PROBLEM" in out and "2 keyword rows without a chunk" in out
    write(ws / "memory" / "b.md", "beta note\n")  # new chunks land on the orphans' rowids
    code, _, err = run(capsys, *index_cmd(ws, db))
    assert code == 0, err
    status = status_json(capsys, ws, db)
    assert status["integrity"]["ok"] and status["chunks"] == 2
    assert search_json(capsys, ws, db, "ghost")["results"] == []


def test_a_file_that_fails_to_index_is_skipped_and_the_rest_still_index(tmp_path, capsys, monkeypatch):
    from openclaw_memtui.engine.sync import file_pass as sync

    ws, db = tmp_path / "ws", tmp_path / "i.sqlite"
    write(ws / "memory" / "a-bad.md", "poison\n")
    write(ws / "memory" / "b-good.md", "wombat\n")
    real = sync.build_chunks

    def exploding(sf, *a, **k):
        if sf.path.endswith("a-bad.md"):
            raise sqlite3.IntegrityError("constraint failed")
        return real(sf, *a, **k)

    monkeypatch.setattr(sync, "build_chunks", exploding)
    code, _, err = run(capsys, *index_cmd(ws, db))
    assert code == 0, err
    status = status_json(capsys, ws, db)
    assert [s["path"] for s in status["skipped"]] == ["memory/a-bad.md"]
    assert "could not be indexed" in status["skipped"][0]["reason"] and status["integrity"]["ok"]
    assert status["files"] == 1 and status["chunks"] == 1


# -- names, lines and queries ---------------------------------------------------------------------

def test_file_names_with_non_utf8_bytes_are_skipped_not_fatal(tmp_path, capsys):
    ws, db = tmp_path / "ws", tmp_path / "i.sqlite"
    write(ws / "memory" / "good.md", "kiwi fruit\n")
    mem = os.fsencode(ws / "memory")
    for raw in (b"bad-\xff.md", b"dir-\xfe/inner.md"):
        target = mem + b"/" + raw
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as fh:
            fh.write(b"kiwi in a badly named file\n")
    os.makedirs(ws / "sessions")
    with open(os.fsencode(ws / "sessions") + b"/chat-\xff.jsonl", "wb") as fh:
        fh.write(b'{"type":"message","message":{"role":"user","content":"kiwi"}}\n')
    code, out, err = run(capsys, *index_cmd(ws, db))
    assert code == 0, err
    assert [r["path"] for r in search_json(capsys, ws, db, "kiwi")["results"]] == ["memory/good.md"]
    skipped = {s["path"]: s["reason"] for s in status_json(capsys, ws, db)["skipped"]}
    assert set(skipped) == {"memory/bad-\\xff.md", "memory/dir-\\xfe/inner.md", "sessions/chat-\\xff.jsonl"}
    assert all("not valid UTF-8" in r for r in skipped.values())
    code, out, err = run(capsys, "status", "-w", str(ws), "--db", str(db), "--provider", "none")
    assert code == 0 and "memory/bad-\\xff.md" in out


@pytest.mark.parametrize("hostile", ["[" * 5000, '{"a":' * 5000 + "1" + "}" * 5000, "[" * 100_000])
def test_deeply_nested_transcript_line_is_a_malformed_line(tmp_path, capsys, hostile):
    ws, db = tmp_path / "ws", tmp_path / "i.sqlite"
    good = json.dumps({"type": "message", "message": {"role": "user", "content": "platypus facts"}})
    write(ws / "sessions" / "s.jsonl", f"{hostile}\n{good}\n")
    code, _, err = run(capsys, *index_cmd(ws, db))
    assert code == 0, err
    assert search_json(capsys, ws, db, "platypus")["results"]
    assert run(capsys, *index_cmd(ws, db))[0] == 0  # unchanged file: the note must survive the next sync
    skipped = status_json(capsys, ws, db)["skipped"]
    assert skipped == [{"path": "sessions/s.jsonl", "source": "sessions", "reason": "1 malformed JSONL line(s) skipped"}]


def test_lone_surrogate_escape_in_a_transcript_does_not_stop_the_sync(tmp_path, capsys):
    ws, db = tmp_path / "ws", tmp_path / "i.sqlite"
    write(ws / "sessions" / "s.jsonl",
          '{"type":"message","message":{"role":"user","content":"echidna \\ud800 spines \\udcff"}}\n')
    write(ws / "memory" / "z.md", "zz later file\n")
    code, _, err = run(capsys, *index_cmd(ws, db))
    assert code == 0, err
    hit = search_json(capsys, ws, db, "echidna")["results"][0]
    assert "\ufffd" in hit["snippet"] and search_json(capsys, ws, db, "later")["results"]


@pytest.mark.parametrize("stamp", ["Infinity", "-Infinity", "NaN", "1e308", "1e400", '"275760-09-13T00:00:00Z"', "10" * 200])
def test_non_finite_or_absurd_transcript_times_are_rejected(tmp_path, capsys, stamp):
    ws, db = tmp_path / "ws", tmp_path / "i.sqlite"
    write(ws / "sessions" / "s.jsonl",
          f'{{"type":"message","timestamp":{stamp},"message":{{"role":"user","content":"narwhal tusk"}}}}\n')
    code, _, err = run(capsys, *index_cmd(ws, db))
    assert code == 0, err
    ((ts, source),) = rows(db, "SELECT ts, date_source FROM chunks")
    assert source == "mtime" and ts < 1e13  # the file's mtime, never inf or year 10000+
    assert search_json(capsys, ws, db, "narwhal since last week")["results"] is not None


@pytest.mark.parametrize("query", ["9999-12-31", "since 9999-12-31", "notes from 9999-12-31", "0001-01-01 kiwi"])
def test_dates_at_the_end_of_time_in_a_query(tmp_path, capsys, query):
    ws, db = tmp_path / "ws", tmp_path / "i.sqlite"
    write(ws / "memory" / "2026-11-01.md", "kiwi notes\n")
    assert run(capsys, *index_cmd(ws, db))[0] == 0
    search_json(capsys, ws, db, query)
    code, _, err = run(capsys, "search", query, "-w", str(ws), "--db", str(db), "--provider", "none")
    assert code == 0, err


@pytest.mark.parametrize("now,query", [("9999-12-30T00:00:00Z", "this year"), ("9999-12-30T00:00:00Z", "spring"),
                                       ("9999-12-30T00:00:00Z", "this week kiwi"), ("0001-01-02T00:00:00Z", "last year")])
def test_time_words_at_the_edge_of_the_calendar(tmp_path, capsys, now, query):
    ws, db = tmp_path / "ws", tmp_path / "i.sqlite"
    write(ws / "memory" / "2026-11-01.md", "kiwi notes\n")
    assert run(capsys, *index_cmd(ws, db))[0] == 0
    search_json(capsys, ws, db, query, "--now", now)


def test_invalid_utf8_query_and_lone_surrogate_eval_question_with_the_local_model(tmp_path, capsys):
    ws, db = tmp_path / "ws", tmp_path / "i.sqlite"
    write(ws / "memory" / "auth.md", "We chose OAuth client credentials for the API.\n")
    assert run(capsys, "index", "-w", str(ws), "--db", str(db), "--provider", "local")[0] == 0
    # what Python makes of the argv bytes b"\xff\xfe oauth": lone surrogates
    code, out, err = run(capsys, "search", "\udcff\udcfe oauth", "-w", str(ws), "--db", str(db), "--provider", "local",
                         "--json", "--min-score", "0")
    assert code == 0, err
    result = json.loads(out)
    assert result["mode"] == "hybrid" and result["query"] == "\ufffd\ufffd oauth" and result["results"]
    queries = write(tmp_path / "q.jsonl", json.dumps({"qid": "q1", "question": "OAuth \ud800 choice",
                                                      "targets": [{"path": "memory/auth.md", "line": 1}]}) + "\n")
    code, out, err = run(capsys, "eval", "--queries", str(queries), "-w", str(ws), "--db", str(db), "--provider", "local",
                         "--json")
    assert code == 0, err
    assert json.loads(out)["scored"] == 1


def test_invalid_utf8_query_bytes_on_a_real_command_line(tmp_path):
    ws, db = tmp_path / "ws", tmp_path / "i.sqlite"
    write(ws / "memory" / "auth.md", "OAuth notes\n")
    argv = [sys.executable, "-m", "openclaw_memtui", "search", b"\xff\xfe OAuth", "-w", str(ws), "--db", str(db),
            "--provider", "none", "--json"]
    proc = subprocess.run(argv, capture_output=True, timeout=120, env=os.environ | {"PYTHONIOENCODING": "utf-8"})
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["query"] == "\ufffd\ufffd OAuth" and result["results"][0]["path"] == "memory/auth.md"


# -- sizes and loops --------------------------------------------------------------------------------

def test_huge_max_file_bytes_does_not_allocate_the_limit(tmp_path, capsys):
    ws, db = tmp_path / "ws", tmp_path / "i.sqlite"
    write(ws / "memory" / "a.md", "dugong grazing\n")
    cfg = write(tmp_path / "c.toml", "[store]\nmaxFileBytes = 100000000000\n")  # 1e11
    code, _, err = run(capsys, *index_cmd(ws, db), "--config", str(cfg))
    assert code == 0, err
    assert search_json(capsys, ws, db, "dugong", "--config", str(cfg))["results"]


def test_followed_symlink_loops_end(tmp_path):
    ws, db = tmp_path / "ws", tmp_path / "i.sqlite"
    write(ws / "memory" / "sub" / "note.md", "axolotl\n")
    os.symlink(".", ws / "memory" / "loop1")
    os.symlink("..", ws / "memory" / "sub" / "loop2")
    extra = tmp_path / "extra"
    write(extra / "x.md", "extra axolotl\n")
    os.symlink(extra, extra / "self")
    cfg = write(tmp_path / "c.toml", f'followSymlinks = true\nextraPaths = ["{extra}"]\n')
    argv = [sys.executable, "-m", "openclaw_memtui", "index", "-w", str(ws), "--db", str(db), "--provider", "none",
            "--config", str(cfg), "--json"]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=120)  # used to walk forever
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["status"]["files"] == 2  # each file once, however many ways lead to it


def test_symlinked_sessions_folder_follows_the_same_rule_as_memory(tmp_path, capsys):
    ws, db = tmp_path / "ws", tmp_path / "i.sqlite"
    write(ws / "memory" / "n.md", "local note\n")
    outside = tmp_path / "outside"
    transcript(outside / "s.jsonl", [("user", "secret pangolin plans")])
    os.symlink(outside, ws / "sessions")
    assert run(capsys, *index_cmd(ws, db))[0] == 0
    assert search_json(capsys, ws, db, "pangolin")["results"] == []
    assert status_json(capsys, ws, db)["sources"].get("sessions") is None
    cfg = write(tmp_path / "c.toml", "followSymlinks = true\n")
    assert run(capsys, *index_cmd(ws, db), "--config", str(cfg))[0] == 0
    assert search_json(capsys, ws, db, "pangolin", "--config", str(cfg))["results"]


def test_symlinked_transcript_file_is_followed_only_when_allowed(tmp_path, capsys):
    """Followed only when allowed, and then only to a file memory_get may read too (engine/ingest/access.py):
    a link inside the workspace is followed, one to a file outside every root never."""
    ws, db = tmp_path / "ws", tmp_path / "i.sqlite"
    inside = transcript(ws / "archive" / "s.jsonl", [("user", "tapir migration")])
    outside = transcript(tmp_path / "outside" / "s.jsonl", [("user", "tapir outside")])
    (ws / "sessions").mkdir(parents=True)
    os.symlink(inside, ws / "sessions" / "linked.jsonl")
    os.symlink(outside, ws / "sessions" / "linked-out.jsonl")
    assert run(capsys, *index_cmd(ws, db))[0] == 0
    assert search_json(capsys, ws, db, "tapir")["results"] == []
    cfg = write(tmp_path / "c.toml", "followSymlinks = true\n")
    assert run(capsys, *index_cmd(ws, db), "--config", str(cfg))[0] == 0
    found = search_json(capsys, ws, db, "tapir", "--config", str(cfg))["results"]
    assert [r["path"] for r in found] == ["sessions/linked.jsonl"]


# -- a provider that changes its vector size ------------------------------------------------------

def test_provider_changing_vector_size_is_detected_and_everything_re_embedded(tmp_path, capsys, monkeypatch):
    from .fake_api import FakeAPI

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret-key-123456")
    api = FakeAPI("openai")
    try:
        ws, db = tmp_path / "ws", tmp_path / "i.sqlite"
        for i in range(6):
            write(ws / "memory" / f"n{i}.md", f"note {i} about manatees\n")
        cfg = write(tmp_path / "c.toml", f'provider = "openai"\n[remote]\nbaseUrl = "{api.url}"\n')
        base = ["-w", str(ws), "--db", str(db), "--config", str(cfg)]
        assert run(capsys, "index", *base)[0] == 0
        api.dims = 16  # same model, new size
        write(ws / "memory" / "n9.md", "a new note about dugongs\n")
        code, out, err = run(capsys, "index", *base)
        assert code == 0, err
        assert "now returns 16-dim vectors" in out and "re-embedding every chunk" in out
        code, out, err = run(capsys, "status", *base, "--json")
        status = json.loads(out)
        assert status["embedded"] == status["chunks"] == 7 and status["dims"] == 16
        assert status["integrity"]["ok"] and status["integrity"]["vectors_of_other_size"] == 0
        assert {n for (n,) in rows(db, "SELECT DISTINCT length(embedding) FROM chunks")} == {64}
        # a later sync with the cache full of old-size vectors does not bring them back
        code, out, err = run(capsys, "index", *base, "--force")
        assert code == 0, err
        assert {n for (n,) in rows(db, "SELECT DISTINCT length(embedding) FROM chunks")} == {64}
    finally:
        api.close()


def test_status_does_not_count_vectors_of_another_size_as_embedded(tmp_path, capsys, monkeypatch):
    from .fake_api import FakeAPI

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret-key-123456")
    api = FakeAPI("openai")
    try:
        ws, db = tmp_path / "ws", tmp_path / "i.sqlite"
        for i in range(3):
            write(ws / "memory" / f"n{i}.md", f"note {i}\n")
        cfg = write(tmp_path / "c.toml", f'provider = "openai"\n[remote]\nbaseUrl = "{api.url}"\n')
        base = ["-w", str(ws), "--db", str(db), "--config", str(cfg)]
        assert run(capsys, "index", *base)[0] == 0
        conn = sqlite3.connect(db)  # what an older memtui left: one vector of another size
        conn.execute("UPDATE chunks SET embedding = zeroblob(64) WHERE rowid = (SELECT min(rowid) FROM chunks)")
        conn.commit()
        conn.close()
        status = json.loads(run(capsys, "status", *base, "--json")[1])
        assert status["embedded"] == 2 and status["chunks"] == 3
        assert status["integrity"]["ok"] is False and status["integrity"]["vectors_of_other_size"] == 1
    finally:
        api.close()


# -- output into a closed pipe --------------------------------------------------------------------

def test_output_into_a_closed_pipe_exits_quietly(tmp_path):
    ws, db = tmp_path / "ws", tmp_path / "i.sqlite"
    for i in range(40):
        write(ws / "memory" / f"n{i}.md", f"heron sighting number {i}\n")
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader (`head -1`) is already gone: the first write fails with EPIPE
    try:
        proc = subprocess.run([sys.executable, "-m", "openclaw_memtui", "search", "heron", "-w", str(ws), "--db", str(db),
                               "--provider", "none", "--max-results", "30", "--min-score", "0"],
                              stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(write_end)
    assert proc.stderr == ""
    assert proc.returncode == EXIT_BROKEN_PIPE


def test_vector_size_change_with_nothing_to_embed_is_seen_by_search_and_fixed_by_index(tmp_path, capsys, monkeypatch):
    from .fake_api import FakeAPI

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret-key-123456")
    api = FakeAPI("openai")
    try:
        ws, db = tmp_path / "ws", tmp_path / "i.sqlite"
        for i in range(3):
            write(ws / "memory" / f"n{i}.md", f"note {i} about manatees\n")
        cfg = write(tmp_path / "c.toml", f'provider = "openai"\n[remote]\nbaseUrl = "{api.url}"\n')
        base = ["-w", str(ws), "--db", str(db), "--config", str(cfg)]
        assert run(capsys, "index", *base)[0] == 0
        api.dims = 16  # every chunk already has an 8-dim vector: no sync would send anything
        code, out, err = run(capsys, "search", "manatees", *base, "--json")
        assert code == 0, err
        result = json.loads(out)
        assert result["mode"] == "keyword"  # not a "hybrid" search whose vector leg scores nothing
        assert any("now returns 16-dim vectors, the index holds 8-dim ones" in w for w in result["warnings"])
        code, out, err = run(capsys, "index", *base)
        assert code == 0, err
        assert "re-embedding every chunk" in out
        status = json.loads(run(capsys, "status", *base, "--json")[1])
        assert status["dims"] == 16 and status["embedded"] == status["chunks"] == 3
        result = json.loads(run(capsys, "search", "manatees", *base, "--json")[1])
        assert result["mode"] == "hybrid" and result["warnings"] == []
        assert all(r["vector_score"] is not None for r in result["results"])
    finally:
        api.close()


async def test_the_app_status_screen_shows_integrity(tmp_path):
    from .app_helpers import make_app, status_screen_text, wait_for

    ws = tmp_path / "ws"
    write(ws / "memory" / "a.md", "x" * 40_000)  # many identical chunks on one line
    app = make_app(ws, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        assert await wait_for(pilot, lambda: not app.sync_running and app.last_report is not None)
        await pilot.press("f2")
        assert await wait_for(pilot, lambda: app.screen.__class__.__name__ == "SyncScreen")
        assert await wait_for(pilot, lambda: "Integrity" in status_screen_text(app))
        status = status_screen_text(app)
        chunks = app.index.status().chunks
        assert chunks > 20 and f"Integrity         ok ({chunks} keyword rows for {chunks} chunks)" in status


def test_integrity_check_runs_once_per_index_change(tmp_path, make_settings, monkeypatch):
    from openclaw_memtui.engine import index_status
    from openclaw_memtui.engine.index import MemoryIndex

    calls = []
    real = index_status.check_integrity
    monkeypatch.setattr(index_status, "check_integrity", lambda *a: calls.append(1) or real(*a))
    ws = tmp_path / "ws"
    write(ws / "memory" / "a.md", "alpha\n")
    index = MemoryIndex(make_settings(ws), provider_name="none")
    index.sync()
    for _ in range(3):  # the app's status screen refreshes every second
        assert index.status(check_dirty=False).integrity["ok"]
    assert len(calls) == 1
    write(ws / "memory" / "b.md", "beta\n")
    index.sync()
    assert index.status(check_dirty=False).integrity["chunks"] == 2 and len(calls) == 2


def test_a_folder_that_cannot_be_read_is_said_not_silently_emptied(tmp_path, capsys, monkeypatch):
    """A `chmod 000` folder (root reads it anyway, so its refusal is simulated at os.scandir) made its
    notes drop out of the index without a word; now it is listed under `skipped` with the reason,
    and once it can be read again its notes come back."""
    from openclaw_memtui.engine.ingest import sources

    ws, db = tmp_path / "ws", tmp_path / "i.sqlite"
    write(ws / "memory" / "a.md", "alpaca\n")
    write(ws / "memory" / "locked" / "b.md", "bonobo\n")
    transcript(ws / "sessions" / "s.jsonl", [("user", "capybara")])
    assert run(capsys, *index_cmd(ws, db))[0] == 0
    assert status_json(capsys, ws, db)["files"] == 3
    real = os.scandir
    refused = {os.path.normpath(ws / "memory" / "locked"), os.path.normpath(ws / "sessions")}

    def scandir(path="."):
        if os.path.normpath(os.fspath(path)) in refused:
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path)

    monkeypatch.setattr(sources.os, "scandir", scandir)
    code, _, err = run(capsys, *index_cmd(ws, db))
    assert code == 0, err
    status = status_json(capsys, ws, db)
    assert status["files"] == 1
    assert sorted((s["path"], s["source"], s["reason"]) for s in status["skipped"]) == [
        ("memory/locked/", "memory", "folder cannot be read (Permission denied); the files in it are not indexed"),
        ("sessions/", "sessions", "folder cannot be read (Permission denied); the files in it are not indexed")]
    code, out, _ = run(capsys, "status", "-w", str(ws), "--db", str(db), "--provider", "none")
    assert "memory/locked/: folder cannot be read (Permission denied)" in out
    monkeypatch.setattr(sources.os, "scandir", real)
    assert run(capsys, *index_cmd(ws, db))[0] == 0
    status = status_json(capsys, ws, db)
    assert status["files"] == 3 and status["skipped"] == []
