"""Retrieval: run the keyword and vector legs once and return a candidate pool with raw scores.

The pool size is fixed (`candidatePool`, default 100 per leg), never derived from maxResults, so
asking for fewer results never changes which result comes first (OpenClaw #134604).
"""

from __future__ import annotations

import time

from ..embeddings.base import EmbeddingError
from ..textutil import clean_text
from .keyword import keyword_search
from .rank import Candidate, Pool
from .timewindow import detect_time_window

MAX_QUERY_CHARS = 2000  # longer input is cut: FTS and embedding models gain nothing from more


def retrieve(index, query: str, pool_size: int = 100, keyword_mode: str = "and-or",
             now_ms: float | None = None, use_vectors: bool = True, time_aware: bool = True) -> Pool:
    now_ms = now_ms if now_ms is not None else time.time() * 1000
    # undecodable argv bytes and JSON "\ud800" escapes arrive as lone surrogates, which the
    # tokenizer, SQLite and stdout all refuse to encode: they become U+FFFD here, once for every path
    query = " ".join(clean_text(query).split())[:MAX_QUERY_CHARS]
    pool = Pool(query=query, candidates=[], now_ms=now_ms, mode="keyword", leg_query=query)
    if not query:
        return pool
    if time_aware:
        t = time.perf_counter()
        pool.time_window, stripped = detect_time_window(query, now_ms)
        pool.timings_ms["time"] = (time.perf_counter() - t) * 1000
        if pool.time_window is not None and any(ch.isalnum() for ch in stripped):
            pool.leg_query = stripped  # "last week" must not match text that merely says "week"
    query = pool.leg_query
    conn = index.reader()
    sources = index.settings.sources
    cjk = index.settings.cjk_segmentation == "bigram"

    t = time.perf_counter()
    hits, pool.keyword_form = keyword_search(conn, query, pool_size, sources, keyword_mode, cjk)
    pool.timings_ms["keyword"] = (time.perf_counter() - t) * 1000
    text_scores = {h.rowid: (h.score, h.rank) for h in hits}

    vector_hits: list[tuple[int, float]] = []
    qvec = None
    provider = index.provider if use_vectors else None
    if use_vectors and index.provider_error and provider is None:
        pool.warnings.append(f"keyword-only: {index.provider_error}")
    if provider is not None:
        model = provider.model
        generation = index.store_generation()  # one read serves the counts and the vector cache
        embedded, total = index.chunk_counts(model, generation)
        if embedded:
            t = time.perf_counter()
            try:
                qvec = provider.embed_query(query)
            except EmbeddingError as exc:
                pool.warnings.append(f"keyword-only: query embedding failed ({exc})")
            pool.timings_ms["embed"] = (time.perf_counter() - t) * 1000
            stored = conn.execute("SELECT value FROM meta WHERE key = 'vectorDims'").fetchone()
            if qvec is not None and stored and stored[0] and int(stored[0]) != len(qvec):
                # the provider changed its vector size: no stored vector is comparable, say so
                # instead of a "hybrid" search whose vector leg silently scores nothing
                pool.warnings.append(f"keyword-only: {provider.id} now returns {len(qvec)}-dim vectors, the index "
                                     f"holds {stored[0]}-dim ones (run memtui index to re-embed)")
                qvec = None
            if qvec is not None:
                t = time.perf_counter()
                searcher = index.vector_searcher
                vector_hits = searcher.search(conn, qvec, pool_size, generation=generation, model=model,
                                              vec_loaded=index.store.vec_loaded, sources=sources, count=embedded)
                pool.vector_path = searcher.last_path
                pool.timings_ms["vector"] = (time.perf_counter() - t) * 1000
                if embedded < total:
                    pool.warnings.append(f"vectors still filling in: {embedded}/{total} chunks embedded")
        else:
            pool.warnings.append("keyword-only: no chunk has a vector yet (run a sync)")

    dated: list[int] = []
    if pool.time_window is not None:  # the date leg: chunks from the window, even without a word in common
        w = pool.time_window
        marks = ",".join("?" * len(sources))
        dated = [r[0] for r in conn.execute(
            f"SELECT rowid FROM chunks WHERE ts >= ? AND ts < ? AND source IN ({marks}) ORDER BY ts DESC LIMIT ?",
            (w.start_ms, w.end_ms, *sources, pool_size))]
    if qvec is not None:
        import numpy as np  # only the vector path needs it
    t = time.perf_counter()
    rowids = list(dict.fromkeys([rid for rid, _ in vector_hits] + [h.rowid for h in hits] + dated))
    rows = {}
    for start in range(0, len(rowids), 500):
        part = rowids[start : start + 500]
        marks = ",".join("?" * len(part))
        for row in conn.execute(
            f"SELECT rowid, id, path, source, start_line, end_line, text, ts, date_source, embedding FROM chunks WHERE rowid IN ({marks})",
            part,
        ):
            rows[row[0]] = row
    for rid in rowids:
        row = rows.get(rid)
        if row is None:
            continue
        vscore = None
        if qvec is not None and row[9] and len(row[9]) == 4 * len(qvec):
            vscore = float(np.frombuffer(row[9], dtype=np.float32) @ qvec)
        tscore, trank = text_scores.get(rid, (0.0, None))
        pool.candidates.append(Candidate(
            rowid=rid, id=row[1], path=row[2], source=row[3], start_line=row[4], end_line=row[5], text=row[6],
            vector_score=vscore, text_score=tscore, bm25_rank=trank, ts_ms=row[7], date_source=row[8],
        ))
    pool.timings_ms["fetch"] = (time.perf_counter() - t) * 1000
    pool.mode = "hybrid" if qvec is not None else "keyword"
    return pool
