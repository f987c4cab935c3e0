"""Reuse the vectors OpenClaw already paid for: its agent database's embedding cache, read-only.

OpenClaw 2026.9 keeps, in each agent's `openclaw-agent.sqlite`:

    memory_embedding_cache(provider TEXT, model TEXT, provider_key TEXT, hash TEXT, embedding BLOB,
                           dims INTEGER, updated_at INTEGER, PRIMARY KEY (provider, model, provider_key, hash)) STRICT

(read from its dist/ and checked against a database it wrote, tests/fixtures/openclaw-2026.9.6-embcache):

* `hash` is sha256 (hex) of the chunk text, the text it sent to the provider verbatim;
* `embedding` is the provider's vector as IEEE-754 binary64, little-endian, not normalised
  (`encodeMemoryEmbedding`); OpenClaw reads a row only when `dims` is NULL or `length / 8`;
* `provider_key` is sha256 (hex) of `JSON.stringify(cacheKeyData)`, which for `openai` is
  `{provider, baseUrl, model, outputDimensionality?, documentInputType?, headers}` with the base URL
  as configured and `headers` the request headers as sorted `[name, value]` pairs without the secret
  ones (`authorization`, `x-api-key`, `api-key`; on api.openai.com also `version`, `user-agent`, and
  OpenClaw's `originator: openclaw` attribution header is added there); for `gemini` it is
  `{provider, baseUrl, model, outputDimensionality?, headers}` with the base URL without its trailing
  slash and no Content-Type among the headers;
* Gemini vectors are stored unit length (OpenClaw normalises them), OpenAI ones as the API sent them.

memtui reuses a vector only when its own provider would ask the same endpoint with the same model and
settings: the key memtui computes for itself must equal the stored one, and the chunk text's sha256
must match exactly. OpenAI and Gemini (`gemini-embedding-001` and older; not Gemini Embedding 2, whose
texts OpenClaw prefixes) are matched, each checked against a database the real OpenClaw wrote; for the
others `provider_keys` is empty and nothing is reused. The read goes through
`openclaw_db.read_consistent` (no write, no lock held, no file created beside OpenClaw's).
Only chunks memtui itself indexes are looked up, so a forgotten session (never indexed) is never read.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

if TYPE_CHECKING:
    import numpy as np

TABLE = "memory_embedding_cache"
REUSED_META = "openclaw_cache_reused"  # memtui meta: vectors this index took from OpenClaw's cache
_BATCH = 400  # OpenClaw's own IN (...) batch: under SQLite's variable limit everywhere
_SECRET_HEADERS = ("authorization", "x-api-key", "api-key")
# ICU's root collation (JavaScript's localeCompare) puts punctuation before digits before letters
_PUNCT_ORDER = "_-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"


def _is_native_openai(base_url: str) -> bool:
    try:
        host = urlsplit(base_url).hostname or ""
    except ValueError:
        return False
    return host.lower().rstrip(".") == "api.openai.com"


def _locale_key(name: str) -> tuple[Any, ...]:
    """A sort key close to JavaScript's `localeCompare` for header names (ASCII letters, digits, punctuation)."""
    primary = tuple((0, _PUNCT_ORDER.index(c)) if c in _PUNCT_ORDER else (1, ord(c)) for c in name.lower())
    return (primary, tuple(c.isupper() for c in name))  # lower case first when only case differs


def _js_json(value: Any) -> str:
    """`JSON.stringify` of plain strings, lists and dicts (insertion order, no spaces, non-ASCII kept)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def openai_provider_key(base_url: str, model: str, headers: dict[str, str]) -> str:
    """OpenClaw's `provider_key` for its `openai` embedding adapter with this base URL, model and extra headers."""
    merged: dict[str, tuple[str, str]] = {"content-type": ("Content-Type", "application/json")}
    for name, value in headers.items():
        merged[name.lower()] = (name, value)  # later wins, as OpenClaw's Map by lower-cased name
    excluded = set(_SECRET_HEADERS)
    if _is_native_openai(base_url):
        merged["originator"] = ("originator", "openclaw")  # pushed after the configured headers: it wins
        excluded |= {"version", "user-agent"}
    pairs = sorted(([n, v] for low, (n, v) in merged.items() if low not in excluded), key=lambda p: _locale_key(p[0]))
    data = {"provider": "openai", "baseUrl": base_url, "model": model, "headers": pairs}
    import hashlib  # OpenSSL takes a few ms to load: only when a sync embeds

    return hashlib.sha256(_js_json(data).encode("utf-8")).hexdigest()


def gemini_provider_key(base_url: str, model: str, headers: dict[str, str]) -> str:
    """OpenClaw's `provider_key` for its `gemini` adapter: no Content-Type in it, and the key headers left out."""
    excluded = {"authorization", "x-goog-api-key", "x-goog-api-client"}
    merged = {name: value for name, value in headers.items()}  # Object.assign: exact names, later wins
    pairs = sorted(([n, v] for n, v in merged.items() if n.lower() not in excluded), key=lambda p: _locale_key(p[0]))
    data = {"provider": "gemini", "baseUrl": base_url, "model": model, "headers": pairs}
    import hashlib

    return hashlib.sha256(_js_json(data).encode("utf-8")).hexdigest()


