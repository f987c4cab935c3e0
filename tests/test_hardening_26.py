"""Issue 26 (part): hostile inputs that crashed, hung, lost data or said nothing — one test per class."""

from __future__ import annotations

import json

import pytest

from openclaw_memtui.cli.main import main
from openclaw_memtui.engine.tuning.judgements import JudgementStore, judgements_path, set_verdict

from .helpers import write


def _line(qid: str, question: str, targets: list[dict] | None = None) -> bytes:
    return json.dumps({"qid": qid, "question": question,
                       "targets": [{"path": "MEMORY.md", "line": 3}] if targets is None else targets}).encode()


# -- 1. the judgements file: lone surrogates set aside byte for byte, empty questions kept -------------

def test_a_lone_surrogate_line_is_set_aside_byte_for_byte_and_a_question_without_targets_is_kept(tmp_path, workspace,
                                                                                                  capsys):
    """`"\\ud800"` parsed, then crashed `judgements list/export` (stdout cannot encode it) and every save
    (so the app's marks were silently lost); a question with "targets": [] vanished at the next save."""
    db = tmp_path / "i.sqlite"
    argv = ["--workspace", str(workspace), "--db", str(db), "--provider", "none"]
    surrogate = b'{"qid": "s", "question": "tea \\ud800", "targets": [{"path": "MEMORY.md", "line": 3}]}'
    key_surrogate = b'{"qid": "k", "question": "x", "targets": [], "\\udc80": 1}'
    empty = _line("e", "which tea?", [])
    stored = judgements_path(db)
    stored.write_bytes(b"\n".join([_line("g", "oolong"), surrogate, empty, key_surrogate]) + b"\n")
    assert main(["index", *argv]) == 0
    capsys.readouterr()
    assert main(["judgements", "list", *argv]) == 0
    out, err = capsys.readouterr()
    assert "2 judged question(s)" in out and "which tea?" in out
    assert "2 line(s) could not be read (line 2, 4)" in err and err.count("\n") == 1
    assert main(["judgements", "export", *argv]) == 0
    assert [json.loads(x)["qid"] for x in capsys.readouterr().out.splitlines()] == ["g", "e"]
    new = write(tmp_path / "new.jsonl", _line("n", "canary").decode() + "\n" + surrogate.decode().replace('"s"', '"s2"')
                + "\n")
    assert main(["judgements", "import", str(new), *argv]) == 0
    out, err = capsys.readouterr()
    assert "new.jsonl:2: skipped: it holds a lone surrogate escape" in err and "Imported 1 new question(s)" in out
    # in a target's path, where the import looks the places up in the index, before any question is vetted
    in_path = write(tmp_path / "path.jsonl", _line("p", "tea", [{"path": "MEMORY.md\udc80", "line": 1}]).decode() + "\n"
                    + _line("p2", "canary two").decode() + "\n")
    assert main(["judgements", "import", str(in_path), *argv]) == 0
    out, err = capsys.readouterr()
    assert "path.jsonl:1: skipped: it holds a lone surrogate escape" in err and "Imported 1 new question(s)" in out
    after = stored.read_bytes().split(b"\n")
    assert surrogate in after and key_surrogate in after  # byte for byte
    kept = JudgementStore(stored).load().judgements
    assert [j.qid for j in kept] == ["g", "e", "n", "p2"] and kept[1].targets == []
    # a mark then cleared on a question read from the file leaves it there; one a mark created goes
    from openclaw_memtui.engine.tuning.judgements import Target

    t = Target.of_chunk("MEMORY.md", 1, 4, "x")
    again = set_verdict(set_verdict(kept, "which tea?", t, "relevant"), "which tea?", t, None)
    assert [j.qid for j in again] == ["g", "e", "n", "p2"]
    assert [j.qid for j in set_verdict(set_verdict(kept, "fresh", t, "relevant"), "fresh", t, None)] == ["g", "e", "n", "p2"]


# -- 8. a byte order mark before the first line ------------------------------------------------------------

