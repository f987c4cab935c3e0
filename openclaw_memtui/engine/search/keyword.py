"""The keyword leg: FTS5 MATCH with BM25, converted to a [0, 1) score the OpenClaw way."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..store.schema import LINE_BITS
from .query import and_query, build_fts_query, or_query

# lines read per query for line scores: enough for the best line of every chunk in a 100-chunk pool
LINES_PER_POOL_CHUNK = 10


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


def line_search(conn: Any, query: str, pool_size: int, cjk_bigram: bool = True) -> dict[int, float]:
    """Chunk rowid → score of its best-matching line (OR of the query's content words, BM25 over
    lines), for the chunks whose lines rank in the top `pool_size × 10`. Empty when the index has no
    `lines_fts` yet (an older index before its next sync) or the query has no word."""
    match = or_query(query, cjk_bigram)
    if not match:
        return {}
    try:
        rows = conn.execute(
            f"SELECT rowid >> {LINE_BITS}, bm25(lines_fts) AS rank FROM lines_fts WHERE lines_fts MATCH ?"
            " ORDER BY rank ASC LIMIT ?", (match, pool_size * LINES_PER_POOL_CHUNK)).fetchall()
    except Exception:  # no lines_fts table (read-only search of an older index), or a MATCH it rejects
        return {}
    best: dict[int, float] = {}
    for chunk, rank in rows:
        best.setdefault(chunk, bm25_rank_to_score(rank))  # rows come best first
    return best
