"""The config as typed, frozen values: one dataclass per TOML table, read-only once loaded.

`core/config.py` checks a TOML document against its defaults (unknown keys, types, choices,
ranges) and then builds an `AppConfig` from the checked tree with `from_tree`; nothing above the
loader reads the config as a dict. A field's TOML key is its name in camelCase unless its metadata
names another (`memoryBudgetMB`, `lambda`). `to_tree` gives the TOML-shaped dict back, for what
still speaks it: an agent's memorySearch overrides merged on top, the engine's `remote` options.
Overrides are `dataclasses.replace`; a file write goes through `settings_io` (tomlkit), never this.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, is_dataclass
from types import MappingProxyType
from typing import Any, TypeVar

from ..engine.settings import CjkSegmentation, Fusion, ProviderName, Stemming, TimeMode, VectorBackend

T = TypeVar("T")


def _key(name: str) -> dict[str, str]:
    return {"toml": name}


@dataclass(frozen=True, slots=True)
class RemoteConfig:
    """`[remote]`: the endpoint and limits of a remote embedding provider."""

    base_url: str
    api_key: str = field(repr=False)  # a secret: never in a repr, a log line or a crash report
    headers: Mapping[str, str] = field(repr=False)  # may hold credentials too
    timeout_seconds: float
    max_retries: int
    concurrency: int


@dataclass(frozen=True, slots=True)
class VectorConfig:
    """`[store.vector]`."""

    backend: VectorBackend
    memory_budget_mb: int = field(metadata=_key("memoryBudgetMB"))
    exact: bool


@dataclass(frozen=True, slots=True)
class StoreConfig:
    """`[store]`: where the index lives and what it keeps."""

    path: str
    max_file_bytes: int
    vector: VectorConfig


@dataclass(frozen=True, slots=True)
class ChunkingConfig:
    """`[chunking]`."""

    tokens: int
    overlap: int
    line_vectors: bool


@dataclass(frozen=True, slots=True)
class KeywordConfig:
    """`[query.keyword]`."""

    or_fallback: bool
    cjk: CjkSegmentation
    stemming: Stemming
    line_weight: float


@dataclass(frozen=True, slots=True)
class TimeConfig:
    """`[query.time]`."""

    mode: TimeMode
    boost: float
    floor: float


@dataclass(frozen=True, slots=True)
class MmrConfig:
    """`[query.hybrid.mmr]`."""

    enabled: bool
    lambda_: float = field(metadata=_key("lambda"))  # `lambda` is a Python keyword


@dataclass(frozen=True, slots=True)
class DecayConfig:
    """`[query.hybrid.temporalDecay]`."""

    enabled: bool
    half_life_days: float


@dataclass(frozen=True, slots=True)
class HybridConfig:
    """`[query.hybrid]`."""

    enabled: bool
    fusion: Fusion
    vector_weight: float
    text_weight: float
    candidate_pool: int
    mmr: MmrConfig
    temporal_decay: DecayConfig


@dataclass(frozen=True, slots=True)
class QueryConfig:
    """`[query]`: the ranking a search starts from."""

    max_results: int
    min_score: float
    overlap_penalty: float
    keyword: KeywordConfig
    time: TimeConfig
    hybrid: HybridConfig


@dataclass(frozen=True, slots=True)
class CacheConfig:
    """`[cache]`: the embedding cache."""

    enabled: bool
    max_entries: int


@dataclass(frozen=True, slots=True)
class SyncConfig:
    """`[sync]`."""

    watch: bool
    watch_debounce_ms: int
    interval_minutes: float
    poll_seconds: float


@dataclass(frozen=True, slots=True)
class TuiConfig:
    """`[tui]`."""

    theme: str
    keys: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class AppConfig:
    """The whole config, checked. Built by `config.validate` / `config.load_config` only, so every
    value has passed the same rules; there are no field defaults here: `config.DEFAULTS` holds them."""

    workspace: str
    sessions_dir: str
    sources: tuple[str, ...]
    extra_paths: tuple[str, ...]
    follow_symlinks: bool
    provider: ProviderName
    model: str
    fallback: ProviderName
    remote: RemoteConfig
    store: StoreConfig
    chunking: ChunkingConfig
    query: QueryConfig
    cache: CacheConfig
    sync: SyncConfig
    tui: TuiConfig

    def to_tree(self) -> dict[str, Any]:
        """The TOML-shaped dict this config was built from (camelCase keys, lists, plain dicts)."""
        return to_tree(self)


_TABLES: dict[str, type] = {cls.__name__: cls for cls in (
    RemoteConfig, VectorConfig, StoreConfig, ChunkingConfig, KeywordConfig, TimeConfig, MmrConfig, DecayConfig,
    HybridConfig, QueryConfig, CacheConfig, SyncConfig, TuiConfig)}


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


_LAYOUTS: dict[type, tuple[tuple[str, str, type | None], ...]] = {}


def _layout(cls: type) -> tuple[tuple[str, str, type | None], ...]:
    """Each field of a config dataclass: (attribute, TOML key, its table's dataclass or None), worked
    out once. The annotations are strings here (`from __future__ import annotations`): a table's is
    its class name, looked up among this module's tables rather than evaluated with get_type_hints,
    which cost more than the whole validation."""
    if cls not in _LAYOUTS:
        _LAYOUTS[cls] = tuple((f.name, f.metadata.get("toml") or _camel(f.name), _TABLES.get(str(f.type)))
                              for f in fields(cls))
    return _LAYOUTS[cls]


def from_tree(cls: type[T], tree: Mapping[str, Any]) -> T:
    """A config dataclass from a checked TOML tree: tables become their dataclass, lists tuples,
    free maps read-only mappings. Assumes `tree` passed `config._check` (every key there)."""
    values: dict[str, Any] = {}
    for name, key, table in _layout(cls):
        value = tree[key]
        if table is not None:
            value = from_tree(table, value)
        elif isinstance(value, list):
            value = tuple(value)
        elif isinstance(value, dict):
            value = MappingProxyType(dict(value))
        values[name] = value
    return cls(**values)


def to_tree(obj: Any) -> dict[str, Any]:
    """The TOML-shaped dict of a config dataclass (the inverse of `from_tree`)."""
    out: dict[str, Any] = {}
    for name, key, _ in _layout(type(obj)):
        value = getattr(obj, name)
        if is_dataclass(value):
            value = to_tree(value)
        elif isinstance(value, tuple):
            value = list(value)
        elif isinstance(value, Mapping):
            value = dict(value)
        out[key] = value
    return out
