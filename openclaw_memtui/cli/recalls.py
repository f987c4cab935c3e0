"""`memtui recalls`: the agent's own memory searches, what OpenClaw returned, what memtui ranks now."""

from __future__ import annotations

import argparse
import sys
import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..core.session import Session, SessionOptions, open_session
from ..errors import UserError

if TYPE_CHECKING:
    from ..core.config_types import AppConfig

DEFAULT_LIMIT = 20
SOURCE_NAMES = {"events": "OpenClaw's records", "transcripts": "its transcripts' memory_search calls",
                "memtui": "memtui's record of the searches it answered"}
ANSWERED_BY = {"openclaw": "OpenClaw", "memtui": "memtui"}  # who gave the answer shown beside memtui's ranking now
MARK = {"both": "both", "openclaw": "only OpenClaw", "memtui": "only memtui"}
MEMTUI_MARK = {"both": "both", "openclaw": "only then", "memtui": "only now"}  # memtui's answer then, its ranking now
QUERY_SHOWN_CHARS = 200  # a 2,000-character query is cut on screen (--json has it whole)


def parse_since(value: str | None) -> float | None:
    """`--since 2026-11-30` (midnight UTC) or an ISO time, as epoch milliseconds."""
    if not value:
        return None
    try:
        dt = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        from ..render import safe

        raise UserError(f"--since {safe(value, one_line=True)!r} is not a date like 2026-11-30 or "
                        "2026-11-30T12:00:00Z") from None
    return (dt if dt.tzinfo else dt.replace(tzinfo=UTC)).timestamp() * 1000


def when(ms: float) -> str:
    try:  # a time no calendar holds (OpenClaw's rows are checked when read; this is the last guard)
        return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M") if ms > 0 else "unknown time"
    except (OverflowError, ValueError, OSError):
        return "unknown time"


def load_agent_recalls(session: Any, since_ms: float | None = None, limit: int | None = None) -> Any:
    """The searches of the session's agent, OpenClaw's answers and memtui's (core/agent_searches.py);
    UserError without an agent."""
    from ..core.agent_searches import agent_searches
    from ..paths import openclaw_state_dir

    if session.agent is None:
        raise UserError("memtui recalls reads an OpenClaw agent's searches: pass --agent ID (see `memtui agents`)")
    return agent_searches(session.agent, session.index.settings.workspace, openclaw_state_dir(), since_ms, limit)


def cmd_recalls(args: argparse.Namespace, cfg: AppConfig) -> int:
    if args.limit is not None and args.limit < 1:
        raise UserError("--limit must be 1 or more")
    since = parse_since(args.since)
    with open_session(SessionOptions.from_args(args), cfg) as session:
        return _recalls(args, session, since)


