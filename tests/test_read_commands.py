"""A read command never moves, creates or changes a file; only `index` sets an invalid one aside;
an index path that is not a regular file (/dev/null, a folder, a FIFO) is refused in one line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from openclaw_memtui.cli.main import main

from .helpers import env_for_subprocess, write


def listing(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()}


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in folder.iterdir() if p.is_file()}


@pytest.fixture
def foreign_files(tmp_path) -> dict[str, Path]:
    import sqlite3

    folder = tmp_path / "other"
    folder.mkdir()
    conn = sqlite3.connect(folder / "app.db")
    conn.execute("CREATE TABLE notes (body TEXT)")
    conn.execute("INSERT INTO notes VALUES ('precious')")
    conn.commit()
    conn.close()
    (folder / "garbage.db").write_bytes(b"\x00garbage, not SQLite" * 50)
    old = folder / "old.sqlite"
    conn = sqlite3.connect(old)  # memtui's tables, but no schema version: an older or foreign index
    conn.executescript("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT); CREATE TABLE files (path TEXT);"
                       "CREATE TABLE chunks (id TEXT); CREATE TABLE embedding_cache (hash TEXT);"
                       "CREATE TABLE chunks_fts (text TEXT);")
    conn.close()
    return {"sqlite": folder / "app.db", "garbage": folder / "garbage.db", "old": old}


@pytest.mark.parametrize("kind", ["sqlite", "garbage", "old"])
@pytest.mark.parametrize("command", ["status", "status-json", "search"])
def test_read_commands_report_an_invalid_index_without_touching_it(foreign_files, workspace, capsys, kind, command):
    db = foreign_files[kind]
    before = snapshot(db.parent)
    argv = {"status": ["status"], "status-json": ["status", "--json"], "search": ["search", "oolong"]}[command]
    code = main([*argv, "--workspace", str(workspace), "--db", str(db), "--provider", "none"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.strip().count("\n") == 0 and "not a memtui index" in err and "memtui will not move or replace" in err
    assert snapshot(db.parent) == before  # same files, same bytes, same mtimes: nothing moved or created


@pytest.mark.parametrize("kind", ["sqlite", "garbage", "old"])
def test_index_never_moves_a_file_memtui_did_not_create(foreign_files, workspace, capsys, kind):
    """`memtui index --db README.md` (any text, another program's database, OpenClaw's own index) set the
    file aside and wrote SQLite in its place: only an index memtui made is ever moved aside."""
    db = foreign_files[kind]
    before = snapshot(db.parent)
    assert main(["index", "--workspace", str(workspace), "--db", str(db), "--provider", "none"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "memtui will not move or replace a file it did not create" in err
    assert snapshot(db.parent) == before  # nothing moved, created (no lock) or chmodded


def test_index_moves_aside_a_damaged_index_it_made(tmp_path, workspace, capsys):
    db = tmp_path / "i.sqlite"
    assert main(["index", "--workspace", str(workspace), "--db", str(db), "--provider", "none"]) == 0
    damaged = db.read_bytes()[:4096 * 3]  # the header (with memtui's application id) and a few pages
    db.write_bytes(damaged)
    assert main(["index", "--workspace", str(workspace), "--db", str(db), "--provider", "none"]) == 0
    aside = [p for p in tmp_path.glob("i.sqlite.invalid-*")]
    assert len(aside) == 1 and aside[0].read_bytes() == damaged  # moved, never deleted
    assert "moved it to" in capsys.readouterr().err


@pytest.mark.parametrize("note", ["MEMORY.md", "memory/2026-11-01.md", "sessions/s1.jsonl"])
@pytest.mark.parametrize("command", ["index", "status", "search"])
def test_a_memory_file_given_as_the_index_is_refused_and_kept(workspace, capsys, note, command):
    """`--db MEMORY.md`: index set the note aside as "not an index" and wrote an SQLite file in its place,
    so OpenClaw read a database as the agent's long-term memory."""
    before = snapshot(workspace) | {f"memory/{k}": v for k, v in snapshot(workspace / "memory").items()}
    argv = {"index": ["index"], "status": ["status"], "search": ["search", "oolong"]}[command]
    code = main([*argv, "--workspace", str(workspace), "--db", str(workspace / note), "--provider", "none"])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1
    assert f"is {note}, one of the files this index is built from; memtui will not write its index there" in err
    after = snapshot(workspace) | {f"memory/{k}": v for k, v in snapshot(workspace / "memory").items()}
    assert after == before  # same files, bytes and mtimes: nothing set aside, no lock beside the note


