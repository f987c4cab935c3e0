"""`memtui`: the TUI by default, and headless `index`, `status`, `search` and `eval` commands.

Imports are lazy so a keyword-only `memtui search` starts in well under 0.2 s. Every error reaches
the user as one line on stderr with a non-zero exit code, never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from ..engine.settings import DEFAULT_SEARCH_PARAMS, FUSIONS, PROVIDERS, TIME_MODES
from ..errors import UserError  # re-exported: callers and tests import it from here
from .wait import add_wait_flag, gave_up, lock_wait

PROVIDER_CHOICES = list(PROVIDERS)

__all__ = ["UserError", "build_parser", "build_tui_parser", "load_cfg", "main"]


class _Parser(argparse.ArgumentParser):
    """Errors are one line with a hint (not eight lines of usage), and argparse's repr() of a bad
    value, which leaves bidi overrides raw, is neutralised."""

    def error(self, message: str) -> NoReturn:
        from ..render import safe

        self.exit(2, f"{self.prog}: error: {safe(message, one_line=True)} (see: {self.prog} --help)\n")


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--workspace", "-w", metavar="DIR",
                   help="memory workspace (default: the config's, else an installed OpenClaw's default agent, "
                        "else ~/.openclaw/workspace, else the demo)")
    p.add_argument("--db", metavar="PATH", help="index file (default: one per workspace in the user data dir)")
    p.add_argument("--config", metavar="FILE", help="config TOML (default: user config dir; env MEMTUI_CONFIG)")
    p.add_argument("--demo", action="store_true", help="use the bundled demo workspace")
    p.add_argument("--provider", choices=PROVIDER_CHOICES,
                   help="embedding provider (default: the config's `provider`, else the agent's openclaw.json, else local: "
                        "the offline model; a remote one only when named; auto = a remote one whose key is set)")
    p.add_argument("--model", help="embedding model for the provider")
    p.add_argument("--agent", metavar="ID", help="use an OpenClaw agent's workspace, transcripts and memory search settings")


def _ranking_flags(p: argparse.ArgumentParser) -> None:
    """The ranking flags. Each overrides the config's value for this run; the default named is
    memtui's shipped one (engine.settings), which the config's [query] keys replace."""
    d = DEFAULT_SEARCH_PARAMS

    def shipped(text: str, value: object) -> str:
        return f"{text} (default: the config's, else {value})"

    p.add_argument("--max-results", type=int, metavar="N", help=shipped("how many results at most", d.max_results))
    p.add_argument("--min-score", type=float, metavar="X",
                   help=shipped("drop results scoring below X (0..1; keyword hits may fill spare slots)", d.min_score))
    p.add_argument("--vector-weight", type=float, metavar="X", help=shipped("weight of the vector leg", d.vector_weight))
    p.add_argument("--text-weight", type=float, metavar="X", help=shipped("weight of the keyword (BM25) leg", d.text_weight))
    p.add_argument("--mmr", dest="mmr", action="store_true", default=None,
                   help=shipped("diversify results with MMR", "on" if d.mmr else "off"))
    p.add_argument("--no-mmr", dest="mmr", action="store_false", help="no MMR diversification")
    p.add_argument("--mmr-lambda", type=float, metavar="X",
                   help=shipped("MMR's balance: 1 = relevance only, 0 = diversity only", d.mmr_lambda))
    p.add_argument("--decay", dest="decay", action="store_true", default=None,
                   help=shipped("older dated notes score less (temporal decay)", "on" if d.decay else "off"))
    p.add_argument("--no-decay", dest="decay", action="store_false", help="no temporal decay")
    p.add_argument("--half-life-days", type=float, metavar="X",
                   help=shipped("with decay: days after which a note's score is halved", f"{d.half_life_days:g}"))
    p.add_argument("--fusion", choices=FUSIONS, help=shipped("how the two legs are merged", d.fusion))
    p.add_argument("--line-weight", type=float, metavar="X",
                   help=shipped("share of the keyword score from a chunk's best-matching line (0 = whole chunk only)",
                                d.line_weight))
    p.add_argument("--overlap-penalty", type=float, metavar="X",
                   help=shipped("push down a result repeating lines of a higher one from the same file (0 = never)",
                                d.overlap_penalty))
    p.add_argument("--time", dest="time_mode", choices=TIME_MODES,
                   help="what a time expression in the query does (default: the config's query.time.mode, boost when unset)")


# every headless command with its one-line purpose: the subparsers and the app's --help both list them
COMMAND_HELP = {
    "index": "sync the workspace into the index",
    "status": "what the index holds and whether it is stale",
    "search": "hybrid search, explained score by score",
    "eval": "run judged queries and print recall/MRR/nDCG",
    "judgements": "import, export or list the judged questions stored for an index",
    "tune": "suggest ranking settings from the judgements (cross-validated)",
    "recalls": "the agent's own memory searches: what OpenClaw returned beside memtui's ranking",
    "agents": "list the OpenClaw agents: layout, workspaces, transcripts, index paths",
    "export-settings": "print (or --write) the tuned settings in the block openclaw.json accepts",
    "mcp": "serve memory_search and memory_get to agents over MCP (stdio), ranked as you tuned",
    "connect": "make an OpenClaw agent's own memory_search answer from memtui (its memory plugin slot)",
    "disconnect": "give an OpenClaw agent its own memory_search back (undo `memtui connect`)",
    "serve": "answer the memtui-memory OpenClaw plugin on a unix socket (started by the plugin)",
}
COMMANDS = tuple(COMMAND_HELP)

MCP_DESCRIPTION = """\
A Model Context Protocol server on stdin/stdout for OpenClaw, Claude Code or any MCP client.
Tools: memory_search (query, maxResults, minScore), ranked with the settings saved in memtui,
and memory_get (path, from, lines), which reads only this workspace's memory files, transcripts
and extra paths. Nothing but protocol goes to stdout; logs go to stderr.

  openclaw mcp add memtui --command memtui --arg mcp --arg --agent --arg main
  claude mcp add memtui -- memtui mcp --agent main"""


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("openclaw-memtui")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown"


def build_tui_parser() -> argparse.ArgumentParser:
    commands = "\n".join(f"  {name:16} {text}" for name, text in COMMAND_HELP.items())
    parser = _Parser(
        prog="memtui", description="Browse and search an OpenClaw-style agent memory.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=f"headless commands (memtui COMMAND --help):\n{commands}")
    parser.add_argument("--version", action="version", version=f"memtui {_version()}")
    parser.add_argument("workspace_arg", nargs="?", metavar="WORKSPACE", help="workspace to open (default: the config's, "
                        "else an installed OpenClaw's default agent, else ~/.openclaw/workspace, else the bundled demo)")
    _common(parser)
    parser.add_argument("--now", metavar="ISO", help=argparse.SUPPRESS)  # fixed clock for screenshots
    parser.set_defaults(command=None)
    return parser


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The headless commands' parser; `only` builds just that command's subparser (what a run of it
    parses: building every subparser is a noticeable share of a short command like `memtui status`)."""
    parser = _Parser(prog="memtui", description="Browse and search an OpenClaw-style agent memory.")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, add in _SUBPARSERS.items():
        if only is None or only == name:
            add(sub)
    return parser


