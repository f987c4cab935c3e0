"""`memtui`: the TUI by default, and headless `index`, `status`, `search` and `eval` commands.

Imports are lazy so a keyword-only `memtui search` starts in well under 0.2 s. Every error reaches
the user as one line on stderr with a non-zero exit code, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

PROVIDER_CHOICES = ["auto", "local", "openai", "gemini", "voyage", "mistral", "ollama", "none"]


class UserError(Exception):
    """An error already phrased for the user."""


class _Parser(argparse.ArgumentParser):
    """argparse quotes a bad value with repr(), which leaves bidi overrides raw: neutralise it."""

    def error(self, message: str):  # type: ignore[override]
        from .render import safe

        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {safe(message, one_line=True)}\n")


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--workspace", "-w", metavar="DIR", help="memory workspace (default: config, ~/.openclaw/workspace, else the demo)")
    p.add_argument("--db", metavar="PATH", help="index file (default: one per workspace in the user data dir)")
    p.add_argument("--config", metavar="FILE", help="config TOML (default: user config dir; env MEMTUI_CONFIG)")
    p.add_argument("--demo", action="store_true", help="use the bundled demo workspace")
    p.add_argument("--provider", choices=PROVIDER_CHOICES, help="embedding provider (default from config: auto)")
    p.add_argument("--model", help="embedding model for the provider")
    p.add_argument("--agent", metavar="ID", help="use an OpenClaw agent's workspace, transcripts and memorySearch settings")


def _ranking_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--max-results", type=int, metavar="N")
    p.add_argument("--min-score", type=float, metavar="X")
    p.add_argument("--vector-weight", type=float, metavar="X")
    p.add_argument("--text-weight", type=float, metavar="X")
    p.add_argument("--mmr", dest="mmr", action="store_true", default=None)
    p.add_argument("--no-mmr", dest="mmr", action="store_false")
    p.add_argument("--mmr-lambda", type=float, metavar="X")
    p.add_argument("--decay", dest="decay", action="store_true", default=None)
    p.add_argument("--no-decay", dest="decay", action="store_false")
    p.add_argument("--half-life-days", type=float, metavar="X")
    p.add_argument("--fusion", choices=["openclaw", "normalized"], help="how the two legs are merged")
    p.add_argument("--time", dest="time_mode", choices=["boost", "filter", "off"],
                   help="what a time expression in the query does (default from config: boost)")


COMMANDS = ("index", "status", "search", "eval", "agents", "export-settings")


def build_tui_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="memtui", description="Browse and search an OpenClaw-style agent memory.",
        epilog="Headless commands: memtui {index,status,search,eval} --help")
    parser.add_argument("workspace_arg", nargs="?", metavar="WORKSPACE", help="workspace to open (default: config, "
                        "~/.openclaw/workspace, else the bundled demo)")
    _common(parser)
    parser.add_argument("--now", metavar="ISO", help=argparse.SUPPRESS)  # fixed clock for screenshots
    parser.set_defaults(command=None)
    return parser


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="memtui", description="Browse and search an OpenClaw-style agent memory.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("index", help="sync the workspace into the index")
    _common(p)
    p.add_argument("--force", action="store_true", help="rebuild the whole index (atomically)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--no-embed", action="store_true", help="write keyword rows only; vectors fill in on a later sync")

    p = sub.add_parser("status", help="what the index holds and whether it is stale")
    _common(p)
    p.add_argument("--json", action="store_true")
    p.add_argument("--openclaw-index", nargs="?", const="", metavar="PATH",
                   help="inspect OpenClaw's own index read-only (default: the agent's index path)")

    p = sub.add_parser("agents", help="list the OpenClaw agents with their workspaces and index paths")
    p.add_argument("--json", action="store_true")
    p.add_argument("--config", metavar="FILE", help=argparse.SUPPRESS)

    p = sub.add_parser("export-settings", help="print (or write) the memorySearch.query block for openclaw.json")
    _common(p)
    p.add_argument("--write", action="store_true", help="write it into OpenClaw's config (a backup is kept)")
    p.add_argument("--openclaw-config", metavar="FILE", help="OpenClaw config to write (default: the discovered one)")
    _ranking_flags(p)

    p = sub.add_parser("search", help="hybrid search, explained score by score")
    _common(p)
    p.add_argument("query")
    p.add_argument("--json", action="store_true")
    p.add_argument("--now", metavar="ISO", help="fixed 'now' for ages and time windows (default: real time)")
    _ranking_flags(p)

    p = sub.add_parser("eval", help="run judged queries and print recall/MRR/nDCG")
    _common(p)
    p.add_argument("--queries", required=True, metavar="FILE.jsonl")
    p.add_argument("--out", metavar="RESULTS.jsonl")
    p.add_argument("--json", action="store_true")
    p.add_argument("--now", metavar="ISO", help="fixed 'now' for time-aware ranking (default: real time)")
    _ranking_flags(p)
    return parser


# -- resolution ----------------------------------------------------------------------------------

def load_cfg(args: argparse.Namespace) -> dict[str, Any]:
    from .config import load_config

    cfg, _ = load_config(Path(args.config) if args.config else None, explicit=bool(args.config))
    return cfg


def resolve_workspace(args: argparse.Namespace, cfg: dict[str, Any]) -> tuple[Path, str]:
    from .paths import demo_workspace, openclaw_state_dir

    chosen = getattr(args, "workspace", None) or getattr(args, "workspace_arg", None)
    if args.demo:
        return demo_workspace(), "demo"
    if chosen:
        path = Path(chosen).expanduser()
        if not path.is_dir():
            raise UserError(f"workspace {path} is not a directory (pass an existing folder, or --demo)")
        return path.resolve(), "argument"
    if cfg.get("workspace"):
        path = Path(cfg["workspace"]).expanduser()
        if not path.is_dir():
            raise UserError(f"workspace {path} from the config is not a directory (fix 'workspace' in the config)")
        return path.resolve(), "config"
    openclaw = openclaw_state_dir() / "workspace"
    if openclaw.is_dir():
        return openclaw, "openclaw"
    return demo_workspace(), "demo"


def apply_agent(args: argparse.Namespace, cfg: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """With --agent, the agent's workspace, transcripts and effective memorySearch override the config."""
    agent_id = getattr(args, "agent", None)
    if not agent_id:
        return cfg, ""
    from .config import ConfigError, validate
    from .interop.agents import OpenClawError, deep_merge, find_agent, memtui_overrides

    try:
        agent = find_agent(agent_id)
    except OpenClawError as exc:
        raise UserError(str(exc)) from None
    if not Path(agent.workspace).is_dir():
        raise UserError(f"agent '{agent_id}' workspace {agent.workspace} does not exist")
    overrides = memtui_overrides(agent.memory_search) | {"workspace": agent.workspace, "sessionsDir": agent.sessions_dir}
    args.openclaw_agent = agent
    try:
        return validate(deep_merge(cfg, overrides), f"agent {agent_id}"), f"agent {agent_id}"
    except ConfigError as exc:
        raise UserError(str(exc)) from None


