"""OpenClaw's answer to a search beside memtui's: each place either returned, with its rank and score
in each (`memtui recalls --compare`, the app's agent searches)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .recalls import RecallHit


@dataclass(frozen=True, slots=True)
class Compared:
    """One place either ranking returned, with its rank and score in each (None: not returned)."""

    path: str
    start_line: int
    end_line: int
    openclaw_rank: int | None
    openclaw_score: float | None
    memtui_rank: int | None
    memtui_score: float | None
    outside: bool = False

    @property
    def found(self) -> str:
        """"both", "openclaw" (only OpenClaw returned it) or "memtui" (only memtui does)."""
        if self.openclaw_rank is not None and self.memtui_rank is not None:
            return "both"
        return "openclaw" if self.openclaw_rank is not None else "memtui"

    @property
    def move(self) -> int | None:
        """Ranks memtui places it above OpenClaw (negative: below); None unless both returned it."""
        if self.openclaw_rank is None or self.memtui_rank is None:
            return None
        return self.openclaw_rank - self.memtui_rank

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "startLine": self.start_line, "endLine": self.end_line, "found": self.found,
                "openclawRank": self.openclaw_rank, "openclawScore": self.openclaw_score,
                "memtuiRank": self.memtui_rank, "memtuiScore": self.memtui_score, "move": self.move,
                **({"outside": True} if self.outside else {})}


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> int:
    return min(a[1], b[1]) - max(a[0], b[0]) + 1


def compare(hits: Iterable[RecallHit], results: Iterable[Any]) -> list[Compared]:
    """OpenClaw's hits beside memtui's results (objects with path, start_line, end_line, score): a hit
    is the result at the same lines of the same file, else the one overlapping it most (memtui may cut
    chunks elsewhere). OpenClaw's order first, then what only memtui returns, in its order."""
    ranked = list(results)
    taken: set[int] = set()
    out: list[Compared] = []
    for n, hit in enumerate(hits, 1):
        match = None
        if not hit.outside:
            same = [i for i, r in enumerate(ranked) if i not in taken and r.path == hit.path]
            exact = [i for i in same if (ranked[i].start_line, ranked[i].end_line) == (hit.start_line, hit.end_line)]
            overlapping = sorted((i for i in same if _overlap((ranked[i].start_line, ranked[i].end_line),
                                                               (hit.start_line, hit.end_line)) > 0),
                                 key=lambda i: -_overlap((ranked[i].start_line, ranked[i].end_line),
                                                         (hit.start_line, hit.end_line)))
            match = exact[0] if exact else overlapping[0] if overlapping else None
        if match is None:
            out.append(Compared(hit.path, hit.start_line, hit.end_line, n, hit.score, None, None, hit.outside))
        else:
            taken.add(match)
            r = ranked[match]
            out.append(Compared(hit.path, hit.start_line, hit.end_line, n, hit.score, match + 1, float(r.score)))
    for i, r in enumerate(ranked):
        if i not in taken:
            out.append(Compared(r.path, r.start_line, r.end_line, None, None, i + 1, float(r.score)))
    return out
