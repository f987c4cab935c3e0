"""API keys never printed or stored; index files and folders private regardless of the umask."""

from __future__ import annotations

import json
import os
import stat
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from openclaw_memtui.cli.main import main
from openclaw_memtui.engine.scrub import scrub

from .helpers import write

KEY = "sk-proj-Zq8vT3kLmN0pQrStUvWx1234567890abcd"
HEADER_KEY = "azure-key-7f3e9a1b2c4d5e6f"


class EchoAPI:
    """A loopback provider that answers every request with `status` and a body echoing its headers."""

    def __init__(self, status: int = 400, padding: int = 0, content_type: str = "application/json") -> None:
        api = self
        self.status, self.padding, self.content_type = status, padding, content_type
        self.requests = 0

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                self.rfile.read(int(self.headers["Content-Length"]))
                api.requests += 1
                # the credential headers first, so the 200-character cut of an error falls across them
                secret_first = ("authorization", "x-goog-api-key", "api-key")
                order = sorted(self.headers.items(), key=lambda kv: kv[0].lower() not in secret_first)
                echoed = "; ".join(f"{k}: {v}" for k, v in order)
                if api.content_type == "application/json":
                    raw = json.dumps({"error": "x" * api.padding + f" bad request, you sent {echoed}",
                                      "headers": dict(self.headers)}).encode()
                else:
                    raw = f"<html>{'x' * api.padding} {echoed}</html>".encode()
                self.send_response(api.status)
                self.send_header("Content-Type", api.content_type)
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()