def open_index(args: argparse.Namespace, cfg: dict[str, Any], *, read_only: bool = False, repair: bool = False):
    """The index for a command. Only `repair` (memtui index, the app) may move an invalid file aside;
    `read_only` (status) never creates, moves or changes a file."""
    from .config import index_settings
    from .engine.index import MemoryIndex
    from .engine.store import InvalidIndex
    from .render import safe

    cfg, agent_origin = apply_agent(args, cfg)
    if agent_origin:
        args.workspace = cfg["workspace"]
    workspace, origin = resolve_workspace(args, cfg)
    origin = agent_origin or origin
    settings = index_settings(cfg, workspace, Path(args.db) if args.db else None)
    provider = args.provider or cfg["provider"]
    model = args.model if args.model is not None else cfg["model"]
    try:
        index = MemoryIndex(settings, provider, model, cfg["remote"], read_only=read_only, repair=repair,
                            notice=lambda m: print(f"memtui: {safe(m, one_line=True)}", file=sys.stderr))
    except InvalidIndex as exc:
        raise UserError(str(exc)) from None
    index.origin = origin  # type: ignore[attr-defined]
    index.cfg = cfg  # type: ignore[attr-defined]  # effective config (with an agent's settings applied)
    index.openclaw_agent = getattr(args, "openclaw_agent", None)  # type: ignore[attr-defined]
    return index


# -- commands -------------------------------------------------------------------------------------

