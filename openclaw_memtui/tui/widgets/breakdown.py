"""The score breakdown of one result, drawn as labelled bars."""

from __future__ import annotations

from rich.text import Text

from ...engine.search.rank import Result, SearchParams, rank_moves
from ...render import safe


def _bar(label: str, value: float | None, scale: float = 1.0, note: str = "", width: int = 24) -> Text:
    line = Text(f"{label:<10}", style="bold")
    if value is None:
        line.append("·" * width, style="dim")
        line.append("   —  ")
    else:
        filled = max(0, min(width, round(width * value / scale))) if scale else 0
        line.append("█" * filled, style="green" if value >= 0 else "red")
        line.append("░" * (width - filled), style="dim")
        line.append(f" {value:6.3f}")
    if note:
        line.append(f"  {note}", style="italic")
    return line


def breakdown_text(result: Result, params: SearchParams, mode: str, width: int = 70, window=None, openclaw=None) -> Text:
    """`width` is the pane's inner width: bars shrink so each row stays on one line. `openclaw` is
    (rank, hit, recall) when OpenClaw returned this result for the query: its own score, not a guess."""
    bar_width = max(6, min(24, width - 36))
    vw, tw = params.weights()
    if mode == "keyword":
        vw, tw = 0.0, 1.0
    vector_note = f"× {vw:.2f}"
    if result.vector_missing:  # ranked on its keyword leg alone, weights renormalised (rank.py)
        vw, tw = 0.0, 1.0
        vector_note = "no vector yet: ranked on keywords alone"
    elif result.vector_score is None:
        vector_note += "  (no vector yet)"
    lines = [
        _bar("vector", result.vector_score, width=bar_width, note=vector_note),
        _bar("text", result.text_score, width=bar_width, note=f"× {tw:.2f}"),
        _bar("hybrid", result.hybrid_score, width=bar_width, note=params.fusion),
    ]
    if result.keyword_say < 1:  # coverage fusion: the chunk holds little of the query, the vector leg led
        lines.insert(2, _bar("vec-led", result.vector_led, width=bar_width,
                             note=f"× {1 - result.keyword_say:.2f}; holds {result.keyword_coverage:.0%} of the query"))
    age = "evergreen, never decays" if result.age_days is None else f"{result.age_days:.1f} days old"
    state = f"half-life {params.half_life_days:g}d" if params.decay else "decay off"
    lines.append(_bar("decay", result.decay, width=bar_width, note=f"{age}; {state}"))
    if window is not None:
        w = window.to_dict()
        where = "inside" if result.time_factor > 1 else "evergreen" if result.age_days is None else "outside"
        note = f"{where} “{safe(w['text'], one_line=True)}”"
        lines.append(_bar("time", result.time_factor, width=bar_width, scale=max(1.0, result.time_factor), note=note))
    if result.rank == 0:  # a hit only OpenClaw returned: memtui's scores as far as it has them
        lines.append(Text(f"{'final':<10}", style="bold").append("memtui ranks it nowhere", style="italic"))
    else:
        lines.append(_bar("final", result.score, width=bar_width))
    if openclaw is not None:
        oc_rank, hit, recall = openclaw
        asked = f"{len(recall.events)}× asked" if len(recall.events) > 1 else "asked once"
        lines.append(_bar("OpenClaw", hit.score, width=bar_width, note=f"its own score, #{oc_rank}; {asked}"))
    rank = Text(f"{'rank':<10}", style="bold")
    rank.append(f"#{result.rank}" if result.rank else "—")
    moves = rank_moves(result, params.mmr)
    rank.append(f"   ({moves})" if moves else "   (score order)" if not params.mmr else "   (MMR kept it here)",
                style="italic" if moves else "dim")
    lines.append(rank)
    for line in lines:  # a narrow pane cuts the notes rather than wrapping a row under its bar
        line.truncate(max(1, width), overflow="ellipsis")
    return Text("\n").join(lines)


def score_summary(result: Result | None, params: SearchParams, width: int = 37, windowed: bool = False) -> str:
    """The selected result's score on one line (final, its legs, decay): the tuning panel shows it where it
    floats over the score pane, so a slider's effect on the selected result stays in sight at 80×24."""
    if result is None or result.rank == 0:
        return "score: no ranked result selected"

    def leg(value: float | None) -> str:
        return "—" if value is None else f"{value:.2f}"

    line = (f"#{result.rank} {result.score:.3f}: vec {leg(result.vector_score)} kw {leg(result.text_score)}"
            f" decay {leg(result.decay) if params.decay else 'off'}")
    if windowed:
        line += f" time {result.time_factor:.2f}"
    return line if len(line) <= width else line[: max(1, width - 1)] + "…"
