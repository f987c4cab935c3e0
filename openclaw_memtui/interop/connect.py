"""`memtui connect` / `disconnect`: memtui answers an agent's memory_search, beside OpenClaw's memory.

OpenClaw 2026.9 resolves an agent's tools plugin by plugin, and the first plugin factory that returns
a tool for a name owns it for that agent (`resolvePluginToolsFromRegistry` in its dist/tools-*.mjs),
plugins from `plugins.load.paths` coming before bundled ones (`discoverOpenClawPlugins`,
dist/discovery-*.mjs: observed, not documented, so `connect` checks it with OpenClaw each time).
memtui's plugin `memtui-memory` (openclaw_memtui/openclaw_plugin) has no `kind` and takes no slot: it
returns memory_search / memory_get for the agents listed in its config (each call forwarded to the
one `memtui serve` of this state, plugin/server.py) and null for every other agent, which keeps
OpenClaw's own memory-core, as everything else of OpenClaw's memory (its CLI, forget, dreaming, the
"Memory Recall" prompt section) stays. Connecting edits, and only edits, in openclaw.json:

    plugins.load.paths                            + the plugin folder memtui copied (memtui's data dir)
    plugins.entries.memtui-memory                 enabled, config.agents += id, config.server = {socket, command, log, env}
    plugins.allow                                 + "memtui-memory", only when an allowlist is already set

and disconnecting the last agent takes all of it out again. `plugins.slots.memory` is never touched,
except to give it back to what it held when an older memtui had put its plugin there.

The plugin is a copy, stamped with memtui's version, not a link into the installed package: a pip
upgrade or uninstall must never leave OpenClaw loading files that moved (a plugin that fails to load
fails every agent turn). `connect` refreshes the copy, only in a private folder it made itself; the
wire protocol only ever adds fields, so a copy older than memtui keeps working until then.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import json
import os
import re
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..paths import PACKAGE_DIR, data_dir
from ..version import package_version
from .agents import OpenClawError
from .config_file import json_object
from .memory_slot import BUILTIN_MEMORY_PLUGIN, MEMTUI_MEMORY_PLUGIN, current_slot, is_our_plugin_path
from .rewrite import read_plain_json  # noqa: F401 - re-exported: cli_connect reads configs through here

PLUGIN_FILES = ("openclaw.plugin.json", "package.json", "index.js")
MARKER = ".memtui-plugin"  # in a plugin folder memtui made: connect refreshes no other folder
VERSION_MARK = "__MEMTUI_VERSION__"
VALIDATE_TIMEOUT_S = 180  # generous: `openclaw config validate` starts node, slow on a loaded machine; this only ends a hung one
CHECK_PREFIX = ".memtui-check-"  # the private copy `openclaw config validate` reads


def plugin_source() -> Path:
    return PACKAGE_DIR / "openclaw_plugin"


def plugin_dir() -> Path:
    """Where `connect` copies the plugin for OpenClaw to load: memtui's own data folder."""
    return data_dir() / "openclaw-plugin" / MEMTUI_MEMORY_PLUGIN


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


