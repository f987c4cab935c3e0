"""`memtui search` and `memtui eval`."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from typing import Any

from ..core.config import AppConfig
from ..core.search import parse_now, search_request
from ..core.session import Session, SessionOptions, open_session
from ..errors import UserError
from .request import STALE_WARNING, params_from, sync_before_scoring


def cmd_search(args: argparse.Namespace, cfg: AppConfig) -> int:
    started = time.perf_counter()
    with open_session(SessionOptions.from_args(args), cfg, read_only_if_unwritable=True) as session:
        return _search(args, session, started)


def _search(args: argparse.Namespace, session: Session, started: float) -> int:
    from ..engine.dirty_check import STATUS_DIRTY_BUDGET_S
    from ..engine.search.rank import rank, rank_moves
    from ..render import dumps_json, safe

    index, cfg = session.index, session.cfg
    params = params_from(args, cfg)
    stale = False
    if index.is_empty() and not index.syncing and not index.read_only:
        # a workspace searched before it was ever indexed: build it first, or wait for the process building it
        # (an agent's server started at the same moment; said at once, bounded by --wait) rather than answer
        # "No matches." from the empty file
        from .wait import lock_wait

        report = index.sync(**lock_wait(args))
        no_files = report is not None and report.files_total == 0
    else:
        # Search reads the index as it is: a sync here could be a rebuild (`--provider none` on a vector
        # index drops its vectors). A note written since the last sync is then not found, so say so;
        # status's bounded check (every file of a small index, else a time budget of stat) keeps this cheap.
        stale = bool(index.check_dirty(STATUS_DIRTY_BUDGET_S).dirty)
        no_files = not stale and index.is_empty()
    pool = index.pool_for(search_request(cfg, args.query, params, now_ms=parse_now(args.now)))
    if stale:
        pool.warnings.append(STALE_WARNING)
    if no_files and not pool.candidates:  # "No matches." alone read as if there were notes to search
        from ..core.session import memory_wanted, workspace_hint

        pool.warnings.append(f"no memory files in {index.settings.workspace}: memtui indexes {memory_wanted(index.settings)} "
                             "(pass another folder with --workspace DIR or --agent ID, or try --demo)")
        if hint := workspace_hint(index.settings):
            pool.warnings.append(hint)
    # the gate (core/gate.py): forgotten sessions out, every text and path masked; this only prints
    from ..core.caller import Caller
    from ..core.gate import Gate, mask_answer

    agent_id = session.agent.id if session.agent is not None else None
    gate = Gate(index, agent_id)
    pool = gate.pool(Caller("cli", agent_id), pool).pool
    t = time.perf_counter()
    results = gate.results(rank(pool, params))
    timings = dict(pool.timings_ms, rank=(time.perf_counter() - t) * 1000, total=(time.perf_counter() - started) * 1000)
    if args.json:
        window = pool.time_window.to_dict() if pool.time_window is not None else None
        print(dumps_json(mask_answer({"query": pool.query, "mode": pool.mode, "warnings": pool.warnings,
                                      "time_window": window, "params": params.to_dict(),
                                      "results": [r.to_dict() for r in results],
                                      "timings_ms": {k: round(v, 3) for k, v in timings.items()}}), indent=2))
        return 0
    for warning in pool.warnings:
        print(f"memtui: {safe(warning, one_line=True)}", file=sys.stderr)
    if pool.time_window is not None:
        w = pool.time_window.to_dict()
        print(f"time window: {safe(w['text'], one_line=True)} → {w['start']} … {w['end']} ({params.time_mode})\n")
    if not results:
        print("No matches.")
        return 0
    for r in results:
        age = "evergreen" if r.age_days is None else f"{r.age_days:.0f}d old"
        vec = ("none yet (ranked on keywords alone)" if r.vector_missing else "-" if r.vector_score is None
               else f"{r.vector_score:.3f}")
        moves = rank_moves(r, params.mmr)
        moved = f" ({moves})" if moves else ""
        print(f"#{r.rank}{moved}  {r.score:.3f}  {safe(r.path, one_line=True)}:{r.start_line}-{r.end_line}  [{r.source}, {age}]")
        timing = f" · time {r.time_factor:.2f}" if pool.time_window is not None else ""
        print(f"    vector {vec} · text {r.text_score:.3f} · hybrid {r.hybrid_score:.3f} · decay {r.decay:.3f}{timing}")
        if r.keyword_say < 1:  # coverage fusion: the vector leg led part of this score (docs/ranking.md)
            print(f"    holds {r.keyword_coverage:.0%} of the query's words: weighted sum × {r.keyword_say:.2f}"
                  f" + vector-led {r.vector_led:.3f} × {1 - r.keyword_say:.2f}")
        snippet = safe(r.snippet, keep_newlines=False)
        print(f"    {snippet[:300]}{'…' if len(snippet) > 300 else ''}")
        print()
    return 0


def _private_opener(path: str, flags: int) -> int:
    return os.open(path, flags, 0o600)


def cmd_eval(args: argparse.Namespace, cfg: AppConfig) -> int:
    from ..engine.tuning.evaluation import load_queries
    from ..render import safe

    queries: list[dict[str, Any]] = []
    if args.queries:
        from .tune import queries_file

        path = queries_file(args.queries)
        try:
            queries = load_queries(path)
        except ValueError as exc:
            raise UserError(str(exc)) from None
        if not queries:  # it printed an empty table and exit code 0, as if every query had been scored
            raise UserError(f"{safe(str(path), one_line=True)} holds no queries: give one JSON object per line, "
                            "with qid, question and targets")
    from .wait import lock_wait

    waiting = lock_wait(args)
    with open_session(SessionOptions.from_args(args), cfg, read_only_if_unwritable=True) as session:
        return _eval(args, session, queries, waiting)


def _eval(args: argparse.Namespace, session: Session, queries: list[dict[str, Any]], waiting: dict[str, Any]) -> int:
    from ..engine.tuning.evaluation import format_table, score_pool, summarize
    from ..engine.tuning.tuner import measured_as
    from ..render import dumps_json, safe

    index, cfg = session.index, session.cfg
    sync_before_scoring(index, waiting)
    if not args.queries:  # the judgements stored for this index (marked in the app, or imported)
        from .tune import stored_queries

        queries = stored_queries(session)
    params = params_from(args, cfg)
    now_ms = parse_now(args.now)
    scored = []
    started = time.perf_counter()
    # the hits name memory files: a new --out is 0600 like `judgements export --out` (an existing file keeps its mode)
    with (open(args.out, "w", encoding="utf-8", opener=_private_opener) if args.out
          else contextlib.nullcontext()) as out:
        for q in queries:
            pool = index.pool_for(search_request(cfg, q["question"], params, now_ms=now_ms))
            hits, m = score_pool(pool, params, q.get("targets"))
            if out:
                out.write(dumps_json({"qid": q["qid"], "hits": hits}) + "\n")
            if m is not None:
                scored.append((q, m))
    summary = summarize(scored)
    if args.json:
        print(dumps_json({"summary": summary, "queries": len(queries), "scored": len(scored),
                          "seconds": round(time.perf_counter() - started, 3), "params": params.to_dict(),
                          "measured": measured_as(params)}, indent=2))
    else:
        print(safe(format_table(summary)))  # category names come from the queries file
        print(f"\n{len(scored)} of {len(queries)} queries had targets, {measured_as(params)}; "
              f"{time.perf_counter() - started:.1f}s")
    return 0