def run(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out + err


def stored_bytes(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in folder.iterdir() if p.is_file())


def assert_no_key(text: str | bytes, *keys: str) -> None:
    for key in keys:
        needle = key.encode() if isinstance(text, bytes) else key
        assert needle not in text
        # not even a recognisable head of it (a message cut at 200 characters must not keep half)
        assert needle[:8] not in text


@pytest.mark.parametrize("padding", [0, 135])  # 135: the 200-character cut falls inside the key
def test_echoed_authorization_header_never_printed_or_stored(tmp_path, capsys, monkeypatch, padding):
    api = EchoAPI(400, padding)
    try:
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        monkeypatch.setenv("OPENAI_BASE_URL", api.url)
        ws = write(tmp_path / "ws" / "MEMORY.md", "zebracorn notes\n").parent
        data = tmp_path / "data"
        db = str(data / "i.sqlite")
        common = ["--workspace", str(ws), "--db", db, "--provider", "openai"]
        for argv in (["index", *common], ["index", *common, "--json"], ["search", "zebracorn", *common],
                     ["search", "zebracorn", *common, "--json"], ["status", *common], ["status", *common, "--json"]):
            code, output = run(capsys, *argv)
            assert code == 0, output
            assert_no_key(output, KEY)
        assert api.requests >= 2  # both index runs reached the provider
        code, output = run(capsys, "status", *common)
        assert "HTTP 400" in output and ("[redacted]" in output or padding)  # still reported, minus the key
        assert_no_key(stored_bytes(data), KEY)  # meta: provider_error, last_sync_report; the -wal too
    finally:
        api.close()


def test_configured_key_and_credential_headers_scrubbed_gemini_and_config(tmp_path, capsys, monkeypatch):
    api = EchoAPI(400, content_type="text/html")
    try:
        config = write(tmp_path / "config.toml", f'provider = "gemini"\n[remote]\nbaseUrl = "{api.url}"\n'
                                                 f'apiKey = "{KEY}"\nheaders = {{ "api-key" = "{HEADER_KEY}" }}\n')
        ws = write(tmp_path / "ws" / "MEMORY.md", "zebracorn\n").parent
        data = tmp_path / "data"
        common = ["--workspace", str(ws), "--db", str(data / "i.sqlite"), "--config", str(config)]
        for argv in (["index", *common], ["status", *common], ["search", "zebracorn", *common]):
            code, output = run(capsys, *argv)
            assert code == 0
            assert_no_key(output, KEY, HEADER_KEY)  # x-goog-api-key and the custom api-key header echoed
        assert_no_key(stored_bytes(data), KEY, HEADER_KEY)
    finally:
        api.close()


def test_credentials_in_base_url_are_not_shown(tmp_path, capsys, monkeypatch):
    api = EchoAPI(200, content_type="text/plain")  # 200 but not JSON: the message names the base URL
    try:
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        monkeypatch.setenv("OPENAI_BASE_URL", api.url.replace("http://", "http://admin:hunter2secret@"))
        ws = write(tmp_path / "ws" / "MEMORY.md", "zebracorn\n").parent
        code, output = run(capsys, "index", "--workspace", str(ws), "--db", str(tmp_path / "i.sqlite"), "--provider", "openai")
        assert code == 0 and "malformed response" in output
        assert "hunter2secret" not in output and "[redacted]@127.0.0.1" in output
    finally:
        api.close()


@pytest.mark.parametrize("key, header", [("sk-line-break-4711\nsecond", ""), ("sk-accented-é-4711xyz", ""),
                                         ("sk-fine-key-4711xyz", "café")])
def test_a_key_or_header_http_cannot_carry_is_one_line_and_the_search_still_runs(tmp_path, capsys, monkeypatch, key,
                                                                                  header):
    """A non-ASCII key or header value ended `memtui search` with httpx's UnicodeEncodeError (exit 1, no
    results); a key with a line break was retried as "cannot reach" the server. Now: keyword-only,
    with one line saying where the bad value comes from, and never the value itself."""
    api = EchoAPI(200)
    try:
        monkeypatch.setenv("OPENAI_API_KEY", key)
        monkeypatch.setenv("OPENAI_BASE_URL", api.url)
        config = write(tmp_path / "c.toml", f'[remote]\nheaders = {{ "X-Org" = "{header}" }}\n' if header else "")
        ws = write(tmp_path / "ws" / "MEMORY.md", "zebracorn\n").parent
        code, output = run(capsys, "search", "zebracorn", "--workspace", str(ws), "--db", str(tmp_path / "i.sqlite"),
                           "--provider", "openai", "--config", str(config))
        assert code == 0 and "zebracorn" in output and api.requests == 0
        assert "keyword-only" in output and "cannot carry" in output
        assert ("'X-Org'" if header else "OPENAI_API_KEY") in output
        assert_no_key(output, key.split("\n")[0], *([header] if header else []))
    finally:
        api.close()


def test_scrub_catches_key_shapes_it_was_never_told_about():
    text = ('{"Authorization": "Bearer abcdefghijklmnop", "x-goog-api-key": "AIzaSyA1234567890abcdefghijklmnopqrs"} '
            "token=ghp_abcdefghijklmnopqrstuvwxyz012345 url https://u:p4ss@host/x?key=topsecret123")
    out = scrub(text)
    for secret in ("abcdefghijklmnop", "AIzaSy", "ghp_abc", "p4ss", "topsecret123"):
        assert secret not in out
    assert scrub("chunking tokens = 0 and 400 tokens") == "chunking tokens = 0 and 400 tokens"  # ordinary text kept


# -- permissions ------------------------------------------------------------------------------

@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_index_folders_0700_and_files_0600_under_umask_022(tmp_path, capsys, umask_022, workspace):
    code, _ = run(capsys, "index", "--workspace", str(workspace), "--provider", "none")
    assert code == 0
    data = Path(os.environ["MEMTUI_DATA_DIR"])
    assert mode(data) == 0o700 and mode(data / "indexes") == 0o700
    files = list((data / "indexes").iterdir())
    assert any(p.name.endswith(".sqlite") for p in files) and any(p.name.endswith(".lock") for p in files)
    for p in files:
        assert mode(p) == 0o600, p.name  # the index, its -wal/-shm and the lock
    # an explicit --db in an existing shared folder: the folder is not ours to change, the file is
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o755)
    code, _ = run(capsys, "index", "--workspace", str(workspace), "--db", str(shared / "x.sqlite"), "--provider", "none")
    assert code == 0 and mode(shared) == 0o755
    assert all(mode(p) == 0o600 for p in shared.iterdir())


