"""Live tuning: sliders with exact numeric inputs, toggles and presets.

Every change posts `TuningPanel.ParamsChanged` with a new frozen SearchParams; the app re-ranks the
cached pool with it. Save and Export post `SaveRequested` / `ExportRequested` with the params to
write; the app does the file work. Nothing here touches the database or calls the app.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, cast

from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Button, Input, Label, Select, Switch

from ...engine.models import InvalidParams
from ...engine.search.rank import SearchParams
from ...engine.settings import OPENCLAW_2026_SEARCH_PARAMS, OPENCLAW_SEARCH_PARAMS, TIME_MODES, TimeMode
from .metric import DEFAULT_JUDGE_KEYS, MetricBox
from .slider import Slider

# field, label, minimum, maximum, step, tooltip
SLIDERS = [
    ("vector_weight", "vector weight", 0.0, 1.0, 0.05, "share of the hybrid score from the vector (meaning) leg"),
    ("text_weight", "text weight", 0.0, 1.0, 0.05, "share of the hybrid score from the keyword (BM25) leg"),
    ("line_weight", "line weight", 0.0, 1.0, 0.05,
     "query.keyword.lineWeight: share of the keyword score from the chunk's best-matching line (0 = whole chunk only)"),
    ("overlap_penalty", "overlap penalty", 0.0, 1.0, 0.05,
     "query.overlapPenalty: how far a chunk repeating lines of a result above it is pushed down (0 = score order)"),
    ("mmr_lambda", "MMR lambda", 0.0, 1.0, 0.05, "with MMR on: 1 = relevance only, lower = more diverse results"),
    ("half_life_days", "half-life days", 1.0, 365.0, 1.0, "with decay on: a dated note this old counts half"),
    ("min_score", "minScore", 0.0, 1.0, 0.01, "results scoring below this are dropped (keyword hits fill spare slots)"),
    ("max_results", "maxResults", 1.0, 50.0, 1.0, "how many results are listed"),
]

PRESETS: dict[str, SearchParams] = {
    "openclaw-2026": OPENCLAW_2026_SEARCH_PARAMS,
    "openclaw": OPENCLAW_SEARCH_PARAMS,
    "keyword-heavy": SearchParams(vector_weight=0.2, text_weight=0.8, min_score=0.2),
    "semantic-heavy": SearchParams(vector_weight=0.9, text_weight=0.1, min_score=0.3),
    "recent-first": SearchParams(vector_weight=0.5, text_weight=0.5, decay=True, half_life_days=7, min_score=0.0,
                                 decay_evergreen=True),
}
# rank() divides each weight by their sum: 1.00 and 0.60 weigh as 0.62 and 0.38 (the score pane shows the share)
WEIGHTS_NOTE = "weights are normalised to sum 1"
# what a preset cannot copy (OpenClaw 2026.9.6's memory-core, read in its dist/: importance.ts multiplies each
# score by 0.8-1.25 from the chunk's importance, an exact file-path match ranks in its own tier, and a keyword
# search that finds little falls back to the query's expanded keywords)
PRESET_NOTES = {"openclaw-2026": "approximates OpenClaw 2026.9's ranking: OpenClaw also multiplies by importance, "
                                 "matches file paths and expands queries (Agent searches shows its own scores)"}
PRESET_LABELS = {"openclaw-2026": "OpenClaw 2026.9", "openclaw": "OpenClaw, older builtin",
                 "keyword-heavy": "Keyword-heavy", "semantic-heavy": "Semantic-heavy",
                 "recent-first": "Recent first"}


def on_off(value: bool) -> str:
    return "on" if value else "off"


class NumberInput(Input):
    """A tuning number. Focusing it by a click selects the whole number (as Tab does), so typing
    `0.5` replaces `0.35` instead of landing where the click did (`050.00`)."""

    _just_focused = False

    def on_focus(self) -> None:
        self._just_focused = True

    def on_blur(self) -> None:
        self._just_focused = False

    def on_key(self) -> None:
        self._just_focused = False

    async def _on_mouse_up(self, event: events.MouseUp) -> None:
        await super()._on_mouse_up(event)
        if self._just_focused:
            self._just_focused = False
            self.select_all()

    def show(self, text: str) -> None:
        """Put `text` in and the cursor after it (a reformatted number kept the old cursor position)."""
        self.value = text
        self.cursor_position = len(text)


class TuningPanel(Vertical):
    """One row per number (label, exact input, slider), so all eight fit with the metric, toggles
    and presets in the 18 rows an 80×24 terminal leaves; the body scrolls if a smaller one cuts it,
    and Reset / Save / Export are docked at the bottom so they are never scrolled away."""

    DEFAULT_CSS = """
    TuningPanel { width: 40; border-left: tall $primary; background: $panel; }
    TuningPanel #tuning-body { height: 1fr; padding: 0 1; scrollbar-size-vertical: 1; }
    TuningPanel .note { color: $text-muted; }
    TuningPanel #preset-note { width: 100%; height: auto; display: none; }
    TuningPanel #tuning-score { display: none; height: 1; }  /* shown where the panel covers the score pane */
    TuningPanel .row { height: 1; }
    TuningPanel .row Label { width: 15; }
    TuningPanel .row Input { width: 7; height: 1; border: none; padding: 0 1; }  /* 4 digits and the cursor after them */
    TuningPanel .row Input:focus { background: $accent 35%; text-style: bold; }
    TuningPanel .row Slider { margin-left: 1; }
    TuningPanel .toggle { height: 1; margin-top: 1; }
    TuningPanel .toggle Label { width: 6; }
    TuningPanel .toggle Label.state { width: 4; margin: 0 2 0 1; text-style: bold; }
    TuningPanel .toggle Switch { height: 1; border: none; padding: 0; width: 6; }
    TuningPanel .buttons { dock: bottom; height: 1; padding: 0 1; }
    TuningPanel MetricBox { height: auto; }
    TuningPanel Button { width: 1fr; min-width: 5; margin-right: 1; }
    """

    @dataclass
    class ParamsChanged(Message):
        params: SearchParams

    @dataclass
    class SaveRequested(Message):
        """Write these settings to memtui's config file."""

        params: SearchParams

    @dataclass
    class SuggestRequested(Message):
        """Search better settings on the judged questions (Suggest settings)."""

    @dataclass
    class ExportRequested(Message):
        """Export these settings as OpenClaw's query block."""

        params: SearchParams

    def __init__(self, params: SearchParams, defaults: SearchParams, *, judge_keys: str = DEFAULT_JUDGE_KEYS,
                 id: str | None = None) -> None:
        super().__init__(id=id)
        self.params = params
        self.defaults = defaults
        self.judge_keys = judge_keys
        self._syncing = False

    def compose(self) -> ComposeResult:
        with Horizontal(classes="buttons"):  # docked: first, so it keeps its row whatever the body holds
            yield Button("Reset", id="reset", compact=True)
            yield Button("Save", id="save", compact=True)
            yield Button("Export", id="export", compact=True)
            yield Button("Suggest", id="suggest", compact=True).with_tooltip(
                "search settings on your judged questions (cross-validated)")
        with VerticalScroll(id="tuning-body"):
            yield Label("[b]Tuning[/b]  (re-ranks instantly)")
            yield Label("", id="tuning-score", markup=False)
            yield MetricBox(self.judge_keys, id="metric")
            yield Label(WEIGHTS_NOTE, classes="note", markup=False)
            for field, label, lo, hi, step, tip in SLIDERS:
                value = float(getattr(self.params, field))
                with Horizontal(classes="row"):
                    yield Label(label).with_tooltip(tip)
                    yield NumberInput(self._fmt(field, value), id=f"in-{field}", type="number", compact=True)
                    yield Slider(lo, hi, step, value, id=f"sl-{field}").with_tooltip(tip)
            with Horizontal(classes="toggle"):
                yield Label("MMR")
                yield Switch(self.params.mmr, id="sw-mmr")
                yield Label(on_off(self.params.mmr), id="sw-mmr-state", classes="state", markup=False)
                yield Label("decay")
                yield Switch(self.params.decay, id="sw-decay")
                yield Label(on_off(self.params.decay), id="sw-decay-state", classes="state", markup=False)
            yield Select([("time words boost", "boost"), ("time words filter", "filter"), ("time words ignored", "off")],
                         value=self.params.time_mode, id="time-mode", allow_blank=False, compact=True)
            yield Select([(PRESET_LABELS[k], k) for k in PRESETS], prompt="Preset…", id="preset", allow_blank=True,
                         compact=True)
            yield Label("", id="preset-note", classes="note", markup=False)

    def show_score(self, line: str) -> None:
        """The selected result's one-line score (breakdown.score_summary), set by the app."""
        self.query_one("#tuning-score", Label).update(line)

    @staticmethod
    def _fmt(field: str, value: float) -> str:
        return str(int(value)) if field in ("max_results", "half_life_days") else f"{value:.2f}"

    def _publish(self, params: SearchParams) -> None:
        self.params = params
        # the settings are a preset's (chosen here, from the palette or by hand): say what it does not copy
        note = next((PRESET_NOTES[k] for k, v in PRESETS.items() if k in PRESET_NOTES and v == params), "")
        label = self.query_one("#preset-note", Label)
        label.update(note)
        label.display = bool(note)  # no empty row in the panel otherwise
        self._show_preset(params)
        self.post_message(self.ParamsChanged(params))

    def _show_preset(self, params: SearchParams) -> None:
        """The preset box names the preset these settings are, or none: after Reset or a slider move it
        went on naming the preset chosen before."""
        matching = next((k for k, v in PRESETS.items() if v == params), None)
        select: Select[str] = self.query_one("#preset", Select)
        if matching is None:
            if not select.is_blank():
                select.clear()
        elif select.value != matching:
            select.value = matching

    def apply(self, params: SearchParams) -> None:
        """Show `params` in every control (presets, reset) and publish them once."""
        self._syncing = True
        try:
            for field, *_ in SLIDERS:
                value = float(getattr(params, field))
                self.query_one(f"#sl-{field}", Slider).set_value(value, notify=False)
                self.query_one(f"#in-{field}", NumberInput).show(self._fmt(field, value))
            self.query_one("#sw-mmr", Switch).value = params.mmr
            self.query_one("#sw-decay", Switch).value = params.decay
            self.query_one("#time-mode", Select).value = params.time_mode
        finally:
            self._syncing = False
        self._publish(params)

    def _set_field(self, field: str, value: float) -> bool:
        """Publish `field = value` if the shared rule (SearchParams.validate) accepts it; else show its
        one-line message, put the control back to the old value and return False."""
        cast = int(round(value)) if field == "max_results" else value
        if getattr(self.params, field) == cast:
            return True
        try:
            change: dict[str, Any] = {field: cast}  # a numeric field named at run time
            params = replace(self.params, **change).validate()
        except InvalidParams as exc:
            self._show_field(field, float(getattr(self.params, field)))
            self.notify(str(exc), severity="warning", markup=False)
            return False
        self._publish(params)
        return True

    def _show_field(self, field: str, value: float) -> None:
        """Put the slider and the input of `field` at `value` without publishing anything."""
        self._syncing = True
        try:
            self.query_one(f"#sl-{field}", Slider).set_value(value, notify=False)
            self.query_one(f"#in-{field}", NumberInput).show(self._fmt(field, value))
        finally:
            self._syncing = False

    def on_slider_changed(self, event: Slider.Changed) -> None:
        event.stop()
        if self._syncing or not event.slider.id:
            return
        field = event.slider.id.removeprefix("sl-")
        self.query_one(f"#in-{field}", NumberInput).show(self._fmt(field, event.value))
        self._set_field(field, event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._take_input(event.input)

    def on_input_blurred(self, event: Input.Blurred) -> None:
        self._take_input(event.input)

    def _take_input(self, widget: Input) -> None:
        if not isinstance(widget, NumberInput) or not widget.id or not widget.id.startswith("in-"):
            return
        field = widget.id.removeprefix("in-")
        slider = self.query_one(f"#sl-{field}", Slider)
        try:
            value = float(widget.value)
        except ValueError:
            # the value in effect, not the slider's: a valid 400 days sits at the slider's 365 end
            widget.show(self._fmt(field, float(getattr(self.params, field))))
            self.notify(f"{field.replace('_', ' ')} needs a number", severity="warning", markup=False)
            return
        # An out-of-range value (-3, 2, nan, 0 days) is refused with the CLI's and the config's
        # message and the old value stays; it used to be clamped silently to the slider's end.
        if not self._set_field(field, value):
            return
        shown = min(slider.maximum, max(slider.minimum, value))  # a valid value past the slider's end
        slider.set_value(shown, notify=False)
        widget.show(self._fmt(field, value))

    def on_switch_changed(self, event: Switch.Changed) -> None:
        event.stop()
        # the state in words beside the switch: its colour alone is lost on a monochrome terminal
        self.query_one(f"#{event.switch.id}-state", Label).update(on_off(event.value))
        if self._syncing:
            return
        field = "mmr" if event.switch.id == "sw-mmr" else "decay"
        if getattr(self.params, field) == event.value:
            return  # apply() set it: its Changed arrives after apply() published, and would re-rank a second time
        change: dict[str, Any] = {field: event.value}
        self._publish(replace(self.params, **change))

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        if event.select.id == "time-mode":
            if not self._syncing and event.value in TIME_MODES and event.value != self.params.time_mode:
                self._publish(replace(self.params, time_mode=cast(TimeMode, event.value)))
            return
        if isinstance(event.value, str) and event.value in PRESETS and PRESETS[event.value] != self.params:
            self.apply(PRESETS[event.value])  # (not when _show_preset named the preset the settings already are)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "reset":
            self.apply(self.defaults)
        elif event.button.id == "save":
            self.post_message(self.SaveRequested(self.params))
        elif event.button.id == "export":
            self.post_message(self.ExportRequested(self.params))
        elif event.button.id == "suggest":
            self.post_message(self.SuggestRequested())
