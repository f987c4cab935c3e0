"""The judged metric at the top of the tuning panel: nDCG@10, recall@5 and MRR over the judged
questions for the current setting, each with its change against the saved setting.

The app sets `view` (a `MetricView`); this widget only renders it.
"""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from ..state import MetricView

ROWS = (("nDCG@10", "ndcg@10"), ("recall@5", "recall@5"), ("MRR", "mrr@10"))
DEFAULT_JUDGE_KEYS = "+ / -"  # the result list's keys for relevant / not relevant, unless tui.keys remaps them
HINT = "{keys} in the result list judges"  # one line: the panel must keep its buttons on a 36-row screen
SHORT_HINT = "{keys} in the list judges"  # with "  12 stale" after it, still one line of the panel
WIDTH = 34  # the panel's inner width, less its scrollbar


def delta_text(now: float, saved: float) -> Text:
    """The change against the saved setting in 6 cells: ▲0.041, ▼0.010, or = (the same)."""
    d = now - saved
    if abs(d) < 0.0005:
        return Text("=     ", style="dim")
    return Text(f"{'▲' if d > 0 else '▼'}{abs(d):.3f}", style="bold green" if d > 0 else "bold red")


def metric_text(view: MetricView, judge_keys: str = DEFAULT_JUDGE_KEYS) -> Text:
    """Three lines of 34 cells at most: each metric, its change against the saved setting, and on the
    right how many questions are judged and how many are stale (left out of the metric). Before any
    judgement it names `judge_keys`, the keys that judge (as bound now)."""
    stale = Text(f"{view.stale} stale", style="bold yellow") if view.stale else Text("")
    if view.current is None or view.saved is None:
        text = Text(f"Judged questions: {view.loading}" if view.loading else HINT.format(keys=judge_keys), style="dim")
        if view.stale:
            if text.cell_len + 2 + stale.cell_len > WIDTH:  # the panel would wrap "1" / "stale" onto two lines
                text = Text(f"Judged: {view.loading}" if view.loading else SHORT_HINT.format(keys=judge_keys), style="dim")
            text.append("  ")
            text.append_text(stale)
        return text
    right = [Text("vs saved", style="dim"), Text(f"{view.judged} judged"), stale]
    lines = []
    for (label, key), extra in zip(ROWS, right, strict=True):
        now = view.current.get(key)
        line = Text(f"{label:<8} {now:.3f} ")
        line.append_text(delta_text(now, view.saved.get(key)))
        line.append(" ")
        line.append_text(extra)
        lines.append(line)
    return Text("\n").join(lines)


class MetricBox(Static):
    view: reactive[MetricView] = reactive(MetricView, always_update=True, init=False)

    def __init__(self, judge_keys: str = DEFAULT_JUDGE_KEYS, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.judge_keys = judge_keys  # named in the hint, so a remapped key is the one the hint names

    def on_mount(self) -> None:
        self.update(metric_text(self.view, self.judge_keys))

    def watch_view(self, view: MetricView) -> None:
        self.update(metric_text(view, self.judge_keys))
