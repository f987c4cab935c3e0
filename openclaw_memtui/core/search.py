"""The search request, built from the config in this one place for every front end."""

from __future__ import annotations

from datetime import UTC
from typing import TYPE_CHECKING

from ..engine.search.request import SearchRequest
from ..engine.settings import SearchParams
from ..errors import UserError

if TYPE_CHECKING:
    from .config_types import AppConfig


def search_request(config: AppConfig, query: str, params: SearchParams, *, now_ms: float | None = None,
                   time_words: bool = True, use_vectors: bool = True,
                   sources: tuple[str, ...] | None = None) -> SearchRequest:
    """The request for `query` under the config and ranking parameters. Time words are read only when
    the time mode is not "off" (with it off, "last week" is searched as words, by every front end);
    `time_words=False` ignores them for this query too (the TUI's clear-time-window key)."""
    q = config.query
    return SearchRequest(query=query, now_ms=now_ms, pool_size=q.hybrid.candidate_pool,
                         keyword_mode="and-or" if q.keyword.or_fallback else "and",
                         time_words=time_words and params.time_mode != "off", use_vectors=use_vectors, sources=sources)


def parse_now(value: str | None) -> float | None:
    if not value:
        return None
    from datetime import datetime

    try:
        dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise UserError(f"--now {value!r} is not an ISO date like 2026-11-30T12:00:00Z") from None
    return (dt if dt.tzinfo else dt.replace(tzinfo=UTC)).timestamp() * 1000
