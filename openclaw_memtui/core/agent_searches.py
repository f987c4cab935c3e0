"""An agent's searches with who answered each: OpenClaw's records (interop/recalls.py) beside
memtui's own record of the searches it answered (core/search_log.py).

A search memtui answered is memtui's, whichever record holds it: its own log, or the agent's
transcript (where the tool answer says `engine: memtui`). The transcript's copy of a search memtui
logged is dropped (the log has it, with the time memtui answered). The Agent searches screen and
`memtui recalls` read this, and label each search's answer by `Recall.engine`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..interop.agent_recalls import agent_recalls
from ..interop.recall_compare import Compared
from ..interop.recalls import SAME_SEARCH_MS, RecallSet, group
from .search_log import log_path, read_searches

if TYPE_CHECKING:
    from .gate import Gate


def agent_searches(agent: Any, workspace: Path, state_dir: str | os.PathLike[str], since_ms: float | None = None,
                   limit: int | None = None) -> RecallSet:
    """`agent`'s searches, OpenClaw's and memtui's answers alike, grouped by query, newest first."""
    found = agent_recalls(agent, state_dir)
    mine = read_searches(log_path(workspace, agent.id))
    theirs = [e for r in found.recalls for e in r.events
              if not (e.engine == "memtui" and any(m.query == e.query and abs(m.ts_ms - e.ts_ms) <= SAME_SEARCH_MS
                                                   for m in mine))]
    sources = [s for s in found.source.split("+") if s != "none"] + (["memtui"] if mine else [])
    return RecallSet(group([*theirs, *mine], since_ms, limit), "+".join(sources) or "none", found.notes)


def gated(found: RecallSet, gate: Gate) -> RecallSet:
    """`found` with every recorded hit's path masked by the gate (`Gate.recalled`), as memtui's own
    results are: what the app shows of OpenClaw's answers leaks no key a note is named after, and a
    recorded hit still matches memtui's result for the same note."""
    recalls = [replace(r, events=[replace(e, hits=tuple(gate.recalled(e.hits))) for e in r.events])
               for r in found.recalls]
    return replace(found, recalls=recalls)


def below_min_score(rows: Iterable[Compared], min_score: float) -> list[Compared]:
    """The rows only memtui returns that score below the agent's `min_score`: what the agent's own minScore
    would hide, shown by memtui because a keyword hit is kept under it (the ranking's keyword rescue).
    `memtui recalls` hides them unless asked (`--all`): beside OpenClaw's answer they read as memtui's noise."""
    return [c for c in rows if c.found == "memtui" and c.memtui_score is not None and c.memtui_score < min_score]
