"""Every C0, C1, DEL and bidi character, fed through every path out, arrives escaped, never raw.

Paths out: CLI text (search, status, index), the progress line, error lines (ours and argparse's),
JSON (--json), TUI panes, toasts and the file view. File names, file text, agent ids and provider
error bodies are the untrusted inputs.
"""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from openclaw_memtui.cli.main import main
from openclaw_memtui.render import dumps_json, safe

from .helpers import write

C0 = [chr(c) for c in range(0x00, 0x20)]
C1 = [chr(c) for c in range(0x80, 0xA0)]
DEL = ["\x7f"]
BIDI = [chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C, 0x2028, 0x2029)]
EVERY = C0 + C1 + DEL + BIDI
# Raw in output: newline and tab may legitimately separate our own lines and columns, so they are
# checked by the "no forged line" tests instead; everything else must never appear.
FORBIDDEN = [c for c in EVERY if c not in "\n\t"]
# A file name can hold anything but NUL and "/".
NAME_CHARS = "".join(c for c in EVERY if c != "\x00")


def raw_found(text: str) -> list[str]:
    return [f"U+{ord(c):04X}" for c in FORBIDDEN if c in text]


def test_safe_escapes_every_character_visibly():
    for ch in EVERY:
        out = safe(f"a{ch}b", one_line=True)
        assert ch not in out and out.startswith("a\\") and out.endswith("b"), (hex(ord(ch)), out)
    assert safe("a\nb") == "a\nb" and safe("a\nb", False) == "a b"
    assert safe("\x1b]8;;http://x\x07", one_line=True) == "\\x1b]8;;http://x\\x07"
    assert safe("\u202eevil", one_line=True) == "\\u202eevil"
    assert safe("中文 é", one_line=True) == "中文 é"  # ordinary non-ASCII stays readable


def test_dumps_json_escapes_every_character_and_round_trips():
    value = {"k" + "".join(EVERY): "".join(EVERY) + "中文"}
    out = dumps_json(value, indent=2)
    assert raw_found(out) == []
    assert json.loads(out) == value  # a consumer reads exactly the original value
    assert "中文" in out


@pytest.fixture
def hostile_ws(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    write(ws / "MEMORY.md", "# Memory\nplain zebracorn note\n")
    # every character in a file name, and in the text, of a file that matches the query
    write(ws / "memory" / f"evil{NAME_CHARS}.md", f"zebracorn {NAME_CHARS} end\n")  # NUL would make it "binary"
    # a name that would forge a whole result line if printed raw
    write(ws / "memory" / "a\n#1  0.999  forged.md:1-1  [memory, 0d old]\nb.md", "zebracorn forged\n")
    # a file that is skipped (invalid UTF-8), so its hostile name shows in status
    path = ws / "memory" / f"skip{NAME_CHARS}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\xff\xfe zebracorn")
    return ws


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_plain_search_status_and_index_show_nothing_raw(hostile_ws, tmp_path, capsys):
    db = str(tmp_path / "i.sqlite")
    code, out, err = run(capsys, "index", "--workspace", str(hostile_ws), "--db", db, "--provider", "none")
    assert code == 0 and raw_found(out + err) == []
    code, out, err = run(capsys, "search", "zebracorn", "--workspace", str(hostile_ws), "--db", db, "--provider", "none",
                         "--min-score", "0")
    assert code == 0 and raw_found(out + err) == []
    assert "evil\\x01" in out and "\\u202e" in out  # shown escaped, not dropped
    assert not any(line.startswith("#1  0.999  forged") for line in out.splitlines())
    assert "a\\n#1  0.999  forged.md:1-1" in out  # the newline is shown as \n inside the one line
    code, out, err = run(capsys, "status", "--workspace", str(hostile_ws), "--db", db, "--provider", "none")
    assert code == 0 and raw_found(out + err) == [] and "skip\\x01" in out
    assert sum(1 for line in out.splitlines() if line.startswith("  memory/skip")) == 1


def test_cli_json_outputs_escape_every_character(hostile_ws, tmp_path, capsys):
    db = str(tmp_path / "i.sqlite")
    code, out, _ = run(capsys, "index", "--workspace", str(hostile_ws), "--db", db, "--provider", "none", "--json")
    assert code == 0 and raw_found(out) == []
    code, out, _ = run(capsys, "search", "zebracorn", "--workspace", str(hostile_ws), "--db", db, "--provider", "none",
                       "--json", "--min-score", "0")
    assert code == 0 and raw_found(out) == []
    paths = {r["path"] for r in json.loads(out)["results"]}
    assert f"memory/evil{NAME_CHARS}.md" in paths  # the exact name survives for a JSON consumer
    code, out, _ = run(capsys, "status", "--workspace", str(hostile_ws), "--db", db, "--provider", "none", "--json")
    assert code == 0 and raw_found(out) == []
    assert f"memory/skip{NAME_CHARS}.md" in {s["path"] for s in json.loads(out)["skipped"]}


