"""Built-in themes plus TOML theme files (bundled `themes/` and the user's config dir).

A theme file holds Textual theme fields: name, primary, secondary, accent, foreground, background,
surface, panel, success, warning, error, dark. A bad file is reported, never fatal.
"""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.theme import Theme

from ..engine.textutil import strip_bom
from ..paths import config_dir

if TYPE_CHECKING:
    from textual.app import App

BUILTIN = [
    Theme(name="memtui-dark", primary="#E8A33D", secondary="#5FA8D3", accent="#F2C46D", foreground="#E6E1D6",
          background="#15171C", surface="#1D2027", panel="#232731", success="#7BC47F", warning="#E8A33D",
          error="#E06C75", dark=True),
    Theme(name="memtui-light", primary="#9A5B00", secondary="#1F6FA8", accent="#B86E00", foreground="#23262D",
          background="#FAF7F0", surface="#F1ECE1", panel="#E8E1D2", success="#2E7D32", warning="#9A5B00",
          error="#B3261E", dark=False),
]
FIELDS = {"name", "primary", "secondary", "accent", "foreground", "background", "surface", "panel", "boost",
          "success", "warning", "error", "dark"}


def bundled_theme_dir() -> Path:
    """`themes/` at the top of the repository: the wheel ships it inside the package, a checkout has it beside."""
    shipped = Path(str(resources.files("openclaw_memtui") / "themes"))
    return shipped if shipped.is_dir() else Path(__file__).resolve().parents[2] / "themes"


def user_theme_dir() -> Path:
    return config_dir() / "themes"


def load_theme_file(path: Path) -> Theme:
    try:
        data = tomllib.loads(strip_bom(path.read_text(encoding="utf-8")))  # a BOM an editor added is no TOML error
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"theme {path.name}: cannot read it ({exc})") from None
    unknown = set(data) - FIELDS
    if unknown:
        raise ValueError(f"theme {path.name}: unknown key(s) {', '.join(sorted(unknown))}")
    if not isinstance(data.get("name"), str) or not isinstance(data.get("primary"), str):
        raise ValueError(f"theme {path.name}: 'name' and 'primary' are required strings")
    from textual.color import Color, ColorParseError

    for key, value in data.items():
        if key not in ("name", "dark"):
            try:
                Color.parse(value)
            except (ColorParseError, TypeError):
                raise ValueError(f"theme {path.name}: '{key}' is not a colour ({value!r})") from None
    return Theme(**data)


def discover_themes(extra_dirs: list[Path] | None = None) -> tuple[list[Theme], list[str]]:
    themes = list(BUILTIN)
    errors: list[str] = []
    for folder in [bundled_theme_dir(), user_theme_dir(), *(extra_dirs or [])]:
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.toml")):
            try:
                themes.append(load_theme_file(path))
            except ValueError as exc:
                errors.append(str(exc))
    return themes, errors


def install_themes(app: App[Any], wanted: str, extra_dirs: list[Path] | None = None) -> tuple[list[str], str]:
    """Register the bundled and user themes on `app`: (the errors to toast, the theme to use: `wanted`,
    or memtui-dark when no theme has that name)."""
    themes, errors = discover_themes(extra_dirs)
    for theme in themes:
        app.register_theme(theme)
    # the configured theme's own file failing to load is already said: "no theme named" would say it twice
    broken_file = any(error.startswith(f"theme {wanted}.toml:") for error in errors)
    if wanted not in app.available_themes and not broken_file:
        errors.append(f"tui.theme: no theme named '{wanted}'")
    return errors, wanted if wanted in app.available_themes else "memtui-dark"
