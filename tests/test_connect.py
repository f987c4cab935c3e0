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
from openclaw_memtui.interop.connect import installed_plugin_version, plugin_dir
from openclaw_memtui.interop.memory_slot import MEMTUI_MEMORY_PLUGIN

from .connect_helpers import make_state

FAKE_OPENCLAW = """#!{python}
# a stand-in `openclaw`: `config validate --json` answers VERDICT (recording the copy it read, and
# doing ON_VALIDATE first); `plugins list --json` answers OpenClaw's inventory for the config, with
# memtui's plugin first (as plugins.load.paths are discovered) unless ORDER says memory-core first
import json, os, subprocess, sys, time
folder = {folder!r}
if sys.argv[1:3] == ["config", "validate"]:
    with open(os.environ["OPENCLAW_CONFIG_PATH"], encoding="utf-8") as fh:
        text = fh.read()
    with open(os.path.join(folder, "validated.json"), "w", encoding="utf-8") as fh:
        fh.write(text)
    action = {on_validate!r}
    if action == "edit":
        real = os.path.join(os.environ["OPENCLAW_STATE_DIR"], "openclaw.json")
        data = json.load(open(real, encoding="utf-8"))
        data["gateway"]["port"] = 19999
        json.dump(data, open(real, "w", encoding="utf-8"))
    elif action == "sleep":
        open(os.path.join(folder, "validating"), "w").close()
        time.sleep(60)
    print(json.dumps({verdict!r}))
elif sys.argv[1:3] == ["plugins", "list"]:
    cfg = json.load(open(os.path.join(os.environ["OPENCLAW_STATE_DIR"], "openclaw.json"), encoding="utf-8"))
    paths = cfg.get("plugins", {{}}).get("load", {{}}).get("paths", [])
    ours = [{{"id": "memtui-memory", "rootDir": p, "enabled": True, "status": "loaded",
              "toolNames": ["memory_search", "memory_get"]}} for p in paths]
    core = [{{"id": "memory-core", "enabled": True, "status": "loaded", "toolNames": ["memory_get", "memory_search"]}}]
    print(json.dumps({{"plugins": core + ours if {order!r} == "core-first" else ours + core, "diagnostics": []}}))
else:
    sys.exit(3)
"""


def write_validator(folder: Path, verdict: dict, on_validate: str = "", order: str = "") -> Path:
    """An `openclaw` that answers `config validate --json` with `verdict` and `plugins list --json`."""
    import sys

    script = folder / "openclaw"
    script.write_text(FAKE_OPENCLAW.format(python=sys.executable, folder=str(folder), verdict=verdict,
                                           on_validate=on_validate, order=order), encoding="utf-8")
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


def test_connect_answers_beside_memory_core_and_says_what_changed(state, capsys):
    code, out, err = run(capsys, "connect", "--agent", "main", "--no-index")
    assert code == 0, err
    data = config(state)
    plugins = data["plugins"]
    assert "slots" not in plugins  # OpenClaw's memory slot is never touched
    assert plugins["load"]["paths"] == [str(plugin_dir())]
    entry = plugins["entries"][MEMTUI_MEMORY_PLUGIN]
    assert entry["enabled"] is True and entry["config"]["agents"] == ["main"]
    server = entry["config"]["server"]
    assert server["command"][1:5] == ["-m", "openclaw_memtui", "serve", "--socket"] and "--agent" not in server["command"]
    assert server["socket"].endswith(".sock") and server["env"]["OPENCLAW_STATE_DIR"] == str(state / "state")
    assert data["gateway"] == {"auth": {"token": "tok-123"}}  # nothing else changes
    assert f"plugins.entries.{MEMTUI_MEMORY_PLUGIN}.config.agents: + main" in out and "backup: openclaw.json.bak-" in out
    # every agent, and who answers it: said before the write
    assert "agent main: memory_search and memory_get answered by memtui (was memory-core)" in out
    assert "agent research: memory_search and memory_get answered by memory-core (unchanged)" in out
    assert "OpenClaw confirms" in out
    assert "tok-123" not in out + err
    # the plugin OpenClaw loads is a stamped copy in a private folder memtui made, not a link into the package
    assert installed_plugin_version() not in (None, "__MEMTUI_VERSION__")
    assert "__MEMTUI_VERSION__" not in (plugin_dir() / "index.js").read_text(encoding="utf-8")
    assert (plugin_dir() / ".memtui-plugin").is_file() and stat.S_IMODE(plugin_dir().stat().st_mode) == 0o700
    manifest = json.loads((plugin_dir() / "openclaw.plugin.json").read_text(encoding="utf-8"))
    assert "kind" not in manifest  # no slot plugin: OpenClaw keeps memory-core for everything else
    assert "registerMemoryCapability" not in (plugin_dir() / "index.js").read_text(encoding="utf-8")
    # what was validated is what was written, but for its secrets: the copy holds stand-ins
    validated = json.loads((state.parent / "validated.json").read_text(encoding="utf-8"))
    assert validated["gateway"]["auth"]["token"] != "tok-123"
    validated["gateway"]["auth"]["token"] = "tok-123"
    assert validated == data


