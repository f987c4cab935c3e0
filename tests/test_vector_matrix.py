"""The in-memory vector matrix: quantised search finds what exact search finds, the exact setting
bypasses quantisation, and the matrix follows the index (reloads, background loads)."""

from __future__ import annotations

import time

import numpy as np
import pytest

from openclaw_memtui.core.config import index_settings, validate
from openclaw_memtui.engine.index import MemoryIndex
from openclaw_memtui.engine.vectors import vector
from openclaw_memtui.engine.vectors.matrix import FloatMatrix, QuantizedMatrix

from .app_helpers import SeededProvider
from .helpers import write


def cone(n: int, dims: int = 96, seed: int = 0, noise: float = 0.5) -> np.ndarray:
    """Unit vectors in a narrow cone with topic clusters, as embedding models make them
    (every pairwise cosine high): raw sign bits would be alike for every row."""
    base = np.random.default_rng(42)
    mean = base.standard_normal(dims)
    mean = 3.0 * mean / np.linalg.norm(mean)
    topics = base.standard_normal((40, dims)) * 0.15
    rng = np.random.default_rng(seed)
    x = mean + topics[rng.integers(0, len(topics), n)] + rng.standard_normal((n, dims)) * 0.15 * noise
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def exact_top(floats: np.ndarray, q: np.ndarray, k: int) -> list[int]:
    return [int(i) for i in np.argsort(-(floats @ q), kind="stable")[:k]]


def matrix_of(floats: np.ndarray, labels: np.ndarray | None = None, batch: int = 500, capacity: int = 0) -> QuantizedMatrix:
    batches = ((np.arange(s, min(len(floats), s + batch)), floats[s : s + batch],
                None if labels is None else labels[s : s + batch]) for s in range(0, len(floats), batch))
    matrix = QuantizedMatrix.from_batches(batches, capacity=capacity)
    assert matrix is not None
    return matrix


def test_quantised_shortlist_and_rescore_find_the_exact_top10():
    floats = cone(4000)
    queries = cone(30, seed=7, noise=0.9)
    matrix = matrix_of(floats)
    assert matrix.nbytes < floats.nbytes / 2
    same = 0
    for q in queries:
        # a shortlist of 5 % of the rows: the sign-bit stage really prunes
        rowids, _ = matrix.search(q, 10 + vector.RESCORE_EXTRA, shortlist=200)
        rescored = sorted(rowids.tolist(), key=lambda r: (-float(floats[r] @ q), r))[:10]
        same += rescored == exact_top(floats, q, 10)
    assert same >= 29  # 12 of 30 when the query's sign bits are not centred like the rows'


def test_4bit_scores_order_rows_almost_like_exact_scores():
    floats = cone(2000, seed=3)
    matrix = matrix_of(floats)
    assert matrix.codes[: matrix.size].shape == (2000, 48) and matrix.codes.dtype == np.uint8  # two codes a byte
    q = cone(1, seed=11)[0]
    rowids, scores = matrix.search(q, 2000, shortlist=2000)
    exact = floats[rowids] @ q
    assert np.max(np.abs(scores - exact)) < 0.025  # the constant q·mean is added back; 16 levels a dimension
    assert np.corrcoef(scores, exact)[0, 1] > 0.99
    # what the exact rescore relies on: the exact top-10 are inside the approximate top k + RESCORE_EXTRA
    assert set(exact_top(floats, q, 10)) <= set(rowids[: 10 + vector.RESCORE_EXTRA].tolist())


def test_labels_limit_the_rows_searched():
    floats = cone(3000, seed=5)
    labels = np.where(np.arange(3000) % 3 == 0, 2, 1).astype(np.uint8)
    matrix = matrix_of(floats, labels)
    q = cone(1, seed=13)[0]
    rowids, _ = matrix.search(q, 40, shortlist=400, labels=(2,))
    assert len(rowids) == 40 and all(r % 3 == 0 for r in rowids)
    allowed = np.flatnonzero(labels == 2)
    best = allowed[np.argsort(-(floats[allowed] @ q))[:5]]
    assert set(best) <= set(rowids.tolist())
    exact = FloatMatrix.from_batches([(np.arange(3000), floats, labels)])
    assert exact is not None
    top, _ = exact.search(q, 5, labels=(2,))
    assert list(top) == list(best)