def test_rebuild_temp_and_moved_aside_files_are_private(tmp_path, umask_022, workspace, make_settings, monkeypatch):
    from openclaw_memtui.engine import store as store_mod
    from openclaw_memtui.engine.index import MemoryIndex
    from openclaw_memtui.engine.store import files as store_files  # move_aside names the set-aside copy

    db = tmp_path / "idx" / "i.sqlite"
    db.parent.mkdir()
    MemoryIndex(make_settings(workspace, db=db), "none").close()
    damaged = db.read_bytes()[:100]  # memtui's header alone: an index it made, damaged
    for side in store_mod.side_files(db):
        side.unlink(missing_ok=True)
    db.write_bytes(damaged)
    os.chmod(db, 0o644)
    index = MemoryIndex(make_settings(workspace, db=db), "none")
    asides = list(db.parent.glob("i.sqlite.invalid-*"))
    assert len(asides) == 1 and mode(asides[0]) == 0o600 and asides[0].read_bytes() == damaged
    temp_modes: list[int] = []

    def progress(p):
        if p.phase == "index":
            temp_modes.extend(mode(t) for t in db.parent.glob("i.sqlite.tmp-*") if t.exists())

    index.sync(force=True, progress=progress)
    index.close()
    assert temp_modes and set(temp_modes) == {0o600}
    assert mode(db) == 0o600
    # a second invalid file in the same second gets its own name: the first is not replaced
    monkeypatch.setattr(store_files.time, "strftime", lambda fmt, *a: "20261130-120000")
    for content in (damaged + b"first", damaged + b"second"):
        for side in store_mod.side_files(db):
            side.unlink(missing_ok=True)
        db.write_bytes(content)
        MemoryIndex(make_settings(workspace, db=db), "none").close()
    aside = db.parent.glob("i.sqlite.invalid-20261130-120000*")
    kept = sorted(p.read_bytes() for p in aside if not p.name.endswith(("-wal", "-shm")))
    assert kept == [damaged + b"first", damaged + b"second"]


def test_index_from_an_older_memtui_is_tightened_to_0600(tmp_path, capsys, umask_022, workspace):
    db = tmp_path / "old.sqlite"
    assert run(capsys, "index", "--workspace", str(workspace), "--db", str(db), "--provider", "none")[0] == 0
    os.chmod(db, 0o644)  # as an older memtui created it
    assert run(capsys, "index", "--workspace", str(workspace), "--db", str(db), "--provider", "none")[0] == 0
    assert mode(db) == 0o600


@pytest.mark.parametrize("layout", ["legacy", "2026.9"])
def test_agents_json_never_prints_the_openclaw_configs_keys(tmp_path, capsys, monkeypatch, layout):
    """`memtui agents --json` printed each agent's effective memorySearch block as read, so the
    `remote.apiKey`, a credential header and a `user:password@` base URL of openclaw.json reached stdout."""
    remote = {"apiKey": "oc-config-key-4242-zyx", "baseUrl": "https://bob:pw-77331199@proxy.example/v1",
              "headers": {"X-Team-Token": "hdr-value-5150-qrs"}}
    search = {"provider": "openai", "remote": remote}
    if layout == "legacy":
        cfg = {"agents": {"defaults": {"memorySearch": search}, "list": [{"id": "main", "default": True}]}}
    else:
        cfg = {"memory": {"search": search}, "agents": {"entries": {"main": {}}}}
    write(tmp_path / "state" / "openclaw.json", json.dumps(cfg))
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(tmp_path / "state"))
    code, out = run(capsys, "agents", "--json")
    assert code == 0
    assert_no_key(out, "oc-config-key-4242-zyx", "pw-77331199", "hdr-value-5150-qrs")
    shown = json.loads(out)["agents"][0]["memory_search"]["remote"]
    assert shown["apiKey"] == "[redacted]" and shown["headers"] == {"X-Team-Token": "[redacted]"}
    assert shown["baseUrl"].endswith("@proxy.example/v1")  # where it points is still shown