def test_a_relative_db_naming_a_note_is_refused_too(workspace, capsys, monkeypatch):
    monkeypatch.chdir(workspace / "memory")
    assert main(["index", "--workspace", str(workspace), "--db", "../MEMORY.md", "--provider", "none"]) == 2
    assert "is MEMORY.md, one of the files" in capsys.readouterr().err
    assert list(workspace.glob("MEMORY.md.*")) == []


def test_an_existing_index_given_as_db_is_not_checked_against_every_note(tmp_path, workspace, capsys, monkeypatch):
    """The check above listed every note whenever --db named an existing file: status over 100,000 notes
    took 0.9 s instead of 0.15 s. An SQLite file is never a note, so no listing is needed for it."""
    from openclaw_memtui.engine.ingest import memory_files

    db = tmp_path / "i.sqlite"
    assert main(["index", "--workspace", str(workspace), "--db", str(db), "--provider", "none"]) == 0
    capsys.readouterr()
    monkeypatch.setattr(memory_files, "list_sources", lambda *a, **k: pytest.fail("every note was listed"))
    assert main(["search", "oolong", "--workspace", str(workspace), "--db", str(db), "--provider", "none"]) == 0
    assert "oolong" in capsys.readouterr().out.lower()


def test_status_on_a_missing_index_creates_nothing(tmp_path, workspace, capsys):
    folder = tmp_path / "nothing-here"
    code = main(["status", "--workspace", str(workspace), "--db", str(folder / "i.sqlite"), "--provider", "none"])
    out, _ = capsys.readouterr()
    assert code == 0 and "not built yet" in out and "Files:       0" in out
    assert not folder.exists()


@pytest.mark.parametrize("closed", [False, True])
def test_status_on_a_valid_index_leaves_it_unchanged(tmp_path, workspace, capsys, closed):
    """closed: the last connection has gone, so no -wal/-shm exist; a plain read-only open of a WAL
    database would create both."""
    import sqlite3

    folder = tmp_path / "idx"
    db = folder / "i.sqlite"
    argv = ["index", "--workspace", str(workspace), "--db", str(db), "--provider", "none"]
    if closed:  # in another process, so that no connection of ours stays open
        subprocess.run([sys.executable, "-m", "openclaw_memtui", *argv], check=True, capture_output=True,
                       env=env_for_subprocess(), timeout=120)
        conn = sqlite3.connect(db)
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        conn.close()  # the last connection to close checkpoints and removes -wal/-shm
        assert not (folder / "i.sqlite-wal").exists()
    else:
        assert main(argv) == 0
    write(workspace / "memory" / "new.md", "changed on disk\n")  # dirty: status must only report it
    names, before = listing(folder), db.read_bytes()
    assert main(["status", "--workspace", str(workspace), "--db", str(db), "--provider", "none"]) == 0
    assert "Dirty: yes" in capsys.readouterr().out
    assert listing(folder) == names and db.read_bytes() == before


def test_index_leaves_no_wal_for_a_search_to_fold_into_the_index(tmp_path):
    """Every command closes the sessions it opened (`cli.main`): a WAL left at exit by `index` or
    `eval` was checkpointed into the index file by the next `search` (the last connection to close
    does it), so a read command rewrote the file."""
    db = tmp_path / "idx" / "i.sqlite"
    common = ["--demo", "--db", str(db), "--provider", "none"]  # the demo ships judgements for eval
    for argv in (["index", *common], ["eval", *common], ["search", "decided", *common]):
        subprocess.run([sys.executable, "-m", "openclaw_memtui", *argv], check=True, capture_output=True,
                       env=env_for_subprocess(), timeout=120)
        if argv[0] != "search":
            assert not (db.parent / "i.sqlite-wal").exists(), argv[0]
            before = snapshot(db.parent)
    assert snapshot(db.parent) == before