def test_a_queries_judgements_or_theme_file_starting_with_a_bom_is_read(tmp_path, workspace, capsys):
    db = tmp_path / "i.sqlite"
    argv = ["--workspace", str(workspace), "--db", str(db), "--provider", "none"]
    queries = tmp_path / "q.jsonl"
    queries.write_bytes(b"\xef\xbb\xbf" + _line("q1", "oolong tea") + b"\n" + _line("q2", "PostgreSQL") + b"\n")
    assert main(["eval", "--queries", str(queries), "--json", *argv]) == 0
    assert json.loads(capsys.readouterr().out)["scored"] == 2
    assert main(["judgements", "import", str(queries), *argv]) == 0
    assert "Imported 2 new question(s)" in capsys.readouterr().out
    stored = judgements_path(db)
    stored.write_bytes(b"\xef\xbb\xbf" + stored.read_bytes())  # the stored file saved by an editor with a BOM
    loaded = JudgementStore(stored).load()
    assert loaded.problem == "" and [j.qid for j in loaded.judgements] == ["q1", "q2"]
    from openclaw_memtui.tui.themes import load_theme_file

    theme = tmp_path / "mine.toml"
    theme.write_bytes(b'\xef\xbb\xbfname = "mine"\nprimary = "#336699"\n')
    assert load_theme_file(theme).name == "mine"


async def test_the_app_keeps_a_surrogate_line_and_says_when_a_save_fails(tmp_path):
    """A mark saved over a file holding `"\\ud800"` failed in the save worker without a word."""
    import shutil

    from openclaw_memtui.paths import demo_judgements
    from openclaw_memtui.tui.widgets.result_list import ResultList

    from .app_helpers import copy_demo, make_app, settled_search, wait_for

    app = make_app(copy_demo(tmp_path), tmp_path)
    stored = judgements_path(tmp_path / "tui.sqlite")
    shutil.copy(demo_judgements(), stored)
    bad = b'{"qid": "x", "question": "tea \\ud800", "targets": []}'
    before = stored.read_bytes() + bad + b"\n"
    stored.write_bytes(before)
    async with app.run_test(size=(120, 36)) as pilot:
        await settled_search(pilot, app, "database migration")
        assert await wait_for(pilot, lambda: app.search_screen.judging.judgements_read)
        app.query_one(ResultList).focus()
        await pilot.press("plus")
        assert await wait_for(pilot, lambda: stored.read_bytes() != before)
        assert bad + b"\n" in stored.read_bytes() and not [t for t in app.toasts if t[0] == "error"]

        def broken(*args, **kwargs):
            raise RuntimeError("no space in the judgement store")

        app.search_screen.judging.judgement_store.save = broken
        await pilot.press("minus")
        assert await wait_for(pilot, lambda: any(s == "error" and "Could not save the judgement" in m
                                                 for s, m in app.toasts))


# -- 7. a provider that cannot be made ----------------------------------------------------------------------

def test_index_says_why_the_configured_provider_cannot_be_made_and_fails(tmp_path, workspace, capsys):
    """A header value with CR/LF: `index` built a keyword-only index and exited 0 without a word."""
    config = write(tmp_path / "memtui.toml", 'provider = "openai"\n[remote]\napiKey = "sk-test-0123456789"\n'
                   'baseUrl = "http://127.0.0.1:8830/v1"\n[remote.headers]\nX-Team = "a\\r\\nInjected: 1"\n')
    db = tmp_path / "i.sqlite"
    code = main(["index", "--workspace", str(workspace), "--db", str(db), "--config", str(config), "--json"])
    out, err = capsys.readouterr()
    assert code != 0 and out == "" and err.count("\n") == 1
    assert "embedding provider cannot be made" in err and "'X-Team'" in err and "sk-test" not in err


# -- 2. another process holds the sync lock ---------------------------------------------------------------

def test_index_says_at_once_what_lock_it_waits_for_and_gives_up_with_75(tmp_path, workspace):
    """Without a terminal (or with --json) `index` waited for ever, without a word, for another sync."""
    import subprocess
    import sys

    from openclaw_memtui.engine.store import SyncLock

    from .helpers import env_for_subprocess

    db = tmp_path / "i.sqlite"
    held = SyncLock(db)
    assert held.acquire(wait=False)  # another process's sync, as far as the child can tell (flock is per open file)
    try:
        argv = [sys.executable, "-m", "openclaw_memtui", "index", "--json", "--wait", "2", "--workspace", str(workspace),
                "--db", str(db), "--provider", "none"]
        child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 env=env_for_subprocess(), text=True)
        first = child.stderr.readline()  # said while the lock is still held: before the wait, not after
        assert child.poll() is None
        assert f"waiting for the sync lock {db}.lock" in first and "giving up after 2s" in first
        out, rest = child.communicate(timeout=60)
        assert child.returncode == 75 and out == ""
        assert rest.count("\n") == 1 and "gave up after 2s" in rest and f"{db}.lock" in rest and "--wait" in rest
        bad = subprocess.run([*argv[:6], "nan", *argv[7:]], capture_output=True, text=True, env=env_for_subprocess())
        assert bad.returncode == 2 and "--wait must be between 0 and" in bad.stderr
    finally:
        held.release()


