"""Retrieval: run the keyword, vector and date legs once and return a candidate pool with raw scores.

The pool size is fixed (`candidatePool`, default 100 per leg), never derived from maxResults, so
asking for fewer results never changes which result comes first (OpenClaw #134604). Everything a
leg needs arrives in a `RetrievalContext`; retrieval never syncs, and never calls back into the
`MemoryIndex` that built the context.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..embeddings.base import EmbeddingError, EmbeddingProvider
from ..settings import DEFAULT_CANDIDATE_POOL, DEFAULT_KEYWORD_MODE, KeywordMode
from ..store.reader import ChunkRow, IndexReader
from ..textutil import clean_text
from .keyword import KeywordHit, keyword_search, line_search
from .rank import Candidate, Pool
from .timewindow import TimeWindow, detect_time_window

if TYPE_CHECKING:  # numpy and the vector searcher load only when a vector leg runs (CLI start time)
    import numpy as np

    from ..vectors.vector import VectorSearcher

MAX_QUERY_CHARS = 2000  # longer input is cut: FTS and embedding models gain nothing from more

Generation = tuple[int, int]  # (file epoch, store generation): changes whenever chunks or vectors do


@dataclass(frozen=True)
class RetrievalContext:
    """What retrieval reads from: one read connection, the legs' settings, the provider."""

    reads: IndexReader
    sources: tuple[str, ...]
    cjk_bigram: bool
    vectors: VectorSearcher | None  # None without a provider: keyword-only search never loads numpy
    vec_loaded: bool  # sqlite-vec is loaded on the read connection (the KNN path is possible)
    provider: EmbeddingProvider | None  # None: keyword-only
    provider_error: str  # why there is no provider, when there is none
    generation: Callable[[], Generation]
    chunk_counts: Callable[[str, Generation], tuple[int, int]]  # (embedded with model, all), cached


def normalize_query(query: str) -> str:
    # undecodable argv bytes and JSON "\ud800" escapes arrive as lone surrogates, which the
    # tokenizer, SQLite and stdout all refuse to encode: they become U+FFFD here, once for every path
    return " ".join(clean_text(query).split())[:MAX_QUERY_CHARS]


def retrieve(ctx: RetrievalContext, query: str, pool_size: int = DEFAULT_CANDIDATE_POOL,
             keyword_mode: KeywordMode = DEFAULT_KEYWORD_MODE, now_ms: float | None = None,
             use_vectors: bool = True, time_aware: bool = True) -> Pool:
    now_ms = now_ms if now_ms is not None else time.time() * 1000
    query = normalize_query(query)
    pool = Pool(query=query, candidates=[], now_ms=now_ms, mode="keyword", leg_query=query)
    if not query:
        return pool
    if time_aware:
        t = time.perf_counter()
        pool.time_window, stripped = detect_time_window(query, now_ms)
        pool.timings_ms["time"] = (time.perf_counter() - t) * 1000
        if pool.time_window is not None and any(ch.isalnum() for ch in stripped):
            pool.leg_query = stripped  # "last week" must not match text that merely says "week"
    hits = keyword_leg(ctx, pool, pool_size, keyword_mode)
    lines = line_leg(ctx, pool, pool_size)
    vector_hits, qvec = vector_leg(ctx, pool, pool_size, use_vectors)
    dated = date_leg(ctx, pool.time_window, pool_size)
    t = time.perf_counter()
    rowids = list(dict.fromkeys([rid for rid, _ in vector_hits] + [h.rowid for h in hits] + dated))
    pool.candidates = candidates(ctx.reads.chunks_by_rowid(rowids), rowids, hits, qvec, lines)
    pool.timings_ms["fetch"] = (time.perf_counter() - t) * 1000
    if qvec is not None and ctx.provider is not None:
        pool.candidates = with_line_vectors(ctx, pool, ctx.provider.model, qvec)
    pool.mode = "hybrid" if qvec is not None else "keyword"
    return pool


def keyword_leg(ctx: RetrievalContext, pool: Pool, pool_size: int, mode: KeywordMode) -> list[KeywordHit]:
    t = time.perf_counter()
    hits, pool.keyword_form = keyword_search(ctx.reads.conn, pool.leg_query, pool_size, ctx.sources, mode, ctx.cjk_bigram)
    pool.timings_ms["keyword"] = (time.perf_counter() - t) * 1000
    return hits


def line_leg(ctx: RetrievalContext, pool: Pool, pool_size: int) -> dict[int, float]:
    """Best-line keyword scores; they only score chunks the other legs retrieved (never add one), so
    a line weight of 0 ranks exactly as before."""
    t = time.perf_counter()
    lines = line_search(ctx.reads.conn, pool.leg_query, pool_size, ctx.cjk_bigram)
    pool.timings_ms["lines"] = (time.perf_counter() - t) * 1000
    return lines


