"""The bundled themes live in `themes/` at the top of the repository and ship inside the wheel."""

import tomllib
from pathlib import Path

from openclaw_memtui.tui.themes import bundled_theme_dir, discover_themes

ROOT = Path(__file__).resolve().parents[1]


def test_bundled_themes_are_found_and_load():
    assert sorted(p.name for p in bundled_theme_dir().glob("*.toml")) == [
        "nord-memtui.toml", "phosphor.toml", "solarized-light-memtui.toml"]
    themes, errors = discover_themes()
    assert errors == [] and {"nord-memtui", "phosphor", "solarized-light-memtui"} <= {t.name for t in themes}


def test_the_wheel_ships_the_top_level_themes_inside_the_package():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert config["tool"]["hatch"]["build"]["targets"]["wheel"]["force-include"] == {"themes": "openclaw_memtui/themes"}
    assert (ROOT / "themes").is_dir() and not (ROOT / "openclaw_memtui" / "themes").exists()