def test_dry_run_prints_every_change_and_agent_and_writes_nothing(state, capsys):
    before = (state / "state" / "openclaw.json").read_bytes()
    code, out, _ = run(capsys, "connect", "--agent", "main", "--no-index", "--dry-run")
    assert code == 0 and "--dry-run" in out and f"plugins.load.paths: + {plugin_dir()}" in out
    assert "agent main: memory_search and memory_get answered by memtui (was memory-core)" in out
    assert "agent research: memory_search and memory_get answered by memory-core (unchanged)" in out
    assert (state / "state" / "openclaw.json").read_bytes() == before and not backups(state)
    assert not plugin_dir().exists() and not (state.parent / "validated.json").exists()


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
    assert code == 0 and f"plugins.entries.{MEMTUI_MEMORY_PLUGIN}: removed" in out
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
    assert config(state)["plugins"]["slots"]["memory"] == "memory-lancedb"  # still its slot
    code, out, _ = run(capsys, "disconnect", "--agent", "main")
    assert code == 0 and config(state)["plugins"] == {"slots": {"memory": "memory-lancedb"}}


def test_an_agent_openclaw_gives_no_memory_search_is_not_connected(state, capsys):
    data = config(state)
    data["agents"]["entries"]["main"]["memory"] = {"search": {"enabled": False}}
    (state / "state" / "openclaw.json").write_text(json.dumps(data), encoding="utf-8")
    code, _, err = run(capsys, "connect", "--agent", "main", "--no-index")
    assert code == 2 and "no memory search" in err and "enabled is false" in err and not backups(state)


@pytest.mark.parametrize("included", [{"plugins": {"slots": {"memory": "none"}}},
                                      {"plugins": {"slots": {"memory": "memory-lancedb"}}}])
def test_the_slot_is_read_through_includes(state, capsys, included):
    """A memory slot set in a file openclaw.json includes counts as if it were in openclaw.json."""
    (state / "state" / "plugins.json").write_text(json.dumps(included), encoding="utf-8")
    data = config(state)
    data["$include"] = "./plugins.json"
    (state / "state" / "openclaw.json").write_text(json.dumps(data), encoding="utf-8")
    code, _, err = run(capsys, "connect", "--agent", "main", "--no-index")
    assert code == 2 and ("no memory search" in err or "--force" in err) and not backups(state)


def test_an_allowlist_gets_the_plugin_and_loses_it_again(state, capsys):
    data = config(state)
    data["plugins"] = {"allow": ["voice-call"]}
    (state / "state" / "openclaw.json").write_text(json.dumps(data), encoding="utf-8")
    assert run(capsys, "connect", "--agent", "main", "--no-index")[0] == 0
    assert config(state)["plugins"]["allow"] == ["voice-call", MEMTUI_MEMORY_PLUGIN]
    assert run(capsys, "disconnect", "--agent", "main")[0] == 0
    assert config(state)["plugins"] == {"allow": ["voice-call"]}


def test_the_last_agent_out_takes_the_plugin_out(state, capsys):
    assert run(capsys, "connect", "--agent", "main", "--no-index")[0] == 0
    assert run(capsys, "connect", "--agent", "research", "--no-index")[0] == 0
    assert config(state)["plugins"]["entries"][MEMTUI_MEMORY_PLUGIN]["config"]["agents"] == ["main", "research"]
    code, out, _ = run(capsys, "disconnect", "--agent", "main")
    assert code == 0 and "still answers agent(s) research" in out
    assert config(state)["plugins"]["entries"][MEMTUI_MEMORY_PLUGIN]["config"]["agents"] == ["research"]
    assert run(capsys, "disconnect", "--agent", "research")[0] == 0
    assert "plugins" not in config(state)


OLD_WAY = {"slots": {"memory": MEMTUI_MEMORY_PLUGIN}, "load": {"paths": ["PLUGIN"]},
           "entries": {MEMTUI_MEMORY_PLUGIN: {"enabled": True, "config": {"previousSlot": "", "agents": {
               "main": {"socket": "/nonexistent/main.sock", "command": ["python3"]}}}}}}


