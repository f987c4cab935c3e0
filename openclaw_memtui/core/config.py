"""The TOML config: OpenClaw's `memorySearch` names where one exists, strict validation.

Every key has a default here; a user file overrides some of them. An unknown key or a value of the
wrong type is one `ConfigError` line naming the key, so a typo never silently does nothing. What
passes is a typed, frozen `AppConfig` (`config_types.py`): the one shape every front end reads.
"""

from __future__ import annotations

import copy
import math
import os
from dataclasses import MISSING, fields
from pathlib import Path
from typing import Any

from ..engine.errors import MemtuiError
from ..engine.settings import (
    CJK_SEGMENTATIONS,
    DEFAULT_CANDIDATE_POOL,
    DEFAULT_KEYWORD_MODE,
    DEFAULT_SEARCH_PARAMS,
    FUSIONS,
    PROVIDERS,
    SOURCES,
    STEMMINGS,
    TIME_MODES,
    VECTOR_BACKENDS,
    IndexSettings,
    SearchParams,
)
from ..paths import default_config_path
from .config_types import AppConfig, from_tree

__all__ = ["DEFAULTS", "AppConfig", "ConfigError", "index_settings", "load_config", "search_params", "validate"]

# The engine's own defaults, read once: the config states them under OpenClaw's names, never anew.
_RANK = DEFAULT_SEARCH_PARAMS
_INDEX: dict[str, Any] = {f.name: f.default for f in fields(IndexSettings) if f.default is not MISSING}

# A dict value marked FREE_MAP accepts any string keys (HTTP headers, key bindings).
FREE_MAP: dict[str, Any] = {}

DEFAULTS: dict[str, Any] = {
    "workspace": "",
    "sessionsDir": "",
    "sources": list(_INDEX["sources"]),
    "extraPaths": list(_INDEX["extra_paths"]),
    "followSymlinks": _INDEX["follow_symlinks"],
    # the offline local model unless the config, a flag or the agent's openclaw.json names another: with
    # `auto` an OPENAI_API_KEY in the environment sent every note to OpenAI without anyone asking for it
    "provider": "local",
    "model": "",
    # OpenClaw's memorySearch.fallback: the provider used when `provider` fails (engine/embeddings/choice.py)
    "fallback": "none",
    "remote": {
        "baseUrl": "",
        "apiKey": "",
        "headers": FREE_MAP,
        "timeoutSeconds": 60.0,
        "maxRetries": 3,
        "concurrency": 2,
    },
    "store": {
        "path": "",
        "maxFileBytes": _INDEX["max_file_bytes"],
        "vector": {"backend": _INDEX["vector_backend"], "memoryBudgetMB": _INDEX["vector_memory_budget_mb"],
                   "exact": _INDEX["vector_exact"]},
    },
    "chunking": {"tokens": _INDEX["chunk_tokens"], "overlap": _INDEX["chunk_overlap"],
                 "lineVectors": _INDEX["line_vectors"]},
    "query": {
        "maxResults": _RANK.max_results,
        "minScore": _RANK.min_score,
        # how far a result repeating lines of a higher one from the same file is pushed down (0 = not at all)
        "overlapPenalty": _RANK.overlap_penalty,
        "keyword": {"orFallback": DEFAULT_KEYWORD_MODE == "and-or", "cjk": _INDEX["cjk_segmentation"],
                    "stemming": _INDEX["stemming"],
                    # share of a chunk's keyword score taken from its best-matching line (0 = chunk only)
                    "lineWeight": _RANK.line_weight},
        # a time expression in the query ("last week", "上周") sets a window: boost | filter | off
        "time": {"mode": _RANK.time_mode, "boost": _RANK.time_boost, "floor": _RANK.time_floor},
        "hybrid": {
            "enabled": True,
            "fusion": _RANK.fusion,
            "vectorWeight": _RANK.vector_weight,
            "textWeight": _RANK.text_weight,
            "candidatePool": DEFAULT_CANDIDATE_POOL,
            "mmr": {"enabled": _RANK.mmr, "lambda": _RANK.mmr_lambda},
            "temporalDecay": {"enabled": _RANK.decay, "halfLifeDays": _RANK.half_life_days},
        },
    },
    "cache": {"enabled": _INDEX["cache_enabled"], "maxEntries": _INDEX["cache_max_entries"]},
    "sync": {"watch": True, "watchDebounceMs": _INDEX["watch_debounce_ms"], "intervalMinutes": 0.0,
             "pollSeconds": _INDEX["poll_seconds"]},
    "tui": {"theme": "memtui-dark", "keys": FREE_MAP},
}

