"""Issue 31: the default provider is the offline local model; a remote one only when named; an index a
remote provider built says what opening it with the local model does."""

from __future__ import annotations

import json
import sqlite3

from openclaw_memtui.cli.main import main
from openclaw_memtui.engine.store.schema import META_KEY
from openclaw_memtui.interop.agents import memtui_overrides


def test_an_openai_key_in_the_environment_does_not_pick_openai(tmp_path, workspace, capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")
    assert main(["status", "--workspace", str(workspace), "--db", str(tmp_path / "i.sqlite")]) == 0
    out = capsys.readouterr().out
    assert "Provider:    local / " in out and "offline: notes stay on this machine" in out


def test_an_agents_auto_names_no_provider_but_a_named_one_counts():
    assert "provider" not in memtui_overrides({"provider": "auto"})
    assert memtui_overrides({"provider": "openai"})["provider"] == "openai"


def test_status_says_where_a_named_remote_provider_sends_the_notes(tmp_path, workspace, capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")
    assert main(["status", "--workspace", str(workspace), "--db", str(tmp_path / "i.sqlite"), "--provider", "openai"]) == 0
    assert "remote: notes are sent to openai" in capsys.readouterr().out


def index_built_by(workspace, db, provider: str, model: str) -> None:
    """An index whose record says `provider` / `model` made its vectors (as an older memtui's would)."""
    assert main(["index", "--workspace", str(workspace), "--db", str(db), "--provider", "none"]) == 0
    conn = sqlite3.connect(db)
    meta = json.loads(conn.execute("SELECT value FROM meta WHERE key = ?", (META_KEY,)).fetchone()[0])
    meta.update(provider=provider, model=model)
    conn.execute("UPDATE meta SET value = ? WHERE key = ?", (json.dumps(meta), META_KEY))
    conn.commit()
    conn.close()


def test_an_index_openai_built_says_the_local_default_reembeds_it(tmp_path, workspace, capsys):
    db = tmp_path / "i.sqlite"
    index_built_by(workspace, db, "openai", "text-embedding-3-small")
    capsys.readouterr()
    assert main(["status", "--workspace", str(workspace), "--db", str(db)]) == 0
    err = " ".join(capsys.readouterr().err.split())
    assert "embedded by openai (text-embedding-3-small)" in err and "re-embeds every chunk locally" in err
    assert 'provider = "openai"' in err and "--provider openai" in err


def test_an_index_the_earlier_default_model_built_says_the_new_default_reembeds_it(tmp_path, workspace, capsys):
    db = tmp_path / "i.sqlite"
    index_built_by(workspace, db, "local", "multilingual-e5-small-q4")
    capsys.readouterr()
    assert main(["status", "--workspace", str(workspace), "--db", str(db)]) == 0
    err = " ".join(capsys.readouterr().err.split())
    assert "embedded by the earlier default local model multilingual-e5-small-q4" in err
    assert "re-embeds every chunk" in err and "--model multilingual-e5-small-q4" in err
    # the old model named: the user's choice, nothing to say
    assert main(["status", "--workspace", str(workspace), "--db", str(db), "--model", "multilingual-e5-small-q4"]) == 0
    assert "earlier default" not in capsys.readouterr().err