def _recalls(args: argparse.Namespace, session: Session, since: float | None) -> int:
    from ..core.agent_searches import below_min_score
    from ..core.search import parse_now, search_request
    from ..engine.search.rank import rank
    from ..interop.recall_compare import compare
    from ..render import dumps_json, safe
    from .request import STALE_WARNING, params_from

    index, cfg = session.index, session.cfg
    found = load_agent_recalls(session, since, args.limit or DEFAULT_LIMIT)
    params = params_from(args, cfg)
    for note in found.notes:
        print(f"memtui: {safe(note, one_line=True)}", file=sys.stderr)
    if found.recalls:
        if index.is_empty() and not index.syncing:
            index.sync(wait=False)
        elif index.check_dirty(0.05).dirty:
            print(f"memtui: {STALE_WARNING}", file=sys.stderr)
    now_ms = parse_now(args.now)
    started = time.perf_counter()
    out = []
    # memtui's side passes the gate as `memtui search` does: masked paths and snippets, no forgotten session
    from ..core.caller import Caller
    from ..core.gate import Gate

    agent_id = session.agent.id if session.agent is not None else None
    gate, caller = Gate(index, agent_id), Caller("cli", agent_id)
    for recall in found.recalls:
        pool = gate.pool(caller, index.pool_for(search_request(cfg, recall.query, params, now_ms=now_ms))).pool
        results = gate.results(rank(pool, params))
        hits = gate.recalled(recall.hits)  # OpenClaw's side masked as memtui's is, then compared
        rows = compare(hits, results)
        below = [] if args.all else below_min_score(rows, params.min_score)  # what the agent's minScore hides
        if below:
            gone = {(c.path, c.start_line, c.end_line) for c in below}
            rows = [c for c in rows if c not in below]
            results = [x for x in results if (x.path, x.start_line, x.end_line) not in gone]
        out.append((recall, hits, results, rows, len(below)))
    agent = session.agent.id if session.agent is not None else ""
    if args.json:
        print(dumps_json({"agent": agent, "source": found.source, "params": params.to_dict(), "recalls": [{
            "query": r.query, "count": len(r.events), "origin": r.events[0].origin,
            "timestamps": [datetime.fromtimestamp(t / 1000, UTC).isoformat().replace("+00:00", "Z") for t in r.timestamps],
            "answeredBy": r.engine, "frontEnd": r.events[0].front_end or None,
            "answered": [h.to_dict() for h in hits],
            "openclaw": [h.to_dict() for h in hits] if r.engine == "openclaw" else [],
            "memtui": [{"path": x.path, "startLine": x.start_line, "endLine": x.end_line, "score": round(x.score, 6)}
                       for x in results],
            "compared": [c.to_dict() for c in rows], "hiddenBelowMinScore": hidden}
            for r, hits, results, rows, hidden in out],
            "seconds": round(time.perf_counter() - started, 3)}, indent=2))
        return 0
    if not out:
        print(f"No searches recorded for agent {safe(agent, one_line=True)}"
              + (" since then." if since is not None else ". Searches appear here once the agent (or "
                 "`openclaw memory search`) has run some."))
        return 0
    where = " and ".join(SOURCE_NAMES.get(part, part) for part in found.source.split("+"))
    print(f"{len(out)} queries of agent {safe(agent, one_line=True)}, newest first (from {where}):\n")
    for recall, _hits, _results, rows, hidden in out:
        query = safe(recall.query, one_line=True)
        cut = query[:QUERY_SHOWN_CHARS] + ("…" if len(query) > QUERY_SHOWN_CHARS else "")
        times = f"{len(recall.events)}×, last" if len(recall.events) > 1 else "once,"
        by = ANSWERED_BY.get(recall.engine, recall.engine)
        via = f" ({recall.events[0].front_end})" if recall.engine == "memtui" and recall.events[0].front_end else ""
        print(f"“{cut}”  {times} {when(recall.last_ms)}, answered by {by}{via}")
        if not rows and not hidden:
            print(f"    neither {by} then nor memtui now returned anything")
        for c in rows:
            theirs = f"#{c.openclaw_rank:<2} {c.openclaw_score:.3f}" if c.openclaw_rank is not None and \
                c.openclaw_score is not None else f"#{c.openclaw_rank:<2}   —  " if c.openclaw_rank is not None else "  —      "
            mine = f"#{c.memtui_rank:<2} {c.memtui_score:.3f}" if c.memtui_rank is not None and c.memtui_score is not None \
                else "  —      "
            move = c.move
            moved = f" ▲{move}" if move and move > 0 else f" ▼{-move}" if move and move < 0 else ""
            place = safe(f"{c.path}:{c.start_line}-{c.end_line}", one_line=True)
            outside = "  (outside the workspace: not opened)" if c.outside else ""
            then = "OpenClaw" if recall.engine == "openclaw" else "then    "
            mark = MARK[c.found] if recall.engine == "openclaw" else MEMTUI_MARK[c.found]
            print(f"    {then} {theirs}  memtui {mine}  {mark + moved:<14} {place}{outside}")
        if hidden:
            print(f"    ({hidden} {'place' if hidden == 1 else 'places'} only memtui returns below the agent's "
                  f"minScore {params.min_score:.2f} hidden: --all shows {'it' if hidden == 1 else 'them'})")
        print()
    return 0
