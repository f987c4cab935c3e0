"""Save the tuned settings to the config file, export them for OpenClaw: file work, told as toasts.

The app turns each `Toast` into a notification and puts `clipboard` on the clipboard; nothing here
touches a widget.
"""

from __future__ import annotations

from collections.abc import Mapping
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


def save_settings(params: SearchParams, config_path: Path | None) -> Outcome:
    """Write the search settings into memtui's config file (comments kept, a backup made)."""
    from ..paths import default_config_path
    from ..settings_io import save_to_config

    path = config_path or default_config_path()
    try:
        backup = save_to_config(params, path)
    except Exception as exc:
        return Outcome([Toast(f"Could not save settings: {safe(describe(exc), False)}", "error")])
    note = f" (backup {backup.name})" if backup else ""
    return Outcome([Toast(safe(f"Saved search settings to {path}{note}", one_line=True))])


def save_theme(theme: str, config_path: Path | None) -> Outcome:
    """Keep the theme picked in the palette: `tui.theme` in memtui's config file."""
    from ..paths import default_config_path
    from ..settings_io import save_theme_to_config

    path = config_path or default_config_path()
    try:
        save_theme_to_config(theme, path)
    except Exception as exc:
        return Outcome([Toast(f"Could not save the theme: {safe(describe(exc), False)}", "error")])
    return Outcome([Toast(safe(f"Theme {theme} saved to {path}", one_line=True), timeout=3)])


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
    from ..interop.export import build_export
    from ..paths import config_dir
    from ..settings_io import replace_private_file

    # shaped for the agent being browsed, as `memtui export-settings --agent` does: pasted, a global
    # block would change every agent
    export = build_export(params, openclaw_layout(agent), pool_size, keyword=keyword,
                          agent_id=agent.id if agent is not None else None)
    text = export.to_json()
    name = "openclaw-memory.search.json" if export.layout == "2026.9" else "openclaw-memorySearch.json"
    target = config_dir() / name
    try:
        replace_private_file(target, text + "\n")
    except OSError as exc:
        return Outcome([Toast(f"Could not export: {safe(describe(exc), False)}", "error")])
    block = "memory.search.query" if export.layout == "2026.9" else "memorySearch.query"
    outcome = Outcome([Toast(safe(f"Exported {block} to {target} and the clipboard", one_line=True))], clipboard=text)
    if export.not_exported:
        outcome.toasts.append(Toast(safe(export.not_honoured(), one_line=True), "warning", 12))
    return outcome