def _mine_and_private(path: Path, what: str) -> os.stat_result | None:
    """lstat of `path` (None when it does not exist); OpenClawError unless it is a real folder of
    this user's that nobody else can write to."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o022:
        raise OpenClawError(f"{what} {path} is not a folder of yours that only you can write to (another user, or "
                            "a link, may have made it); nothing was changed. Remove it, or point MEMTUI_DATA_DIR "
                            "at a private folder")
    return st


def check_plugin_folder(folder: Path) -> bool:
    """Whether memtui may write the plugin into `folder`: True when it is memtui's own (made by
    connect: private, this user's, with memtui's marker; or a copy an older memtui made, which holds
    nothing but the plugin's files), False when it does not exist yet; OpenClawError otherwise. Code
    in that folder runs inside OpenClaw: a folder someone else made first is never used."""
    base = folder.parent
    try:
        top = os.stat(base.parent)
    except FileNotFoundError:
        top = None
    if top is not None and top.st_uid not in (os.getuid(), 0):
        raise OpenClawError(f"memtui's data folder {base.parent} belongs to another user; nothing was changed")
    if top is not None and top.st_mode & 0o002 and not top.st_mode & stat.S_ISVTX:
        raise OpenClawError(f"memtui's data folder {base.parent} can be changed by any user; nothing was changed")
    _mine_and_private(base, "the plugin folder's parent")
    st = _mine_and_private(folder, "the plugin folder")
    if st is None:
        return False
    if stat.S_IMODE(st.st_mode) & 0o077:
        raise OpenClawError(f"the plugin folder {folder} is not private (mode {stat.S_IMODE(st.st_mode):o}, not 700); "
                            "nothing was changed. Remove it and run `memtui connect` again")
    marker = folder / MARKER
    try:
        mst = os.lstat(marker)
    except FileNotFoundError:
        mst = None
    if mst is not None and stat.S_ISREG(mst.st_mode) and mst.st_uid == os.getuid():
        return True
    names = {p.name for p in folder.iterdir() if not p.name.startswith(".")}
    if mst is None and names <= set(PLUGIN_FILES):
        with contextlib.suppress(OSError, ValueError):
            if json.loads((folder / "package.json").read_text(encoding="utf-8")).get("name") == MEMTUI_MEMORY_PLUGIN:
                return True  # made by an older memtui, before the marker: adopted, the marker added
        if not names:
            return True
    raise OpenClawError(f"{folder} was not made by `memtui connect` (no {MARKER} in it); nothing was changed. Remove "
                        "it (or move it away) and run `memtui connect` again")


def install_plugin(folder: Path | None = None, version: str | None = None) -> tuple[Path, list[str]]:
    """Copy the plugin, stamped with `version`, into `folder`; returns the folder and the files that
    changed (none when the copy is current). Each file is replaced in one step, so an OpenClaw
    loading the plugin meanwhile reads the old file or the new one, never half of one. Refuses
    (OpenClawError) a folder memtui did not make."""
    from ..engine.store import make_private_dirs

    folder = folder or plugin_dir()
    version = version or package_version()
    check_plugin_folder(folder)
    make_private_dirs(folder)
    check_plugin_folder(folder)  # made now by us, or in between by someone else: checked again
    with contextlib.suppress(FileExistsError):
        os.close(os.open(folder / MARKER, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600))
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
    old_sockets: list[str] = field(default_factory=list)  # servers of an older connect, to stop


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


def _convert_old(data: dict[str, Any], edit: Edit) -> None:
    """Undo what an older `memtui connect` did that this one does not: memtui's plugin in the memory
    slot (given back to what it held, `previousSlot`) and one server per agent (to be stopped)."""
    plugins = json_object(data.get("plugins"))
    config = json_object(json_object(json_object(plugins.get("entries")).get(MEMTUI_MEMORY_PLUGIN)).get("config"))
    previous = config.pop("previousSlot", None)
    slots = json_object(plugins.get("slots"))
    if slots.get("memory") == MEMTUI_MEMORY_PLUGIN:
        if isinstance(previous, str) and previous:
            slots["memory"] = previous
        else:
            del slots["memory"]
            if not slots and "slots" in plugins:
                del plugins["slots"]
        edit.changes.append(f"plugins.slots.memory: {MEMTUI_MEMORY_PLUGIN} → {previous or BUILTIN_MEMORY_PLUGIN} "
                            "(an older memtui had taken OpenClaw's memory slot; memtui now answers beside it)")
    agents = config.get("agents")
    if isinstance(agents, dict):
        edit.old_sockets += [v["socket"] for v in agents.values() if isinstance(v, dict) and isinstance(v.get("socket"), str)]
        config["agents"] = sorted(agents)
        edit.changes.append(f"plugins.entries.{MEMTUI_MEMORY_PLUGIN}.config.agents: one server per agent → one for all "
                            f"({', '.join(sorted(agents)) or 'none'})")


def connect_edit(data: dict[str, Any], agent_id: str, server: dict[str, Any], folder: Path,
                 all_agents: list[str], force: bool = False) -> Edit:
    """`data` with `agent_id` connected. Refuses (OpenClawError) when the slot holds a memory plugin
    other than OpenClaw's own (memtui's tools would shadow it for this agent), unless `force`."""
    data = copy.deepcopy(data)
    edit = Edit(data)
    plugins = _plugins(data)
    deny = plugins.get("deny")
    if isinstance(deny, list) and MEMTUI_MEMORY_PLUGIN in deny:
        raise OpenClawError(f"plugins.deny lists {MEMTUI_MEMORY_PLUGIN}; remove it from plugins.deny to connect, "
                            "nothing was changed")
    _convert_old(data, edit)
    slot = current_slot(data)
    if slot.lower() not in (BUILTIN_MEMORY_PLUGIN, "none") and not force:
        raise OpenClawError(f"OpenClaw's memory slot (plugins.slots.memory) holds plugin {slot!r}, not OpenClaw's own "
                            f"memory-core; nothing was changed. `memtui connect --agent {agent_id} --force` makes memtui "
                            f"answer this agent's memory_search instead of {slot!r}")
    entries = _obj(plugins, "entries", "plugins.entries")
    entry = _obj(entries, MEMTUI_MEMORY_PLUGIN, f"plugins.entries.{MEMTUI_MEMORY_PLUGIN}")
    config = _obj(entry, "config", f"plugins.entries.{MEMTUI_MEMORY_PLUGIN}.config")
    if entry.get("enabled") is not True:
        entry["enabled"] = True
        edit.changes.append(f"plugins.entries.{MEMTUI_MEMORY_PLUGIN}.enabled: true")
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
    if isinstance(allow, list) and allow and MEMTUI_MEMORY_PLUGIN not in allow:
        allow.append(MEMTUI_MEMORY_PLUGIN)  # an allowlist is exclusive: without this the plugin would not load
        config["addedToAllow"] = True
        edit.changes.append(f"plugins.allow: + {MEMTUI_MEMORY_PLUGIN}")
    agents = config.get("agents")
    if not isinstance(agents, list):
        agents = config["agents"] = []
    if agent_id not in agents:
        agents.append(agent_id)
        agents.sort()
        edit.changes.append(f"plugins.entries.{MEMTUI_MEMORY_PLUGIN}.config.agents: + {agent_id}")
    if config.get("server") != server:
        edit.changes.append(f"plugins.entries.{MEMTUI_MEMORY_PLUGIN}.config.server: "
                            f"{'updated' if 'server' in config else 'added'} "
                            f"(one memtui serve for every connected agent, on {server['socket']})")
        config["server"] = server
    return edit


def serve_with(edit: Edit, server: dict[str, Any]) -> None:
    """Give the edited config's plugin entry `server` (an older install converted by disconnect)."""
    config = json_object(json_object(json_object(json_object(edit.data.get("plugins")).get("entries")).get(MEMTUI_MEMORY_PLUGIN))
                         .get("config"))
    if config.get("server") != server:
        config["server"] = server
        edit.changes.append(f"plugins.entries.{MEMTUI_MEMORY_PLUGIN}.config.server: added (one memtui serve for every connected "
                            f"agent, on {server['socket']})")