# -- 3. memtui mcp: batches answered, signals end it ---------------------------------------------------------

def _mcp(tmp_path, workspace):
    import subprocess
    import sys
    from pathlib import Path

    from .helpers import env_for_subprocess

    argv = [sys.executable, "-m", "openclaw_memtui", "mcp", "--workspace", str(workspace), "--provider", "none",
            "--db", str(tmp_path / "i.sqlite")]
    return subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env_for_subprocess(), cwd=Path(__file__).resolve().parents[1])


def _send(proc, *messages) -> None:
    proc.stdin.write(b"".join(m.encode() + b"\n" for m in messages))
    proc.stdin.flush()


def _answer(proc) -> dict:
    line = proc.stdout.readline()
    assert line, proc.stderr.read().decode()[-2000:]
    return json.loads(line)


INIT = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})


def test_a_json_rpc_batch_is_answered_with_an_error_per_request(tmp_path, workspace):
    """An array was dropped by the SDK without an answer: the client waited for ever."""
    proc = _mcp(tmp_path, workspace)
    try:
        _send(proc, INIT, '{"jsonrpc":"2.0","method":"notifications/initialized"}')
        assert _answer(proc)["id"] == 1
        _send(proc, '[{"jsonrpc":"2.0","id":7,"method":"tools/list"},{"jsonrpc":"2.0","method":"notifications/x"},'
                    '{"jsonrpc":"2.0","id":"b","method":"ping"}]', "[]", "[1, 2", '{"jsonrpc":"2.0","id":9,"method":"ping"}')
        answers = [_answer(proc)]
        while answers[-1].get("id") != 9:  # the ping after them: every answer to the batches came before it
            answers.append(_answer(proc))
        assert [a["id"] for a in answers] == [7, "b", None, None, 9]
        for a in answers[:4]:
            assert a["error"]["code"] == -32600 and "batches are not part of MCP" in a["error"]["message"]
        assert answers[4]["result"] == {}  # and it goes on serving
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    err = proc.stderr.read().decode()
    assert err.count("refused a JSON-RPC batch") == 3 and "Traceback" not in err


@pytest.mark.parametrize("signals", [("SIGINT",), ("SIGTERM",), ("SIGINT", "SIGINT")])
def test_sigint_and_sigterm_end_the_server_at_once_and_quietly(tmp_path, workspace, signals):
    """Ctrl-C left `memtui mcp` running until stdin closed; a second Ctrl-C printed a traceback."""
    import signal

    proc = _mcp(tmp_path, workspace)
    try:
        _send(proc, INIT)
        assert _answer(proc)["id"] == 1  # serving: the handlers are in place
        for name in signals:
            proc.send_signal(getattr(signal, name))
        code = proc.wait(timeout=60)  # stdin stays open: only the signal can end it
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = proc.stderr.read().decode()
    assert code == 128 + getattr(signal, signals[0]) and "Traceback" not in err and "KeyboardInterrupt" not in err
    assert proc.stdout.read() == b""  # nothing half-written on the wire


