"""The one description of a search every front end sends: what `MemoryIndex.retrieve` is asked.

The TUI, `memtui search`/`eval`/`recalls`, the MCP tool and the tuner each built these options
themselves and disagreed (the TUI read time words that the config turned off), so the live metric
and `memtui eval` scored different pools. Front ends now get a request from one builder
(`openclaw_memtui.core.search.search_request`) and hand it over whole.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..settings import DEFAULT_CANDIDATE_POOL, DEFAULT_KEYWORD_MODE, KeywordMode


@dataclass(frozen=True)
class SearchRequest:
    """A query and how to retrieve its pool; ranking parameters are not part of it (`rank` takes those)."""

    query: str
    now_ms: float | None = None  # the clock ages and time words are read against; None: now
    pool_size: int = DEFAULT_CANDIDATE_POOL
    keyword_mode: KeywordMode = DEFAULT_KEYWORD_MODE
    time_words: bool = True  # read "last week" as a time window (taken out of the keyword query)
    use_vectors: bool = True  # False: the keyword legs alone (no query embedding)
    sources: tuple[str, ...] | None = None  # narrow the searched sources (an agent's corpus=memory)

