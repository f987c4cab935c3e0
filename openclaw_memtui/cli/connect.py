"""`memtui connect` and `memtui disconnect`: make memtui answer an agent's own memory_search, or stop.

The edits and their rules live in interop/connect.py; this module parses, prints what changes and
where the backup is, and (connect) builds the agent's index so its first search is answered at once.
"""

from __future__ import annotations

import argparse
import contextlib
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import UserError

if TYPE_CHECKING:
    from ..core.config_types import AppConfig


def _say(message: str) -> None:
    from ..render import safe

    print(f"memtui: {safe(message, one_line=True)}")


def _target(args: argparse.Namespace) -> tuple[Path, Any]:
    """The OpenClaw config to edit and the installation it belongs to."""
    from ..interop.agents import NEW_LAYOUT, OpenClawError, config_path, load_installation

    try:
        inst = load_installation()
    except OpenClawError as exc:
        raise UserError(str(exc)) from None
    target = config_path()
    if target is None or not target.is_file():
        raise UserError(f"no OpenClaw config found in {inst.state_dir} (run `openclaw onboard`, or set OPENCLAW_STATE_DIR)")
    if inst.layout != NEW_LAYOUT:
        raise UserError("memtui connect needs OpenClaw 2026.9 or later (this config has the older layout, which has no "
                        "memory plugin slot); `memtui mcp` serves older ones")
    return target, inst


def _openclaw(args: argparse.Namespace) -> str | None:
    from ..interop.connect import find_openclaw

    if args.no_validate:
        return None
    found = find_openclaw()
    if found is None:
        raise UserError("openclaw is not on PATH, so the edited config cannot be checked with `openclaw config validate`; "
                        "put it on PATH (or pass --no-validate to write unchecked)")
    return found


def _report(target: Path, edit: Any, backup: Path | None, warnings: list[str]) -> None:
    from ..render import safe

    for line in edit.changes:
        print(f"  {safe(line, one_line=True)}")
    if backup is not None:
        _say(f"wrote {target} (backup: {backup.name}); `openclaw config validate` accepted it")
    for warning in warnings:
        _say(f"OpenClaw warns: {warning}")
    for note in edit.notes:
        _say(note)


def cmd_connect(args: argparse.Namespace, cfg: AppConfig) -> int:
    from ..core.session import apply_agent
    from ..interop import connect as oc
    from ..interop.agents import OpenClawError
    from ..paths import data_dir

    if not args.agent:
        raise UserError("pass --agent ID: the OpenClaw agent whose memory_search memtui should answer")
    target, inst = _target(args)
    cfg, _, agent = apply_agent(args.agent, cfg)  # a bad --agent: one line, before anything is written
    assert agent is not None
    openclaw = _openclaw(args)
    socket = oc.socket_path(agent.id)
    config = args.config and str(Path(args.config).expanduser().resolve())
    entry: dict[str, Any] = {"socket": str(socket), "command": oc.server_command(agent.id, socket, config),
                             "log": str(data_dir() / "connect" / f"{agent.id}.log")}
    env = oc.server_env()
    if env:
        entry["env"] = env
    try:
        text, data = oc.read_plain_json(target)
        edit = oc.connect_edit(data, agent.id, entry, oc.plugin_dir(), [a.id for a in inst.agents],
                            force=args.force)
    except OpenClawError as exc:
        raise UserError(str(exc)) from None
    folder, copied = oc.install_plugin()
    if copied:
        _say(f"copied the {oc.PLUGIN_ID} plugin into {folder} ({', '.join(copied)})")
    try:
        backup, warnings = oc.write_config(target, text, edit, openclaw)
    except OpenClawError as exc:
        raise UserError(str(exc)) from None
    if not edit.changes:
        _say(f"agent {agent.id} is already connected: its memory_search and memory_get are answered by memtui; "
             "nothing changed in " + str(target))
    else:
        _say(f"connected agent {agent.id}: its memory_search and memory_get now answer from memtui's index, ranked "
             "with the saved settings; changed in " + str(target) + ":")
    _report(target, edit, backup, warnings)
    if copied and not edit.changes:
        _say("a running OpenClaw gateway loads the refreshed plugin when it restarts")
    if not args.no_index:
        _build_index(args, cfg)
    return 0


def _build_index(args: argparse.Namespace, cfg: AppConfig) -> None:
    """Sync the agent's index now, so the agent's first search is not the one that waits for it."""
    from ..core.session import SessionOptions, open_session

    started = time.perf_counter()
    with open_session(SessionOptions.from_args(args), cfg, repair=True) as session:
        report = session.index.sync()
    if report is None:
        _say("another memtui process is syncing this agent's index; the first search uses it when it is done")
        return
    _say(f"index of agent {args.agent} is ready: {report.files_indexed} files (re)indexed, {report.files_total} in all "
         f"({time.perf_counter() - started:.1f}s)")


def cmd_disconnect(args: argparse.Namespace, cfg: AppConfig) -> int:
    from ..interop.agents import OpenClawError, normalize_agent_id
    from ..interop.connect import disconnect_edit, read_plain_json, write_config

    if not args.agent:
        raise UserError("pass --agent ID: the OpenClaw agent to give its own memory_search back")
    target, _ = _target(args)
    agent_id = normalize_agent_id(args.agent)
    openclaw = _openclaw(args)
    try:
        text, data = read_plain_json(target)
        edit = disconnect_edit(data, agent_id)
        backup, warnings = write_config(target, text, edit, openclaw)
    except OpenClawError as exc:
        raise UserError(str(exc)) from None
    if not edit.changes:
        _say(f"agent {agent_id} is not connected: OpenClaw's own memory tools answer it; nothing changed")
    else:
        _say(f"disconnected agent {agent_id}: changed in {target}:")
    _report(target, edit, backup, warnings)
    if edit.changes and not any(n for n in edit.notes):
        _say("OpenClaw's own memory_search and memory_get answer again from its next turn")
    _stop_server(agent_id)
    return 0


def _stop_server(agent_id: str) -> None:
    """Ask a running `memtui serve` of this agent to end (it would end when idle anyway)."""
    from ..interop.connect import call, socket_path

    with contextlib.suppress(OSError, ValueError):
        call(socket_path(agent_id), {"v": 1, "op": "stop"}, timeout=5)