def test_rows_added_beyond_the_capacity_are_kept():
    floats = cone(2500, seed=9)
    grown, sized = matrix_of(floats, capacity=10), matrix_of(floats, capacity=2500)
    assert grown.size == sized.size == 2500
    q = cone(1, seed=17)[0]
    assert grown.search(q, 20)[0].tolist() == sized.search(q, 20)[0].tolist()
    assert 2499 in grown.search(floats[2499], 1)[0]


class Seeded(SeededProvider):
    batch_max_items = 64
    sync_batch_items = 64


def seeded_index(tmp_path, exact: bool = False, quantise_small: bool = True) -> MemoryIndex:
    """120 notes and a transcript, vectors from the seeded provider. `quantise_small`: quantise even
    this small a matrix (by default one this size is kept exact), as the quantisation tests need."""
    ws = tmp_path / "ws"
    for i in range(120):
        write(ws / "memory" / f"n{i:03d}.md", f"# Note {i}\nsubject {i % 7} detail {i}\n")
    write(ws / "sessions" / "s1.jsonl", '{"type":"message","message":{"role":"user","content":"a transcript line"}}\n')
    cfg = validate({"store": {"vector": {"exact": exact}}})
    index = MemoryIndex(index_settings(cfg, ws, tmp_path / "index.sqlite", ), provider_name="none")
    index._provider, index._provider_ready = Seeded(), True
    if quantise_small:
        index.vector_searcher.exact_up_to_bytes = 0
    index.sync()
    return index


def vector_hits(index: MemoryIndex, query: str) -> dict[str, float]:
    pool = index.retrieve(query)
    return {c.path: c.vector_score for c in pool.candidates if c.vector_score is not None}


@pytest.mark.parametrize("exact", [False, True])
def test_exact_setting_bypasses_quantisation(tmp_path, exact):
    index = seeded_index(tmp_path, exact=exact)
    assert index.settings.vector_exact is exact
    index.retrieve("subject 3 detail 10")
    searcher = index.vector_searcher
    assert searcher.last_path == ("numpy" if exact else "numpy-int8")
    assert isinstance(searcher._matrix, FloatMatrix if exact else QuantizedMatrix)
    hits = searcher.search(index.reader(), index.provider.embed_query("subject 3"), 10, generation=index.store_generation(),
                           model=index.provider.model, vec_loaded=index.store.vec_loaded, sources=("memory", "sessions"),
                           count=121)
    blobs = index.reads().embeddings_by_rowid(r for r, _ in hits)
    floats = {rid: np.frombuffer(blob, dtype=np.float32) for rid, blob in blobs.items()}
    q = index.provider.embed_query("subject 3")
    assert [s for _, s in hits] == pytest.approx([float(floats[r] @ q) for r, _ in hits], abs=1e-6)


def test_a_search_of_one_source_returns_only_its_rows(tmp_path):
    index = seeded_index(tmp_path)
    index.settings = type(index.settings)(**{**index.settings.__dict__, "search_sources": ("sessions",)})
    pool = index.retrieve("a transcript line")
    assert pool.mode == "hybrid" and {c.source for c in pool.candidates} == {"sessions"}


def test_the_matrix_is_reloaded_when_the_index_changes(tmp_path):
    index = seeded_index(tmp_path)
    index.retrieve("subject 1")
    before = index.vector_searcher.loaded_key
    write(index.settings.workspace / "memory" / "fresh.md", "brand new note")
    index.sync()
    hits = vector_hits(index, "brand new note")
    assert index.vector_searcher.loaded_key != before
    assert max(hits, key=hits.get) == "memory/fresh.md" and hits["memory/fresh.md"] == pytest.approx(1.0, abs=1e-5)


