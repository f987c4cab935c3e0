"""The `memtui` command line's parser: every command, its flags and their help, and the config loader."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from ..engine.settings import DEFAULT_SEARCH_PARAMS, FUSIONS, PROVIDERS, TIME_MODES
from ..version import package_version
from .wait import add_wait_flag

if TYPE_CHECKING:
    from ..core.config_types import AppConfig

PROVIDER_CHOICES = list(PROVIDERS)



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


def build_tui_parser() -> argparse.ArgumentParser:
    commands = "\n".join(f"  {name:16} {text}" for name, text in COMMAND_HELP.items())
    parser = _Parser(
        prog="memtui", description="Browse and search an OpenClaw-style agent memory.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=f"headless commands (memtui COMMAND --help):\n{commands}")
    parser.add_argument("--version", action="version", version=f"memtui {package_version()}")
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
    add_wait_flag(p)  # only for an index never built, which another process may be building
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
    p.add_argument("--all", action="store_true",
                   help="also the places only memtui returns below the agent's minScore (hidden by default)")


def _connect_parser(sub: Any) -> None:
    p = sub.add_parser("connect", help=COMMAND_HELP["connect"])
    _common(p)
    p.add_argument("--force", action="store_true",
                   help="answer the agent even when another memory plugin holds OpenClaw's memory slot")
    p.add_argument("--dry-run", action="store_true", help="print every change and every agent it affects; write nothing")
    p.add_argument("--no-index", action="store_true", help="do not build the agent's index now (its first search will)")
    p.add_argument("--no-validate", action="store_true", help="write without `openclaw config validate` (openclaw not on PATH)")


def _disconnect_parser(sub: Any) -> None:
    p = sub.add_parser("disconnect", help=COMMAND_HELP["disconnect"])
    p.add_argument("--agent", metavar="ID", help="the OpenClaw agent to disconnect")
    p.add_argument("--config", metavar="FILE", help=argparse.SUPPRESS)
    p.add_argument("--no-validate", action="store_true", help="write without `openclaw config validate` (openclaw not on PATH)")
    p.add_argument("--dry-run", action="store_true", help="print every change and every agent it affects; write nothing")


def _serve_parser(sub: Any) -> None:
    p = sub.add_parser("serve", help=COMMAND_HELP["serve"])
    _common(p)
    p.add_argument("--socket", metavar="PATH", help="unix socket to listen on (default: the one `memtui connect` wrote)")
    # --agent (from the common flags): answer that agent only; without it, every connected agent
    p.add_argument("--idle-exit", type=float, default=900.0, metavar="SECONDS",
                   help="exit after this long without a call (default 900; 0 = never)")
    p.add_argument("--request-wait", type=float, default=20.0, metavar="SECONDS",
                   help="answer 'memory unavailable' when a call waits longer than this (default 20)")
    p.add_argument("--sync-wait", type=float, default=3.0, metavar="SECONDS",
                   help="how long a search waits for the index to catch up with the files (default 3)")
    p.add_argument("--embed-wait", type=float, default=5.0, metavar="SECONDS",
                   help="how long a search waits for the provider to embed the query (default 5)")
    p.add_argument("--connection-deadline", type=float, default=None, help=argparse.SUPPRESS)  # tests: a short one


# in the order `memtui --help` has always listed them
_SUBPARSERS: dict[str, Callable[[Any], None]] = {
    "index": _index_parser, "status": _status_parser, "agents": _agents_parser,
    "export-settings": _export_settings_parser, "search": _search_parser, "mcp": _mcp_parser,
    "eval": _eval_parser, "judgements": _judgements_parser, "tune": _tune_parser, "recalls": _recalls_parser,
    "connect": _connect_parser, "disconnect": _disconnect_parser, "serve": _serve_parser,
}


# -- resolution ----------------------------------------------------------------------------------

def load_cfg(args: argparse.Namespace) -> AppConfig:
    from ..core.config import load_config

    return load_config(Path(args.config) if args.config else None, explicit=bool(args.config))


