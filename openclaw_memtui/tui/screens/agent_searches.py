"""Agent searches: the queries the OpenClaw agent itself ran, newest first; Enter runs one on the main screen.

The search screen reads the searches in a worker (`interop.recalls`) and hands this screen the answer; picking a
query dismisses the screen with its text, and the app searches it with OpenClaw's own hits marked.
"""

from __future__ import annotations

from datetime import UTC, datetime

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ...interop.recalls import Recall, RecallSet
from ...render import safe
from ..widgets.result_list import cut_middle
from .list_modal import ListModal

OPENCLAW_GLYPH = "◆"  # marks OpenClaw's own hits in the result list and here


def when(ms: float) -> str:
    try:  # a time no calendar holds (OpenClaw's rows are checked when read; this is the last guard)
        return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M") if ms > 0 else "unknown time"
    except (OverflowError, ValueError, OSError):
        return "unknown time"


def recall_row(recall: Recall, width: int, titles: dict[str, str] | None = None) -> Text:
    """Two lines: the query; how often, when, how many hits OpenClaw returned. A third names the conversation
    it was asked in by its first user line (`titles`: session id → title), not by its session's UUID."""
    head = Text(cut_middle(safe(recall.query, one_line=True), max(10, width)), style="bold")
    times = f"{len(recall.events)}× · last {when(recall.last_ms)}" if len(recall.events) > 1 else when(recall.last_ms)
    inside = [h for h in recall.hits if not h.outside]
    if recall.engine == "memtui":  # memtui answered the agent (its plugin or MCP server): never OpenClaw's
        via = f" via {recall.events[0].front_end}" if recall.events[0].front_end else ""
        answered = f"memtui answered {len(recall.hits)}{via}"
    else:
        answered = f"OpenClaw returned {len(recall.hits)} {OPENCLAW_GLYPH}"
    tail = Text(f"    {times} · {answered}"
                + (f" ({len(recall.hits) - len(inside)} outside the workspace)" if len(inside) < len(recall.hits) else ""),
                style="dim")
    tail.truncate(width, overflow="ellipsis")
    session = recall.events[0].session if recall.events else ""
    title = (titles or {}).get(session, "")
    if not title:
        return Text("\n").join([head, tail])
    asked = Text(f"    asked in “{safe(title, one_line=True)}”", style="dim")  # a third line: the title reads whole
    asked.truncate(width, overflow="ellipsis")
    return Text("\n").join([head, tail, asked])


class AgentSearchesScreen(ListModal):
    BINDINGS = [Binding("escape,q", "close", "Close", id="agent_searches.close")]

    def __init__(self, agent_id: str, found: RecallSet | None, judge_keys: str = "+ / -",
                 titles: dict[str, str] | None = None) -> None:
        super().__init__()
        self.agent_id = agent_id
        self.found = found
        self.judge_keys = judge_keys
        self.titles = titles or {}  # session id → the first user line of the conversation a search was asked in

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(f"Agent searches — agent {safe(self.agent_id, one_line=True)}", id="searches-title",
                         classes="list-title", markup=False)
            yield Static(self._about(), id="searches-about", classes="list-about", markup=False)
            yield OptionList(id="searches", markup=False)

    def _about(self) -> str:
        found = self.found
        if found is None:
            return "Reading the agent's searches…"
        if not found.recalls:
            notes = "".join(f"\n{safe(n, one_line=True)}" for n in found.notes)
            return ("No searches recorded for this agent yet: they appear once the agent calls memory_search "
                    f"(or `openclaw memory search` runs).{notes}")
        names = {"events": "OpenClaw's records", "transcripts": "its transcripts' memory_search calls",
                 "memtui": "memtui's record of what it answered"}
        where = " and ".join(names.get(part, part) for part in found.source.split("+"))
        notes = "".join(f"\n{safe(n, one_line=True)}" for n in found.notes)  # rows skipped, a damaged file
        return (f"{len(found.recalls)} queries from {where}, newest first. Enter runs one here with OpenClaw's "
                f"hits marked {OPENCLAW_GLYPH} (memtui's own answers are not marked); judge them with "
                f"{self.judge_keys}. Escape closes.{notes}")

    def on_mount(self) -> None:
        self.show(self.found, self.titles)

    def show(self, found: RecallSet | None, titles: dict[str, str] | None = None) -> None:
        """The searches read (or read again after a sync), with the titles of the conversations they were asked in."""
        self.found = found
        if titles is not None:
            self.titles = titles
        self.query_one("#searches-about", Static).update(self._about())
        listing = self.query_one("#searches", OptionList)
        listing.clear_options()
        width = max(20, (listing.scrollable_content_region.width or self.size.width - 8) - 1)
        if found is not None:
            listing.add_options([Option(recall_row(r, width, self.titles), id=str(n)) for n, r in enumerate(found.recalls)])
        if found is not None and found.recalls:
            listing.highlighted = 0
            listing.focus()

    def on_resize(self) -> None:
        self.show(self.found)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if self.found is not None and event.option.id is not None:
            self.dismiss(self.found.recalls[int(event.option.id)].query)

    def action_close(self) -> None:
        self.dismiss(None)
