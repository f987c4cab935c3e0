"""Where the app's Screenshot goes: Textual saves to ~/Downloads and fails where there is none (a
server, a container). memtui writes to the first of Downloads, the current folder and its data dir
that is a writable folder, as a new 0600 file (a screen can show memory text), never over another."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import describe
from ..paths import data_dir
from ..render import safe

if TYPE_CHECKING:
    from textual.app import App

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def screenshot_folder(downloads: Path | None = None, cwd: Path | None = None, fallback: Path | None = None) -> Path:
    """The first writable folder of Downloads, the current folder and memtui's data dir."""
    if downloads is None:
        from platformdirs import user_downloads_path

        downloads = user_downloads_path()
    for folder in (downloads, cwd or Path.cwd()):
        if folder.is_dir() and os.access(folder, os.W_OK | os.X_OK):
            return folder
    folder = fallback or data_dir()
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    return folder


def save_screenshot(svg: str, folder: Path, name: str) -> Path:
    """Write `svg` as a new private file in `folder` (a name taken gets " (2)", " (3)"…)."""
    stem, suffix = os.path.splitext(name)
    for n in range(1, 1000):
        path = folder / (name if n == 1 else f"{stem} ({n}){suffix}")
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600)
        except FileExistsError:
            continue
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(svg)
        return path
    raise FileExistsError(f"no free file name for {name} in {folder}")


def deliver_screenshot(app: App[Any], filename: str | None = None, path: str | None = None,
                       time_format: str | None = None) -> str | None:
    """Save `app`'s screen where it can be and say where in a toast (or why not); the file's path."""
    from datetime import datetime

    try:
        folder = Path(path) if path else screenshot_folder()
        name = filename or f"{app.title} {datetime.now().strftime(time_format or '%Y-%m-%dT%H_%M_%S')}.svg"
        saved = save_screenshot(app.export_screenshot(), folder, name)
    except OSError as exc:
        app.notify(f"Screenshot not saved: {describe(exc)}", severity="error", markup=False)
        return None
    app.notify(f"Screenshot saved to {safe(str(saved), one_line=True)}", markup=False, timeout=6)
    return str(saved)
