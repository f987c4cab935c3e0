"""A one-line progress bar with its percentage, for the status screen.

Textual's ProgressBar composes three child widgets (bar, percentage, ETA clock) whose CSS is parsed
the first time a screen mounts one; this single widget draws the same line with Rich's bar, so F2
opens the status screen sooner (its figure: docs/benchmarks.md).
"""

from __future__ import annotations

from rich.console import RenderableType
from rich.progress_bar import ProgressBar as RichBar
from rich.table import Table
from textual.reactive import reactive
from textual.widget import Widget

BAR_WIDTH = 32  # as Textual's Bar: a gauge, not a ruler across the screen


class ProgressLine(Widget):
    COMPONENT_CLASSES = {"progress-line--back", "progress-line--bar", "progress-line--done"}
    DEFAULT_CSS = """
    ProgressLine { height: 1; width: auto; }
    ProgressLine > .progress-line--back { color: $foreground 10%; }
    ProgressLine > .progress-line--bar { color: $primary; }
    ProgressLine > .progress-line--done { color: $success; }
    """

    done: reactive[int] = reactive(0)
    total: reactive[int] = reactive(1)
    known: reactive[bool] = reactive(True)

    def show(self, done: int, total: int) -> None:
        """`done` of `total` (a total below 1 reads as 1, so an empty index is not a division by zero)."""
        self.total = max(1, total)
        self.done = max(0, min(done, self.total))
        self.known = True

    def show_unknown(self) -> None:
        """Nothing to show yet (the status is being read): an empty bar and "…", not a made-up 0 %."""
        self.done, self.known = 0, False

    def percent(self) -> int:
        return int(100 * self.done / self.total)

    def get_content_width(self, container: object, viewport: object) -> int:
        return BAR_WIDTH + 5  # the bar, a space, "100%"

    def render(self) -> RenderableType:
        grid = Table.grid(padding=(0, 1))
        grid.add_column(width=BAR_WIDTH)
        grid.add_column(width=4, justify="right")
        style = self.get_component_rich_style
        grid.add_row(RichBar(total=self.total, completed=self.done, width=BAR_WIDTH,
                             style=style("progress-line--back"), complete_style=style("progress-line--bar"),
                             finished_style=style("progress-line--done")),
                     f"{self.percent()}%" if self.known else "…")
        return grid