def vector_leg(ctx: RetrievalContext, pool: Pool, pool_size: int,
               use_vectors: bool) -> tuple[list[tuple[int, float]], np.ndarray | None]:
    """(rowid, cosine) hits and the query vector; none (and a warning saying why) when the leg cannot run."""
    provider = ctx.provider if use_vectors else None
    if use_vectors and ctx.provider_error and provider is None:
        pool.warnings.append(f"keyword-only: {ctx.provider_error}")
    if provider is None or ctx.vectors is None:
        return [], None
    model = provider.model
    generation = ctx.generation()  # one read serves the counts and the vector cache
    embedded, total = ctx.chunk_counts(model, generation)
    if not embedded:
        if total:  # an index with no chunks at all: a sync has nothing to embed, so do not advise one
            pool.warnings.append(_no_vectors_for(model, ctx.reads.vector_models()))
        return [], None
    t = time.perf_counter()
    qvec = None
    try:
        qvec = provider.embed_query(pool.leg_query)
    except EmbeddingError as exc:
        pool.warnings.append(f"keyword-only: query embedding failed ({exc})")
    pool.timings_ms["embed"] = (time.perf_counter() - t) * 1000
    stored = ctx.reads.vector_dims()
    if qvec is not None and stored and stored != len(qvec):
        # the provider changed its vector size: no stored vector is comparable, say so
        # instead of a "hybrid" search whose vector leg silently scores nothing
        pool.warnings.append(f"keyword-only: {provider.id} now returns {len(qvec)}-dim vectors, the index "
                             f"holds {stored}-dim ones (run memtui index to re-embed)")
        qvec = None
    if qvec is None:
        return [], None
    t = time.perf_counter()
    hits = ctx.vectors.search(ctx.reads.conn, qvec, pool_size, generation=generation, model=model,
                              vec_loaded=ctx.vec_loaded, sources=ctx.sources, count=embedded)
    pool.vector_path = ctx.vectors.last_path
    pool.timings_ms["vector"] = (time.perf_counter() - t) * 1000
    if embedded < total:
        pool.warnings.append(f"vectors still filling in: {embedded}/{total} chunks embedded")
    return hits, qvec


def _no_vectors_for(model: str, others: dict[str, int]) -> str:
    """Why no chunk has a vector for this search: none was made yet, or another model made them (a server
    or a search configured with another model than the index was built with: "run a sync" was untrue)."""
    if not others:
        return "keyword-only: no chunk has a vector yet (run a sync)"
    made = ", ".join(f"{name} ({n})" for name, n in sorted(others.items(), key=lambda kv: -kv[1])[:3])
    return (f"keyword-only: this search embeds with model {model}, but the index's vectors were made with {made}; "
            f"vectors of different models cannot be compared: use that model, or run `memtui index` with {model} "
            "to re-embed")


def date_leg(ctx: RetrievalContext, window: TimeWindow | None, pool_size: int) -> list[int]:
    """Chunks dated inside the query's time window, even without a word in common."""
    if window is None:
        return []
    return ctx.reads.rowids_dated_between(window.start_ms, window.end_ms, ctx.sources, pool_size)


def with_line_vectors(ctx: RetrievalContext, pool: Pool, model: str, qvec: np.ndarray) -> list[Candidate]:
    """Each candidate's cosine raised to its best line's where the index holds line vectors
    (`chunking.lineVectors`): a chunk is as close to the query as its closest line."""
    from dataclasses import replace

    from ..vectors.line_vectors import best_line_cosines, has_line_vectors

    cands = pool.candidates
    if not has_line_vectors(ctx.reads.conn, model):
        return cands
    t = time.perf_counter()
    best = best_line_cosines(ctx.reads.conn, model, [c.text for c in cands], qvec)
    pool.timings_ms["line vectors"] = (time.perf_counter() - t) * 1000
    return [replace(c, vector_score=max(c.vector_score, b)) if c.vector_score is not None and b is not None else c
            for c, b in zip(cands, best, strict=True)]


def candidates(rows: dict[int, ChunkRow], rowids: list[int], hits: list[KeywordHit],
               qvec: np.ndarray | None, lines: dict[int, float] | None = None) -> list[Candidate]:
    """One candidate per retrieved chunk, in leg order, with its raw component scores."""
    if qvec is not None:
        import numpy as np  # only the vector path needs it
    text_scores = {h.rowid: (h.score, h.rank) for h in hits}
    out = []
    for rid in rowids:
        row = rows.get(rid)
        if row is None:
            continue
        vscore = None
        if qvec is not None and row.embedding and len(row.embedding) == 4 * len(qvec):
            vscore = float(np.frombuffer(row.embedding, dtype=np.float32) @ qvec)
        tscore, trank = text_scores.get(rid, (0.0, None))
        out.append(Candidate(
            rowid=rid, id=row.id, path=row.path, source=row.source, start_line=row.start_line, end_line=row.end_line,
            text=row.text, vector_score=vscore, text_score=tscore, bm25_rank=trank, ts_ms=row.ts_ms,
            date_source=row.date_source, line_score=(lines or {}).get(rid, 0.0),
        ))
    return out
