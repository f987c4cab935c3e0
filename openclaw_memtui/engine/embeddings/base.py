"""The provider protocol and the helpers every provider shares."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import MemtuiError

if TYPE_CHECKING:
    import numpy as np


class EmbeddingError(MemtuiError, RuntimeError):
    """A provider failure, phrased as one line a user can act on."""


class EmbeddingProvider(Protocol):
    id: str
    model: str
    max_input_tokens: int
    batch_max_items: int
    batch_max_bytes: int

    @property
    def dims(self) -> int | None: ...

    def provider_key(self) -> str: ...

    def embed_query(self, text: str) -> np.ndarray: ...

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray: ...


def fingerprint(data: dict[str, Any]) -> str:
    """A stable hash of what changes vectors (provider, model, base URL, settings) — never a key."""
    import hashlib  # loads OpenSSL: only when a provider is made

    return hashlib.sha256(json.dumps(data, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def normalize_rows(vectors: np.ndarray) -> np.ndarray:
    """float32, non-finite → 0, each row scaled to unit length (zero rows stay zero)."""
    import numpy as np

    arr = np.asarray(vectors, dtype=np.float32)
    if arr.ndim == 1:
        arr = arr[None, :]
    arr = np.where(np.isfinite(arr), arr, 0.0).astype(np.float32)
    norms = np.linalg.norm(arr, axis=1, keepdims=True)
    norms[norms < 1e-10] = 1.0
    out: np.ndarray = (arr / norms).astype(np.float32)
    return out


def plan_batches(texts: Sequence[str], max_items: int, max_bytes: int) -> list[list[int]]:
    """Group indexes so each request stays within the provider's item and byte limits."""
    batches: list[list[int]] = []
    current: list[int] = []
    size = 0
    for i, text in enumerate(texts):
        n = len(text.encode("utf-8"))
        if current and (len(current) >= max_items or size + n > max_bytes):
            batches.append(current)
            current, size = [], 0
        current.append(i)
        size += n
    if current:
        batches.append(current)
    return batches
