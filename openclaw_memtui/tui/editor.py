"""Open a result in the user's editor at its first line, and say what an empty workspace looks for."""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

from ..engine.settings import IndexSettings
from ..errors import describe
from ..render import safe

if TYPE_CHECKING:
    from textual.app import App

    from ..engine.search.rank import Result
    from .app import MemtuiApp
    from .search_screen import MainScreen

# editors that take `+LINE file`; others get the file alone, or their own form below
PLUS_LINE = {"vi", "vim", "nvim", "nano", "emacs", "emacsclient", "micro", "kak", "ne", "joe", "mg", "jed", "view"}
COLON_LINE = {"hx", "helix"}  # file:line
GOTO_LINE = {"code", "codium", "subl", "zed"}  # -g / --goto file:line (subl and zed take file:line)


def editor_command(editor: str, path: Path, line: int) -> list[str]:
    """The command that opens `path` at `line` in `editor` ($VISUAL or $EDITOR, may hold arguments and
    quotes); ValueError when its quotes do not pair."""
    words = shlex.split(editor) or ["vi"]
    name = Path(words[0]).name
    if name in PLUS_LINE:
        return [*words, f"+{line}", str(path)]
    if name in COLON_LINE or name in ("subl", "zed"):
        return [*words, f"{path}:{line}"]
    if name in GOTO_LINE:
        return [*words, "--goto", f"{path}:{line}"]
    return [*words, str(path)]


def chosen_editor() -> tuple[str, str]:
    """(the variable it came from, the editor): $VISUAL, else $EDITOR, else vi; an empty or blank one
    is skipped, as if unset (shlex makes no command of it)."""
    for variable in ("VISUAL", "EDITOR"):
        value = os.environ.get(variable, "")
        if value.strip():
            return variable, value
    return "EDITOR", "vi"


def editable_path(settings: IndexSettings, path: str, source: str) -> Path | None:
    """The file on disk behind an indexed path; None for a transcript kept in OpenClaw's database."""
    if source == "sessions":
        if settings.sessions_dir is None:
            return None
        target = settings.sessions_dir / path.removeprefix(settings.sessions_prefix + "/")
    else:
        target = (settings.workspace / path).resolve()
    return target if target.is_file() else None


def empty_workspace_text(settings: IndexSettings) -> str:
    """What an index with no files looks for, and where."""
    from ..core.session import memory_wanted, workspace_hint

    hint = workspace_hint(settings)
    return (f"No memory files in {settings.workspace}." + (f"\n\n{hint}" if hint else "")  # the likely fix first
            + f"\n\nmemtui indexes {memory_wanted(settings)}.\nPass another folder (memtui PATH, or --agent ID), or try --demo.")


def open_in_editor(app: MemtuiApp, screen: MainScreen, result: Result | None, line: int | None = None) -> bool:
    """Open `result` in $VISUAL / $EDITOR at its first line, or at `line` (the file view's find), with
    `app.run_editor`, each failure said in a toast; True once the editor ran (the file may have changed)."""
    if result is None:
        screen.nothing_selected("open")
        return False
    target = editable_path(app.index.settings, result.path, result.source)
    if target is None:
        app.notify("This result is not a file on disk (a transcript kept in OpenClaw's database)",
                   severity="warning", markup=False)
        return False
    variable, editor = chosen_editor()
    shown = safe(repr(editor), one_line=True)
    try:
        command = editor_command(editor, target, line or result.start_line)
    except ValueError as exc:  # shlex: an unbalanced quote
        app.notify(f"${variable} {shown} cannot be split into a command ({exc}): fix its quotes", severity="error",
                   markup=False)
        return False
    try:
        code = app.run_editor(command)
    except Exception as exc:  # not found, not executable, no terminal to suspend to: the app is back either way
        app.notify(f"Could not run the editor {shown} (${variable}): {safe(describe(exc), False)}; "
                   "set $VISUAL or $EDITOR to an editor on your PATH", severity="error", markup=False)
        return False
    if code:
        how = f"was stopped by signal {-code}" if code < 0 else f"exited with status {code}"
        app.notify(safe(f"The editor {editor!r} (${variable}) {how}", one_line=True), severity="warning", markup=False)
    return True


def run_suspended(app: App[None], command: list[str]) -> int:
    """Run the editor in the terminal, `app` suspended meanwhile; its exit status.

    A failure is caught inside `suspend()` and raised again after it: raised through it, Textual
    never resumed application mode and the terminal stayed dead (a bad $EDITOR)."""
    import subprocess

    failure: BaseException | None = None
    code = 0
    with app.suspend():
        try:
            code = subprocess.run(command, check=False).returncode
        except KeyboardInterrupt:  # Ctrl-C reaches this process too while the editor runs
            code = -2
        except Exception as exc:
            failure = exc
    if failure is not None:
        raise failure
    return code