def _index_parser(sub: Any) -> None:
    p = sub.add_parser("index", help=COMMAND_HELP["index"])
    _common(p)
    add_wait_flag(p)
    p.add_argument("--force", action="store_true", help="rebuild the whole index (atomically)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--no-embed", action="store_true", help="write keyword rows only; vectors fill in on a later sync")
    p.add_argument("--check-files", action="store_true",
                   help="read and hash every file, not only those whose mtime or size changed (finds an edit "
                        "whose old mtime was put back: touch -d, rsync -t, cp -p)")


def _status_parser(sub: Any) -> None:
    p = sub.add_parser("status", help=COMMAND_HELP["status"])
    _common(p)
    p.add_argument("--json", action="store_true")
    p.add_argument("--check-files", action="store_true",
                   help="read every file and compare its content hash for the dirty flag, as OpenClaw does on "
                        "every sync (by default files are stat-ed: an index of more than 10,000 files for 15 ms, "
                        "the flag 'unknown' if no change turned up by then; an edit that kept the size and put "
                        "the old mtime back is seen only by this)")
    p.add_argument("--openclaw-index", nargs="?", const="", metavar="PATH",
                   help="inspect OpenClaw's own index read-only (default: the agent's index path)")


def _agents_parser(sub: Any) -> None:
    p = sub.add_parser("agents", help=COMMAND_HELP["agents"])
    p.add_argument("--json", action="store_true")
    p.add_argument("--config", metavar="FILE", help=argparse.SUPPRESS)


