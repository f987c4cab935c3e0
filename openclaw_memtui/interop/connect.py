"""`memtui connect` / `disconnect`: put memtui's plugin in OpenClaw's memory slot, or take it out.

OpenClaw 2026.9 has one memory slot, `plugins.slots.memory`, for all agents; the plugin in it owns
the agent tools `memory_search` / `memory_get` (reached directly or via `tool_call`) and the system
prompt's "Memory Recall" section. memtui's plugin `memtui-memory` (openclaw_memtui/openclaw_plugin)
takes the slot and answers for the agents listed in its config by forwarding each call to
`memtui serve` (plugin_server.py). So connecting edits, and only edits, in openclaw.json:

    plugins.load.paths                            + the plugin folder memtui copied (memtui's data dir)
    plugins.slots.memory                          "memtui-memory" (the previous value is remembered)
    plugins.entries.memtui-memory                 enabled, config.agents.<id> = {socket, command, log}
    plugins.allow                                 + "memtui-memory", only when an allowlist is already set

and disconnecting the last agent takes all of it out again, the slot back to what it was.

The plugin is a copy, stamped with memtui's version, not a link into the installed package: a pip
upgrade or uninstall must never leave OpenClaw loading files that moved (a plugin that fails to load
fails every agent turn). `connect` refreshes the copy; the wire protocol only ever adds fields, so a
copy older than memtui keeps working until then.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..paths import PACKAGE_DIR, data_dir
from .agents import OpenClawError
from .config_file import json_object
from .rewrite import read_plain_json  # noqa: F401 - re-exported: cli_connect reads configs through here

PLUGIN_ID = "memtui-memory"
DEFAULT_MEMORY_PLUGIN = "memory-core"  # what OpenClaw uses when plugins.slots.memory is not set
PLUGIN_FILES = ("openclaw.plugin.json", "package.json", "index.js")
VERSION_MARK = "__MEMTUI_VERSION__"
VALIDATE_TIMEOUT_S = 180  # generous: `openclaw config validate` starts node, slow on a loaded machine; this only ends a hung one


def plugin_source() -> Path:
    return PACKAGE_DIR / "openclaw_plugin"


def plugin_dir() -> Path:
    """Where `connect` copies the plugin for OpenClaw to load: memtui's own data folder."""
    return data_dir() / "openclaw-plugin" / PLUGIN_ID


def memtui_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("openclaw-memtui")
    except PackageNotFoundError:
        return "0"


def _stamped(name: str, version: str) -> bytes:
    text = (plugin_source() / name).read_text(encoding="utf-8")
    if name == "package.json":
        data = json.loads(text)
        data["version"] = version
        return (json.dumps(data, indent=2) + "\n").encode("utf-8")
    return text.replace(VERSION_MARK, version).encode("utf-8")