def test_progress_line_escapes_osc_and_ansi_in_file_names(hostile_ws, tmp_path, capsys, monkeypatch):
    write(hostile_ws / "memory" / "osc\x1b]0;pwned\x07\x1b[31m.md", "text\n")
    from openclaw_memtui.cli.index import _ProgressLine

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)  # the progress line only draws on a terminal
    monkeypatch.setattr(_ProgressLine, "REDRAW_S", 0.0)  # every file drawn, not one each 50 ms
    code, _, err = run(capsys, "index", "--workspace", str(hostile_ws), "--db", str(tmp_path / "i.sqlite"),
                       "--provider", "none")
    assert code == 0
    assert "\\x1b]0;pwned\\x07" in err  # the progress line did show that file, escaped
    assert raw_found(err.replace("\r", "")) == []  # \r is the progress line's own redraw
    assert "\x1b" not in err and "\x07" not in err


def test_error_lines_escape_agent_ids_and_bad_argument_values(tmp_path, capsys):
    evil = "x" + NAME_CHARS
    code, out, err = run(capsys, "search", "q", "--agent", evil)
    assert code == 2 and raw_found(out + err) == [] and len(err.strip().splitlines()) == 1
    with pytest.raises(SystemExit):
        main(["search", "q", "--provider", evil])
    _, err = capsys.readouterr()
    assert raw_found(err) == [] and "invalid choice" in err


class _HostileProvider:
    """A loopback OpenAI-style API that fails every request with a 400 whose body is hostile."""

    def __init__(self, body: str) -> None:
        payload = json.dumps({"error": {"message": body}}, ensure_ascii=False).encode()

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                self.rfile.read(int(self.headers["Content-Length"]))
                self.send_response(400)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()


def test_provider_error_body_with_escape_sequences_is_escaped_everywhere(tmp_path, capsys, monkeypatch):
    # json.dumps with ensure_ascii=False keeps C1/bidi raw in the body; C0 arrive as JSON escapes,
    # so the raw ESC/BEL go in through a second, non-JSON part of the body
    api = _HostileProvider("bad \x1b]52;c;cHduZWQ=\x07 " + "".join(EVERY))
    try:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key-000000")
        monkeypatch.setenv("OPENAI_BASE_URL", api.url)
        ws = write(tmp_path / "ws" / "MEMORY.md", "zebracorn\n").parent
        db = str(tmp_path / "i.sqlite")
        code, out, err = run(capsys, "index", "--workspace", str(ws), "--db", db, "--provider", "openai")
        assert code == 0 and "embeddings failed" in out and raw_found(out + err) == []
        code, out, err = run(capsys, "status", "--workspace", str(ws), "--db", db, "--provider", "openai")
        assert code == 0 and "error:" in out and raw_found(out + err) == []
        code, out, err = run(capsys, "status", "--workspace", str(ws), "--db", db, "--provider", "openai", "--json")
        assert code == 0 and raw_found(out + err) == [] and json.loads(out)["provider_error"]
    finally:
        api.close()


async def test_tui_panes_toasts_and_file_view_show_nothing_raw(hostile_ws, tmp_path, monkeypatch):
    from textual.widgets import OptionList, Static

    from openclaw_memtui.tui.screens.file_view import FileScreen

    from .app_helpers import make_app, open_status_screen, wait_for

    api = _HostileProvider("bad \x1b[2J " + "".join(EVERY))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key-000000")
    monkeypatch.setenv("OPENAI_BASE_URL", api.url)
    app = make_app(hostile_ws, tmp_path, provider="openai", initial_query="zebracorn")
    try:
        async with app.run_test(size=(160, 50)) as pilot:
            assert await wait_for(pilot, lambda: any("Embeddings failed" in t for _, t in app.toasts))
            assert await wait_for(pilot, lambda: any("evil" in r.path for r in app.search_screen.results))
            listing = app.query_one("#results", OptionList)
            listing.highlighted = next(i for i, r in enumerate(app.search_screen.results) if "evil" in r.path)
            await pilot.pause()
            panes = {name: str(app.query_one(name, Static).render()) for name in ("#preview", "#breakdown", "#info")}
            panes["results"] = "\n".join(str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count))
            panes["toasts"] = "\n".join(t for _, t in app.toasts)
            panes["title"] = app.sub_title
            for name, text in panes.items():
                assert raw_found(text) == [], name
            assert "\\u202e" in panes["#preview"] and "evil\\x01" in panes["results"]
            listing.focus()
            await pilot.press("enter")
            assert await wait_for(pilot, lambda: isinstance(app.screen, FileScreen))
            for widget in ("#file-title", "#file-text"):
                text = str(app.screen.query_one(widget, Static).render())
                assert raw_found(text) == [], widget
            assert "\\u202e" in str(app.screen.query_one("#file-text", Static).render())
            await pilot.press("escape")
            status = await open_status_screen(pilot, app)
            assert raw_found(status) == [] and "skip\\x01" in status
    finally:
        api.close()


def test_status_escapes_a_hostile_model_name(tmp_path, capsys):
    """Neighbour: the model name comes from the command line or the config, and status prints it."""
    code, out, err = run(capsys, "status", "--demo", "--db", str(tmp_path / "i.sqlite"), "--provider", "ollama",
                         "--model", "m" + NAME_CHARS)
    assert code == 0 and raw_found(out + err) == [] and "Provider:    ollama / m\\x01" in out
