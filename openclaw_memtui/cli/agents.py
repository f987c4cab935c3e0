"""`memtui agents` and `memtui export-settings`: OpenClaw's agents as memtui sees them, and the settings
block to give back to OpenClaw."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UserError

if TYPE_CHECKING:
    from ..core.config_types import AppConfig


def default_agent_id() -> str:
    from ..interop.agents import list_agents

    agents, _ = list_agents()
    return next((a.id for a in agents if a.default), agents[0].id)


def cmd_agents(args: argparse.Namespace) -> int:
    from ..interop.agents import OpenClawError, load_installation
    from ..interop.memory_slot import memory_search_text
    from ..render import dumps_json, safe

    try:
        inst = load_installation()
    except OpenClawError as exc:
        raise UserError(str(exc)) from None
    if not inst.found:
        print(f"memtui: no OpenClaw installed at {safe(inst.state_dir, one_line=True)} (no state folder, no config); "
              "listed is the agent a new install would create — set OPENCLAW_STATE_DIR to read another", file=sys.stderr)
    if args.json:
        print(dumps_json(inst.to_dict(), indent=2))
        return 0
    version = f"OpenClaw {safe(inst.version, one_line=True)}" if inst.version else "OpenClaw version unknown"
    print(f"OpenClaw state: {safe(inst.state_dir, one_line=True)}{'' if inst.found else ' (not found)'} · "
          f"config: {safe(inst.config or 'none found', one_line=True)}"
          f" · {inst.layout} layout · {version}")
    for a in inst.agents:
        print(f"{'*' if a.default else ' '} {safe(a.id, one_line=True)}")
        print(f"    workspace    {safe(a.workspace, one_line=True)}{'' if Path(a.workspace).is_dir() else '  (missing)'}")
        if a.transcripts == "sqlite":
            print("    transcripts  live in the agent database (transcript_events); "
                  f"archives in {safe(a.sessions_dir, one_line=True)}")
        else:
            print(f"    transcripts  {safe(a.sessions_dir, one_line=True)}")
        print(f"    index        {safe(a.index_path, one_line=True)}{'' if Path(a.index_path).is_file() else '  (not built)'}")
        print(f"    agent dir    {safe(a.agent_dir, one_line=True)}")
        print(f"    sources      {', '.join(a.sources)}")
        print(f"    memory search {memory_search_text(a)}")
        extra = a.memory_search.get("extraPaths") or []
        if extra:
            print(f"    extra paths  {safe(', '.join(map(str, extra)), one_line=True)}")
    for warning in inst.warnings:
        print(f"memtui: warning: {safe(warning, one_line=True)}", file=sys.stderr)
    return 0


def cmd_export_settings(args: argparse.Namespace, cfg: AppConfig) -> int:
    from ..core.config_types import to_tree
    from ..core.session import apply_agent
    from ..interop.agents import OpenClawError, config_path, detect_layout, read_config
    from ..interop.export import build_export, write_export
    from ..paths import openclaw_state_dir
    from ..render import safe
    from .request import params_from

    cfg, _, _ = apply_agent(args.agent, cfg)
    params = params_from(args, cfg)
    pool = cfg.query.hybrid.candidate_pool
    target = config_path()
    if args.openclaw_config:
        target = Path(args.openclaw_config).expanduser()
        if not target.is_file():  # a mistyped path printed the legacy block: the wrong shape for 2026.9
            raise UserError(f"OpenClaw config {safe(str(target), one_line=True)} is not a file "
                            "(check the path, or drop --openclaw-config to use the discovered one)")
    try:
        # the shape OpenClaw accepts depends on its layout: read it from the config being targeted
        state = target.parent if target is not None else openclaw_state_dir()
        # a folder or dangling link there is read, so the error names it (OPENCLAW_CONFIG_PATH may name a file not made yet)
        layout = detect_layout(read_config(target) if target is not None and os.path.lexists(target) else {}, state)
    except OpenClawError as exc:
        raise UserError(str(exc)) from None
    # 2026.9: write only the keys given as flags (none given: both tuned values); never a value the
    # user did not ask to change
    given = {key for key, flag in (("maxResults", "max_results"), ("minScore", "min_score"))
             if getattr(args, flag, None) is not None}
    export = build_export(params, layout, pool, only=given or None, agent_id=args.agent, keyword=to_tree(cfg.query.keyword))
    print(export.to_json())
    if target is None and not args.write:
        print(f"memtui: no OpenClaw config found in {safe(str(state), one_line=True)}; printed for the {layout} layout "
              "(pass --openclaw-config FILE to shape it for another)", file=sys.stderr)
    if args.write:
        if target is None:
            raise UserError("no OpenClaw config found to write; pass --openclaw-config FILE")
        try:
            backup = write_export(target, export, args.agent)
        except OpenClawError as exc:
            raise UserError(str(exc)) from None
        where = "memory.search.query" if layout == "2026.9" else "memorySearch.query"
        scope = f"agent {args.agent}" if args.agent else "the defaults"
        if backup is None:
            print(f"memtui: {safe(str(target), one_line=True)} already gives {safe(scope, one_line=True)} these "
                  f"{where} values (set or inherited); nothing written", file=sys.stderr)
        else:
            print(f"memtui: wrote {where} for {safe(scope, one_line=True)} into {safe(str(target), one_line=True)} "
                  f"(backup: {safe(backup.name, one_line=True)})", file=sys.stderr)
    if export.not_exported:  # after the write: a failed write is the one line to read
        print(f"memtui: {safe(export.not_honoured(), one_line=True)}", file=sys.stderr)
    return 0