def installed_plugin_version(folder: Path | None = None) -> str | None:
    """The memtui version stamped into the copy OpenClaw loads; None when there is no copy."""
    try:
        data = json.loads(((folder or plugin_dir()) / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    version = data.get("version") if isinstance(data, dict) else None
    return version if isinstance(version, str) else None


def install_plugin(folder: Path | None = None, version: str | None = None) -> tuple[Path, list[str]]:
    """Copy the plugin, stamped with `version`, into `folder`; returns the folder and the files that
    changed (none when the copy is current). Each file is replaced in one step, so an OpenClaw
    loading the plugin meanwhile reads the old file or the new one, never half of one."""
    from ..engine.store import make_private_dirs

    folder = folder or plugin_dir()
    version = version or memtui_version()
    make_private_dirs(folder)
    changed = []
    for name in PLUGIN_FILES:
        data = _stamped(name, version)
        target = folder / name
        try:
            if target.read_bytes() == data:
                continue
        except OSError:
            pass
        fd, tmp = tempfile.mkstemp(prefix=f".{name}.", dir=folder)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(tmp, 0o600)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        changed.append(name)
    return folder, changed


# -- the config edits (pure: a parsed openclaw.json in, the edited copy and what changed out) ------

@dataclass
class Edit:
    data: dict[str, Any]
    changes: list[str] = field(default_factory=list)  # one line per key changed, for the user
    notes: list[str] = field(default_factory=list)  # what the user should know (other agents, …)


def _plugins(data: dict[str, Any]) -> dict[str, Any]:
    plugins = data.get("plugins")
    if plugins is None:
        plugins = data["plugins"] = {}
    if not isinstance(plugins, dict):
        raise OpenClawError("openclaw.json's 'plugins' must be an object; fix it (or run `openclaw doctor`) first")
    return plugins


def _obj(parent: dict[str, Any], key: str, where: str) -> dict[str, Any]:
    value = parent.get(key)
    if value is None:
        value = parent[key] = {}
    if not isinstance(value, dict):
        raise OpenClawError(f"openclaw.json's '{where}' must be an object; fix it (or run `openclaw doctor`) first")
    return value


def current_slot(data: dict[str, Any]) -> str:
    """The plugin in the memory slot as OpenClaw reads it (memory-core when unset)."""
    slots = json_object(json_object(data.get("plugins")).get("slots"))
    slot = slots.get("memory")
    return slot if isinstance(slot, str) and slot.strip() else DEFAULT_MEMORY_PLUGIN


def connected_agents(data: dict[str, Any]) -> list[str]:
    """The agents whose memory_search memtui answers: listed in the plugin's config while it holds the slot."""
    if current_slot(data) != PLUGIN_ID:
        return []
    entry = json_object(json_object(json_object(data.get("plugins")).get("entries")).get(PLUGIN_ID))
    if entry.get("enabled") is False:
        return []
    return sorted(json_object(json_object(entry.get("config")).get("agents")))


def connect_edit(data: dict[str, Any], agent_id: str, agent_entry: dict[str, Any], folder: Path,
                 all_agents: list[str], force: bool = False) -> Edit:
    """`data` with `agent_id` connected. Refuses (OpenClawError) when the slot holds a plugin other
    than OpenClaw's own or memtui's, unless `force`."""
    data = copy.deepcopy(data)
    edit = Edit(data)
    plugins = _plugins(data)
    deny = plugins.get("deny")
    if isinstance(deny, list) and PLUGIN_ID in deny:
        raise OpenClawError(f"plugins.deny lists {PLUGIN_ID}; remove it from plugins.deny to connect, nothing was changed")
    slots = _obj(plugins, "slots", "plugins.slots")
    raw_slot = slots.get("memory")
    slot = current_slot(data)
    if slot not in (DEFAULT_MEMORY_PLUGIN, PLUGIN_ID) and not force:
        raise OpenClawError(f"OpenClaw's memory slot (plugins.slots.memory) holds plugin {slot!r}, not OpenClaw's own "
                            f"memory-core; nothing was changed. `memtui connect --agent {agent_id} --force` replaces it "
                            f"(`memtui disconnect` puts {slot!r} back)")
    entries = _obj(plugins, "entries", "plugins.entries")
    entry = _obj(entries, PLUGIN_ID, f"plugins.entries.{PLUGIN_ID}")
    config = _obj(entry, "config", f"plugins.entries.{PLUGIN_ID}.config")
    if slot != PLUGIN_ID:
        slots["memory"] = PLUGIN_ID
        config["previousSlot"] = raw_slot if isinstance(raw_slot, str) else ""
        edit.changes.append(f"plugins.slots.memory: {slot} → {PLUGIN_ID}")
    if entry.get("enabled") is not True:
        entry["enabled"] = True
        edit.changes.append(f"plugins.entries.{PLUGIN_ID}.enabled: true")
    load = _obj(plugins, "load", "plugins.load")
    paths = load.get("paths")
    if paths is None:
        paths = load["paths"] = []
    if not isinstance(paths, list):
        raise OpenClawError("openclaw.json's 'plugins.load.paths' must be a list; fix it first")
    if str(folder) not in paths:
        paths.append(str(folder))
        edit.changes.append(f"plugins.load.paths: + {folder}")
    allow = plugins.get("allow")
    if isinstance(allow, list) and allow and PLUGIN_ID not in allow:
        allow.append(PLUGIN_ID)  # an allowlist is exclusive: without this the plugin would not load
        config["addedToAllow"] = True
        edit.changes.append(f"plugins.allow: + {PLUGIN_ID}")
    agents = _obj(config, "agents", f"plugins.entries.{PLUGIN_ID}.config.agents")
    if agents.get(agent_id) != agent_entry:
        edit.changes.append(f"plugins.entries.{PLUGIN_ID}.config.agents.{agent_id}: "
                            f"{'updated' if agent_id in agents else 'added'} (answered by memtui on {agent_entry['socket']})")
        agents[agent_id] = agent_entry
    others = [a for a in all_agents if a not in agents]
    if others:
        edit.notes.append(f"OpenClaw has one memory slot for all agents: while {PLUGIN_ID} holds it, agent(s) "
                          f"{', '.join(others)} have no memory_search/memory_get (connect them too, or "
                          f"`memtui disconnect --agent {agent_id}` to give every agent OpenClaw's own back)")
    return edit


def disconnect_edit(data: dict[str, Any], agent_id: str) -> Edit:
    """`data` with `agent_id` no longer answered by memtui; the last agent out gives the slot back."""
    data = copy.deepcopy(data)
    edit = Edit(data)
    plugins = json_object(data.get("plugins"))
    entries = json_object(plugins.get("entries"))
    entry = json_object(entries.get(PLUGIN_ID))
    config = json_object(entry.get("config"))
    agents = json_object(config.get("agents"))
    if agent_id in agents:
        del agents[agent_id]
        edit.changes.append(f"plugins.entries.{PLUGIN_ID}.config.agents.{agent_id}: removed")
    if agents:
        edit.notes.append(f"{PLUGIN_ID} keeps the memory slot for agent(s) {', '.join(sorted(agents))}, still connected")
        return edit
    if PLUGIN_ID not in entries and current_slot(data) != PLUGIN_ID:
        return edit  # never connected (or already disconnected): nothing to change
    slots = json_object(plugins.get("slots"))
    previous = config.get("previousSlot")
    if slots.get("memory") == PLUGIN_ID:
        if isinstance(previous, str) and previous:
            slots["memory"] = previous
        else:
            del slots["memory"]
            if not slots and "slots" in plugins:
                del plugins["slots"]
        edit.changes.append(f"plugins.slots.memory: {PLUGIN_ID} → {previous or DEFAULT_MEMORY_PLUGIN}")
    load = json_object(plugins.get("load"))
    paths = load.get("paths")
    if isinstance(paths, list):
        mine = [p for p in paths if isinstance(p, str) and Path(p).name == PLUGIN_ID and "openclaw-plugin" in p]
        for p in mine:
            paths.remove(p)
            edit.changes.append(f"plugins.load.paths: - {p}")
        if not paths and mine:
            del load["paths"]
            if not load:
                del plugins["load"]
    allow = plugins.get("allow")
    if config.get("addedToAllow") and isinstance(allow, list) and PLUGIN_ID in allow:
        allow.remove(PLUGIN_ID)
        edit.changes.append(f"plugins.allow: - {PLUGIN_ID}")
    if PLUGIN_ID in entries:
        del entries[PLUGIN_ID]
        edit.changes.append(f"plugins.entries.{PLUGIN_ID}: removed")
        if not entries:
            del plugins["entries"]
    if not plugins and "plugins" in data:
        del data["plugins"]  # connect made it: an empty object reads the same to OpenClaw as none
    return edit


# -- reading, validating and writing openclaw.json ----------------------------------------------------

def find_openclaw() -> str | None:
    return os.environ.get("MEMTUI_OPENCLAW") or shutil.which("openclaw")


def validate_config(config_file: Path, text: str, openclaw: str) -> list[str]:
    """`openclaw config validate --json` on `text` as it would be read from `config_file` (a private
    temp copy beside it, so `$include` and relative paths resolve the same); its warnings, or
    OpenClawError with OpenClaw's own reason when it refuses the config."""
    folder = Path(os.path.realpath(config_file)).parent
    fd, tmp = tempfile.mkstemp(prefix=".memtui-check-", suffix=".json", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        env = dict(os.environ, OPENCLAW_CONFIG_PATH=tmp, OPENCLAW_HIDE_BANNER="1", NO_COLOR="1")
        try:
            proc = subprocess.run([openclaw, "config", "validate", "--json"], env=env, capture_output=True, text=True,
                                  timeout=VALIDATE_TIMEOUT_S, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise OpenClawError(f"`openclaw config validate` did not finish within {VALIDATE_TIMEOUT_S}s; nothing was "
                                "written") from None
        except OSError as exc:
            raise OpenClawError(f"cannot run {openclaw}: {exc.strerror}; nothing was written") from None
    finally:
        Path(tmp).unlink(missing_ok=True)
    report = _last_json(proc.stdout)
    if report is None:
        first = (proc.stderr.strip() or proc.stdout.strip() or f"exit {proc.returncode}").splitlines()[-1]
        raise OpenClawError(f"`openclaw config validate` gave no verdict ({first[:200]}); nothing was written")
    if report.get("valid") is not True:
        problems = report.get("errors") or report.get("issues") or [report.get("error") or "invalid"]
        raise OpenClawError(f"OpenClaw refuses the edited config ({_brief(problems)}); nothing was written")
    return [_brief([w]) for w in report.get("warnings") or []]


def _brief(items: Any) -> str:
    parts = []
    for item in items if isinstance(items, list) else [items]:
        if isinstance(item, dict):
            parts.append(": ".join(str(item[k]) for k in ("path", "message") if item.get(k)) or json.dumps(item)[:200])
        else:
            parts.append(str(item))
    return "; ".join(parts)[:400]


def _last_json(out: str) -> dict[str, Any] | None:
    start = out.find("{")
    while start >= 0:
        try:
            value = json.loads(out[start:])
            return value if isinstance(value, dict) else None
        except ValueError:
            start = out.find("{", start + 1)
    return None


def write_config(config_file: Path, old_text: str, edit: Edit, openclaw: str | None) -> tuple[Path | None, list[str]]:
    """Validate the edited config, then write it (mode, owner and symlinks kept, a backup beside it);
    returns the backup (None when nothing changed) and OpenClaw's warnings."""
    from .safe_rewrite import RewriteError, rewrite_file

    if not edit.changes:
        return None, []
    bom = "\ufeff" if old_text.startswith("\ufeff") else ""
    text = bom + json.dumps(edit.data, indent=2, ensure_ascii=False) + "\n"
    warnings = validate_config(config_file, text, openclaw) if openclaw else []
    try:
        backup = rewrite_file(config_file, text)
    except RewriteError as exc:
        raise OpenClawError(str(exc)) from None
    if backup is None:
        raise OpenClawError(f"{config_file} disappeared while it was being rewritten")
    return backup, warnings


def socket_path(agent_id: str) -> Path:
    """Where `memtui serve` for `agent_id` listens: memtui's data dir, else (a unix socket path holds
    at most ~107 bytes) a private folder under the temp dir."""
    import hashlib

    preferred = data_dir() / "connect" / f"{agent_id}.sock"
    if len(os.fsencode(str(preferred))) <= 100:
        return preferred
    digest = hashlib.sha256(str(preferred).encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"memtui-{os.getuid()}" / f"{digest}.sock"


# what decides which memtui, config and index the server uses: passed on, as OpenClaw's own
# environment (a gateway started by a service manager) may not have them
SERVER_ENV = ("MEMTUI_CONFIG", "MEMTUI_CONFIG_DIR", "MEMTUI_DATA_DIR", "PYTHONPATH")


def server_env() -> dict[str, str]:
    return {name: os.environ[name] for name in SERVER_ENV if os.environ.get(name)}


def server_command(agent_id: str, socket: Path, config: str | None) -> list[str]:
    """How the plugin starts `memtui serve`: this interpreter, so OpenClaw's PATH does not matter."""
    command = [sys.executable, "-m", "openclaw_memtui", "serve", "--agent", agent_id, "--socket", str(socket)]
    return command + (["--config", config] if config else [])


def call(path: Path, request: dict[str, Any], timeout: float = 30.0) -> dict[str, Any]:
    """One request to a running server (used by `memtui connect` to check it, and by tests)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        sock.connect(str(path))
        sock.sendall(json.dumps(request).encode("utf-8") + b"\n")
        data = b""
        while not data.endswith(b"\n"):
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    answer: dict[str, Any] = json.loads(data)
    return answer