def disconnect_edit(data: dict[str, Any], agent_id: str) -> Edit:
    """`data` with `agent_id` no longer answered by memtui; the last agent out takes the plugin out."""
    data = copy.deepcopy(data)
    edit = Edit(data)
    plugins = json_object(data.get("plugins"))
    entries = json_object(plugins.get("entries"))
    if MEMTUI_MEMORY_PLUGIN not in entries and current_slot(data) != MEMTUI_MEMORY_PLUGIN and not any(
            isinstance(p, str) and is_our_plugin_path(p) for p in json_object(plugins.get("load")).get("paths") or []):
        return edit  # never connected (or already disconnected): nothing to change
    _convert_old(data, edit)
    entry = json_object(entries.get(MEMTUI_MEMORY_PLUGIN))
    config = json_object(entry.get("config"))
    agents = config.get("agents")
    if isinstance(agents, list) and agent_id in agents:
        agents.remove(agent_id)
        edit.changes.append(f"plugins.entries.{MEMTUI_MEMORY_PLUGIN}.config.agents: - {agent_id}")
    if isinstance(agents, list) and agents:
        edit.notes.append(f"memtui still answers agent(s) {', '.join(agents)}")
        return edit
    load = json_object(plugins.get("load"))
    paths = load.get("paths")
    if isinstance(paths, list):
        mine = [p for p in paths if isinstance(p, str) and is_our_plugin_path(p)]
        for p in mine:
            paths.remove(p)
            edit.changes.append(f"plugins.load.paths: - {p}")
        if not paths and mine:
            del load["paths"]
            if not load:
                del plugins["load"]
    allow = plugins.get("allow")
    if config.get("addedToAllow") and isinstance(allow, list) and MEMTUI_MEMORY_PLUGIN in allow:
        allow.remove(MEMTUI_MEMORY_PLUGIN)
        edit.changes.append(f"plugins.allow: - {MEMTUI_MEMORY_PLUGIN}")
    if MEMTUI_MEMORY_PLUGIN in entries:
        del entries[MEMTUI_MEMORY_PLUGIN]
        edit.changes.append(f"plugins.entries.{MEMTUI_MEMORY_PLUGIN}: removed")
        if not entries:
            del plugins["entries"]
    if not plugins and "plugins" in data:
        del data["plugins"]  # connect made it: an empty object reads the same to OpenClaw as none
    return edit


