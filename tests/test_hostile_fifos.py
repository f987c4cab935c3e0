"""Something other than a regular file where memtui expects one: a FIFO waits for a writer forever.

A note swapped for a FIFO after the listing hung the sync (and held the index lock), `memory_get`
and the app's file view; a FIFO where memtui keeps its judgements hung `eval`, `judgements list` and
the app's launch. Each case runs the real code in a thread with a bound on the hang: when fixed it
ends at once, and the FIFO is opened for writing afterwards so a blocked reader is released.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from pathlib import Path

from openclaw_memtui.cli.main import main

from .helpers import write


def finishes(fn: Callable[[], object], fifo: Path) -> tuple[bool, list[object]]:
    """Run `fn` in a thread; (whether it finished within the bound, [its result or exception])."""
    outcome: list[object] = []

    def target() -> None:
        try:
            outcome.append(fn())
        except BaseException as exc:  # noqa: BLE001 - the test looks at whatever came out
            outcome.append(exc)

    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(timeout=30)  # a bound on a hang, not a wait for time to pass: it ends at once when fixed
    done = not worker.is_alive()
    if not done:  # release the reader blocked in open() so the thread does not outlive the test
        os.close(os.open(fifo, os.O_RDWR | os.O_NONBLOCK))
        worker.join(timeout=30)
    return done, outcome


def swap_for_fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


def test_a_note_swapped_for_a_fifo_after_the_listing_is_skipped_and_the_sync_goes_on(tmp_path, capsys, monkeypatch):
    from openclaw_memtui.engine.sync import file_pass as sync

    ws, db = tmp_path / "ws", tmp_path / "i.sqlite"
    write(ws / "memory" / "a.md", "axolotl\n")
    write(ws / "memory" / "b.md", "bandicoot\n")
    real = sync.list_sources

    def listing_then_swap(*args, **kwargs):
        files = real(*args, **kwargs)
        swap_for_fifo(ws / "memory" / "a.md")  # the race: listed as a file, read as a FIFO
        return files

    monkeypatch.setattr(sync, "list_sources", listing_then_swap)
    done, outcome = finishes(lambda: main(["index", "-w", str(ws), "--db", str(db), "--provider", "none"]),
                             ws / "memory" / "a.md")
    assert done, "the sync blocked reading a FIFO"
    assert outcome == [0]
    monkeypatch.setattr(sync, "list_sources", real)
    capsys.readouterr()
    assert main(["status", "-w", str(ws), "--db", str(db), "--provider", "none", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["files"] == 1  # b.md indexed
    # the FIFO is no file to index: the listing of the sync that met it, or the next one, leaves it out
    assert all("a.md" not in s["path"] or "FIFO" in s["reason"] for s in status["skipped"])


def test_memory_get_of_a_note_swapped_for_a_fifo_is_refused_at_once(tmp_path, make_settings, monkeypatch):
    from openclaw_memtui.engine.ingest import memory_files

    ws = tmp_path / "ws"
    write(ws / "memory" / "a.md", "axolotl\n")
    settings = make_settings(ws)
    real = memory_files.list_sources

    def listing_then_swap(*args, **kwargs):
        files = real(*args, **kwargs)
        swap_for_fifo(ws / "memory" / "a.md")
        return files

    monkeypatch.setattr(memory_files, "list_sources", listing_then_swap)
    done, outcome = finishes(lambda: memory_files.read_memory_file(settings, "memory/a.md"), ws / "memory" / "a.md")
    assert done, "memory_get blocked reading a FIFO"
    assert isinstance(outcome[0], memory_files.AccessRefused)
    assert str(outcome[0]).startswith("'memory/a.md' is not a memory file")


def test_the_apps_file_view_of_a_note_now_a_fifo_says_so(tmp_path, make_settings):
    from openclaw_memtui.engine.ingest.reading import read_indexed_file
    from openclaw_memtui.tui.screens.file_view import render_file

    ws = tmp_path / "ws"
    write(ws / "memory" / "a.md", "axolotl\n")
    settings = make_settings(ws)
    swap_for_fifo(ws / "memory" / "a.md")
    done, outcome = finishes(lambda: render_file(lambda: read_indexed_file(settings, "memory/a.md", "memory"),
                                                 "memory/a.md", 1, 1, "memory"), ws / "memory" / "a.md")
    assert done, "the file view blocked reading a FIFO"
    text, row = outcome[0]
    assert text.plain == "cannot read memory/a.md: a FIFO, not a regular file" and row == 0


def test_the_file_view_keeps_showing_crlf_notes_line_for_line(tmp_path, make_settings):
    from openclaw_memtui.engine.ingest.reading import read_indexed_file

    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "memory" / "a.md").write_bytes(b"one\r\ntwo\r\nthree\xff\n")
    assert read_indexed_file(make_settings(ws), "memory/a.md", "memory") == "one\ntwo\nthree\ufffd\n"


def test_a_fifo_where_the_judgements_live_is_one_line_not_a_hang(tmp_path, capsys):
    ws, db = tmp_path / "ws", tmp_path / "i.sqlite"
    write(ws / "memory" / "a.md", "axolotl\n")
    assert main(["index", "-w", str(ws), "--db", str(db), "--provider", "none"]) == 0
    fifo = tmp_path / "i.judgements.jsonl"
    os.mkfifo(fifo)
    capsys.readouterr()
    for argv in (["judgements", "list"], ["eval"]):
        done, outcome = finishes(lambda argv=argv: main([*argv, "-w", str(ws), "--db", str(db), "--provider", "none"]),
                                 fifo)
        assert done, f"{argv} blocked reading a FIFO"
        err = capsys.readouterr().err
        assert f"memtui: cannot read {fifo}: a FIFO, not a regular file" in err.splitlines()
        assert "Traceback" not in err
    assert fifo.is_fifo()  # reading never replaced it
