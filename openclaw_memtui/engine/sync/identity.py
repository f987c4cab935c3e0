"""What an index was built with (its identity), and the rebuild policy: any difference means a full rebuild."""

from __future__ import annotations

import json
from typing import Any

from ..embeddings.base import EmbeddingProvider
from ..ingest.sources import DEFAULT_ROOT_FILES
from ..settings import IndexSettings, fts_tokenize_clause
from ..textutil import sha256_hex

FTS_ONLY_MODEL = "fts-only"


def provider_key_for(provider: EmbeddingProvider | None) -> str:
    if provider is None:
        return sha256_hex(json.dumps({"provider": "none", "model": FTS_ONLY_MODEL}, separators=(",", ":")))
    return provider.provider_key()


def fts_tokenizer_name(settings: IndexSettings) -> str:
    name = fts_tokenize_clause(settings).replace(" ", "+")
    return name + ("+cjk-bigram" if settings.cjk_segmentation == "bigram" else "")


# The version of what 2026.9 agents' transcripts are cleaned of (transcript_filters.py). 2: channel
# metadata blocks, OpenClaw's runtime context, heartbeat prompts and every form of silent reply.
TRANSCRIPT_FILTERS = "transcript-filters-2"


def _sessions_scope(settings: IndexSettings) -> str:
    """The sessions folder in the identity; inside a workspace with a stable name, relative to it."""
    sessions = settings.sessions_dir
    if sessions is None:
        return "None"
    if settings.workspace_identity and sessions.is_relative_to(settings.workspace):
        return f"<{settings.workspace_identity}>/{sessions.relative_to(settings.workspace).as_posix()}"
    return str(sessions)


def compute_identity(settings: IndexSettings, provider: EmbeddingProvider | None) -> dict[str, Any]:
    """What the index was built with; any difference from the stored one means a full rebuild."""
    scope = {
        # an index file reused for another workspace is rebuilt
        "workspace": settings.workspace_identity or str(settings.workspace),
        "extraPaths": sorted(p.strip() for p in settings.extra_paths if p.strip()),
        **({"extraPathPatterns": sorted(map(list, settings.extra_path_patterns))} if settings.extra_path_patterns else {}),
        "followSymlinks": settings.follow_symlinks,
        "sessionsDir": _sessions_scope(settings) if "sessions" in settings.sources else "",
    }
    # OpenClaw-layout settings join the scope only when they differ from the plain-workspace
    # defaults, so indexes of plain workspaces keep their identity (and are not rebuilt)
    if settings.root_files != DEFAULT_ROOT_FILES:
        scope["rootFiles"] = list(settings.root_files)
    if settings.transcripts_db is not None and "sessions" in settings.sources:
        scope["transcriptsDb"] = str(settings.transcripts_db)
    if settings.sessions_prefix != "sessions":
        scope["sessionsPrefix"] = settings.sessions_prefix
    if settings.transcript_wrap_chars:
        scope["transcriptWrapChars"] = settings.transcript_wrap_chars
    if settings.chunker != "classic":
        # with OpenClaw 2026.9's chunker come its transcript filters: an index built before them (or
        # before a change to them) holds transcript text they now take out, so it rebuilds once
        scope["chunker"] = f"{settings.chunker}+{TRANSCRIPT_FILTERS}"
    return {
        "model": provider.model if provider else FTS_ONLY_MODEL,
        "provider": provider.id if provider else "none",
        "providerKey": provider_key_for(provider),
        "sources": sorted(settings.sources),
        "scopeHash": sha256_hex(json.dumps(scope, sort_keys=True, separators=(",", ":"))),
        "chunkTokens": settings.chunk_tokens,
        "chunkOverlap": settings.chunk_overlap,
        "ftsTokenizer": fts_tokenizer_name(settings),
    }


def rebuild_reason(stored: dict[str, Any] | None, current: dict[str, Any]) -> str:
    if stored is None:
        return "new index"
    for key in ("provider", "model", "providerKey", "sources", "scopeHash", "chunkTokens", "chunkOverlap", "ftsTokenizer"):
        if stored.get(key) != current.get(key):
            return f"{key} changed"
    return ""
