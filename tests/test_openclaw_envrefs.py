"""`${VAR}` references and env secret refs in openclaw.json, resolved as OpenClaw resolves them."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from openclaw_memtui.cli.main import main
from openclaw_memtui.interop.envrefs import resolve_refs

from .helpers import write


class KeyRecorder:
    """A loopback OpenAI-style embeddings API that records the Authorization header of each request."""

    def __init__(self) -> None:
        seen = self.seen = []

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                seen.append(self.headers.get("Authorization"))
                raw = json.dumps({"data": [{"index": i, "embedding": [1.0, 0.5, 0.25]}
                                           for i in range(len(body["input"]))]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_port
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()


@pytest.fixture
def api():
    recorder = KeyRecorder()
    yield recorder
    recorder.close()


def _state(tmp_path, monkeypatch, remote: dict) -> None:
    ws = write(tmp_path / "ws" / "MEMORY.md", "the heron count\n").parent
    cfg = {"env": {"vars": {"EMBED_HOST": "127.0.0.1"}},
           "agents": {"list": [{"id": "main", "workspace": str(ws),
                                "memorySearch": {"provider": "openai", "remote": remote}}]}}
    write(tmp_path / "state" / "openclaw.json", json.dumps(cfg))
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


@pytest.mark.parametrize("api_key", ["${TEAM_EMBED_KEY}", {"source": "env", "provider": "default", "id": "TEAM_EMBED_KEY"}])
def test_a_key_referenced_from_the_environment_is_the_key_sent(tmp_path, monkeypatch, capsys, api, api_key):
    """memtui sent `Bearer ${TEAM_EMBED_KEY}` (the text as written) where OpenClaw sends the variable's
    value; a `{source: "env"}` secret reference was ignored. The base URL's host comes from the config's
    own env block, as OpenClaw fills in what the environment lacks."""
    monkeypatch.setenv("TEAM_EMBED_KEY", "team-key-0451-abcdef")
    _state(tmp_path, monkeypatch, {"apiKey": api_key, "baseUrl": f"http://${{EMBED_HOST}}:{api.port}/v1"})
    assert main(["index", "--agent", "main", "--db", str(tmp_path / "i.sqlite")]) == 0
    out, err = capsys.readouterr()
    assert api.seen and set(api.seen) == {"Bearer team-key-0451-abcdef"}, out + err
    assert "1/1 embedded" in out and "team-key-0451" not in out + err
    assert main(["agents", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)["agents"][0]["memory_search"]["remote"]
    assert shown["apiKey"] == "[redacted]" and shown["baseUrl"] == f"http://127.0.0.1:{api.port}/v1"


def test_an_unset_reference_stays_as_written_and_is_named_once(tmp_path, monkeypatch, capsys, api):
    monkeypatch.delenv("NOT_SET_ANYWHERE", raising=False)
    _state(tmp_path, monkeypatch, {"apiKey": "${NOT_SET_ANYWHERE}", "baseUrl": f"http://127.0.0.1:{api.port}/v1"})
    cfg_path = tmp_path / "state" / "openclaw.json"
    cfg = json.loads(cfg_path.read_text())
    cfg["gateway"] = {"auth": {"token": "${GATEWAY_ONLY_VAR}"}}  # not read by memtui: not its warning to give
    cfg_path.write_text(json.dumps(cfg))
    assert main(["agents"]) == 0
    err = capsys.readouterr().err
    assert "${NOT_SET_ANYWHERE}" in err and "agents.list[0].memorySearch.remote.apiKey" in err
    assert "GATEWAY_ONLY_VAR" not in err


def test_substitution_follows_openclaws_rules(monkeypatch):
    monkeypatch.setenv("A_VAR", "x")
    monkeypatch.setenv("EMPTY_VAR", "")
    monkeypatch.delenv("FROM_BLOCK", raising=False)
    missing: set[tuple[str, str]] = set()
    got = resolve_refs({"k": ["${A_VAR}/${FROM_BLOCK}", "$${A_VAR}", "${lower}", "${EMPTY_VAR}", "$A_VAR", 5]},
                       {"FROM_BLOCK": "y", "A_VAR": "not-used"}, missing)
    # the environment wins over the env block; `$${…}` is the literal text; lowercase names are not references;
    # an empty variable counts as unset (OpenClaw refuses it too)
    assert got == {"k": ["x/y", "${A_VAR}", "${lower}", "${EMPTY_VAR}", "$A_VAR", 5]}
    assert missing == {("EMPTY_VAR", "k[3]")}