def provider_keys(provider: Any) -> tuple[str, ...]:
    """The keys OpenClaw would have stored `provider`'s vectors under; empty when memtui cannot tell.

    memtui keeps the base URL without its trailing slash; OpenClaw hashes it as configured, so both
    spellings are asked for (the same endpoint either way)."""
    provider = getattr(provider, "inner", provider)  # choice.SwitchOnQueryFailure wraps the one that embeds
    pid, base = getattr(provider, "id", None), getattr(provider, "base_url", None)
    if not isinstance(base, str):
        return ()
    headers = dict(getattr(provider, "extra_headers", {}) or {})
    if pid == "openai":
        return tuple(dict.fromkeys(openai_provider_key(b, provider.model, headers) for b in (base, base + "/")))
    # Gemini Embedding 2 gets a task prefix on every text and a default size from OpenClaw, not from memtui
    if pid == "gemini" and not provider.model.startswith("gemini-embedding-2"):
        return (gemini_provider_key(base.rstrip("/"), provider.model, headers),)  # OpenClaw strips the slash itself
    return ()


def text_hash(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _lookup(conn: Any, provider_id: str, model: str, keys: Sequence[str], hashes: Sequence[str]) -> dict[str, bytes]:
    from ..ingest.openclaw_db import table_names

    if TABLE not in table_names(conn):
        return {}
    found: dict[str, bytes] = {}
    wanted = list(dict.fromkeys(hashes))
    for key in keys:
        for start in range(0, len(wanted), _BATCH):
            part = [h for h in wanted[start:start + _BATCH] if h not in found]
            if not part:
                continue
            marks = ",".join("?" * len(part))
            for h, blob, dims in conn.execute(
                    f"SELECT hash, embedding, dims FROM {TABLE} WHERE provider = ? AND model = ? AND provider_key = ?"
                    f" AND hash IN ({marks})", (provider_id, model, key, *part)):
                if isinstance(blob, bytes) and blob and len(blob) % 8 == 0 and (dims is None or dims * 8 == len(blob)):
                    found[h] = blob
    return found


def _known_hashes(conn: Any, provider_id: str, model: str, keys: Sequence[str]) -> frozenset[str]:
    from ..ingest.openclaw_db import table_names

    if TABLE not in table_names(conn):
        return frozenset()
    marks = ",".join("?" * len(keys))
    return frozenset(h for (h,) in conn.execute(
        f"SELECT hash FROM {TABLE} WHERE provider = ? AND model = ? AND provider_key IN ({marks})",
        (provider_id, model, *keys)) if isinstance(h, str))


class OpenClawVectors:
    """One sync's view of an agent's OpenClaw cache for one provider.

    The hashes OpenClaw holds for this provider are read once; a batch opens the database again
    only when some of its chunks are among them, so a sync with nothing to reuse costs one read."""

    def __init__(self, db: Path | None, provider: Any) -> None:
        self.db = Path(db) if db is not None else None
        self.provider = provider
        self.keys = provider_keys(provider)
        self._known: frozenset[str] | None = None

    def _read(self, read: Any) -> Any:
        from ..ingest.openclaw_db import OpenClawDbError, read_consistent

        assert self.db is not None
        try:
            return read_consistent(self.db, read)
        except OpenClawDbError:
            return None  # unreadable now: the provider is asked, as it would have been anyway

    def take(self, texts: Sequence[str]) -> dict[int, np.ndarray]:
        """Vectors for the texts OpenClaw already embedded (unit length, float32), by position."""
        import numpy as np

        from .base import normalize_rows

        if self.db is None or not self.keys or not texts:
            return {}
        if self._known is None:
            if not self.db.is_file():
                self._known = frozenset()
            else:
                pid, model, keys = self.provider.id, self.provider.model, self.keys
                self._known = self._read(lambda conn: _known_hashes(conn, pid, model, keys)) or frozenset()
        hashes = [text_hash(t) for t in texts]
        wanted = [h for h in hashes if h in self._known]
        if not wanted:
            return {}
        pid, model, keys = self.provider.id, self.provider.model, self.keys
        blobs: dict[str, bytes] = self._read(lambda conn: _lookup(conn, pid, model, keys, wanted)) or {}
        out: dict[int, np.ndarray] = {}
        for i, h in enumerate(hashes):
            blob = blobs.get(h)
            if blob is None:
                continue
            vector = np.frombuffer(blob, dtype="<f8")
            if vector.size and np.isfinite(vector).all() and np.any(vector):  # OpenClaw drops such rows too
                out[i] = normalize_rows(vector)[0]
        return out
