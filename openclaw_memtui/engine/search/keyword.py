"""The keyword leg: FTS5 MATCH with BM25, converted to a [0, 1) score the OpenClaw way."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .query import and_query, build_fts_query, or_query


def bm25_rank_to_score(rank: float) -> float:
    """OpenClaw's conversion (spec §6.3, after fix #33757): more negative rank → closer to 1."""
    if not math.isfinite(rank):
        return 1 / 1000
    if rank < 0:
        r = -rank
        return r / (1 + r)
    return 1 / (1 + rank)


@dataclass(slots=True)
class KeywordHit:
    rowid: int
    rank: float
    score: float


def _run(conn: Any, match: str, limit: int, sources: tuple[str, ...]) -> list[KeywordHit]:
    marks = ",".join("?" * len(sources))
    sql = (
        "SELECT rowid, bm25(chunks_fts) AS rank FROM chunks_fts WHERE chunks_fts MATCH ?"
        f" AND source IN ({marks}) ORDER BY rank ASC LIMIT ?"
    )
    try:
        rows = conn.execute(sql, (match, *sources, limit)).fetchall()
    except Exception:  # a MATCH syntax the tokenizer rejects is "no hits", not a crash
        return []
    return [KeywordHit(rowid, rank, bm25_rank_to_score(rank)) for rowid, rank in rows]


def keyword_search(conn: Any, query: str, limit: int, sources: tuple[str, ...], mode: str = "and-or",
                   cjk_bigram: bool = True) -> tuple[list[KeywordHit], str]:
    """Returns (hits, which query form matched): 'and', 'or' or 'none'.

    mode 'and' is OpenClaw's behaviour; 'and-or' (default) retries with OR when AND finds nothing;
    'or' always ORs the content words.
    """
    if mode == "and":
        match = build_fts_query(query) if not cjk_bigram else and_query(query, cjk_bigram)
        return (_run(conn, match, limit, sources), "and") if match else ([], "none")
    if mode == "and-or":
        match = and_query(query, cjk_bigram)
        if match:
            hits = _run(conn, match, limit, sources)
            if hits:
                return hits, "and"
    match = or_query(query, cjk_bigram)
    return (_run(conn, match, limit, sources), "or") if match else ([], "none")