class _ProgressLine:
    """A one-line progress display on a terminal's stderr; silent when piped."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.last = ""

    def __call__(self, p) -> None:
        from .render import safe

        if not self.enabled:
            return
        if p.total:
            width = 30
            filled = int(width * p.done / max(p.total, 1))
            line = f"{p.phase:6} [{'#' * filled}{'.' * (width - filled)}] {p.done}/{p.total} {safe(p.path, one_line=True)[-40:]}"
        else:
            line = f"{p.phase:6} {safe(p.message, one_line=True)}"
        sys.stderr.write("\r" + line.ljust(len(self.last)))
        sys.stderr.flush()
        self.last = line

    def close(self) -> None:
        if self.enabled and self.last:
            sys.stderr.write("\r" + " " * len(self.last) + "\r")


def cmd_index(args: argparse.Namespace, cfg: dict[str, Any]) -> int:
    from .render import dumps_json, safe

    index = open_index(args, cfg, repair=True)
    bar = _ProgressLine(sys.stderr.isatty() and not args.json)
    try:
        report = index.sync(force=args.force, progress=bar, embed=not args.no_embed)
    except KeyboardInterrupt:
        bar.close()
        print("memtui: index interrupted; what was written is kept and the next sync resumes", file=sys.stderr)
        return 130
    finally:
        bar.close()
    status = index.status(check_dirty=False)
    if args.json:
        print(dumps_json({"report": report.to_dict(), "status": status.to_dict()}, indent=2))
    else:
        what = f"full rebuild ({report.rebuild_reason})" if report.full_rebuild else "incremental"
        print(f"Indexed {safe(status.workspace, one_line=True)} — {what} in {report.seconds:.2f}s")
        print(f"  files: {report.files_total} seen, {report.files_indexed} indexed, {report.files_unchanged} unchanged, "
              f"{report.files_removed} removed, {report.files_skipped} skipped")
        print(f"  chunks: {status.chunks} total, {report.chunks_written} written, {status.embedded}/{status.chunks} embedded "
              f"({report.chunks_embedded} new, {report.embed_cache_hits} from cache)")
        if report.embed_error:
            print(f"  embeddings failed: {safe(report.embed_error, one_line=True)} — keyword search still works")
        print(f"  index: {safe(status.db_path, one_line=True)}")
    return 0


def cmd_status(args: argparse.Namespace, cfg: dict[str, Any]) -> int:
    if args.openclaw_index is not None:
        return cmd_openclaw_index(args, cfg)
    from .render import dumps_json, safe

    index = open_index(args, cfg, read_only=True)
    status = index.status()
    if args.json:
        print(dumps_json(status.to_dict(), indent=2))
        return 0
    print(f"Workspace:   {safe(status.workspace, one_line=True)} ({safe(getattr(index, 'origin', ''), one_line=True)})")  # origin names an --agent id
    print(f"Index:       {safe(status.db_path, one_line=True)}" + ("  (not built yet: run memtui index)" if index.store.missing else ""))
    print(f"SQLite:      {status.sqlite_version} via {status.sqlite_binding}; sqlite-vec {status.sqlite_vec_version or 'unavailable'}")
    print(f"Vectors:     {status.vector_backend}; {status.embedded}/{status.chunks} chunks embedded; dims {status.dims or '-'}")
    print(f"Provider:    {safe(status.provider, one_line=True)} / {safe(status.model, one_line=True)}" + (f"  (error: {safe(status.provider_error, one_line=True)})" if status.provider_error else ""))
    print(f"Files:       {status.files}   Chunks: {status.chunks}   Dirty: {'yes' if status.dirty else 'no'}   Last sync: {status.last_sync or 'never'}")
    for source, counts in sorted(status.sources.items()):
        print(f"  {source:9} {counts['files']} files · {counts['chunks']} chunks · {counts['embedded']} embedded")
    if status.chunk_dates:
        print("Chunk dates: " + ", ".join(f"{k} {v}" for k, v in sorted(status.chunk_dates.items())))
    if status.skipped:
        print(f"Skipped ({len(status.skipped)}):")
        for item in status.skipped:
            print(f"  {safe(item['path'], one_line=True)}: {safe(item['reason'], one_line=True)}")
    return 0


def cmd_openclaw_index(args: argparse.Namespace, cfg: dict[str, Any]) -> int:
    from .interop.agents import OpenClawError, find_agent
    from .interop.inspect_index import inspect_openclaw_index
    from .render import dumps_json, safe

    agent = None
    try:
        if args.agent or not args.openclaw_index:
            agent = find_agent(args.agent or _default_agent_id())
        path = Path(args.openclaw_index).expanduser() if args.openclaw_index else Path(agent.index_path)
        workspace = Path(agent.workspace) if agent else (Path(args.workspace).expanduser() if args.workspace else None)
        sessions = Path(agent.sessions_dir) if agent else None
        extra = list(agent.memory_search.get("extraPaths") or []) if agent else []
        report = inspect_openclaw_index(path, workspace if workspace and workspace.is_dir() else None, sessions, extra)
    except OpenClawError as exc:
        raise UserError(str(exc)) from None
    if args.json:
        print(dumps_json(report, indent=2))
        return 0
    # the meta row comes from another program's file: every value is untrusted
    meta = {k: safe(str(v), one_line=True) for k, v in report["meta"].items()}
    print(f"OpenClaw index: {safe(report['index_path'], one_line=True)} (read-only)")
    print(f"Model:          {meta.get('provider')} / {meta.get('model')} · chunks {meta.get('chunkTokens')}/{meta.get('chunkOverlap')}"
          f" · dims {meta.get('vectorDims') or '-'} · tokenizer {meta.get('ftsTokenizer') or 'unicode61'}")
    print(f"Indexed:        {report['files']} files · {report['chunks']} chunks")
    for source, c in sorted(report["sources"].items()):
        print(f"  {safe(source, one_line=True):9} {c['files']} files · {c['chunks']} chunks")
    if "stale" in report:
        print(f"Stale:          {'yes' if report['stale'] else 'no'}")
        for key, label in (("changed_since_indexed", "changed since indexed"), ("not_indexed", "on disk, never indexed"),
                           ("indexed_but_missing", "indexed, no longer on disk")):
            for item in report[key]:
                print(f"  {label}: {safe(item, one_line=True)}")
    return 0


def _default_agent_id() -> str:
    from .interop.agents import list_agents

    agents, _ = list_agents()
    return next((a.id for a in agents if a.default), agents[0].id)


def cmd_agents(args: argparse.Namespace) -> int:
    from .interop.agents import OpenClawError, list_agents
    from .paths import openclaw_state_dir
    from .render import dumps_json, safe

    try:
        agents, path = list_agents()
    except OpenClawError as exc:
        raise UserError(str(exc)) from None
    if args.json:
        print(dumps_json({"state_dir": str(openclaw_state_dir()), "config": str(path) if path else None,
                          "agents": [a.to_dict() for a in agents]}, indent=2))
        return 0
    print(f"OpenClaw state: {safe(str(openclaw_state_dir()), one_line=True)} · config: {safe(str(path or 'none found'), one_line=True)}")
    for a in agents:
        print(f"{'*' if a.default else ' '} {safe(a.id, one_line=True)}")
        print(f"    workspace  {safe(a.workspace, one_line=True)}{'' if Path(a.workspace).is_dir() else '  (missing)'}")
        print(f"    sessions   {safe(a.sessions_dir, one_line=True)}")
        print(f"    index      {safe(a.index_path, one_line=True)}{'' if Path(a.index_path).is_file() else '  (not built)'}")
    return 0


def cmd_export_settings(args: argparse.Namespace, cfg: dict[str, Any]) -> int:
    from .cli_search import params_from
    from .config import get
    from .interop.agents import OpenClawError, config_path
    from .settings_io import openclaw_json, write_openclaw_query

    cfg, _ = apply_agent(args, cfg)
    params = params_from(args, cfg)
    pool = get(cfg, "query.hybrid.candidatePool")
    print(openclaw_json(params, pool))
    if args.write:
        target = Path(args.openclaw_config).expanduser() if args.openclaw_config else config_path()
        if target is None:
            raise UserError("no OpenClaw config found to write; pass --openclaw-config FILE")
        try:
            backup = write_openclaw_query(target, params, pool, args.agent)
        except OpenClawError as exc:
            raise UserError(str(exc)) from None
        from .render import safe

        print(f"memtui: wrote memorySearch.query into {safe(str(target), one_line=True)} (backup: {safe(backup.name, one_line=True)})",
              file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser() if argv and argv[0] in COMMANDS else build_tui_parser()
    args = parser.parse_args(argv)
    try:
        from .config import ConfigError

        try:
            cfg = load_cfg(args)
        except ConfigError as exc:
            raise UserError(str(exc)) from None
        command = args.command
        if command == "index":
            return cmd_index(args, cfg)
        if command == "status":
            return cmd_status(args, cfg)
        if command == "agents":
            return cmd_agents(args)
        if command == "export-settings":
            return cmd_export_settings(args, cfg)
        if command == "search":
            from .cli_search import cmd_search

            return cmd_search(args, cfg)
        if command == "eval":
            from .cli_search import cmd_eval

            return cmd_eval(args, cfg)
        from .tui.launch import run_tui

        return run_tui(args, cfg)
    except UserError as exc:
        from .engine.scrub import scrub
        from .render import safe

        print(f"memtui: error: {safe(scrub(str(exc)), one_line=True)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # last line of defence: one line, never a traceback
        if os.environ.get("MEMTUI_DEBUG"):
            raise
        from .engine.scrub import scrub
        from .errors import describe
        from .render import safe

        print(f"memtui: error: {safe(scrub(describe(exc)), one_line=True)}", file=sys.stderr)
        return 1