class PieceEchoAPI:
    """A loopback provider answering 400 with pieces of the key it was sent: its first half, its last
    half and an upper-cased middle, the way some gateways "mask" a key in an error."""

    def __init__(self) -> None:
        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                self.rfile.read(int(self.headers["Content-Length"]))
                key = self.headers.get("Authorization", "").removeprefix("Bearer ")
                half = len(key) // 2
                raw = json.dumps({"error": f"key {key[:half]}... rejected; ...{key[half:]} unknown; "
                                           f"({key[4:20].upper()})"}).encode()
                self.send_response(400)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()


def test_pieces_of_the_key_echoed_by_a_provider_are_never_printed_or_stored(tmp_path, capsys, monkeypatch):
    """Whole keys were scrubbed, but a provider quoting half of one got that half printed by index and
    status and stored in the index's meta."""
    key = "Zq8Xv2Lp9Ws4Nd7Hb3Kf6Mj1Rt5Yc0Ga"
    api = PieceEchoAPI()
    try:
        monkeypatch.setenv("OPENAI_API_KEY", key)
        monkeypatch.setenv("OPENAI_BASE_URL", api.url)
        ws = write(tmp_path / "ws" / "MEMORY.md", "zebracorn\n").parent
        db = tmp_path / "idx" / "i.sqlite"
        code, output = run(capsys, "index", "--workspace", str(ws), "--db", str(db), "--provider", "openai")
        assert code == 0 and "HTTP 400" in output and "rejected" in output
        code, status = run(capsys, "status", "--workspace", str(ws), "--db", str(db), "--provider", "openai")
        for text in (output, status, stored_bytes(db.parent)):
            assert_no_key(text, key, key[16:], key[4:20].upper())
    finally:
        api.server.shutdown()


def test_scrub_removes_every_piece_of_a_known_key_and_nothing_else():
    key = "Zq8Xv2Lp9Ws4Nd7Hb3Kf6Mj1Rt5Yc0Ga"
    text = f"head {key[:9]} tail {key[-10:]} mid {key[10:19].lower()} short {key[:7]} other Hb3Kf6 ok"
    assert scrub(text, [key]) == "head [redacted] tail [redacted] mid [redacted] short Zq8Xv2L other Hb3Kf6 ok"


def test_a_fragment_of_a_known_key_inside_another_key_does_not_let_its_tail_through(monkeypatch):
    """A configured key's 8-character piece ("12345678") may occur inside another key-shaped string:
    cutting that piece out first left the rest ("90abcdef…") no longer shaped like a key, so printed."""
    from openclaw_memtui.engine import scrub as scrub_module

    monkeypatch.setattr(scrub_module, "_known", set())
    scrub_module.register_secret("sk-configured-0123456789")
    out = scrub("got AIzaSyA1234567890abcdefghijklmnopqrs back; ours sk-configured-0123456789, its tail 23456789x")
    assert "abcdefghijklmnop" not in out and "AIzaSy" not in out and "0123456789" not in out and "23456789" not in out
    assert out.startswith("got [redacted] back")


