"""`memtui connect` / `disconnect`: what they change in openclaw.json, and how (mode, owner, symlinks,
backup, idempotence, another plugin in the slot, `openclaw config validate` refusing). OpenClaw's
validator is a stand-in script here (MEMTUI_OPENCLAW); test_connect_e2e.py runs the real one."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from openclaw_memtui.cli.main import main as memtui_main
from openclaw_memtui.interop.connect import PLUGIN_ID, installed_plugin_version, plugin_dir

from .connect_helpers import make_state


def write_validator(folder: Path, verdict: dict) -> Path:
    """An `openclaw` that answers `config validate --json` with `verdict` and records the config it read."""
    script = folder / "openclaw"
    script.write_text("#!/bin/sh\n"
                      f"cp \"$OPENCLAW_CONFIG_PATH\" {folder}/validated.json\n"
                      f"echo '{json.dumps(verdict)}'\n", encoding="utf-8")
    script.chmod(0o755)
    return script


@pytest.fixture
def state(tmp_path, monkeypatch) -> Path:
    root = make_state(tmp_path, monkeypatch)
    monkeypatch.setenv("MEMTUI_OPENCLAW", str(write_validator(tmp_path, {"valid": True, "warnings": []})))
    return root


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = memtui_main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def config(state: Path) -> dict:
    return json.loads((state / "state" / "openclaw.json").read_text(encoding="utf-8"))


def backups(state: Path) -> list[Path]:
    return sorted((state / "state").glob("openclaw.json.bak-*"))


def test_connect_fills_the_memory_slot_and_says_what_changed(state, capsys):
    code, out, err = run(capsys, "connect", "--agent", "main", "--no-index")
    assert code == 0, err
    data = config(state)
    plugins = data["plugins"]
    assert plugins["slots"]["memory"] == PLUGIN_ID
    assert plugins["load"]["paths"] == [str(plugin_dir())]
    agent = plugins["entries"][PLUGIN_ID]["config"]["agents"]["main"]
    assert agent["command"][1:5] == ["-m", "openclaw_memtui", "serve", "--agent"] and agent["socket"].endswith("main.sock")
    assert plugins["entries"][PLUGIN_ID]["enabled"] is True
    assert data["gateway"] == {"auth": {"token": "tok-123"}}  # nothing else changes
    assert "plugins.slots.memory: memory-core → memtui-memory" in out and "backup: openclaw.json.bak-" in out
    assert "research have no memory_search" in out  # one slot for all agents: said, not hidden
    assert "tok-123" not in out + err
    # the plugin OpenClaw loads is a stamped copy in memtui's data dir, not a link into the package
    assert installed_plugin_version() not in (None, "__MEMTUI_VERSION__")
    assert "__MEMTUI_VERSION__" not in (plugin_dir() / "index.js").read_text(encoding="utf-8")
    # what was validated is what was written
    assert json.loads((state.parent / "validated.json").read_text(encoding="utf-8")) == data


def test_connect_keeps_mode_and_symlink_and_backs_up(state, capsys):
    real = state / "real-openclaw.json"
    link = state / "state" / "openclaw.json"
    os.replace(link, real)
    link.symlink_to(real)
    real.chmod(0o640)
    before = real.read_bytes()
    assert run(capsys, "connect", "--agent", "main", "--no-index")[0] == 0
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    (backup,) = sorted((state / "state").glob("openclaw.json.bak-*")) or sorted(state.glob("real-openclaw.json.bak-*"))
    assert backup.read_bytes() == before and stat.S_IMODE(backup.stat().st_mode) == 0o640


def test_connect_and_disconnect_are_idempotent(state, capsys):
    original = config(state)
    assert run(capsys, "connect", "--agent", "main", "--no-index")[0] == 0
    connected = (state / "state" / "openclaw.json").read_bytes()
    code, out, _ = run(capsys, "connect", "--agent", "main", "--no-index")
    assert code == 0 and "already connected" in out
    assert (state / "state" / "openclaw.json").read_bytes() == connected and len(backups(state)) == 1
    code, out, _ = run(capsys, "disconnect", "--agent", "main")
    assert code == 0 and "plugins.slots.memory: memtui-memory → memory-core" in out
    assert config(state) == original  # every key connect added is gone again
    code, out, _ = run(capsys, "disconnect", "--agent", "main")
    assert code == 0 and "not connected" in out and len(backups(state)) == 2


def test_another_plugin_in_the_slot_is_left_alone_unless_forced(state, capsys):
    data = config(state)
    data["plugins"] = {"slots": {"memory": "memory-lancedb"}}
    (state / "state" / "openclaw.json").write_text(json.dumps(data), encoding="utf-8")
    before = (state / "state" / "openclaw.json").read_bytes()
    code, _, err = run(capsys, "connect", "--agent", "main", "--no-index")
    assert code == 2 and "memory-lancedb" in err and "--force" in err and "nothing was changed" in err
    assert (state / "state" / "openclaw.json").read_bytes() == before and not backups(state)
    assert run(capsys, "connect", "--agent", "main", "--no-index", "--force")[0] == 0
    assert config(state)["plugins"]["slots"]["memory"] == PLUGIN_ID
    code, out, _ = run(capsys, "disconnect", "--agent", "main")
    assert code == 0 and config(state)["plugins"] == {"slots": {"memory": "memory-lancedb"}}


def test_an_allowlist_gets_the_plugin_and_loses_it_again(state, capsys):
    data = config(state)
    data["plugins"] = {"allow": ["voice-call"]}
    (state / "state" / "openclaw.json").write_text(json.dumps(data), encoding="utf-8")
    assert run(capsys, "connect", "--agent", "main", "--no-index")[0] == 0
    assert config(state)["plugins"]["allow"] == ["voice-call", PLUGIN_ID]
    assert run(capsys, "disconnect", "--agent", "main")[0] == 0
    assert config(state)["plugins"] == {"allow": ["voice-call"]}


def test_the_last_agent_out_gives_the_slot_back(state, capsys):
    assert run(capsys, "connect", "--agent", "main", "--no-index")[0] == 0
    assert run(capsys, "connect", "--agent", "research", "--no-index")[0] == 0
    code, out, _ = run(capsys, "disconnect", "--agent", "main")
    assert code == 0 and "still connected" in out
    assert config(state)["plugins"]["slots"]["memory"] == PLUGIN_ID
    assert list(config(state)["plugins"]["entries"][PLUGIN_ID]["config"]["agents"]) == ["research"]
    assert run(capsys, "disconnect", "--agent", "research")[0] == 0
    assert "plugins" not in config(state)


def test_a_config_openclaw_refuses_is_not_written(state, tmp_path, monkeypatch, capsys):
    refusing = tmp_path / "refusing"
    refusing.mkdir()
    verdict = {"valid": False, "errors": [{"path": "plugins.slots.memory", "message": "unknown plugin"}]}
    monkeypatch.setenv("MEMTUI_OPENCLAW", str(write_validator(refusing, verdict)))
    before = (state / "state" / "openclaw.json").read_bytes()
    code, _, err = run(capsys, "connect", "--agent", "main", "--no-index")
    assert code == 2 and "unknown plugin" in err and "nothing was written" in err
    assert (state / "state" / "openclaw.json").read_bytes() == before and not backups(state)
    assert not list((state / "state").glob(".memtui-check-*"))  # the candidate checked is not left behind


def test_json5_config_is_refused_in_one_line(state, capsys):
    path = state / "state" / "openclaw.json"
    path.write_text("// mine\n" + path.read_text(encoding="utf-8"), encoding="utf-8")
    before = path.read_bytes()
    code, _, err = run(capsys, "connect", "--agent", "main", "--no-index")
    assert code == 2 and "JSON5" in err and len(err.strip().splitlines()) == 1
    assert path.read_bytes() == before


def test_agents_says_who_answers_memory_search(state, capsys):
    code, out, _ = run(capsys, "agents")
    assert code == 0 and "OpenClaw's builtin memory-core answers (`memtui connect --agent main`" in out
    assert run(capsys, "connect", "--agent", "main", "--no-index")[0] == 0
    code, out, _ = run(capsys, "agents", "--json")
    agents = {a["id"]: a for a in json.loads(out)["agents"]}
    assert agents["main"]["connected"] is True and agents["research"]["connected"] is False
    assert agents["main"]["memoryPlugin"] == PLUGIN_ID and agents["main"]["searchDisabled"] is None
    assert "not connected" in agents["research"]["searchDisabled"]  # one slot for all: research has no memory search
    code, out, _ = run(capsys, "agents")
    assert "connected: memory_search answers from memtui" in out


def test_the_status_screen_says_the_agent_is_connected(tmp_path, monkeypatch, capsys):
    import shutil

    from openclaw_memtui.interop.agents import find_agent
    from openclaw_memtui.tui.screens.status_rows import openclaw_rows

    fixture = Path(__file__).parent / "fixtures" / "openclaw-2026.9.6"
    root = tmp_path / "oc"
    shutil.copytree(fixture, root)
    cfg = root / "state" / "openclaw.json"
    cfg.write_text(cfg.read_text(encoding="utf-8").replace("{ROOT}", str(root)), encoding="utf-8")
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(root / "state"))
    monkeypatch.setenv("MEMTUI_OPENCLAW", str(write_validator(tmp_path, {"valid": True})))
    label, text = openclaw_rows(find_agent("main"))[0]
    assert label == "OpenClaw memory" and text.startswith("on: OpenClaw's builtin memory-core answers")
    assert run(capsys, "connect", "--agent", "main", "--no-index")[0] == 0
    assert openclaw_rows(find_agent("main"))[0] == ("OpenClaw memory", "connected: memory_search answers from memtui "
                                                                       "(`memtui disconnect --agent main` undoes it)")