CHOICES: dict[str, tuple[str, ...]] = {
    "provider": PROVIDERS,
    "fallback": tuple(p for p in PROVIDERS if p != "auto"),
    "query.keyword.cjk": CJK_SEGMENTATIONS,
    "query.keyword.stemming": STEMMINGS,
    "query.hybrid.fusion": FUSIONS,
    "store.vector.backend": VECTOR_BACKENDS,
    "query.time.mode": TIME_MODES,
}


class ConfigError(MemtuiError, ValueError):
    """A config problem, already phrased as one line for the user."""


def _type_name(value: Any) -> str:
    return {bool: "true/false", int: "a whole number", float: "a number", str: "a string",
            list: "a list", dict: "a table"}.get(type(value), type(value).__name__)


def _check(defaults: dict[str, Any], given: dict[str, Any], prefix: str, where: str) -> dict[str, Any]:
    merged = copy.deepcopy(defaults)
    for key, value in given.items():
        name = f"{prefix}{key}"
        if key not in defaults:
            raise ConfigError(f"{where}: unknown key '{name}' (check the spelling; see docs/configuration.md)")
        default = defaults[key]
        if default is FREE_MAP:
            if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
                raise ConfigError(f"{where}: '{name}' must be a table of strings")
            merged[key] = dict(value)
        elif isinstance(default, dict):
            if not isinstance(value, dict):
                raise ConfigError(f"{where}: '{name}' must be a table, got {_type_name(value)}")
            merged[key] = _check(default, value, f"{name}.", where)
        else:
            ok = isinstance(value, type(default)) and not (isinstance(value, bool) and not isinstance(default, bool))
            if isinstance(default, float) and isinstance(value, int) and not isinstance(value, bool):
                value, ok = float(value), True
            if isinstance(default, list):
                ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
            if not ok:
                raise ConfigError(f"{where}: '{name}' must be {_type_name(default)}, got {value!r}")
            if name in CHOICES and value not in CHOICES[name]:
                raise ConfigError(f"{where}: '{name}' must be one of {', '.join(CHOICES[name])}, got {value!r}")
            merged[key] = value
    return merged


# config key of each SearchParams field, to name it in an out-of-range error
PARAM_KEYS = {"vector_weight": "query.hybrid.vectorWeight", "text_weight": "query.hybrid.textWeight",
              "line_weight": "query.keyword.lineWeight", "overlap_penalty": "query.overlapPenalty",
              "mmr_lambda": "query.hybrid.mmr.lambda", "half_life_days": "query.hybrid.temporalDecay.halfLifeDays",
              "min_score": "query.minScore", "max_results": "query.maxResults", "time_boost": "query.time.boost",
              "time_floor": "query.time.floor", "chunk_tokens": "chunking.tokens", "chunk_overlap": "chunking.overlap"}

# other numbers: (least allowed, True when the least itself is not allowed)
MINIMUMS: dict[str, tuple[float, bool]] = {
    "remote.timeoutSeconds": (0, True), "remote.maxRetries": (0, False), "remote.concurrency": (1, False),
    "store.maxFileBytes": (1, False), "store.vector.memoryBudgetMB": (1, False), "query.hybrid.candidatePool": (1, False),
    "cache.maxEntries": (0, False), "sync.watchDebounceMs": (0, False), "sync.intervalMinutes": (0, False),
    "sync.pollSeconds": (0, True),
}


# ... and the most allowed, for numbers that reach a clock, a SQL LIMIT or a retry loop: TOML takes any
# size, and past these the value is no longer a setting but a failure (1e308 s overflowed time_t and
# ended every command using the provider; a pool past 2^63 overflowed SQLite's LIMIT and searches
# silently found nothing)
MAXIMUMS: dict[str, float] = {
    "remote.timeoutSeconds": 86_400, "remote.maxRetries": 100, "remote.concurrency": 256,
    "query.hybrid.candidatePool": 100_000, "sync.watchDebounceMs": 3_600_000, "sync.pollSeconds": 86_400,
    "sync.intervalMinutes": 525_600,
}


def _check_numbers(config: AppConfig, tree: dict[str, Any], where: str) -> None:
    """Ranges: the ranking and chunking rule shared with the CLI and the TUI, then the other numbers.

    TOML reads `nan` and `inf` as floats and any sign as valid; none of those is a usable setting.
    """
    from ..engine.models import InvalidParams, check_chunking

    try:
        search_params(config).validate()
        check_chunking(config.chunking.tokens, config.chunking.overlap)
    except InvalidParams as exc:
        raise ConfigError(f"{where}: '{PARAM_KEYS.get(exc.field, exc.field)}': {exc}") from None
    for key, (least, strict) in MINIMUMS.items():
        value = _get(tree, key)
        if not math.isfinite(value) or value < least or (strict and value == least):
            bound = f"greater than {least}" if strict else f"at least {least}"
            raise ConfigError(f"{where}: '{key}' must be a number {bound}, got {value!r}")
    for key, most in MAXIMUMS.items():
        value = _get(tree, key)
        if value > most:
            raise ConfigError(f"{where}: '{key}' must be at most {most:g}, got {value!r}")


