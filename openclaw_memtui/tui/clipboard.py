"""Copying, said honestly: where the text went, or that it went nowhere.

Textual copies with OSC 52, an escape sequence the terminal may honour or drop without a word: tmux drops it
unless its `set-clipboard` is on, and `c` said "copied" when nothing reached the clipboard. So memtui picks a
route it can vouch for: the system clipboard through its command (wl-copy, xclip, xsel, pbcopy, clip.exe) when
there is one and a display for it; inside tmux its paste buffer (`tmux load-buffer`), and the terminal's
clipboard too when set-clipboard is on; in a plain terminal OSC 52, said as sent to the terminal (its
answer cannot be read); with none of these, a new 0600 file in memtui's data dir, named in the toast.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from ..render import safe

if TYPE_CHECKING:
    from textual.app import App
    from textual.notifications import SeverityLevel

SYSTEM_TOOLS: list[tuple[str, list[str], str]] = [  # (command, its arguments, the variable it needs, "" for none)
    ("wl-copy", [], "WAYLAND_DISPLAY"),
    ("xclip", ["-selection", "clipboard"], "DISPLAY"),
    ("xsel", ["--clipboard", "--input"], "DISPLAY"),
    ("pbcopy", [], ""),
    ("clip.exe", [], ""),
]


@dataclass(frozen=True)
class Route:
    kind: str  # "system", "tmux", "osc52" or "file"
    command: list[str] | None = None


def choose_route(env: Mapping[str, str], which: Callable[[str], str | None], is_tty: bool) -> Route:
    """Where a copy can go that memtui can vouch for, best first (see the module's docstring)."""
    for name, args, needs in SYSTEM_TOOLS:
        path = which(name)
        if path and (not needs or env.get(needs)):
            return Route("system", [path, *args])
    if env.get("TMUX") and which("tmux"):
        return Route("tmux", [which("tmux") or "tmux", "load-buffer", "-"])
    if is_tty and env.get("TERM", "dumb") != "dumb":
        return Route("osc52")
    return Route("file")


def tmux_passes_osc52(tmux: str) -> bool:
    """tmux's set-clipboard is on: an application's OSC 52 reaches the outer terminal."""
    try:
        out = subprocess.run([tmux, "show-options", "-gv", "set-clipboard"], capture_output=True, text=True,
                             timeout=2, check=False).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return False
    return out == "on"


def save_copy(text: str, folder: Path) -> Path:
    """`text` in a new private file in `folder` (memtui's data dir)."""
    from .screenshot import save_screenshot

    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    return save_screenshot(text, folder, "copied.txt")


def deliver(text: str, what: str, osc52: Callable[[str], None], *, env: Mapping[str, str] | None = None,
            which: Callable[[str], str | None] | None = None, is_tty: bool | None = None,
            folder: Path | None = None) -> tuple[str, str]:
    """Copy `text` by the best route and say where it went: (severity, the toast's text). `osc52` is the
    app's copy_to_clipboard (also what the app pastes from), called on every route."""
    import shutil
    import sys

    env = os.environ if env is None else env
    which = shutil.which if which is None else which
    if is_tty is None:  # Textual draws on stderr: OSC 52 goes there
        is_tty = sys.__stderr__ is not None and sys.__stderr__.isatty()
    osc52(text)
    route = choose_route(env, which, is_tty)
    if route.kind in ("system", "tmux") and route.command:
        name = Path(route.command[0]).name
        try:
            done = subprocess.run(route.command, input=text, text=True, capture_output=True, timeout=5, check=False)
        except (OSError, subprocess.SubprocessError) as exc:
            return _to_file(text, what, folder, f"{name} failed: {exc}")
        if done.returncode:
            said = (done.stderr or "").strip().splitlines()
            return _to_file(text, what, folder, f"{name} failed: {said[0] if said else f'exit status {done.returncode}'}")
        if route.kind == "system":
            return "information", f"{what} copied to the clipboard ({name})"
        also = " and the terminal's clipboard (OSC 52)" if tmux_passes_osc52(route.command[0]) else ""
        return "information", f"{what} copied to tmux's paste buffer{also}: prefix ] pastes it"
    if route.kind == "osc52":
        return "information", f"{what} sent to the terminal's clipboard (OSC 52; a terminal that ignores it keeps nothing)"
    return _to_file(text, what, folder, "no clipboard reachable")


def _to_file(text: str, what: str, folder: Path | None, why: str) -> tuple[str, str]:
    from ..errors import describe
    from ..paths import data_dir

    try:
        path = save_copy(text, folder or data_dir())
    except OSError as exc:
        return "error", f"{what} not copied ({why}) and not saved: {describe(exc)}"
    return "warning", f"{what} not copied ({why}): saved to {path}"


def copy_and_tell(app: App[Any], text: str, what: str) -> None:
    """Copy `text` (what it is: "Snippet") and toast where it went. Textual's own copy runs at once (the app
    pastes from it); the clipboard command, which may take a moment, in a thread."""
    app.copy_to_clipboard(text)

    def run() -> None:
        severity, said = deliver(text, what, lambda _: None)
        app.call_from_thread(app.notify, safe(said, one_line=True), severity=cast("SeverityLevel", severity),
                             markup=False, timeout=6 if severity != "information" else 3)

    app.run_worker(run, thread=True, group="clipboard", exit_on_error=False)