def _export_settings_parser(sub: Any) -> None:
    p = sub.add_parser("export-settings", help=COMMAND_HELP["export-settings"])
    _common(p)
    p.add_argument("--write", action="store_true", help="write it into OpenClaw's config (a backup is kept)")
    p.add_argument("--openclaw-config", metavar="FILE", help="OpenClaw config to write (default: the discovered one)")
    _ranking_flags(p)


def _search_parser(sub: Any) -> None:
    p = sub.add_parser("search", help=COMMAND_HELP["search"])
    _common(p)
    p.add_argument("query")
    p.add_argument("--json", action="store_true")
    p.add_argument("--now", metavar="ISO", help="fixed 'now' for ages and time windows (default: real time)")
    _ranking_flags(p)


def _mcp_parser(sub: Any) -> None:
    p = sub.add_parser("mcp", help=COMMAND_HELP["mcp"], description=MCP_DESCRIPTION,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    _common(p)
    p.add_argument("--sync-wait", type=float, default=5.0, metavar="SECONDS",
                   help="how long a search waits for the index to catch up with the files (default 5)")
    p.add_argument("--embed-wait", type=float, default=10.0, metavar="SECONDS",
                   help="how long a search waits for the provider to embed the query before answering "
                        "keyword-only (default 10)")
    p.add_argument("--serve-disabled", action="store_true",
                   help="serve an agent even though OpenClaw gives it no memory search (memory.search.enabled "
                        "false, or plugins.slots.memory \"none\" or another plugin); refused without it")


def _eval_parser(sub: Any) -> None:
    p = sub.add_parser("eval", help=COMMAND_HELP["eval"])
    _common(p)
    p.add_argument("--queries", metavar="FILE.jsonl", help="judged queries (default: the judgements stored for the index)")
    p.add_argument("--out", metavar="RESULTS.jsonl")
    p.add_argument("--json", action="store_true")
    p.add_argument("--now", metavar="ISO", help="fixed 'now' for time-aware ranking (default: real time)")
    add_wait_flag(p)
    _ranking_flags(p)


def _judgements_parser(sub: Any) -> None:
    p = sub.add_parser("judgements", help=COMMAND_HELP["judgements"])
    actions = p.add_subparsers(dest="action", required=True)
    a = actions.add_parser("import", help="add the questions of a `memtui eval` queries file")
    _common(a)
    a.add_argument("file", metavar="FILE.jsonl")
    a.add_argument("--replace", action="store_true", help="replace the stored judgements instead of adding to them")
    a = actions.add_parser("export", help="print them as a `memtui eval` queries file")
    _common(a)
    a.add_argument("--out", metavar="FILE.jsonl", help="write to a file (0600) instead of stdout")
    a = actions.add_parser("list", help="one line per judged question, stale targets counted")
    _common(a)
    a.add_argument("--json", action="store_true")


def _tune_parser(sub: Any) -> None:
    p = sub.add_parser("tune", help=COMMAND_HELP["tune"])
    _common(p)
    p.add_argument("--json", action="store_true")
    p.add_argument("--save", action="store_true", help="write the suggested settings to the config (only if better)")
    p.add_argument("--folds", type=int, default=5, metavar="K", help="cross-validation folds (default 5)")
    p.add_argument("--now", metavar="ISO", help="fixed 'now' for ages and time windows (default: real time)")
    add_wait_flag(p)
    _ranking_flags(p)


def _recalls_parser(sub: Any) -> None:
    p = sub.add_parser("recalls", help=COMMAND_HELP["recalls"])
    _common(p)
    p.add_argument("--json", action="store_true")
    p.add_argument("--since", metavar="DATE", help="only searches on or after this date (2026-11-30 or an ISO time)")
    p.add_argument("--limit", type=int, metavar="N", help="at most N queries (newest first; default 20)")
    p.add_argument("--now", metavar="ISO", help="fixed 'now' for ages and time windows (default: real time)")


def _connect_parser(sub: Any) -> None:
    p = sub.add_parser("connect", help=COMMAND_HELP["connect"])
    _common(p)
    p.add_argument("--force", action="store_true", help="take the memory slot even when another plugin holds it")
    p.add_argument("--no-index", action="store_true", help="do not build the agent's index now (its first search will)")
    p.add_argument("--no-validate", action="store_true", help="write without `openclaw config validate` (openclaw not on PATH)")


def _disconnect_parser(sub: Any) -> None:
    p = sub.add_parser("disconnect", help=COMMAND_HELP["disconnect"])
    p.add_argument("--agent", metavar="ID", help="the OpenClaw agent to disconnect")
    p.add_argument("--config", metavar="FILE", help=argparse.SUPPRESS)
    p.add_argument("--no-validate", action="store_true", help="write without `openclaw config validate` (openclaw not on PATH)")


def _serve_parser(sub: Any) -> None:
    p = sub.add_parser("serve", help=COMMAND_HELP["serve"])
    _common(p)
    p.add_argument("--socket", metavar="PATH", help="unix socket to listen on (default: the one `memtui connect` wrote)")
    p.add_argument("--idle-exit", type=float, default=900.0, metavar="SECONDS",
                   help="exit after this long without a call (default 900; 0 = never)")
    p.add_argument("--request-wait", type=float, default=20.0, metavar="SECONDS",
                   help="answer 'memory unavailable' when a call waits longer than this (default 20)")
    p.add_argument("--sync-wait", type=float, default=3.0, metavar="SECONDS",
                   help="how long a search waits for the index to catch up with the files (default 3)")
    p.add_argument("--embed-wait", type=float, default=5.0, metavar="SECONDS",
                   help="how long a search waits for the provider to embed the query (default 5)")


# in the order `memtui --help` has always listed them
_SUBPARSERS: dict[str, Callable[[Any], None]] = {
    "index": _index_parser, "status": _status_parser, "agents": _agents_parser,
    "export-settings": _export_settings_parser, "search": _search_parser, "mcp": _mcp_parser,
    "eval": _eval_parser, "judgements": _judgements_parser, "tune": _tune_parser, "recalls": _recalls_parser,
    "connect": _connect_parser, "disconnect": _disconnect_parser, "serve": _serve_parser,
}


# -- resolution ----------------------------------------------------------------------------------

def load_cfg(args: argparse.Namespace) -> dict[str, Any]:
    from ..core.config import load_config

    cfg, _ = load_config(Path(args.config) if args.config else None, explicit=bool(args.config))
    return cfg


# -- commands -------------------------------------------------------------------------------------

class _ProgressLine:
    """A one-line progress display on a terminal's stderr; silent when piped."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.last = ""

    def __call__(self, p) -> None:
        from ..render import safe

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
    from ..core.session import open_session
    from ..render import dumps_json, safe

    waiting = lock_wait(args)
    index = open_session(args, cfg, repair=True).index  # closed by main() when the command ends
    if index.provider is None and index.provider_error:
        # refused before the sync: without it the index was silently rebuilt keyword-only (its identity
        # has no model then), dropping the vectors of the provider the config names
        raise UserError(f"the embedding provider cannot be made: {index.provider_error}; nothing was indexed "
                        "(fix the config, or pass --provider none for a keyword-only index)")
    bar = _ProgressLine(sys.stderr.isatty() and not args.json)
    try:
        report = index.sync(force=args.force, progress=bar, embed=not args.no_embed, verify_dims=True,
                            check_files=args.check_files, **waiting)
        assert report is not None  # wait=True: it waits (bounded) for another process's sync, never returns None
    except KeyboardInterrupt:
        bar.close()
        print("memtui: index interrupted; what was written is kept and the next sync resumes", file=sys.stderr)
        return 130
    finally:
        bar.close()
    try:
        vector_file = _save_vector_file(index, report, not args.no_embed, bar.enabled)
    except KeyboardInterrupt:  # the sync is done and kept; only the file the app maps at launch is missing
        print("memtui: interrupted while saving the vector matrix; the index is complete and the app "
              "builds the matrix at launch (or run `memtui index` again)", file=sys.stderr)
        return 130
    status = index.status(check_dirty=False)
    if args.json:
        print(dumps_json({"report": report.to_dict(), "status": status.to_dict(), "vector_file": vector_file}, indent=2))
    else:
        what = f"full rebuild ({report.rebuild_reason})" if report.full_rebuild else "incremental"
        print(f"Indexed {safe(status.workspace, one_line=True)} — {what} in {report.seconds:.2f}s")
        print(f"  files: {report.files_total} seen, {report.files_indexed} indexed, {report.files_unchanged} unchanged, "
              f"{report.files_removed} removed, {report.files_skipped} skipped")
        print(f"  chunks: {status.chunks} total, {report.chunks_written} written, {status.embedded}/{status.chunks} embedded "
              f"({report.chunks_embedded} new, {report.embed_cache_hits} from cache)")
        if report.openclaw_cache_reused:
            print(f"  vectors: reused {report.openclaw_cache_reused} from OpenClaw's cache, "
                  f"fetched {report.embeddings_fetched} from {safe(status.provider, one_line=True)}")
        if report.vectors_reset:
            print(f"  vectors: {safe(report.vectors_reset, one_line=True)}")
        if report.embed_error:
            print(f"  embeddings failed: {safe(report.embed_error, one_line=True)} — keyword search still works")
        if vector_file["saved"]:
            print(f"  vector matrix: saved beside the index in {vector_file['seconds']:.1f}s (the app maps it at launch)")
        elif vector_file["problem"]:
            print(f"  vector matrix: not saved: {safe(vector_file['problem'], one_line=True)} — the app builds it at launch")
        print(f"  index: {safe(status.db_path, one_line=True)}")
    return 0


def _save_vector_file(index: Any, report: Any, wanted: bool, on_terminal: bool) -> dict[str, Any]:
    """After a completed sync of a large index, save its vector matrix file, so the app's first start
    maps it instead of building it from SQLite (far slower at a large size, searching sqlite-vec
    meanwhile; docs/benchmarks.md has the figures). Nothing to do for a small index or when a file of
    this index is there already."""
    import time

    if not wanted or report.cancelled or report.embed_error or not index.lacks_vector_file():
        return {"saved": False, "seconds": 0.0, "problem": ""}
    if on_terminal:
        sys.stderr.write("vectors: saving the matrix file the app maps at launch…")
        sys.stderr.flush()
    started = time.perf_counter()
    try:
        saved = index.save_vector_file()
    finally:
        if on_terminal:
            sys.stderr.write("\r" + " " * 60 + "\r")
    problem = "" if saved else index.vector_searcher.save_problem
    return {"saved": saved, "seconds": time.perf_counter() - started, "problem": problem}


def cmd_status(args: argparse.Namespace, cfg: dict[str, Any]) -> int:
    if args.openclaw_index is not None:
        return cmd_openclaw_index(args, cfg)
    from ..core.session import open_session
    from ..engine.index import STATUS_DIRTY_BUDGET_S
    from ..interop.agents import memory_search_text
    from ..render import dumps_json, safe

    session = open_session(args, cfg, read_only=True)
    index, agent = session.index, session.agent
    status = index.status(dirty_budget_s=None if args.check_files else STATUS_DIRTY_BUDGET_S,
                          check_hashes=args.check_files)
    openclaw = _openclaw_summary(agent) if agent is not None else None
    if args.json:
        print(dumps_json(status.to_dict() | ({"openclaw": openclaw} if openclaw else {}), indent=2))
        return 0
    # the origin names an --agent id: escaped like any other untrusted text
    print(f"Workspace:   {safe(status.workspace, one_line=True)} ({safe(session.origin, one_line=True)})")
    if openclaw and agent is not None:
        where = ("live in its database" if agent.transcripts == "sqlite" else safe(agent.sessions_dir, one_line=True))
        print(f"OpenClaw:    agent {safe(agent.id, one_line=True)} · {openclaw['layout']} layout · "
              f"OpenClaw {safe(str(openclaw['version'] or 'unknown'), one_line=True)} · transcripts {where}")
        print(f"Memory:      {safe(memory_search_text(agent), one_line=True)}")
    not_built = "  (not built yet: run memtui index)" if index.store.missing else ""
    print(f"Index:       {safe(status.db_path, one_line=True)}{not_built}")
    print(f"SQLite:      {status.sqlite_version} via {status.sqlite_binding}; "
          f"sqlite-vec {status.sqlite_vec_version or 'unavailable'}")
    print(f"Vectors:     {status.vector_backend}; {status.embedded}/{status.chunks} chunks embedded; dims {status.dims or '-'}")
    if status.openclaw_cache_reused:
        print(f"             reused {status.openclaw_cache_reused} vectors from OpenClaw's cache (not paid again)")
    provider_error = f"  (error: {safe(status.provider_error, one_line=True)})" if status.provider_error else ""
    from ..engine.embeddings.choice import where_embedded

    print(f"Provider:    {safe(status.provider, one_line=True)} / {safe(status.model, one_line=True)}"
          f" ({where_embedded(status.provider)}){provider_error}")
    if status.fallback:
        from ..engine.embeddings.choice import describe_fallback

        print(f"Fallback:    {safe(describe_fallback(status.fallback), one_line=True)}")
    print(f"Files:       {status.files}   Chunks: {status.chunks}   Dirty: {dirty_text(status)}   "
          f"Last sync: {status.last_sync or 'never'}")
    for source, counts in sorted(status.sources.items()):
        print(f"  {source:9} {counts['files']} files · {counts['chunks']} chunks · {counts['embedded']} embedded")
    if status.integrity:
        print(f"Integrity:   {integrity_line(status.integrity)}")
    if status.chunk_dates:
        from ..engine.models import describe_chunk_dates

        print("Chunk dates: " + describe_chunk_dates(status.chunk_dates))
    if status.skipped:
        print(f"Skipped ({len(status.skipped)}):")
        for item in status.skipped:
            print(f"  {safe(item['path'], one_line=True)}: {safe(item['reason'], one_line=True)}")
    return 0


def dirty_text(status: Any) -> str:
    if status.dirty is not None:
        return "yes" if status.dirty else "no"
    check = status.dirty_check
    return (f"unknown (no change among {check['checked']:,} of {check['indexed']:,} files checked; "
            "--check-files checks them all)")


def integrity_line(report: dict[str, Any]) -> str:
    from ..engine.store import describe_integrity

    return describe_integrity(report)


def _openclaw_summary(agent: Any) -> dict[str, Any]:
    """Which OpenClaw layout and version an agent comes from: the config's, else its database's."""
    from ..interop.agents import OpenClawError, load_installation

    version = None
    with contextlib.suppress(OpenClawError):
        version = load_installation().version
    if version is None and agent.transcripts == "sqlite" and Path(agent.index_path).is_file():
        from ..engine.openclaw_db import OpenClawDbError, read_consistent, schema_meta

        with contextlib.suppress(OpenClawDbError):
            version = read_consistent(Path(agent.index_path), schema_meta).get("app_version")
    return {"agent": agent.id, "layout": agent.layout, "version": version, "index_path": agent.index_path,
            "transcripts": agent.transcripts, "sources": agent.sources, "memorySlot": agent.memory_slot,
            "memoryPlugin": agent.memory_plugin, "searchDisabled": agent.search_disabled or None,
            "connected": agent.connected}


def cmd_openclaw_index(args: argparse.Namespace, cfg: dict[str, Any]) -> int:
    from ..interop.agents import OpenClawError, find_agent
    from ..interop.inspect_index import inspect_openclaw_index
    from ..render import dumps_json, safe

    agent = None
    try:
        if args.agent or not args.openclaw_index:
            agent = find_agent(args.agent or _default_agent_id())
        if args.openclaw_index:
            path = Path(args.openclaw_index).expanduser()
        else:
            assert agent is not None  # found just above: no explicit path means the agent's index
            path = Path(agent.index_path)
        workspace = Path(agent.workspace) if agent else (Path(args.workspace).expanduser() if args.workspace else None)
        report = inspect_openclaw_index(path, agent, workspace if workspace and workspace.is_dir() else None)
    except OpenClawError as exc:
        raise UserError(str(exc)) from None
    if args.json:
        print(dumps_json(report, indent=2))
        return 0
    # the meta row comes from another program's file: every value is untrusted
    meta = {k: safe(str(v), one_line=True) for k, v in report["meta"].items()}
    version = safe(str(report.get("openclaw_version") or "unknown"), one_line=True)
    print(f"OpenClaw index: {safe(report['index_path'], one_line=True)} (read-only; {report['layout']} layout, "
          f"written by OpenClaw {version})")
    if not report.get("built"):
        print("Indexed:        nothing yet (run `openclaw memory index` to build OpenClaw's index)")
    print(f"Model:          {meta.get('provider')} / {meta.get('model')} · "
          f"chunks {meta.get('chunkTokens')}/{meta.get('chunkOverlap')}"
          f" · dims {meta.get('vectorDims') or '-'} · tokenizer {meta.get('ftsTokenizer') or 'unicode61'}")
    print(f"Indexed:        {report['files']} files · {report['chunks']} chunks"
          + (f" · {report['live_sessions']} live transcript(s) in the database" if report.get("live_sessions") else ""))
    for source, c in sorted(report["sources"].items()):
        print(f"  {safe(source, one_line=True):9} {c['files']} files · {c['chunks']} chunks")
    if "stale" in report:
        print(f"Stale:          {'yes' if report['stale'] else 'no'}")
        if report.get("scope_changed"):
            print("  index scope changed: OpenClaw built it for other extra paths or multimodal settings "
                  "and will rebuild it (`openclaw memory index`)")
        for key, label in (("changed_since_indexed", "changed since indexed"), ("not_indexed", "on disk, never indexed"),
                           ("indexed_but_missing", "indexed, no longer on disk")):
            for item in report[key]:
                print(f"  {label}: {safe(item, one_line=True)}")
        for item in report.get("forgotten") or []:
            print(f"  forgotten (openclaw memory forget; memtui neither indexes nor serves it): {safe(item, one_line=True)}")
    return 0


def _default_agent_id() -> str:
    from ..interop.agents import list_agents

    agents, _ = list_agents()
    return next((a.id for a in agents if a.default), agents[0].id)


def cmd_agents(args: argparse.Namespace) -> int:
    from ..interop.agents import OpenClawError, load_installation, memory_search_text
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


def cmd_export_settings(args: argparse.Namespace, cfg: dict[str, Any]) -> int:
    from ..core.config import get
    from ..core.session import apply_agent
    from ..interop.agents import OpenClawError, config_path, detect_layout, read_config
    from ..interop.export import build_export, write_export
    from ..paths import openclaw_state_dir
    from ..render import safe
    from .search import params_from

    cfg, _, _ = apply_agent(args, cfg)
    params = params_from(args, cfg)
    pool = get(cfg, "query.hybrid.candidatePool")
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
    export = build_export(params, layout, pool, only=given or None, agent_id=args.agent, keyword=cfg["query"]["keyword"])
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


# 128 + SIGPIPE: what a Unix tool killed by a closed pipe reports (`memtui search … | head -1`)
EXIT_BROKEN_PIPE = 141


def _stdout_gone() -> int:
    """The reader of our output went away: stop quietly, as Unix tools do.

    stdout is pointed at /dev/null so the interpreter's last flush at exit cannot raise again.
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # stdout replaced by a non-file (tests) or closed
        pass
    return EXIT_BROKEN_PIPE


def main(argv: list[str] | None = None) -> int:
    try:
        code = _main(argv)
        sys.stdout.flush()  # output still buffered meets the closed pipe here, inside the handler
        return code
    except BrokenPipeError:
        return _stdout_gone()


def _mistyped_command(word: str) -> str | None:
    """The command `word` was probably meant to be (`serch` → `search`), when it is not a folder: a
    first word that is no command is read as the workspace, and "workspace serch is not a directory"
    or "unrecognized arguments: foo" does not tell a newcomer what went wrong."""
    import difflib

    if word.startswith("-") or Path(word).expanduser().exists():
        return None
    match = difflib.get_close_matches(word.lower(), COMMANDS, n=1, cutoff=0.6)
    return match[0] if match else None


# the app's options that take a value: the word after one is that value, never a command
_VALUE_OPTIONS = {"--workspace", "-w", "--db", "--config", "--provider", "--model", "--agent"}


def _command_after_options(argv: list[str]) -> int | None:
    """Where a command stands after the app's options (`memtui --db x status`), or None. Parsed as the
    app, the command became its WORKSPACE ("workspace status is not a directory") or the words after
    it were "unrecognized arguments": neither said that options go after the command."""
    for i, word in enumerate(argv):
        if word.startswith("-") or (i and argv[i - 1] in _VALUE_OPTIONS):
            continue
        return i if word in COMMANDS and not Path(word).exists() else None
    return None


def _main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] not in COMMANDS and (meant := _mistyped_command(argv[0])) is not None:
        from ..render import safe

        print(f"memtui: error: unknown command {safe(argv[0], one_line=True)!r}: did you mean `memtui {meant}`? "
              "(see: memtui --help)", file=sys.stderr)
        return 2
    if argv and argv[0] not in COMMANDS and (at := _command_after_options(argv)) is not None:
        from ..render import safe

        moved = [argv[at], *argv[:at], *argv[at + 1:]]
        print(f"memtui: error: options go after the command: `memtui {safe(' '.join(moved), one_line=True)}` "
              "(see: memtui --help)", file=sys.stderr)
        return 2
    parser = build_parser(argv[0]) if argv and argv[0] in COMMANDS else build_tui_parser()
    args = parser.parse_args(argv)
    if getattr(args, "command", None) == "search" and not args.query.strip():
        # an empty query has nothing to search for (the app browses instead): a usage error, as argparse's
        parser.error("the query is empty: give words to search for (memtui with no command browses the memory)")
    try:
        from ..core.config import ConfigError

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
            from .search import cmd_search

            return cmd_search(args, cfg)
        if command == "eval":
            from .search import cmd_eval

            return cmd_eval(args, cfg)
        if command in ("judgements", "tune"):
            from .tune import cmd_judgements, cmd_tune

            return cmd_tune(args, cfg) if command == "tune" else cmd_judgements(args, cfg)
        if command == "recalls":
            from .recalls import cmd_recalls

            return cmd_recalls(args, cfg)
        if command == "mcp":
            from ..mcp.server import cmd_mcp

            return cmd_mcp(args, cfg)
        if command in ("connect", "disconnect"):
            from .connect import cmd_connect, cmd_disconnect

            return cmd_connect(args, cfg) if command == "connect" else cmd_disconnect(args, cfg)
        if command == "serve":
            from ..plugin.server import cmd_serve

            return cmd_serve(args, cfg)
        from ..tui.launch import run_tui

        return run_tui(args, cfg)
    except UserError as exc:
        from ..engine.scrub import scrub
        from ..render import safe

        print(f"memtui: error: {safe(scrub(str(exc)), one_line=True)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return _stdout_gone()
    except Exception as exc:  # last line of defence: one line (MEMTUI_DEBUG=1: the traceback), scrubbed
        from ..engine.store import SyncLockTimeout

        if isinstance(exc, SyncLockTimeout):  # another process's sync outlasted --wait: try again later
            return gave_up(exc)
        from ..errors import crash_report

        sys.stderr.write(crash_report(exc))
        return 1
    finally:
        session = sys.modules.get("openclaw_memtui.core.session")  # loaded only by commands that open one
        if session is not None:
            session.close_opened_sessions()