def validate(given: dict[str, Any], where: str = "config") -> AppConfig:
    """The typed config of a TOML-shaped dict (a file's, or the config with an agent's settings
    merged on top); anything wrong is one ConfigError line naming the key and `where`."""
    merged = _check(DEFAULTS, given, "", where)
    config = from_tree(AppConfig, merged)
    _check_numbers(config, merged, where)
    return config


def load_config(path: Path | None = None, explicit: bool = False) -> AppConfig:
    """Read and validate the config file; a missing default file means all defaults."""
    path = Path(path) if path else default_config_path()
    explicit = explicit or bool(os.environ.get("MEMTUI_CONFIG"))
    if not path.exists():
        if explicit:
            raise ConfigError(f"config file {path} does not exist (create it or drop --config)")
        return validate({})
    import tomllib  # only when there is a config file to read

    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read config {path}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        if text.startswith("\ufeff"):  # invisible in an editor: "Invalid statement at line 1, column 1" did not help
            raise ConfigError(f"config {path} starts with a byte order mark (U+FEFF), which TOML does not allow; "
                              "save it as UTF-8 without BOM") from None
        raise ConfigError(f"config {path} is not valid TOML: {exc}") from None
    except RecursionError:  # tomllib parses arrays and inline tables recursively
        raise ConfigError(f"config {path} is nested too deeply to read") from None
    return validate(data, str(path))


def _get(tree: dict[str, Any], dotted: str) -> Any:
    node: Any = tree
    for part in dotted.split("."):
        node = node[part]
    return node


INDEX_RECORDS_DIR = "index-records"  # under the data dir: which index files memtui made (engine/store/ownership.py)


def index_settings(config: AppConfig, workspace: Path, db_path: Path | None = None) -> IndexSettings:
    from ..paths import data_dir, default_db_path, is_demo_workspace

    workspace = Path(workspace).expanduser().resolve()
    store_path = config.store.path
    if db_path is None:
        db_path = Path(os.path.expanduser(store_path)) if store_path else default_db_path(workspace)
    sessions = config.sessions_dir
    sessions_dir = Path(os.path.expanduser(sessions)) if sessions else workspace / "sessions"
    sources = tuple(s for s in config.sources if s in SOURCES) or ("memory",)
    vector, keyword = config.store.vector, config.query.keyword
    return IndexSettings(
        workspace=workspace,
        db_path=Path(db_path).expanduser(),
        sessions_dir=sessions_dir,
        sources=sources,
        extra_paths=config.extra_paths,
        follow_symlinks=config.follow_symlinks,
        chunk_tokens=config.chunking.tokens,
        chunk_overlap=config.chunking.overlap,
        line_vectors=config.chunking.line_vectors,
        max_file_bytes=config.store.max_file_bytes,
        cjk_segmentation=keyword.cjk,
        stemming=keyword.stemming,
        cache_enabled=config.cache.enabled,
        cache_max_entries=config.cache.max_entries,
        vector_backend=vector.backend,
        vector_memory_budget_mb=vector.memory_budget_mb,
        vector_exact=vector.exact,
        watch_debounce_ms=config.sync.watch_debounce_ms,
        poll_seconds=config.sync.poll_seconds,
        workspace_identity="memtui-demo" if is_demo_workspace(workspace) else "",
        index_records=data_dir() / INDEX_RECORDS_DIR,
    )


def search_params(config: AppConfig) -> SearchParams:
    """The ranking parameters a config asks for (the TUI's starting point, the CLI's defaults)."""
    q, h = config.query, config.query.hybrid
    return SearchParams(vector_weight=h.vector_weight, text_weight=h.text_weight, fusion=h.fusion,
                        line_weight=q.keyword.line_weight, overlap_penalty=q.overlap_penalty,
                        mmr=h.mmr.enabled, mmr_lambda=h.mmr.lambda_, decay=h.temporal_decay.enabled,
                        half_life_days=h.temporal_decay.half_life_days, min_score=q.min_score, max_results=q.max_results,
                        time_mode=q.time.mode, time_boost=q.time.boost, time_floor=q.time.floor)
