"""Switch agent (`:` where nothing is typed, or the palette): OpenClaw's agents as `memtui agents` lists them.

The screen reads the installation in a worker as it opens (OpenClaw's config and its agents' folders) and
lists each agent: its id, whether it is OpenClaw's default and the one open now, its workspace and who
answers its memory searches. Enter dismisses the screen with the agent's id; the app then opens that
agent's index and config in its place (launch.py), without the command being typed again.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ...errors import describe
from ...interop.agents import Agent
from ...render import safe
from ..widgets.context_footer import ContextFooter
from .list_modal import ListModal


@dataclass
class AgentsRead(Message):
    """OpenClaw's agents, or why they could not be read."""

    agents: list[Agent]
    error: str = ""


def agent_row(agent: Agent, current: str | None, width: int) -> Text:
    """Three lines, as `memtui agents` says it: the id (OpenClaw's default, open now), its workspace, and who
    answers its memory searches."""
    from ...interop.memory_slot import memory_search_text

    marks = (" · OpenClaw's default" if agent.default else "") + (" · open now" if agent.id == current else "")
    head = Text(safe(agent.id, one_line=True), style="bold")
    head.append(marks, style="dim")
    missing = "" if Path(agent.workspace).is_dir() else "  (missing)"
    lines = [Text(f"    workspace {safe(agent.workspace, one_line=True)}{missing}", style="dim"),
             Text(f"    memory search {memory_search_text(agent)}", style="dim")]
    for line in lines:
        line.truncate(width, overflow="ellipsis")
    return Text("\n").join([head, *lines])


class AgentPickerScreen(ListModal):
    BINDINGS = [Binding("escape,q", "close", "Close", id="agent_picker.close")]
    DEFAULT_CSS = "AgentPickerScreen > Vertical { height: 80%; }"

    def __init__(self, current: str | None) -> None:
        super().__init__()
        self.current = current  # the agent open now (None: a workspace that is no agent's)
        self.agents: list[Agent] | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Switch agent", id="agents-title", classes="list-title", markup=False)
            yield Static("Reading OpenClaw's agents…", id="agents-about", classes="list-about", markup=False)
            yield OptionList(id="agents", markup=False)
        yield ContextFooter()

    def on_mount(self) -> None:
        self._read()

    @work(thread=True, exclusive=True, group="agents", exit_on_error=False)
    def _read(self) -> None:
        from ...interop.agents import load_installation

        try:
            self.post_message(AgentsRead(list(load_installation().agents)))
        except Exception as exc:  # an unreadable openclaw.json: one line, nothing to pick
            self.post_message(AgentsRead([], describe(exc)))

    def on_agents_read(self, message: AgentsRead) -> None:
        message.stop()
        self.agents = message.agents
        about = self.query_one("#agents-about", Static)
        if message.error:
            about.update(f"OpenClaw's agents could not be read: {safe(message.error, one_line=True)}")
            return
        about.update("Enter opens the agent's memory here (its index, its settings); Escape stays.")
        self._show()

    def _show(self) -> None:
        listing = self.query_one("#agents", OptionList)
        listing.clear_options()
        width = max(20, (listing.scrollable_content_region.width or self.size.width - 8) - 1)
        agents = self.agents or []
        listing.add_options([Option(agent_row(a, self.current, width), id=str(n)) for n, a in enumerate(agents)])
        if agents:
            listing.highlighted = next((n for n, a in enumerate(agents) if a.id != self.current), 0)
            listing.focus()

    def on_resize(self) -> None:
        if self.agents:
            self._show()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if self.agents and event.option.id is not None:
            self.dismiss(self.agents[int(event.option.id)].id)

    def action_close(self) -> None:
        self.dismiss(None)