def old_way(state: Path) -> None:
    data = config(state)
    data["plugins"] = json.loads(json.dumps(OLD_WAY).replace("PLUGIN", str(plugin_dir())))
    (state / "state" / "openclaw.json").write_text(json.dumps(data), encoding="utf-8")


def test_an_install_connected_the_old_way_is_converted(state, capsys):
    old_way(state)
    code, out, err = run(capsys, "connect", "--agent", "main", "--no-index")
    assert code == 0, err
    plugins = config(state)["plugins"]
    assert "slots" not in plugins and plugins["entries"][MEMTUI_MEMORY_PLUGIN]["config"]["agents"] == ["main"]
    assert "previousSlot" not in plugins["entries"][MEMTUI_MEMORY_PLUGIN]["config"]
    assert f"plugins.slots.memory: {MEMTUI_MEMORY_PLUGIN} → memory-core" in out


def test_an_install_connected_the_old_way_is_cleaned_by_disconnect(state, capsys):
    original = config(state)
    old_way(state)
    code, out, _ = run(capsys, "disconnect", "--agent", "main")
    assert code == 0 and config(state) == original


def test_disconnecting_one_agent_of_an_old_install_converts_the_rest(state, capsys):
    old_way(state)
    data = config(state)
    data["plugins"]["entries"][MEMTUI_MEMORY_PLUGIN]["config"]["agents"]["research"] = {"socket": "/x/research.sock",
                                                                             "command": ["python3"]}
    (state / "state" / "openclaw.json").write_text(json.dumps(data), encoding="utf-8")
    code, out, err = run(capsys, "disconnect", "--agent", "main")
    assert code == 0, err
    plugins = config(state)["plugins"]
    entry = plugins["entries"][MEMTUI_MEMORY_PLUGIN]["config"]
    assert "slots" not in plugins and entry["agents"] == ["research"] and entry["server"]["socket"].endswith(".sock")
    assert "kind" not in json.loads((plugin_dir() / "openclaw.plugin.json").read_text(encoding="utf-8"))


def test_a_config_openclaw_refuses_is_not_written(state, tmp_path, monkeypatch, capsys):
    refusing = tmp_path / "refusing"
    refusing.mkdir()
    verdict = {"valid": False, "errors": [{"path": "plugins.load.paths", "message": "unknown plugin"}]}
    monkeypatch.setenv("MEMTUI_OPENCLAW", str(write_validator(refusing, verdict)))
    before = (state / "state" / "openclaw.json").read_bytes()
    code, _, err = run(capsys, "connect", "--agent", "main", "--no-index")
    assert code == 2 and "unknown plugin" in err and "nothing was written" in err
    assert (state / "state" / "openclaw.json").read_bytes() == before and not backups(state)
    assert not list((state / "state").glob(".memtui-check-*"))  # the candidate checked is not left behind


def test_a_config_changed_during_validation_is_not_written_over(state, tmp_path, monkeypatch, capsys):
    editing = tmp_path / "editing"
    editing.mkdir()
    monkeypatch.setenv("MEMTUI_OPENCLAW", str(write_validator(editing, {"valid": True}, on_validate="edit")))
    code, _, err = run(capsys, "connect", "--agent", "main", "--no-index")
    assert code == 2 and "changed while memtui was preparing its edit" in err
    data = config(state)
    assert data["gateway"]["port"] == 19999 and "plugins" not in data  # their edit kept, memtui's not written
    assert not backups(state) and not list((state / "state").glob(".openclaw.json.*"))