def test_a_large_matrix_loads_only_when_warmed_up_then_in_the_background(tmp_path, monkeypatch):
    monkeypatch.setattr(vector, "LOAD_INLINE_ROWS", 10)  # "large" from 10 vectors on
    index = seeded_index(tmp_path)
    assert index.store.vec_loaded
    searcher = index.vector_searcher
    index.retrieve("subject 2")
    assert searcher.last_path == "sqlite-vec" and searcher.loaded_key is None  # a one-shot search loads nothing
    index.warm_up_vectors()
    assert searcher.loaded_key is not None
    index.retrieve("subject 2")
    assert searcher.last_path == "numpy-int8"
    write(index.settings.workspace / "memory" / "fresh.md", "brand new note")
    index.sync()
    hits = vector_hits(index, "brand new note")  # one row changed: patched into the matrix at once
    assert searcher.last_path == "numpy-int8" and max(hits, key=hits.get) == "memory/fresh.md"
    for i in range(20):  # a sixth of the rows: past the delta's limit, a rebuild
        write(index.settings.workspace / "memory" / f"n{i:03d}.md", f"# Note {i}\nrewritten {i}\n")
    write(index.settings.workspace / "memory" / "fresh.md", "another brand new note")
    index.sync()
    hits = vector_hits(index, "another brand new note")  # served by sqlite-vec while the matrix reloads
    assert searcher.last_path == "sqlite-vec" and max(hits, key=hits.get) == "memory/fresh.md"
    wanted = (index.store_generation(), index.provider.model)
    deadline = time.monotonic() + 30
    while searcher.loaded_key != wanted and time.monotonic() < deadline:  # the background load
        time.sleep(0.01)
    hits = vector_hits(index, "another brand new note")
    assert searcher.last_path == "numpy-int8" and max(hits, key=hits.get) == "memory/fresh.md"
    assert searcher.loaded_from == "sqlite" and searcher.loaded_key == (index.store_generation(), index.provider.model)


def test_a_small_matrix_stays_exact_and_a_large_one_is_quantised(tmp_path):
    index = seeded_index(tmp_path, quantise_small=False)  # 121 vectors: far below the default threshold
    searcher = index.vector_searcher
    assert not index.settings.vector_exact and searcher.exact_up_to_bytes == vector.EXACT_MATRIX_BYTES
    index.retrieve("subject 3 detail 10")
    assert searcher.last_path == "numpy" and isinstance(searcher._matrix, FloatMatrix)
    dims = searcher._matrix.dims
    searcher.exact_up_to_bytes = 121 * dims * 4  # the threshold: exactly this index's float32 bytes
    write(index.settings.workspace / "memory" / "fresh.md", "brand new note")
    index.sync()  # 122 vectors now: one row over, so the reload quantises
    hits = vector_hits(index, "brand new note")
    assert searcher.last_path == "numpy-int8" and isinstance(searcher._matrix, QuantizedMatrix)
    assert max(hits, key=hits.get) == "memory/fresh.md"


def test_sign_bits_are_those_of_the_dimensions_that_vary_most(monkeypatch, tmp_path):
    """Past SIGN_BITS dimensions the Hamming scan reads the sign bits of those that vary most (the scan costs
    what it costs at SIGN_BITS), and the exact rescore still finds the exact top-10; the matrix file keeps them."""
    from openclaw_memtui.engine.vectors import matrix as matrix_mod
    from openclaw_memtui.engine.vectors import matrix_file

    monkeypatch.setattr(matrix_mod, "SIGN_BITS", 64)
    floats = cone(3000)
    still = np.arange(2, 96, 3)  # 32 of the 96 dimensions barely vary
    floats[:, still] = floats[:, still].mean(axis=0) + (floats[:, still] - floats[:, still].mean(axis=0)) * 0.01
    floats /= np.linalg.norm(floats, axis=1, keepdims=True)
    matrix = matrix_of(floats)
    assert len(matrix.bit_dims) == 64 and not set(matrix.bit_dims.tolist()) & set(still.tolist())
    assert matrix.bits.shape[0] == 1  # one 64-bit word a row
    queries = cone(20, seed=7, noise=0.9)
    same = 0
    for q in queries:
        rowids, _ = matrix.search(q, 10 + vector.RESCORE_EXTRA, shortlist=600)
        same += sorted(rowids.tolist(), key=lambda r: (-float(floats[r] @ q), r))[:10] == exact_top(floats, q, 10)
    assert same >= 19
    stamp = matrix_file.MatrixStamp("id", 1, "m", 96)
    matrix.fingerprints = np.arange(matrix.size, dtype=np.uint64)
    matrix_file.save_matrix(tmp_path / "x.matrix", matrix, {"memory": 1}, stamp)
    loaded = matrix_file.load_matrix(tmp_path / "x.matrix", stamp)[0]
    assert np.array_equal(loaded.bit_dims, matrix.bit_dims)
    assert np.array_equal(loaded.search(queries[0], 10, shortlist=600)[0], matrix.search(queries[0], 10, shortlist=600)[0])
