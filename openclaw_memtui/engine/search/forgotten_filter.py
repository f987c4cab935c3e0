"""A candidate pool without the chunks of sessions OpenClaw was told to forget (see
engine.ingest.forgotten): an index synced before the forget still holds them until the next sync
drops them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..settings import IndexSettings

if TYPE_CHECKING:
    from .rank import Pool


def without_forgotten(pool: Pool, settings: IndexSettings) -> Pool:
    """`pool`, its forgotten sessions' chunks left out (in place); when OpenClaw's database cannot
    be read, every transcript's, with a warning saying so."""
    if not any(c.source == "sessions" for c in pool.candidates):
        return pool
    from ..ingest.forgotten import is_forgotten, settings_forgotten

    forgotten = settings_forgotten(settings)
    if forgotten is not None and not forgotten:
        return pool
    prefix = settings.sessions_prefix
    kept = [c for c in pool.candidates if not is_forgotten(c.path, c.source, prefix, forgotten)]
    if len(kept) != len(pool.candidates):
        pool.candidates = kept
        pool._jaccard = None
        if forgotten is None:
            pool.warnings.append("OpenClaw's database cannot be read now, so which conversations it was told to "
                                 "forget is unknown: transcripts are left out of these results")
    return pool
