"""The theme picker: moving through themes previews them, confirming one keeps it, cancelling restores.

Textual's own picker set `app.theme` only on confirm, and the app wrote `config.toml` (with a backup)
on every change; previewing must not write, so the app writes once per confirmed pick, and a session
keeps one backup: the first one holds the file as it was before the session.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.command import CommandPalette, DiscoveryHit, Hit, Hits, Provider

from .settings_actions import Outcome, save_theme

if TYPE_CHECKING:
    from textual.app import App


class ThemeChoice:
    """What the picker changed: the theme before it opened (to restore on cancel), whether a backup of
    the config was already left this session."""

    def __init__(self, config_path: Path | None) -> None:
        self.config_path = config_path
        self.before: str | None = None  # set while the picker is open
        self.backup: Path | None = None  # the session's one backup of the config

    @property
    def previewing(self) -> bool:
        return self.before is not None

    def open(self, current: str) -> None:
        self.before = current

    def close(self) -> str | None:
        """The theme to restore (the picker was cancelled), and the picker is closed."""
        before, self.before = self.before, None
        return before

    def keep(self, theme: str) -> Outcome:
        """Write `tui.theme`; after the session's first backup, later ones are copies of our own writes."""
        outcome, backup = save_theme(theme, self.config_path)
        if backup is not None:
            if self.backup is None:
                self.backup = backup
            else:
                backup.unlink(missing_ok=True)
        return outcome


class PreviewThemeProvider(Provider):
    """The registered themes; picking one calls the app's `confirm_theme`."""

    def _commands(self) -> list[tuple[str, partial[None]]]:
        confirm: Callable[[str], None] = getattr(self.app, "confirm_theme")  # noqa: B009  (MemtuiApp's; no import circle)
        return [(theme.name, partial(confirm, theme.name))
                for theme in sorted(self.app.available_themes.values(), key=attrgetter("name"))]

    async def discover(self) -> Hits:
        for name, callback in self._commands():
            yield DiscoveryHit(name, callback, text=name)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, callback in self._commands():
            if (match := matcher.match(name)) > 0:
                yield Hit(match, matcher.highlight(name), callback, text=name)


def open_picker(app: App[Any], choice: ThemeChoice) -> None:
    choice.open(app.theme)
    app.push_screen(CommandPalette(providers=[PreviewThemeProvider], placeholder="Search for themes…"))


def previewed(app: App[Any], choice: ThemeChoice, event: CommandPalette.OptionHighlighted) -> None:
    """A theme highlighted in the open picker is shown, not written."""
    if not choice.previewing:
        return
    hit = getattr(event.highlighted_event.option, "hit", None)
    name = getattr(hit, "text", None)
    if isinstance(name, str) and name in app.available_themes:
        app.theme = name


def closed(app: App[Any], choice: ThemeChoice, event: CommandPalette.Closed) -> None:
    """Cancelled: the theme from before the picker is back. Confirmed: `confirm_theme` keeps it."""
    if not choice.previewing or event.option_selected:
        return
    before = choice.close()
    if before is not None and before in app.available_themes:
        app.theme = before
