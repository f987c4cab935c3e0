"""`memtui index`'s report: what its text form computes and draws (its JSON form keeps every field)."""

from __future__ import annotations

import io
import json

from .helpers import write


def test_the_text_report_skips_the_integrity_join_and_json_keeps_it(tmp_path, workspace, capsys, monkeypatch):
    from openclaw_memtui.cli.main import main
    from openclaw_memtui.engine import index_status

    joins: list[int] = []
    real = index_status.check_integrity
    monkeypatch.setattr(index_status, "check_integrity", lambda conn, dims: joins.append(1) or real(conn, dims))
    argv = ["--workspace", str(workspace), "--db", str(tmp_path / "i.sqlite"), "--provider", "none"]
    assert main(["index", *argv]) == 0
    assert "chunks: " in capsys.readouterr().out
    assert joins == []  # the text report shows no integrity line, so it does not read every row for one
    write(workspace / "memory" / "2026-11-03.md", "# Log\nA note that changes the index.\n")
    assert main(["index", "--json", *argv]) == 0
    status = json.loads(capsys.readouterr().out)["status"]
    assert joins == [1] and status["integrity"]["ok"] is True


def test_status_without_the_integrity_check_leaves_it_empty(tmp_path, workspace, make_settings):
    from openclaw_memtui.engine.index import MemoryIndex

    index = MemoryIndex(make_settings(workspace), provider_name="none")
    index.sync()
    assert index.status(check_dirty=False, check_integrity=False).integrity == {}
    assert index.status(check_dirty=False).integrity["ok"] is True


def test_the_progress_line_redraws_at_most_every_few_hundredths_and_always_at_the_end(monkeypatch):
    """Called once per file: 10,000 notes drew 10,000 lines, each costing more than indexing a note."""
    import sys

    from openclaw_memtui.cli.index import _ProgressLine
    from openclaw_memtui.engine.models import SyncProgress

    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    line = _ProgressLine(True)
    line(SyncProgress("scan", 0, 0, "", "listing files"))
    for done in range(1, 2001):
        line(SyncProgress("index", done, 2000, f"memory/n{done}.md"))
    draws = err.getvalue().split("\r")[1:]
    assert 3 <= len(draws) < 100  # the listing, the first file of the new phase, the last; not 2,001
    assert "listing files" in draws[0] and "index " in draws[1]
    assert draws[-1].startswith("index ") and "2000/2000" in draws[-1]


def test_the_file_pass_holds_the_cyclic_collector_and_gives_it_back(tmp_path, workspace, make_settings, monkeypatch):
    import gc

    from openclaw_memtui.engine.index import MemoryIndex
    from openclaw_memtui.engine.store.writer import IndexWriter

    seen: list[bool] = []
    real = IndexWriter.insert_chunks
    monkeypatch.setattr(IndexWriter, "insert_chunks", lambda self, chunks: seen.append(gc.isenabled()) or real(self, chunks))
    assert gc.isenabled()
    MemoryIndex(make_settings(workspace), provider_name="none").sync()
    assert seen and not any(seen)  # held while the chunks are written (a batch of 5,000 files' tuples)
    assert gc.isenabled()


_RUN = """
import atexit, sys, threading, time
from pathlib import Path
marks = Path(sys.argv[1])
atexit.register(lambda: (marks / "atexit").write_text("ran"))
if sys.argv[2] == "thread":  # a thread the interpreter would wait for: the process must wait too
    threading.Thread(target=lambda: (time.sleep(0.2), (marks / "thread").write_text("done"))).start()
sys.stderr.write("a partial line")  # no newline: still in the buffer when the command ends
sys.argv = ["memtui", *sys.argv[3:]]
from openclaw_memtui.cli.main import run
run()
"""


def test_the_command_ends_without_teardown_yet_keeps_its_output_exit_handlers_and_threads(tmp_path, workspace):
    """`memtui` (run) ends the process once the command is done, skipping the interpreter's teardown: its
    output still arrives whole through a pipe, atexit handlers still run, and a thread still running is
    waited for, as an ordinary exit would."""
    import subprocess
    import sys

    from .helpers import env_for_subprocess

    argv = ["index", "--workspace", str(workspace), "--db", str(tmp_path / "i.sqlite"), "--provider", "none"]
    for mode in ("plain", "thread"):
        marks = tmp_path / mode
        marks.mkdir()
        done = subprocess.run([sys.executable, "-c", _RUN, str(marks), mode, *argv], capture_output=True, text=True,
                              env=env_for_subprocess(), timeout=120)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("Indexed ") and "  index: " in done.stdout  # the last line too
        assert done.stderr.startswith("a partial line")
        assert (marks / "atexit").read_text() == "ran"
        assert (marks / "thread").exists() == (mode == "thread")
    failed = subprocess.run([sys.executable, "-c", _RUN, str(tmp_path), "plain", "search", "x", "--db",
                             str(tmp_path / "none" / "i.sqlite"), "--workspace", str(tmp_path / "missing")],
                            capture_output=True, text=True, env=env_for_subprocess(), timeout=120)
    assert failed.returncode == 2 and "is not a directory" in failed.stderr
