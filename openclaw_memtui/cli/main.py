"""`memtui`: parse, dispatch to the command's module, print. The TUI is the default command.

The command modules import the engine lazily, inside each command, so a keyword-only `memtui search`
never loads the embedding model or Textual. Every error reaches the user as one line on stderr with a
non-zero exit code, never a traceback.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ..errors import UserError  # re-exported: callers and tests import it from here
from .agents import cmd_agents, cmd_export_settings
from .index import cmd_index, cmd_status
from .parser import COMMANDS, build_parser, build_tui_parser, load_cfg
from .wait import gave_up

__all__ = ["UserError", "build_parser", "build_tui_parser", "load_cfg", "main", "run"]


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
    from ..engine.embeddings.blas import one_thread_at_load

    one_thread_at_load()  # before anything imports numpy: OpenBLAS reads it once, as it loads
    try:
        code = _main(argv)
        sys.stdout.flush()  # output still buffered meets the closed pipe here, inside the handler
        return code
    except BrokenPipeError:
        return _stdout_gone()


def run() -> None:
    """The `memtui` command (the console script, `python -m openclaw_memtui`): `main()`, then the process
    ends as soon as its work is done. The interpreter's teardown, module by module, was a tenth of a short
    command's CPU (6-15 ms of a 70 ms `memtui index`); it is skipped, once the exit handlers have run
    (logging, temporary folders), unless a thread is still running that the interpreter would wait for:
    then the process exits the ordinary way. Output is whole: main() flushed stdout, stderr writes
    through. Tests call `main()`."""
    import atexit
    import threading

    code = main()
    if any(not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
        raise SystemExit(code)
    atexit._run_exitfuncs()  # what the interpreter's exit would run (logging.shutdown, tempfile's cleanup)
    os._exit(code)


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

