"""Browsing with no query: the memory newest first, a page at a time, as results a front end opens
like any other (path, lines, snippet), with no scores. Sorting and paging are SQL (IndexReader)."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Literal

from ..store.reader import IndexReader
from .rank import Result, snippet_of

BrowseFilter = Literal["all", "notes", "transcripts"]
BROWSE_FILTERS: tuple[BrowseFilter, ...] = ("all", "notes", "transcripts")
FILTER_SOURCES: dict[BrowseFilter, tuple[str, ...]] = {
    "all": ("memory", "sessions"), "notes": ("memory",), "transcripts": ("sessions",)}
BROWSE_PAGE = 200  # rows a page: the list asks for the next one as its highlight nears the end
DAY_MS = 86_400_000


@dataclass(frozen=True)
class BrowseEntry:
    """One listed chunk: the result a front end shows and opens, and when it dates from (ms)."""

    result: Result
    at_ms: float
    day: str  # "2026-11-27 Fri": the heading it is listed under


def day_label(at_ms: float, date_source: str) -> str:
    """The day a chunk belongs to: a dated note's own date (stored as UTC midnight), else the local day."""
    seconds = at_ms / 1000
    return time.strftime("%Y-%m-%d %a", time.gmtime(seconds) if date_source == "name" else time.localtime(seconds))


def browse_page(reads: IndexReader, searchable: tuple[str, ...], which: BrowseFilter, now_ms: float,
                offset: int = 0, limit: int = BROWSE_PAGE) -> list[BrowseEntry]:
    """Entries `offset`.. of the chunks newest first, of the sources `which` names that the index
    searches (`searchable`: what OpenClaw was told not to search is not listed either)."""
    sources = tuple(s for s in FILTER_SOURCES[which] if s in searchable)
    entries = []
    for n, (row, at_ms) in enumerate(reads.newest_chunks(sources, limit, offset), start=offset + 1):
        age = None if row.ts_ms is None else max(0.0, (now_ms - row.ts_ms) / DAY_MS)
        result = Result(path=row.path, start_line=row.start_line, end_line=row.end_line, source=row.source,
                        snippet=snippet_of(row.text), score=0.0, vector_score=None, text_score=0.0, hybrid_score=0.0,
                        decay=1.0, age_days=age, rank_before_mmr=n, rank=n, id=row.id)
        entries.append(BrowseEntry(result, at_ms, day_label(at_ms, row.date_source)))
    return entries


def one_row_per_file(entries: list[BrowseEntry]) -> list[BrowseEntry]:
    """Neighbouring chunks of one file listed under one day as one entry: its lines from the first chunk's
    start to the last one's end, its text every chunk's in line order (a MEMORY.md of bullets was a row per
    bullet). Paging still counts chunks: this is applied to what is shown, not to what is read."""
    merged: list[BrowseEntry] = []
    texts: list[list[str]] = []
    for entry in entries:
        last = merged[-1] if merged else None
        r = entry.result
        if last is not None and last.result.path == r.path and last.day == entry.day:
            texts[-1].append(r.snippet)
            merged[-1] = replace(last, result=replace(last.result, start_line=min(last.result.start_line, r.start_line),
                                                      end_line=max(last.result.end_line, r.end_line)))
            continue
        merged.append(entry)
        texts.append([r.snippet])
    return [replace(e, result=replace(e.result, snippet="\n".join(t))) if len(t) > 1 else e
            for e, t in zip(merged, texts, strict=True)]
