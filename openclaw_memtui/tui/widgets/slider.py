"""A horizontal slider: arrow keys, Home/End, PageUp/PageDown, mouse click or drag."""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.events import Click, MouseMove
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget


class Slider(Widget, can_focus=True):
    DEFAULT_CSS = """
    Slider { height: 1; width: 1fr; min-width: 10; }
    Slider:focus { background: $accent 35%; }
    """
    KNOB, FOCUSED_KNOB = "●", "◉"  # a different glyph too: the tint alone is lost on a monochrome terminal
    BINDINGS = [
        # ids and descriptions: the footer shows them while a slider has the focus, help lists them, tui.keys remaps them
        Binding("left,h", "nudge(-1)", "Less", show=False, id="slider.less"),
        Binding("right,l", "nudge(1)", "More", show=False, id="slider.more"),
        Binding("pagedown", "nudge(-10)", "Less ×10", show=False, id="slider.less_10"),
        Binding("pageup", "nudge(10)", "More ×10", show=False, id="slider.more_10"),
        Binding("home", "to_end(0)", "Lowest", show=False, id="slider.lowest"),
        Binding("end", "to_end(1)", "Highest", show=False, id="slider.highest"),
    ]

    value: reactive[float] = reactive(0.0)

    class Changed(Message):
        def __init__(self, slider: Slider, value: float) -> None:
            super().__init__()
            self.slider = slider
            self.value = value

        @property
        def control(self) -> Slider:
            return self.slider

    def __init__(self, minimum: float, maximum: float, step: float, value: float, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.minimum, self.maximum, self.step = minimum, maximum, step
        self.set_reactive(Slider.value, self._clamp(value))

    def _clamp(self, value: float) -> float:
        value = min(self.maximum, max(self.minimum, value))
        steps = round((value - self.minimum) / self.step)
        return round(self.minimum + steps * self.step, 6)

    def set_value(self, value: float, notify: bool = True) -> None:
        new = self._clamp(value)
        if new == self.value:
            return
        if notify:
            self.value = new
        else:
            self.set_reactive(Slider.value, new)
            self.refresh()

    def watch_value(self, value: float) -> None:
        self.post_message(self.Changed(self, value))

    def action_nudge(self, steps: int) -> None:
        self.set_value(self.value + steps * self.step)

    def action_to_end(self, which: int) -> None:
        self.set_value(self.maximum if which else self.minimum)

    def _from_x(self, x: int) -> None:
        width = max(2, self.size.width)
        fraction = min(1.0, max(0.0, x / (width - 1)))
        self.set_value(self.minimum + fraction * (self.maximum - self.minimum))

    def on_focus(self) -> None:
        self.refresh()  # the knob glyph is drawn by render(), not by CSS

    def on_blur(self) -> None:
        self.refresh()

    def on_click(self, event: Click) -> None:
        self.focus()
        self._from_x(event.x)

    def on_mouse_move(self, event: MouseMove) -> None:
        if event.button == 1:
            self._from_x(event.x)

    def render(self) -> Text:
        width = max(2, self.size.width)
        span = self.maximum - self.minimum or 1.0
        pos = round((self.value - self.minimum) / span * (width - 1))
        bar = Text()
        bar.append("━" * pos, style="bold")
        bar.append(self.FOCUSED_KNOB if self.has_focus else self.KNOB, style="bold reverse" if self.has_focus else "bold")
        bar.append("─" * (width - pos - 1), style="dim")
        return bar