def test_memtui_debug_shows_the_traceback_without_the_key_it_quotes(tmp_path, capsys, monkeypatch):
    """MEMTUI_DEBUG=1 re-raised the error: Python printed its traceback raw, the key in its message too."""
    from openclaw_memtui.engine.index import MemoryIndex

    odd_key = "zq7-Plain-Shaped-Secret-4711"  # no pattern knows this shape: only the env value gives it away
    monkeypatch.setenv("GEMINI_API_KEY", odd_key)

    def failing_status(self, *args, **kwargs):
        raise RuntimeError(f"GET https://api.example/v1/models?key={KEY} refused ({odd_key}) \x1b]0;pwned\x07")

    monkeypatch.setattr(MemoryIndex, "status", failing_status)
    ws = write(tmp_path / "ws" / "MEMORY.md", "zebracorn\n").parent
    argv = ["status", "--workspace", str(ws), "--db", str(tmp_path / "i.sqlite"), "--provider", "none"]
    monkeypatch.delenv("MEMTUI_DEBUG", raising=False)
    code, output = run(capsys, *argv)  # without the variable: one line, no traceback
    assert code == 1 and output.count("\n") == 1 and "Traceback" not in output and "MEMTUI_DEBUG=1" in output
    monkeypatch.setenv("MEMTUI_DEBUG", "1")
    code, output = run(capsys, *argv)
    assert code == 1 and output.startswith("Traceback (most recent call last):")
    assert "in failing_status" in output and "RuntimeError: GET https://api.example/v1/models?key=[redacted]" in output
    assert_no_key(output, KEY, odd_key)
    assert "\x1b" not in output and "\x07" not in output and "\\x1b]0;pwned\\x07" in output


@pytest.mark.parametrize("debug", [False, True])
async def test_a_tui_crash_reports_no_key_and_no_raw_traceback(tmp_path, capsys, monkeypatch, debug):
    """Textual reported a crash with a Rich traceback of every frame's locals, raw, whatever MEMTUI_DEBUG said."""
    from .app_helpers import copy_demo, make_app

    monkeypatch.setenv("MEMTUI_DEBUG", "1") if debug else monkeypatch.delenv("MEMTUI_DEBUG", raising=False)
    app = make_app(copy_demo(tmp_path), tmp_path)
    token = KEY  # a local of the failing frame: Textual's report listed it

    def crash() -> None:
        raise RuntimeError(f"POST https://api.example/v1?key={token} \x1b]0;pwned\x07")

    app.action_help = crash
    capsys.readouterr()
    with pytest.raises(RuntimeError):
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("f1")
            await pilot.pause()
    assert capsys.readouterr().err == ""  # Textual printed nothing itself: run_tui writes the report
    report = app.crash_report
    assert app.return_code == 1
    assert_no_key(report, KEY)
    assert "\x1b" not in report and "\x07" not in report and "\\x1b]0;pwned\\x07" in report
    if debug:
        assert report.startswith("Traceback (most recent call last):") and "in crash" in report
    else:
        assert report.startswith("memtui: error: POST https://api.example/v1?key=[redacted]")
        assert report.count("\n") == 1 and "Traceback" not in report


def test_the_tui_ends_a_crash_with_one_line_on_stderr_and_exit_1(tmp_path):
    """It exited 0 after a crash; and Rich wrapped the one line at 80 columns."""
    import subprocess
    import sys

    from .helpers import env_for_subprocess

    probe = ("import sys\n"
             "from textual.app import App\n"
             "from openclaw_memtui.tui.app import MemtuiApp\n"
             "def on_mount(self):\n"
             f"    raise RuntimeError('the index said no ' * 5 + '?key={KEY}')\n"
             "MemtuiApp.on_mount = on_mount\n"
             "MemtuiApp.run = lambda self, **kw: App.run(self, headless=True, **kw)  # no terminal here\n"
             "from openclaw_memtui.cli.main import main\n"
             "sys.exit(main(sys.argv[1:]))\n")
    out = subprocess.run([sys.executable, "-c", probe, "--demo", "--db", str(tmp_path / "i.sqlite"), "--provider", "none"],
                         capture_output=True, text=True, env=env_for_subprocess() | {"MEMTUI_DEBUG": ""}, timeout=60)
    assert out.returncode == 1, out.stderr
    assert out.stderr.startswith("memtui: error: the index said no the index said no") and out.stderr.count("\n") == 1
    assert "?key=[redacted] (RuntimeError; rerun with MEMTUI_DEBUG=1 for details)" in out.stderr
    assert_no_key(out.stderr, KEY)
