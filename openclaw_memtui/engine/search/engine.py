"""Retrieval through a `MemoryIndex`: kept for callers that hold an index rather than a context.

The legs live in `retrieval.py` and take an explicit `RetrievalContext`; this only asks the index for
one. It never syncs: building the index is an explicit step of the CLI and the app.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..settings import DEFAULT_CANDIDATE_POOL, DEFAULT_KEYWORD_MODE, KeywordMode
from .rank import Pool
from .retrieval import retrieve as retrieve_from

if TYPE_CHECKING:
    from ..index import MemoryIndex


def retrieve(index: MemoryIndex, query: str, pool_size: int = DEFAULT_CANDIDATE_POOL,
             keyword_mode: KeywordMode = DEFAULT_KEYWORD_MODE, now_ms: float | None = None,
             use_vectors: bool = True, time_aware: bool = True) -> Pool:
    return retrieve_from(index.retrieval_context(use_vectors), query, pool_size, keyword_mode, now_ms, use_vectors, time_aware)
