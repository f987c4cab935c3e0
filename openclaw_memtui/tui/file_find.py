"""Find in the file view: where a query occurs in the rows shown, and which match `n` / `N` goes to.

Pure functions over the rows' plain text, so the rules (case, order, wrapping around) are tested without
a terminal. Case is ignored unless the query has a capital letter (smart case, as in less -i and vim).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Match:
    row: int  # the row (a line of the file, or a transcript's message line)
    start: int  # character offsets in that row's text
    end: int


def find_matches(rows: list[str], query: str) -> list[Match]:
    """Every occurrence of `query` in `rows`, in reading order (overlapping ones not counted twice)."""
    if not query:
        return []
    exact = query != query.lower()
    needle = query if exact else query.lower()
    found: list[Match] = []
    for r, text in enumerate(rows):
        hay = text if exact else text.lower()
        if len(hay) != len(text):  # lower() changed the length (a rare letter like İ): offsets from the text itself
            hay, needle_here = text, query
        else:
            needle_here = needle
        at = hay.find(needle_here)
        while at >= 0:
            found.append(Match(r, at, at + len(needle_here)))
            at = hay.find(needle_here, at + max(1, len(needle_here)))
    return found


def next_match(matches: list[Match], top_row: int, *, forward: bool, current: int) -> int:
    """The index of the match to go to: from `current` the next (or previous) one, wrapping around; with no
    current match, the first at or after `top_row` (the row at the top of the view), else the first. -1 when
    there is none."""
    if not matches:
        return -1
    if 0 <= current < len(matches):
        return (current + (1 if forward else -1)) % len(matches)
    if forward:
        return next((i for i, m in enumerate(matches) if m.row >= top_row), 0)
    return next((i for i in range(len(matches) - 1, -1, -1) if matches[i].row < top_row), len(matches) - 1)