@pytest.mark.parametrize("command", [["status"], ["index"], ["search", "x"]])
def test_non_regular_index_paths_are_refused_in_one_line(tmp_path, workspace, capsys, command):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    folder = tmp_path / "folder"
    folder.mkdir()
    beside_null = ("/dev/null.lock", "/dev/null-journal", "/dev/null-wal")
    existed = {p for p in beside_null if os.path.exists(p)}  # /dev is shared with every other process
    for db, kind in (("/dev/null", "a device"), (str(folder), "a folder"), (str(fifo), "a FIFO")):
        names = listing(tmp_path)
        code = main([*command, "--workspace", str(workspace), "--db", db, "--provider", "none"])
        err = capsys.readouterr().err
        assert code == 2 and err.count("\n") == 1 and f"is {kind}, not a regular file" in err
        assert listing(tmp_path) == names and listing(folder) == set()
    assert {p for p in beside_null if os.path.exists(p)} <= existed


def test_search_says_when_the_index_is_out_of_date_and_leaves_it_as_it_is(tmp_path, workspace, capsys):
    """README said `memtui search` first brings the index up to date; it never did (only an index never
    built is built), so a note written after the last `memtui index` was silently not found. It still
    does not sync (with another --provider a sync is a rebuild that drops the vectors), but it says so."""
    import json

    common = ["--workspace", str(workspace), "--db", str(tmp_path / "i.sqlite"), "--provider", "none"]
    assert main(["index", *common]) == 0
    capsys.readouterr()
    assert main(["search", "oolong", *common]) == 0
    assert "out of date" not in capsys.readouterr().err  # an index in step with the files: no word
    write(workspace / "memory" / "2026-11-03.md", "# Log\nThe quokka sighting was on Tuesday.\n")
    before = snapshot(tmp_path)
    assert main(["search", "quokka", *common]) == 0
    out, err = capsys.readouterr()
    assert "No matches." in out and err.count("\n") == 1
    assert "index is out of date" in err and "run `memtui index`" in err
    assert main(["search", "quokka", "--json", *common]) == 0
    assert any("out of date" in w for w in json.loads(capsys.readouterr().out)["warnings"])
    assert snapshot(tmp_path) == before  # searched as it is: nothing synced, nothing written
    assert main(["index", *common]) == 0 and main(["search", "quokka", *common]) == 0
    out, err = capsys.readouterr()
    assert "memory/2026-11-03.md" in out and "out of date" not in err


def test_search_of_an_index_another_process_is_building_waits_for_it(tmp_path, capsys):
    """`memtui search` of an index never built, while another process (an agent's server started at the same
    moment) builds it: the search answered "No matches." from the empty file, without a word. It now waits for
    that sync, saying so at once, and answers from the index built."""
    import json
    import textwrap
    import threading
    import time

    ws, db = tmp_path / "ws", tmp_path / "i.sqlite"
    for i in range(40):
        write(ws / "memory" / f"n{i:02d}.md", f"# Note {i}\nkestrel sighting {i}\n")
    script = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        from openclaw_memtui.core.config import index_settings, validate
        from openclaw_memtui.engine.index import MemoryIndex
        index = MemoryIndex(index_settings(validate({{}}), Path({str(ws)!r}), Path({str(db)!r})), provider_name="none")
        def progress(p):
            if p.phase == "index" and p.done == 20:
                print("MIDWAY", flush=True)
                sys.stdin.readline()  # holds the sync lock until the test lets it go on
        index.sync(progress=progress)
    """)
    builder = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               env=env_for_subprocess(), text=True)
    err = ""
    try:
        assert builder.stdout.readline().strip() == "MIDWAY"
        done: list[int] = []
        search = threading.Thread(target=lambda: done.append(main(["search", "kestrel sighting", "--workspace", str(ws),
                                                                   "--db", str(db), "--provider", "none", "--json"])))
        search.start()
        deadline = time.monotonic() + 60
        while "another process is syncing this index" not in err:  # said at once, before it waits
            assert time.monotonic() < deadline and search.is_alive(), (done, err)
            err += capsys.readouterr().err
            time.sleep(0.02)
        assert not done  # waiting, not answering from the empty file
        builder.stdin.write("\n")
        builder.stdin.flush()
        search.join(120)
        assert done == [0]
    finally:
        if builder.poll() is None:
            builder.kill()
        builder.wait()
    assert len(json.loads(capsys.readouterr().out)["results"]) > 0
