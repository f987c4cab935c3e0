"""Attacks on the answer gate that once got through (core/gate.py and what it calls): each over the
real `memtui serve` socket on a hostile copy of a real OpenClaw 2026.9.6 state (tests/gate_helpers.py)."""

from __future__ import annotations

import json

from openclaw_memtui.cli.main import main as memtui_main
from openclaw_memtui.interop.connect import call, call_line

from .gate_helpers import QUERY, make_hostile_state
from .test_plugin_server import start_server, stop

# key shapes OpenClaw's redactor masks in a note's text, in a note's name: an AWS key id, a Hugging Face
# token, and a GitHub token glued to a word by "_" (no word boundary before its prefix)
NAMED = ("AKIA" + "IOSFODNN7EXAMPL3", "hf_" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv", "ghp_" + "Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8")


def test_a_note_named_after_any_key_shape_the_redactor_knows_is_masked_in_every_field(tmp_path, monkeypatch, capsys):
    root = make_hostile_state(tmp_path, monkeypatch)
    memory = root / "ws-main" / "memory"
    for i, key in enumerate(NAMED):
        name = f"notes_{key}.md" if key.startswith("ghp_") else f"{key}.md"
        (memory / name).write_text(f"# Rota {i}\n- pelican rota copy {i}\n", encoding="utf-8")
    sock = tmp_path / "run" / "main.sock"
    proc = start_server(sock)
    try:
        reply = call(sock, {"v": 1, "op": "memory_search", "args": {"query": QUERY, "maxResults": 30, "minScore": 0},
                            "sessionKey": "agent:main:main", "citations": True})
    finally:
        stop(proc)
    assert reply["ok"] is True
    paths = [r["path"] for r in reply["result"]["results"]]
    assert "memory/notes_[redacted].md" in paths and paths.count("memory/[redacted].md") == 4  # 2 here, 2 of the state
    assert memtui_main(["search", QUERY, "--agent", "main", "--provider", "none", "--json", "--min-score", "0",
                        "--max-results", "30"]) == 0
    shown = json.dumps(reply) + capsys.readouterr().out
    from openclaw_memtui.paths import data_dir

    shown += "".join(p.read_text(encoding="utf-8") for p in (data_dir() / "agent-searches").iterdir())
    for key in NAMED:
        assert key not in shown and key[:10] not in shown, f"{key[:6]}… leaked"


def test_what_a_request_says_comes_back_masked_in_the_replies_the_server_makes_itself(tmp_path, monkeypatch):
    """The agent id and the plugin's version are quoted in replies the server makes before any tool
    runs (an agent it does not answer, a plugin of another version): masked like every answer."""
    from .gate_helpers import GH_TOKEN

    make_hostile_state(tmp_path, monkeypatch)
    sock = tmp_path / "run" / "main.sock"
    proc = start_server(sock)
    try:
        other = call(sock, {"v": 1, "op": "memory_search", "agent": GH_TOKEN, "args": {"query": QUERY}})
        old = call(sock, {"v": 1, "op": "memory_search", "agent": "main", "plugin": GH_TOKEN,
                          "args": {"query": QUERY}, "sessionKey": "agent:main:main"})
    finally:
        stop(proc)
    assert other["result"]["unavailable"] is True and "not [redacted]" in other["result"]["error"]
    assert old["ok"] is True and any("memtui-memory plugin of memtui [redacted]" in w for w in old["result"]["warnings"])
    assert GH_TOKEN not in json.dumps(other) + json.dumps(old)


def test_the_copy_openclaw_validates_holds_none_of_the_configs_secrets(tmp_path, monkeypatch, capsys):
    """A SIGKILL during validation leaves the copy behind: it must hold no secret, wherever OpenClaw's
    config keeps one (its `env` section, as its docs show, a private key, a credential header)."""
    from .connect_helpers import make_state
    from .test_connect import write_validator

    root = make_state(tmp_path, monkeypatch)
    monkeypatch.setenv("MEMTUI_OPENCLAW", str(write_validator(tmp_path, {"valid": True, "warnings": []})))
    secrets = {"OPENROUTER_API_KEY": "or-secret-1234567890abcdef", "GROQ_API_KEY": "groq-secret-0987654321",
               "privateKey": "pk-secret-abcdefabcdef", "Authorization": "Bearer hdr-secret-5555555555"}
    cfg_path = root / "state" / "openclaw.json"
    cfg = json.loads(cfg_path.read_text(encoding="utf-8"))
    cfg["env"] = {"vars": {"OPENROUTER_API_KEY": secrets["OPENROUTER_API_KEY"], "PLAIN": "kept"},
                  "GROQ_API_KEY": secrets["GROQ_API_KEY"]}
    cfg["x-extra"] = {"privateKey": secrets["privateKey"], "headers": {"Authorization": secrets["Authorization"]},
                      "mainKey": "main"}
    cfg_path.write_text(json.dumps(cfg), encoding="utf-8")
    assert memtui_main(["connect", "--agent", "main", "--no-index"]) == 0
    validated = json.loads((tmp_path / "validated.json").read_text(encoding="utf-8"))
    text = json.dumps(validated)
    for name, secret in secrets.items():
        assert secret not in text, f"{name} is in the validation copy"
    assert validated["env"]["vars"]["PLAIN"] == "kept" and validated["x-extra"]["mainKey"] == "main"  # the rest as is


def test_a_key_cut_in_two_where_a_long_line_is_split_into_chunks_does_not_come_out_in_pieces(tmp_path, monkeypatch,
                                                                                               capsys):
    """A line longer than a chunk is cut every 1,600 characters; a token across that cut was masked piece by
    piece, and neither piece looks like a key: most of the token came back in two snippets."""
    from .gate_helpers import INLINE_TOKEN

    root = make_hostile_state(tmp_path, monkeypatch)
    memory = root / "ws-main" / "memory"
    for cut in (3, 9, 16, 30):  # how much of the token falls before the cut
        words = f"zebra{cut} " * 400
        (memory / f"long-{cut}.md").write_text("# Long\n" + words[:1600 - cut] + INLINE_TOKEN + " " + words + "\n",
                                               encoding="utf-8")
    sock = tmp_path / "run" / "main.sock"
    proc = start_server(sock)
    try:
        replies = [call(sock, {"v": 1, "op": "memory_search", "args": {"query": f"zebra{cut}", "maxResults": 50, "minScore": 0},
                               "sessionKey": "agent:main:main"}) for cut in (3, 9, 16, 30)]
    finally:
        stop(proc)
    assert all(r["ok"] and r["result"]["results"] for r in replies)
    snippets = [h["snippet"] for r in replies for h in r["result"]["results"]]
    assert sum("zebra" in s for s in snippets) >= 8  # the long lines' chunks are found (not dropped)
    for cut in (3, 9, 16, 30):
        assert memtui_main(["search", f"zebra{cut}", "--agent", "main", "--provider", "none", "--json", "--min-score", "0",
                            "--max-results", "50"]) == 0
    shown = json.dumps(replies) + capsys.readouterr().out
    pieces = {INLINE_TOKEN[i:i + 8] for i in range(4, len(INLINE_TOKEN) - 7)}  # any 8 characters after the prefix
    assert not {p for p in pieces if p in shown}


def test_a_lone_surrogate_in_a_request_gets_an_answer_not_a_dropped_connection(tmp_path, monkeypatch):
    """JSON may escape half of a surrogate pair (`"\\ud800"`), and a model's tool arguments can hold one:
    quoted back in the reply (a path not found, the agent id), it made the reply unencodable, so the
    connection closed with no answer (the plugin sends again until its budget runs out) and a
    traceback went to the log."""

    make_hostile_state(tmp_path, monkeypatch)
    sock = tmp_path / "run" / "main.sock"
    proc = start_server(sock)
    replies = []
    try:
        for request in (b'{"v":1,"op":"memory_get","args":{"path":"memory/\\ud800x.md"},"sessionKey":"agent:main:main"}\n',
                        b'{"v":1,"op":"memory_search","agent":"\\udc00","args":{"query":"pelican"}}\n',
                        b'{"v":1,"op":"memory_search","agent":"main","plugin":"\\ud800","args":{"query":"pelican"}}\n'):
            replies.append(call_line(sock, request))
    finally:
        stop(proc)
    assert replies[0]["ok"] is True and replies[0]["result"]["status"] == "not_found"
    assert replies[0]["result"]["path"] == "memory/\ud800x.md"  # quoted back as sent, escaped in the JSON
    assert replies[1]["result"]["unavailable"] is True and replies[2]["result"]["results"]
    assert "Traceback" not in (proc.stderr.read() if proc.stderr else "")


def test_the_apps_listing_masks_a_key_its_snippet_cut_leaves_half_of(tmp_path, monkeypatch):
    """The listing of the memory (an empty query) cuts each chunk's snippet at 700 characters before the
    gate masks it: an AWS key id cut one character short no longer matched its shape and came out whole
    but for that character."""
    from openclaw_memtui.core.caller import Caller
    from openclaw_memtui.core.config import load_config
    from openclaw_memtui.core.gate import Gate
    from openclaw_memtui.core.session import SessionOptions, open_session

    key = "AKIA" + "Z7Y6X5W4V3U2T1S0"
    root = make_hostile_state(tmp_path, monkeypatch)
    head = "# Cloud\n" + "the deploy notes say " * 40
    text = head[:700 - 20] + " " + key + " is the deploy key id\n"  # the cut falls before the key's last character
    (root / "ws-main" / "memory" / "cloud.md").write_text(text, encoding="utf-8")
    with open_session(SessionOptions(agent="main", provider="none"), load_config(None)) as session:
        session.index.sync()
        shown = Gate(session.index, "main").browse(Caller("tui", "main"), session.index.browse("all", 0, 500))
    (cloud,) = [e.result.snippet for e in shown if e.result.path == "memory/cloud.md"]
    assert cloud.endswith("[redacted]") and key[:12] not in cloud
