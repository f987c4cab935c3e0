"""Narrowing ranked results: by source, date range and path, sorted by score or by date.

Pure functions over the results `rank` returned, so every front end narrows the same way and the ranking
itself (and its scores) never changes: a filter only hides results and a sort only reorders them. A
result's date is its note's or message's time (now minus its age); an undated note (MEMORY.md, an
evergreen file) has none, so a date range leaves it out and a sort by date puts it last.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal

from ..engine.search.rank import Result

DAY_MS = 86_400_000
Source = Literal["all", "memory", "sessions"]
Sort = Literal["score", "date"]
SOURCES: tuple[Source, ...] = ("all", "memory", "sessions")
SOURCE_NAMES: dict[str, str] = {"all": "notes and transcripts", "memory": "notes", "sessions": "transcripts"}
_RELATIVE = re.compile(r"^(\d{1,4})\s*([dwm])$")  # 7d, 2w, 3m: days, weeks, months (30 days) ago


class BadBound(ValueError):
    """A date bound that is neither YYYY-MM-DD nor a number of days, weeks or months ago."""


@dataclass(frozen=True)
class ResultFilter:
    source: Source = "all"
    since_ms: float | None = None  # from this time on (inclusive)
    until_ms: float | None = None  # before this time (exclusive: the end of the day given)
    path: str = ""  # a part of the path, any case
    sort: Sort = "score"

    @property
    def narrows(self) -> bool:
        """Anything hidden (a sort alone hides nothing)."""
        return self.source != "all" or self.since_ms is not None or self.until_ms is not None or bool(self.path)

    @property
    def active(self) -> bool:
        return self.narrows or self.sort != "score"

    def describe(self) -> str:
        """What it does, in words: "notes · from 2026-11-01 · path ~ lumen · newest first"."""
        parts = []
        if self.source != "all":
            parts.append(SOURCE_NAMES[self.source])
        if self.since_ms is not None:
            parts.append(f"from {_day(self.since_ms)}")
        if self.until_ms is not None:
            parts.append(f"to {_day(self.until_ms - 1)}")
        if self.path:
            parts.append(f"path ~ {self.path}")
        if self.sort == "date":
            parts.append("newest first")
        return " · ".join(parts)


def _day(ms: float) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d")


def parse_bound(text: str, now_ms: float, *, end: bool = False) -> float | None:
    """A date bound typed by a person: "" is none; YYYY-MM-DD is that day's start (`end`: the next day's
    start, so the day itself is inside); 7d / 2w / 3m is that long before `now_ms` (at day precision)."""
    text = text.strip().lower()
    if not text:
        return None
    relative = _RELATIVE.match(text)
    if relative:
        n, unit = int(relative.group(1)), relative.group(2)
        days = n * {"d": 1, "w": 7, "m": 30}[unit]
        day = datetime.fromtimestamp(now_ms / 1000, UTC).replace(hour=0, minute=0, second=0, microsecond=0)
        start = day - timedelta(days=days)
        return (start + timedelta(days=1)).timestamp() * 1000 if end else start.timestamp() * 1000
    try:
        day = datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=UTC)
    except ValueError:
        raise BadBound(f"“{text}” is not a date: use YYYY-MM-DD, or 7d, 2w, 3m for days, weeks, months ago") from None
    return (day + timedelta(days=1)).timestamp() * 1000 if end else day.timestamp() * 1000


def result_time_ms(result: Result, now_ms: float) -> float | None:
    """When the result was written (its age before `now_ms`); None for an undated note."""
    return None if result.age_days is None else now_ms - result.age_days * DAY_MS


def narrow(results: Sequence[Result], flt: ResultFilter, now_ms: float) -> list[Result]:
    """The results `flt` keeps, in its order (score order is the ranking's own; by date, newest first with the
    undated last, each group in ranking order)."""
    needle = flt.path.lower()
    kept: list[Result] = []
    for r in results:
        if flt.source != "all" and r.source != flt.source:
            continue
        if needle and needle not in r.path.lower():
            continue
        if flt.since_ms is not None or flt.until_ms is not None:
            when = result_time_ms(r, now_ms)
            if when is None or (flt.since_ms is not None and when < flt.since_ms) \
                    or (flt.until_ms is not None and when >= flt.until_ms):
                continue
        kept.append(r)
    if flt.sort == "date":
        dated = [r for r in kept if r.age_days is not None]
        undated = [r for r in kept if r.age_days is None]
        kept = sorted(dated, key=lambda r: r.age_days or 0.0) + undated  # sorted() is stable: ties keep their rank order
    return kept


def next_source(source: Source) -> Source:
    return SOURCES[(SOURCES.index(source) + 1) % len(SOURCES)]
