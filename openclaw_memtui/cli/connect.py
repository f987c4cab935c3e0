"""`memtui connect` and `memtui disconnect`: make memtui answer an agent's own memory_search, or stop.

The edits and their rules live in interop/connect.py; this module parses, prints every change and
every agent it affects before writing (`--dry-run` stops there), writes, has OpenClaw confirm the
agent's memory_search now resolves to memtui (undoing the write when it does not), and (connect)
builds the agent's index so its first search is answered at once.
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
    from ..interop.agents import Installation


def _say(message: str) -> None:
    from ..render import safe

    print(f"memtui: {safe(message, one_line=True)}")


def _target(args: argparse.Namespace) -> tuple[Path, Installation]:
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
                        "plugin tools); `memtui mcp` serves older ones")
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


def _plan(edit: Any, before: list[str], after: list[str], inst: Installation) -> None:
    """Every change, then every agent and who answers its memory_search once it is written."""
    from ..interop.memory_slot import BUILTIN_MEMORY_PLUGIN
    from ..render import safe

    for line in edit.changes:
        print(f"  {safe(line, one_line=True)}")
    for agent in inst.agents:
        now = "memtui" if agent.id in after else BUILTIN_MEMORY_PLUGIN
        was = "memtui" if agent.id in before else BUILTIN_MEMORY_PLUGIN
        off = f" (OpenClaw's memory search is off for it: {agent.search_disabled})" if agent.search_disabled else ""
        change = "unchanged" if now == was else f"was {was}"
        print(f"  agent {safe(agent.id, one_line=True)}: memory_search and memory_get answered by {now} ({change}){off}")


def _written(target: Path, backup: Path | None, warnings: list[str], validated: bool) -> None:
    if backup is not None:
        checked = "; `openclaw config validate` accepted it" if validated else " (not validated: --no-validate)"
        _say(f"wrote {target} (backup: {backup.name}){checked}")
    for warning in warnings:
        _say(f"OpenClaw warns: {warning}")


def _prove(target: Path, text: str, edit: Any, openclaw: str | None, folder: Path, agents: list[str]) -> None:
    """Have OpenClaw itself say the connected agents' memory_search now resolves to memtui's plugin;
    when it does not, put the config back and say why."""
    from ..interop import connect as oc
    from ..interop import memory_slot
    from ..interop.agents import OpenClawError

    if openclaw is None or not agents:
        return
    try:
        why = oc.verify_with_openclaw(openclaw, folder, agents)
    except OpenClawError as exc:
        why = str(exc)
    if not why:
        _say(f"OpenClaw confirms: {memory_slot.MEMTUI_MEMORY_PLUGIN} is loaded before memory-core and offers memory_search and "
             f"memory_get, so it answers agent(s) {', '.join(agents)}")
        return
    try:
        oc.undo_write(target, text, edit)
    except OpenClawError as exc:
        raise UserError(f"OpenClaw does not resolve memory_search to memtui ({why}), and {exc}") from None
    raise UserError(f"OpenClaw does not resolve memory_search to memtui ({why}); the change was undone, "
                    f"{target} is as it was")


def _server_entry(args: argparse.Namespace, data: dict[str, Any]) -> dict[str, Any]:
    """The plugin's `config.server`: the state's socket (the one written before, while still private),
    the command that starts `memtui serve`, its log, and the environment it needs."""
    from ..interop import connect as oc
    from ..interop import memory_slot
    from ..paths import data_dir

    config = getattr(args, "config", None) and str(Path(args.config).expanduser().resolve())
    existing = oc.json_object(oc.json_object(memory_slot.entry_of(data).get("config")).get("server")).get("socket")
    sock = oc.socket_path(existing if isinstance(existing, str) else None)
    server: dict[str, Any] = {"socket": str(sock), "command": oc.server_command(sock, config),
                              "log": str(data_dir() / "connect" / f"serve-{oc.state_key()}.log")}
    env = oc.server_env()
    if env:
        server["env"] = env
    return server


def cmd_connect(args: argparse.Namespace, cfg: AppConfig) -> int:
    from ..core.session import apply_agent
    from ..interop import connect as oc
    from ..interop import memory_slot
    from ..interop.agents import OpenClawError

    if not args.agent:
        raise UserError("pass --agent ID: the OpenClaw agent whose memory_search memtui should answer")
    target, inst = _target(args)
    cfg, _, agent = apply_agent(args.agent, cfg)  # a bad --agent: one line, before anything is written
    assert agent is not None
    if agent.search_disabled and not args.force:
        raise UserError(f"OpenClaw gives agent {agent.id} no memory search ({agent.search_disabled}); memtui answers "
                        "only what OpenClaw would, so connecting changes nothing: turn it on first (or --force to "
                        "connect now, answered once it is on); nothing was changed")
    if agent.memory_slot == "other" and not args.force:  # the slot as OpenClaw reads it, `$include`s resolved
        raise UserError(f"OpenClaw's memory slot (plugins.slots.memory) holds plugin {agent.memory_plugin!r}, not OpenClaw's "
                        f"own memory-core; nothing was changed. `memtui connect --agent {agent.id} --force` makes memtui "
                        f"answer this agent's memory_search instead of {agent.memory_plugin!r}")
    openclaw = None if args.dry_run else _openclaw(args)
    try:
        text, data = oc.read_plain_json(target)
        server = _server_entry(args, data)
        folder = oc.plugin_dir()
        oc.check_plugin_folder(folder)  # a folder someone else made: refused before anything is written
        edit = oc.connect_edit(data, agent.id, server, folder, [a.id for a in inst.agents], force=args.force)
    except OpenClawError as exc:
        raise UserError(str(exc)) from None
    before, after = memory_slot.connected_agents(data), memory_slot.connected_agents(edit.data)
    if args.dry_run:
        _say(f"--dry-run: connecting agent {agent.id} would change in {target}:" if edit.changes else
             f"--dry-run: agent {agent.id} is already connected; nothing would change in {target}")
        _plan(edit, before, after, inst)
        return 0
    _say(f"connecting agent {agent.id}: its memory_search and memory_get will answer from memtui's index, ranked with "
         f"the saved settings, beside OpenClaw's own memory; changes in {target}:" if edit.changes else
         f"agent {agent.id} is already connected: its memory_search and memory_get are answered by memtui; nothing "
         f"changes in {target}")
    _plan(edit, before, after, inst)
    try:
        folder, copied = oc.install_plugin(folder)
        if copied:
            _say(f"copied the {memory_slot.MEMTUI_MEMORY_PLUGIN} plugin into {folder} ({', '.join(copied)})")
        backup, warnings = oc.write_config(target, text, edit, openclaw)
    except OpenClawError as exc:
        raise UserError(str(exc)) from None
    _written(target, backup, warnings, openclaw is not None)
    _prove(target, text, edit, openclaw, folder, after)
    for old in edit.old_sockets:  # an older connect's per-agent servers: the new one serves them all
        _stop_server(Path(old))
    for note in edit.notes:
        _say(note)
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
    from ..interop import connect as oc
    from ..interop import memory_slot
    from ..interop.agents import OpenClawError, normalize_agent_id

    if not args.agent:
        raise UserError("pass --agent ID: the OpenClaw agent to give its own memory_search back")
    target, inst = _target(args)
    agent_id = normalize_agent_id(args.agent)
    openclaw = None if args.dry_run else _openclaw(args)
    try:
        text, data = oc.read_plain_json(target)
        edit = oc.disconnect_edit(data, agent_id)
        before, after = memory_slot.connected_agents(data), memory_slot.connected_agents(edit.data)
        if edit.old_sockets and after:  # an older connect's install, agents left: theirs becomes today's
            oc.serve_with(edit, _server_entry(args, data))
            if not args.dry_run:
                oc.install_plugin()  # the copy that reads today's config
    except OpenClawError as exc:
        raise UserError(str(exc)) from None
    if not edit.changes:
        _say(f"agent {agent_id} is not connected: OpenClaw's own memory tools answer it; nothing changed")
        return 0
    _say(f"{'--dry-run: ' if args.dry_run else ''}disconnecting agent {agent_id}: OpenClaw's own memory_search and "
         f"memory_get answer it {'would ' if args.dry_run else ''}from its next turn; changes in {target}:")
    _plan(edit, before, after, inst)
    if args.dry_run:
        return 0
    try:
        backup, warnings = oc.write_config(target, text, edit, openclaw)
    except OpenClawError as exc:
        raise UserError(str(exc)) from None
    _written(target, backup, warnings, openclaw is not None)
    for note in edit.notes:
        _say(note)
    server = oc.json_object(oc.json_object(memory_slot.entry_of(data).get("config")).get("server")).get("socket")
    for sock in ([] if after else [server]) + edit.old_sockets:  # servers no agent needs any more
        if isinstance(sock, str):
            _stop_server(Path(sock))
    return 0


def _stop_server(sock: Path) -> None:
    """Ask a running `memtui serve` on `sock` to end."""
    from ..interop.connect import call

    with contextlib.suppress(OSError, ValueError):
        call(sock, {"v": 1, "op": "stop"}, timeout=5)