def test_connect_killed_during_validation_leaves_no_copy_of_the_config(state, tmp_path, monkeypatch):
    import signal
    import subprocess
    import sys
    import time

    from .helpers import env_for_subprocess

    slow = tmp_path / "slow"
    slow.mkdir()
    validator = write_validator(slow, {"valid": True}, on_validate="sleep")
    env = env_for_subprocess() | {"MEMTUI_OPENCLAW": str(validator)}
    before = (state / "state" / "openclaw.json").read_bytes()
    proc = subprocess.Popen([sys.executable, "-m", "openclaw_memtui", "connect", "--agent", "main", "--no-index"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not (slow / "validating").exists():
        assert time.monotonic() < deadline and proc.poll() is None, "validation did not start"
        time.sleep(0.05)
    (copy,) = (state / "state").glob(".memtui-check-*")
    assert "tok-123" not in copy.read_text(encoding="utf-8")  # even a copy a SIGKILL leaves holds no secret
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=60)
    assert not list((state / "state").glob(".memtui-check-*"))
    assert (state / "state" / "openclaw.json").read_bytes() == before and not backups(state)


def test_a_copy_left_by_a_killed_connect_is_swept(state, capsys):
    stale = state / "state" / ".memtui-check-999999-abc.json"
    stale.write_text("{}", encoding="utf-8")
    assert run(capsys, "connect", "--agent", "main", "--no-index")[0] == 0
    assert not stale.exists()


def test_connect_undoes_the_write_when_openclaw_does_not_resolve_memtui(state, tmp_path, monkeypatch, capsys):
    other = tmp_path / "core-first"
    other.mkdir()
    monkeypatch.setenv("MEMTUI_OPENCLAW", str(write_validator(other, {"valid": True}, order="core-first")))
    before = (state / "state" / "openclaw.json").read_bytes()
    code, _, err = run(capsys, "connect", "--agent", "main", "--no-index")
    assert code == 2 and "does not resolve memory_search to memtui" in err and "memory-core" in err
    assert "undone" in err and (state / "state" / "openclaw.json").read_bytes() == before


@pytest.mark.parametrize("case", ["no marker", "another user's", "open to others"])
def test_connect_refuses_a_plugin_folder_it_did_not_make(state, capsys, case):
    """Code in the plugin folder runs inside OpenClaw: one someone else made first is never used."""
    folder = plugin_dir()
    folder.mkdir(parents=True, mode=0o700)
    planted = folder / "index.js"
    planted.write_text("// someone else's\n", encoding="utf-8")
    if case == "no marker":
        (folder / "other.js").write_text("", encoding="utf-8")
    elif case == "another user's":
        (folder / ".memtui-plugin").touch()
        try:
            os.chown(folder, 65534, 65534)
        except PermissionError:
            pytest.skip("needs root to make a folder another user's")
    else:
        (folder / ".memtui-plugin").touch()
        folder.chmod(0o777)
    before = (state / "state" / "openclaw.json").read_bytes()
    code, _, err = run(capsys, "connect", "--agent", "main", "--no-index")
    assert code == 2 and str(folder) in err and "nothing was changed" in err
    assert planted.read_text(encoding="utf-8") == "// someone else's\n"
    assert (state / "state" / "openclaw.json").read_bytes() == before


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
    assert agents["research"]["searchDisabled"] is None  # the agent not connected keeps OpenClaw's memory search
    assert agents["research"]["memoryPlugin"] == "memory-core"
    code, out, _ = run(capsys, "agents")
    assert "connected: memory_search answers from memtui" in out
    assert "on: OpenClaw's builtin memory-core answers (`memtui connect --agent research`" in out
    # the plugin folder deleted: OpenClaw cannot load memtui, memory-core answers, and memtui says so
    import shutil

    shutil.rmtree(plugin_dir())
    code, out, _ = run(capsys, "agents")
    assert "connected, but the plugin folder" in out and "memory-core answers instead" in out


def test_an_old_install_does_not_make_other_agents_memory_off(state, capsys):
    """While an older memtui held the memory slot, OpenClaw still gave the other agents memory-core's
    tools (its dreaming sidecar): memtui says they have memory search, and serves them over MCP."""
    old_way(state)
    code, out, _ = run(capsys, "agents", "--json")
    agents = {a["id"]: a for a in json.loads(out)["agents"]}
    assert agents["main"]["connected"] is True
    assert agents["research"]["connected"] is False and agents["research"]["searchDisabled"] is None


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
    assert openclaw_rows(find_agent("research"))[0][1].startswith("on: OpenClaw's builtin memory-core answers")


def test_one_reading_of_the_memory_slot_for_status_and_connect(tmp_path):
    """The memory slot is read once (interop/memory_slot.py), as OpenClaw reads it: trimmed, "none" in any
    case; status and connect agree on a slot written with stray spaces."""
    from openclaw_memtui.interop.connect import connect_edit
    from openclaw_memtui.interop.memory_slot import SLOT_BUILTIN, SLOT_CONNECTED, connected_agents, memory_slot

    spaced = {"plugins": {"slots": {"memory": " memory-core "}}}
    assert memory_slot(spaced)[0] == SLOT_BUILTIN
    server = {"socket": str(tmp_path / "s.sock")}
    edit = connect_edit(spaced, "main", server, tmp_path / "plugin", ["main"])  # not refused as another plugin
    assert edit.data["plugins"]["entries"][MEMTUI_MEMORY_PLUGIN]["config"]["agents"] == ["main"]
    old_way = {"plugins": {"slots": {"memory": f"{MEMTUI_MEMORY_PLUGIN} "},
                           "entries": {MEMTUI_MEMORY_PLUGIN: {"config": {"agents": {"main": {"socket": "/x"}}}}}}}
    assert memory_slot(old_way)[0] == SLOT_CONNECTED and connected_agents(old_way) == ["main"]