# -- 5. a bad $EDITOR ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("visual,editor,said", [
    ("", "memtui-no-such-editor", "Could not run the editor 'memtui-no-such-editor' ($EDITOR)"),
    ("", 'sh -c "exit 3"', "The editor 'sh -c \"exit 3\"' ($EDITOR) exited with status 3"),
    ("sh -c 'kill -TERM $$'", "vi", "($VISUAL) was stopped by signal 15"),
    ("", 'vim "unclosed', "$EDITOR 'vim \"unclosed' cannot be split into a command"),
    ("  ", "", "Could not run the editor 'vi' ($EDITOR)"),  # blank and empty: vi, not on this PATH
])
async def test_a_bad_editor_gives_the_screen_back_with_a_toast_naming_it(tmp_path, monkeypatch, visual, editor, said):
    """`e` with an editor that cannot start raised inside Textual's suspend(): application mode was never
    resumed and the terminal stayed dead."""
    import shutil

    from textual.drivers.headless_driver import HeadlessDriver

    from .app_helpers import copy_demo, make_app, settled_search

    resumed: list[str] = []  # the headless driver cannot suspend: give it the two calls a terminal driver makes
    monkeypatch.setattr(HeadlessDriver, "can_suspend", property(lambda self: True), raising=False)
    monkeypatch.setattr(HeadlessDriver, "suspend_application_mode", lambda self: resumed.append("suspend"), raising=False)
    monkeypatch.setattr(HeadlessDriver, "resume_application_mode", lambda self: resumed.append("resume"), raising=False)
    monkeypatch.setenv("VISUAL", visual)
    monkeypatch.setenv("EDITOR", editor)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "sh").symlink_to(shutil.which("sh"))  # only sh on PATH: no vi to fall back on
    monkeypatch.setenv("PATH", str(bin_dir))
    app = make_app(copy_demo(tmp_path), tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await settled_search(pilot, app, "database migration")
        app.search_screen.action_open_in_editor()
        await pilot.pause()
        assert any(said in text for _, text in app.toasts), app.toasts
        assert resumed in ([], ["suspend", "resume"])  # the screen is given back whenever it was taken
        assert app.is_running


# -- 4. the index deleted under a running server ----------------------------------------------------------------

@pytest.mark.parametrize("what", ["files", "folder"])
async def test_an_index_deleted_under_the_server_is_recreated_and_searched_again(tmp_path, workspace, what):
    """Every search after `rm` of the index failed with "unable to open database file"."""
    import shutil

    from .test_mcp import call, server

    db = tmp_path / "data" / "i.sqlite"
    argv = ["--workspace", str(workspace), "--provider", "none", "--db", str(db)]
    async with server(tmp_path, *argv) as session:
        first = await call(session, "memory_search", query="oolong tea")
        assert first["results"] and not first["warnings"]
        if what == "folder":
            shutil.rmtree(db.parent)
        else:
            for f in db.parent.glob("i.sqlite*"):
                f.unlink()
        again = await call(session, "memory_search", query="oolong tea")
        assert [r["path"] for r in again["results"]] == [r["path"] for r in first["results"]], again
        assert not again["warnings"]
    err = (tmp_path / "stderr.txt").read_text()
    assert err.count("was deleted while in use; recreated it empty") == 1 and "Traceback" not in err
    assert oct(db.stat().st_mode & 0o777) == "0o600"


# -- 6. an edit that kept the size and put the old mtime back ---------------------------------------------------

@pytest.mark.parametrize("path,old,new", [("memory/2026-11-01.md", "Alpha memory", "Gamma memory"),
                                          ("sessions/s1.jsonl", "ORBIT-10", "ORBIT-99")])
def test_check_files_compares_content_hashes_so_a_restored_mtime_does_not_hide_an_edit(tmp_path, workspace, capsys,
                                                                                       path, old, new):
    """`touch -d` / `rsync -t` / `cp -p` after a same-size edit: never seen, not even by --check-files."""
    import os

    argv = ["--workspace", str(workspace), "--db", str(tmp_path / "i.sqlite"), "--provider", "none"]
    assert main(["index", *argv]) == 0
    capsys.readouterr()
    note = workspace / path
    st = os.stat(note)
    note.write_text(note.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    os.utime(note, ns=(st.st_atime_ns, st.st_mtime_ns))  # the old mtime put back
    assert os.stat(note).st_size == st.st_size

    def status(*extra):
        assert main(["status", "--json", *extra, *argv]) == 0
        return json.loads(capsys.readouterr().out)["dirty"]

    assert status() is False  # a stat cannot tell: that is what --check-files is for
    assert status("--check-files") is True
    assert main(["index", "--json", *argv]) == 0
    assert json.loads(capsys.readouterr().out)["report"]["files_indexed"] == 0
    assert main(["index", "--json", "--check-files", *argv]) == 0
    report = json.loads(capsys.readouterr().out)["report"]
    assert report["files_indexed"] == 1 and report["files_unchanged"] == report["files_total"] - 1
    assert status("--check-files") is False
    assert main(["search", new.split()[0], "--json", "--min-score", "0", *argv]) == 0
    assert [r["path"] for r in json.loads(capsys.readouterr().out)["results"]][:1] == [path]
