"""Open a result in the user's editor at its first line, and say what an empty workspace looks for."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from ..engine.settings import IndexSettings

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
