"""Save the tuned settings to the config file, export them for OpenClaw: file work, told as toasts.

The app turns each `Toast` into a notification and puts `clipboard` on the clipboard; nothing here
touches a widget.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ..engine.search.rank import SearchParams
from ..errors import describe
from ..render import safe

if TYPE_CHECKING:
    from ..interop.agents import Agent, Layout

Severity = Literal["information", "warning", "error"]


@dataclass(frozen=True)
class Toast:
    text: str  # already escaped
    severity: Severity = "information"
    timeout: float | None = None


@dataclass
class Outcome:
    toasts: list[Toast] = field(default_factory=list)
    clipboard: str | None = None


def save_settings(params: SearchParams, config_path: Path | None, agent: Agent | None = None) -> Outcome:
    """Write the search settings into memtui's config file (comments kept, a backup made); browsing an
    OpenClaw agent, a warning names the saved values its own settings replace at the next launch."""
    from ..core.session import agent_overrides_note
    from ..core.settings_io import save_to_config
    from ..paths import default_config_path

    path = config_path or default_config_path()
    try:
        backup = save_to_config(params, path)
    except Exception as exc:
        return Outcome([Toast(f"Could not save settings: {safe(describe(exc), False)}", "error")])
    note = f" (backup {backup.name})" if backup else ""
    saved = Toast(safe(f"Saved search settings to {path}{note}", one_line=True))
    replaced = agent_overrides_note(agent, params)
    if not replaced:
        return Outcome([saved])
    return Outcome([saved, Toast(safe(replaced[0].upper() + replaced[1:], one_line=True), "warning", 15)])


def save_theme(theme: str, config_path: Path | None) -> tuple[Outcome, Path | None]:
    """Keep the theme picked in the palette: `tui.theme` in memtui's config file; the backup it left."""
    from ..core.settings_io import save_theme_to_config
    from ..paths import default_config_path

    path = config_path or default_config_path()
    try:
        backup = save_theme_to_config(theme, path)
    except Exception as exc:
        return Outcome([Toast(f"Could not save the theme: {safe(describe(exc), False)}", "error")]), None
    return Outcome([Toast(safe(f"Theme {theme} saved to {path}", one_line=True), timeout=3)]), backup


def openclaw_layout(agent: Agent | None) -> Layout:
    """The layout of the OpenClaw an export is for: the agent's, else the installed one's."""
    if agent is not None:
        return agent.layout
    from ..interop.agents import LEGACY_LAYOUT, OpenClawError, load_installation

    try:
        return load_installation().layout
    except OpenClawError:
        return LEGACY_LAYOUT


def export_settings(params: SearchParams, agent: Agent | None, pool_size: int,
                    keyword: Mapping[str, Any] | None = None) -> Outcome:
    """The query block for openclaw.json, written to memtui's config folder and copied; a warning
    names what that OpenClaw will not honour (`keyword`: the config's query.keyword block)."""
    from ..engine.store import write_private_atomic
    from ..interop.export import build_export
    from ..paths import config_dir

    # shaped for the agent being browsed, as `memtui export-settings --agent` does: pasted, a global
    # block would change every agent
    export = build_export(params, openclaw_layout(agent), pool_size, keyword=keyword,
                          agent_id=agent.id if agent is not None else None)
    text = export.to_json()
    name = "openclaw-memory.search.json" if export.layout == "2026.9" else "openclaw-memorySearch.json"
    target = config_dir() / name
    try:
        write_private_atomic(target, text + "\n")
    except OSError as exc:
        return Outcome([Toast(f"Could not export: {safe(describe(exc), False)}", "error")])
    block = "memory.search.query" if export.layout == "2026.9" else "memorySearch.query"
    said = f"Exported {block} to {target}"  # where the clipboard copy went is the app's to say (tui/clipboard.py)
    notes = target.with_name(target.stem + NOT_HONOURED_SUFFIX)
    if not export.not_exported:
        with suppress(OSError):
            notes.unlink(missing_ok=True)  # a list left by an earlier export would now be wrong
        return Outcome([Toast(safe(said, one_line=True))], clipboard=text)
    # One toast, where it wrote first: at 80×24 the whole list as a second toast filled the screen and
    # pushed this line off it. The full list goes beside the export (and `memtui export-settings` prints it).
    try:
        write_private_atomic(notes, not_honoured_notes(export.not_exported, block))
        where = f"full list in {notes.name} beside it"
    except OSError as exc:
        where = f"full list not written: {describe(exc)}"
    said += f". OpenClaw will not honour {short_list(export.not_exported)} ({where})"
    return Outcome([Toast(safe(said, one_line=True), "warning", 12)], clipboard=text)


NOT_HONOURED_SUFFIX = ".not-honoured.txt"
SHORT_LIST_NAMES = 3  # more would make the toast taller than an 80×24 screen's results


def short_list(not_exported: list[str]) -> str:
    """The settings' names and values, without why: `line weight 0.50, overlap penalty 1.00 and 2 more`."""
    names = [entry.split(" (", 1)[0] for entry in not_exported]
    if len(names) > SHORT_LIST_NAMES + 1:
        return ", ".join(names[:SHORT_LIST_NAMES]) + f" and {len(names) - SHORT_LIST_NAMES} more"
    return ", ".join(names)


def not_honoured_notes(not_exported: list[str], block: str) -> str:
    """The file beside an export: each setting OpenClaw will not rank with, and why, one a line."""
    lines = [f"memtui settings the exported {block} cannot carry (memtui's own search still ranks with them):"]
    return "\n".join(lines + [f"- {entry}" for entry in not_exported]) + "\n"