# -- reading, validating and writing openclaw.json ----------------------------------------------------

def find_openclaw() -> str | None:
    return os.environ.get("MEMTUI_OPENCLAW") or shutil.which("openclaw")


# keys whose string values are secrets: the copy `openclaw config validate` reads gets a stand-in of
# the same type, so a copy left behind by a connect killed with SIGKILL holds no gateway token or key
_SECRET_KEYS = {"token", "apikey", "password", "secret", "bottoken", "apptoken", "accesstoken", "refreshtoken",
                "clientsecret", "webhooksecret", "signingsecret"}


# a name that ends in one of these holds a secret, however it is spelled: OpenClaw's `env.vars`
# (OPENROUTER_API_KEY, as its docs show), a provider's privateKey, a credential header
_SECRET_SUFFIX = re.compile(r"(?:api_?key|token|secret|password|passwd|private_?key|credentials?|authorization|cookie)$")


def _secret_name(key: str) -> bool:
    name = key.lower().replace("-", "_")
    return name in _SECRET_KEYS or bool(_SECRET_SUFFIX.search(name))


def _without_secrets(value: Any, key: str = "") -> Any:
    if isinstance(value, dict):
        return {k: _without_secrets(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_secrets(v) for v in value]
    if isinstance(value, str) and _secret_name(key) and value and not value.startswith("${"):
        return "memtui-validation-stand-in"
    return value


def _sweep_checks(folder: Path) -> None:
    """Remove validation copies a connect left when it was killed (its pid is in the name and gone)."""
    with contextlib.suppress(OSError):
        for old in folder.glob(f"{CHECK_PREFIX}*.json"):
            pid = old.name[len(CHECK_PREFIX):].split("-", 1)[0]
            if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
                old.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@contextlib.contextmanager
def _removed_on_signal(tmp: Path) -> Iterator[None]:
    """While OpenClaw validates (15-40 s), a SIGTERM, SIGHUP or Ctrl-C removes the copy first."""
    def on_signal(signum: int, frame: Any) -> None:
        tmp.unlink(missing_ok=True)
        raise KeyboardInterrupt if signum == signal.SIGINT else SystemExit(128 + signum)

    previous = {}
    with contextlib.suppress(ValueError):  # not the main thread: only the finally below
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            previous[sig] = signal.signal(sig, on_signal)
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def validate_config(config_file: Path, text: str, openclaw: str) -> list[str]:
    """`openclaw config validate --json` on `text` as it would be read from `config_file` (a private
    temp copy beside it, so `$include` and relative paths resolve the same, its secrets replaced by
    stand-ins and removed however connect ends); its warnings, or OpenClawError with OpenClaw's own
    reason when it refuses the config."""
    folder = Path(os.path.realpath(config_file)).parent
    _sweep_checks(folder)
    try:
        check = json.dumps(_without_secrets(json.loads(text.lstrip("\ufeff"))), indent=2, ensure_ascii=False) + "\n"
    except ValueError:
        check = text
    try:
        fd, name = tempfile.mkstemp(prefix=f"{CHECK_PREFIX}{os.getpid()}-", suffix=".json", dir=folder)
    except OSError as exc:  # a read-only mount or a folder not ours: name the folder, not the temp file
        raise OpenClawError(f"OpenClaw's folder {folder} cannot be written ({exc.strerror or exc}): memtui "
                            "connect checks and writes openclaw.json there; nothing was changed") from None
    tmp = Path(name)
    try:
        with _removed_on_signal(tmp):
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(check)
            env = dict(os.environ, OPENCLAW_CONFIG_PATH=str(tmp), OPENCLAW_HIDE_BANNER="1", NO_COLOR="1")
            proc = _run_openclaw([openclaw, "config", "validate", "--json"], env, "config validate")
    finally:
        tmp.unlink(missing_ok=True)
    report = _last_json(proc.stdout)
    if report is None:
        first = (proc.stderr.strip() or proc.stdout.strip() or f"exit {proc.returncode}").splitlines()[-1]
        raise OpenClawError(f"`openclaw config validate` gave no verdict ({first[:200]}); nothing was written")
    if report.get("valid") is not True:
        problems = report.get("errors") or report.get("issues") or [report.get("error") or "invalid"]
        raise OpenClawError(f"OpenClaw refuses the edited config ({_brief(problems)}); nothing was written")
    return [_brief([w]) for w in report.get("warnings") or []]


def _run_openclaw(argv: list[str], env: dict[str, str], what: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=VALIDATE_TIMEOUT_S,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise OpenClawError(f"`openclaw {what}` did not finish within {VALIDATE_TIMEOUT_S}s; nothing was written") from None
    except OSError as exc:
        raise OpenClawError(f"cannot run {argv[0]}: {exc.strerror}; nothing was written") from None


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


def _text(data: dict[str, Any], old_text: str) -> str:
    bom = "\ufeff" if old_text.startswith("\ufeff") else ""
    return bom + json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def write_config(config_file: Path, old_text: str, edit: Edit, openclaw: str | None) -> tuple[Path | None, list[str]]:
    """Validate the edited config, then write it (mode, owner and symlinks kept, a backup beside it),
    only if the file still holds `old_text` (what the edit was made from): an edit OpenClaw or the
    user made meanwhile is never written over. Returns the backup (None when nothing changed) and
    OpenClaw's warnings."""
    from .safe_rewrite import RewriteError, rewrite_file

    if not edit.changes:
        return None, []
    text = _text(edit.data, old_text)
    warnings = validate_config(config_file, text, openclaw) if openclaw else []
    try:
        backup = rewrite_file(config_file, text, expected=old_text.encode("utf-8"))
    except RewriteError as exc:
        raise OpenClawError(str(exc)) from None
    if backup is None:
        raise OpenClawError(f"{config_file} disappeared while it was being rewritten")
    return backup, warnings


def undo_write(config_file: Path, old_text: str, written: Edit) -> None:
    """Put back what was there before `write_config` wrote `written` (if nothing changed it since)."""
    from .safe_rewrite import RewriteError, rewrite_file

    try:
        rewrite_file(config_file, old_text, expected=_text(written.data, old_text).encode("utf-8"), backup=False)
    except RewriteError as exc:
        raise OpenClawError(f"could not undo the change ({exc}); the backup beside it holds the config as it was") from None


def verify_with_openclaw(openclaw: str, folder: Path, agents: list[str]) -> str:
    """Ask OpenClaw (`openclaw plugins list --json`, its own plugin inventory for this config) whether
    the connected agents' memory_search now resolves to memtui: the plugin loaded from `folder`,
    enabled, offering both tools, and ordered before memory-core (the first factory that returns a
    tool owns its name). "" when it does; otherwise why not, in one line."""
    env = dict(os.environ, OPENCLAW_HIDE_BANNER="1", NO_COLOR="1")
    proc = _run_openclaw([openclaw, "plugins", "list", "--json"], env, "plugins list")
    report = _last_json(proc.stdout)
    if report is None or not isinstance(report.get("plugins"), list):
        first = (proc.stderr.strip() or proc.stdout.strip() or f"exit {proc.returncode}").splitlines()[-1]
        return f"`openclaw plugins list` gave no inventory ({first[:200]})"
    plugins = [p for p in report["plugins"] if isinstance(p, dict)]
    errors = [d for d in report.get("diagnostics") or [] if isinstance(d, dict) and d.get("pluginId") == MEMTUI_MEMORY_PLUGIN
              and d.get("level") == "error"]
    if errors:
        return f"OpenClaw cannot load {MEMTUI_MEMORY_PLUGIN}: {_brief(errors)}"
    order = [p.get("id") for p in plugins]
    if MEMTUI_MEMORY_PLUGIN not in order:
        return f"OpenClaw does not list {MEMTUI_MEMORY_PLUGIN} among its plugins"
    ours = plugins[order.index(MEMTUI_MEMORY_PLUGIN)]
    if os.path.realpath(str(ours.get("rootDir") or "")) != os.path.realpath(folder):
        return f"OpenClaw loads {MEMTUI_MEMORY_PLUGIN} from {ours.get('rootDir')}, not from {folder}"
    if ours.get("enabled") is not True or ours.get("status") not in ("loaded", None):
        return f"OpenClaw lists {MEMTUI_MEMORY_PLUGIN} as {ours.get('status') or 'disabled'}"
    tools = set(ours.get("toolNames") or [])
    if not {"memory_search", "memory_get"} <= tools:
        return f"OpenClaw's inventory gives {MEMTUI_MEMORY_PLUGIN} the tools {sorted(tools)}, not memory_search and memory_get"
    for other in plugins[: order.index(MEMTUI_MEMORY_PLUGIN)]:
        if other.get("enabled") and {"memory_search", "memory_get"} & set(other.get("toolNames") or []):
            return (f"OpenClaw orders plugin {other.get('id')!r} before {MEMTUI_MEMORY_PLUGIN}, so its memory_search answers "
                    f"agent(s) {', '.join(agents)} (plugins from plugins.load.paths no longer come first)")
    return ""


def state_key() -> str:
    """A short name for this OpenClaw state: its server and socket are one per state."""
    from ..paths import openclaw_state_dir

    return hashlib.sha256(os.path.realpath(openclaw_state_dir()).encode()).hexdigest()[:12]


def _private_dir(folder: Path) -> bool:
    try:
        st = os.lstat(folder)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not stat.S_IMODE(st.st_mode) & 0o077


def socket_path(existing: str | None = None) -> Path:
    """Where this state's `memtui serve` listens: memtui's data dir. A unix socket path holds at most
    ~107 bytes; past that, `existing` (the path connect wrote before) while its folder is still a
    private one of this user's, else a private folder in XDG_RUNTIME_DIR, else a new folder with an
    unpredictable name made now (mkdtemp: 0700, this user's) under the temp dir. Never a name
    another user could create first: the plugin and the server both refuse a folder not private."""
    name = f"{state_key()}.sock"
    preferred = data_dir() / "connect" / name
    if len(os.fsencode(str(preferred))) <= 100:
        return preferred
    if existing and len(os.fsencode(existing)) <= 100 and _private_dir(Path(existing).parent):
        return Path(existing)
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and _private_dir(Path(runtime)) and len(os.fsencode(runtime)) <= 80:
        return Path(runtime) / "memtui" / name
    return Path(tempfile.mkdtemp(prefix="memtui-")) / name


# what decides which memtui, config, index and OpenClaw state the server uses: passed on, as
# OpenClaw's own environment (a gateway started by a service manager) may not have them
SERVER_ENV = ("MEMTUI_CONFIG", "MEMTUI_CONFIG_DIR", "MEMTUI_DATA_DIR", "PYTHONPATH", "OPENCLAW_STATE_DIR",
              "OPENCLAW_CONFIG_PATH")


def server_env() -> dict[str, str]:
    return {name: os.environ[name] for name in SERVER_ENV if os.environ.get(name)}


def server_command(socket_file: Path, config: str | None) -> list[str]:
    """How the plugin starts `memtui serve`: this interpreter, so OpenClaw's PATH does not matter."""
    command = [sys.executable, "-m", "openclaw_memtui", "serve", "--socket", str(socket_file)]
    return command + (["--config", config] if config else [])


def call(path: Path, request: dict[str, Any], timeout: float = 30.0) -> dict[str, Any]:
    """One request to a running server (used by `memtui connect` to check it, by tests and benches)."""
    return call_line(path, json.dumps(request).encode("utf-8") + b"\n", timeout)


def call_line(path: Path, line: bytes, timeout: float = 30.0) -> dict[str, Any]:
    """One request line, sent as given (a test's malformed one too), and the server's one-line reply."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        sock.connect(str(path))
        sock.sendall(line)
        data = b""
        while not data.endswith(b"\n"):
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    answer: dict[str, Any] = json.loads(data)
    return answer
