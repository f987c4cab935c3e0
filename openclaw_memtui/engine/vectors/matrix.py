"""An in-memory vector matrix that finds the top-k rows for a query: row ids + unit vectors → shortlist.

A float32 matrix of 1M × 512 is 2 GB; this one keeps two compressed copies (measured in
bench/scale.py, docs/benchmarks.md "Scale"):

* sign bits of each vector minus the mean, column-major, of at most `SIGN_BITS` dimensions (those whose
  values vary most in the fitting sample: 48 bytes a row): a Hamming scan of every row picks a shortlist
  (the fastest full scan measured: docs/benchmarks.md, "Scale"), at the default model's 512 dims in the
  time it takes at e5's 384;
* 4-bit codes of each vector minus the mean, two to a byte, one scale per dimension (256 bytes a row
  at 512 dims): the shortlist is scored against the float query. The codes only order the shortlist
  before the best rows are rescored exactly; measured at 200k × 512 (USE-shaped vectors), 4-bit codes
  find the same top-10 after the rescore as 8-bit ones did, in half the memory.

Centring matters: embedding models put every vector in a cone (e5: |mean| = 0.93, pairwise cosine
0.76–1.0; USE: |mean| ≈ 0.4), so raw sign bits would be nearly identical for all rows. Ranking by
q·(x − mean) is the same as ranking by q·x (q·mean is the same for every row).

The matrix returns approximate scores; callers that need exact cosines rescore the returned rows
from the float vectors they keep elsewhere (`VectorSearcher` reads them from SQLite). Row ids are
opaque int64s, so the same class serves chunk vectors and any other vectors that map to rows.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

# the Hamming scan runs over blocks of this many rows: its temporaries stay in the CPU cache
_BLOCK = 65536
# a 4-bit code spans ±this many standard deviations of its dimension (measured in the fitting sample):
# the rarer deviations beyond clip to the end code (they only order a shortlist that is rescored exactly)
_CODE_SPAN_SD = 2.5
_CODE_MAX = 7  # codes -8..7, stored as 0..15, two to a byte (the first dimension of a pair in the high half)
_FIT_ROWS = 16384  # rows the mean and scales are fitted on
# dimensions whose sign bits the Hamming scan reads: the scan's cost grows with them, and past e5's 384 the
# top-10 after the rescore changed little (1M × 512, bench/matrix_codes.py: 1.000 with 384 and with 512; an
# earlier run 0.995 against 0.9975) for 1.2 ms less a search (docs/benchmarks.md "Scale")
SIGN_BITS = 384


def sign_bits(dims: int) -> int:
    """How many dimensions of a `dims`-dimensional vector have a sign bit in the matrix."""
    return min(dims, SIGN_BITS)


class QuantizedMatrix:
    """Top-k rows by (approximate) dot product with a query; rows may carry a small integer label
    (e.g. the chunk's source) so a search can be limited to some labels."""

    def __init__(self, dims: int, mean: np.ndarray, scale: np.ndarray, capacity: int = 0,
                 bit_dims: np.ndarray | None = None) -> None:
        """`bit_dims`: the dimensions with a sign bit, ascending (`sign_bits(dims)` of them; the first
        ones when not given: `fit` chooses those that vary most)."""
        self.dims = dims
        self.bit_dims = np.asarray(np.arange(sign_bits(dims)) if bit_dims is None else bit_dims, dtype=np.uint16)
        if len(self.bit_dims) != sign_bits(dims):
            raise ValueError(f"{len(self.bit_dims)} sign-bit dimensions for {dims} dims, expected {sign_bits(dims)}")
        self._every_dim = len(self.bit_dims) == dims  # no column to pick: the sign bits of the whole row
        self.words = (len(self.bit_dims) + 63) // 64
        self.mean = mean.astype(np.float32)
        self.scale = scale.astype(np.float32)  # per dimension: value = code * scale
        self.size = 0
        self.rowids = np.zeros(capacity, dtype=np.int64)
        self.labels = np.zeros(capacity, dtype=np.uint8)
        self.codes = np.zeros((capacity, code_bytes(dims)), dtype=np.uint8)  # two 4-bit codes a byte
        self.bits = np.zeros((self.words, capacity), dtype=np.uint64)  # column-major: one array per 64 dims
        # per row, the first 64 bits of its chunk id (`matrix_delta`): set by the builder, saved in the file
        self.fingerprints: np.ndarray | None = None
        # rows quantised with a mean and scales fitted to other rows (merged in since the fit): past a
        # share of the rows the fit has drifted from the content and the matrix is rebuilt (`matrix_delta`)
        self.unfitted_rows = 0
        self._label_masks: dict[tuple[int, ...], np.ndarray] = {}

    # -- building --------------------------------------------------------------------------------
    @classmethod
    def from_arrays(cls, mean: np.ndarray, scale: np.ndarray, bit_dims: np.ndarray, rowids: np.ndarray, labels: np.ndarray,
                    codes: np.ndarray, bits: np.ndarray, fingerprints: np.ndarray | None = None) -> QuantizedMatrix:
        """A full matrix over arrays saved before (`matrix_file`); they may be read-only memory maps,
        so rows are never added to it: a changed index builds a new one."""
        matrix = cls(len(mean), mean, scale, bit_dims=bit_dims)
        matrix.rowids, matrix.labels, matrix.codes, matrix.bits = rowids, labels, codes, bits
        matrix.size = len(rowids)
        matrix.fingerprints = fingerprints
        return matrix

    @classmethod
    def fit(cls, sample: np.ndarray, capacity: int = 0) -> QuantizedMatrix:
        """An empty matrix whose mean and 4-bit scales come from `sample` (rows × dims, float32)."""
        sample = np.asarray(sample[:_FIT_ROWS], dtype=np.float32)
        if sample.ndim != 2 or sample.shape[0] == 0:
            raise ValueError("fitting needs at least one row")
        mean = sample.mean(axis=0)
        spread = (sample - mean).std(axis=0) * _CODE_SPAN_SD
        scale = np.where(spread > 0, spread / _CODE_MAX, 1e-6)
        dims = sample.shape[1]
        varied = np.sort(np.argsort(-spread, kind="stable")[: sign_bits(dims)])  # every dim up to SIGN_BITS
        return cls(dims, mean, scale, capacity, bit_dims=varied)

    @classmethod
    def from_batches(cls, batches: Iterable[tuple[np.ndarray, np.ndarray, np.ndarray | None]],
                     capacity: int = 0) -> QuantizedMatrix | None:
        """Build from (rowids, vectors, labels or None) batches, fitted on the first batch; None if empty.

        Rows are quantised batch by batch, so memory holds the codes and one batch of floats, never
        all the floats at once."""
        matrix: QuantizedMatrix | None = None
        for rowids, vectors, labels in batches:
            if len(rowids) == 0:
                continue
            if matrix is None:
                matrix = cls.fit(vectors, capacity)
            matrix.add(rowids, vectors, labels)
        return matrix

    def add(self, rowids: np.ndarray, vectors: np.ndarray, labels: np.ndarray | None = None) -> None:
        n = len(rowids)
        if vectors.shape != (n, self.dims):
            raise ValueError(f"expected {n} × {self.dims} vectors, got {vectors.shape}")
        self._reserve(self.size + n)
        end = self.size + n
        centred = np.asarray(vectors, dtype=np.float32) - self.mean
        self.rowids[self.size:end] = rowids
        self.labels[self.size:end] = 0 if labels is None else labels
        self.codes[self.size:end] = self._pack(centred)
        self.bits[:, self.size:end] = self._sign_words(centred).T
        self.size = end
        self._label_masks.clear()

    def _reserve(self, needed: int) -> None:
        capacity = len(self.rowids)
        if needed <= capacity:
            return
        grown = max(needed, capacity + capacity // 2, 1024)
        self.rowids = _grow(self.rowids, grown)
        self.labels = _grow(self.labels, grown)
        self.codes = _grow(self.codes, grown)
        bits = np.zeros((self.words, grown), dtype=np.uint64)
        bits[:, :capacity] = self.bits
        self.bits = bits

    def _pack(self, centred: np.ndarray) -> np.ndarray:
        """4-bit codes of centred rows, two to a byte (an odd last dimension is paired with a zero code)."""
        codes = (np.clip(np.rint(centred / self.scale), -_CODE_MAX - 1, _CODE_MAX) + _CODE_MAX + 1).astype(np.uint8)
        if codes.shape[1] % 2:
            codes = np.pad(codes, ((0, 0), (0, 1)), constant_values=_CODE_MAX + 1)
        packed: np.ndarray = (codes[:, 0::2] << 4) | codes[:, 1::2]
        return packed

    def _scores(self, rows: np.ndarray, q: np.ndarray) -> np.ndarray:
        """q·(x − mean) of the given rows, from their 4-bit codes."""
        weighted = q * self.scale
        if len(weighted) % 2:
            weighted = np.append(weighted, np.float32(0))
        packed = self.codes[rows]
        offset = float((_CODE_MAX + 1) * weighted.sum())  # each code is stored + 8
        # uint8 times float32: numpy widens as it multiplies (measured faster than converting first)
        scores: np.ndarray = np.matmul(packed >> 4, weighted[0::2]) + np.matmul(packed & 15, weighted[1::2]) - offset
        return scores

    def _sign_words(self, centred: np.ndarray) -> np.ndarray:
        """Sign bits of each row's `bit_dims` packed into `words` uint64s (rows × words)."""
        packed = np.packbits((centred if self._every_dim else centred[:, self.bit_dims]) > 0, axis=1)
        pad = self.words * 8 - packed.shape[1]
        if pad:
            packed = np.pad(packed, ((0, 0), (0, pad)))
        return np.ascontiguousarray(packed).view(np.uint64)

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in (self.rowids, self.labels, self.codes, self.bits))

    # -- searching -------------------------------------------------------------------------------
    def search(self, query: np.ndarray, k: int, *, shortlist: int = 4096,
               labels: tuple[int, ...] | None = None, alive: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(row ids, approximate scores) of the best `k` rows, best first.

        The `shortlist` rows nearest by Hamming distance of sign bits are scored with the 4-bit
        codes; rows whose label is not in `labels` (when given), or whose entry in `alive` (a bool
        per row, when given) is False, are never returned. Scores are
        q·x up to a constant: callers compare them with each other, or rescore exactly."""
        n = self.size
        if n == 0 or k <= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        q = np.asarray(query, dtype=np.float32).reshape(-1)
        if q.shape[0] != self.dims:
            raise ValueError(f"query has {q.shape[0]} dims, the matrix {self.dims}")
        mask = self._mask(labels)
        if alive is not None:
            mask = alive if mask is None else mask & alive
        candidates = self._hamming_shortlist(q, max(shortlist, k), mask)
        scores = self._scores(candidates, q)
        k = min(k, len(candidates))
        if k == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        top = np.argpartition(-scores, k - 1)[:k] if k < len(scores) else np.arange(len(scores))
        top = top[np.argsort(-scores[top], kind="stable")]
        return self.rowids[candidates[top]], scores[top] + float(q @ self.mean)

    def _mask(self, labels: tuple[int, ...] | None) -> np.ndarray | None:
        if labels is None:
            return None
        key = tuple(sorted(set(labels)))
        mask = self._label_masks.get(key)
        if mask is None:
            mask = np.isin(self.labels[: self.size], np.array(key, dtype=np.uint8))
            self._label_masks[key] = mask
        return mask

    def _hamming_shortlist(self, q: np.ndarray, wanted: int, mask: np.ndarray | None) -> np.ndarray:
        """Indices of the `wanted` rows (at least; ties kept) nearest the query's sign bits."""
        n = self.size
        qwords = self._sign_words((q - self.mean).reshape(1, -1))[0]
        dist = np.empty(n, dtype=np.uint16)
        xor = np.empty(min(n, _BLOCK), dtype=np.uint64)
        count = np.empty(min(n, _BLOCK), dtype=np.uint16)
        for start in range(0, n, _BLOCK):
            end = min(n, start + _BLOCK)
            out, x, c = dist[start:end], xor[: end - start], count[: end - start]
            np.bitwise_xor(self.bits[0, start:end], qwords[0], out=x)
            np.bitwise_count(x, out=out)
            for w in range(1, self.words):
                np.bitwise_xor(self.bits[w, start:end], qwords[w], out=x)
                np.bitwise_count(x, out=c)
                out += c
        limit = self.words * 64 + 1  # larger than any distance: marks excluded rows
        if mask is not None:
            dist[~mask] = limit
        if wanted >= n:
            return np.flatnonzero(dist < limit)
        # the distance cut that keeps at least `wanted` rows: a histogram instead of sorting 1M values
        cumulative = np.cumsum(np.bincount(dist, minlength=limit + 1))
        cut = min(int(np.searchsorted(cumulative, wanted)), limit - 1)
        inside = np.flatnonzero(dist < cut)
        # rows at exactly the cut distance fill the rest, in row order (a bounded shortlist whatever the ties)
        on_cut = np.flatnonzero(dist == cut)[: max(0, wanted - len(inside))]
        return np.concatenate([inside, on_cut])


class FloatMatrix:
    """The exact counterpart of QuantizedMatrix (`store.vector.exact`): float32 rows, scored in full."""

    def __init__(self, dims: int, capacity: int = 0) -> None:
        self.dims = dims
        self.size = 0
        self.rowids = np.zeros(capacity, dtype=np.int64)
        self.labels = np.zeros(capacity, dtype=np.uint8)
        self.vectors = np.zeros((capacity, dims), dtype=np.float32)

    @classmethod
    def from_batches(cls, batches: Iterable[tuple[np.ndarray, np.ndarray, np.ndarray | None]],
                     capacity: int = 0) -> FloatMatrix | None:
        matrix: FloatMatrix | None = None
        for rowids, vectors, labels in batches:
            if len(rowids) == 0:
                continue
            if matrix is None:
                matrix = cls(vectors.shape[1], capacity)
            matrix.add(rowids, vectors, labels)
        return matrix

    def add(self, rowids: np.ndarray, vectors: np.ndarray, labels: np.ndarray | None = None) -> None:
        n, end = len(rowids), self.size + len(rowids)
        if vectors.shape != (n, self.dims):
            raise ValueError(f"expected {n} × {self.dims} vectors, got {vectors.shape}")
        if end > len(self.rowids):
            grown = max(end, len(self.rowids) * 3 // 2, 1024)
            self.rowids, self.labels, self.vectors = (_grow(a, grown) for a in (self.rowids, self.labels, self.vectors))
        self.rowids[self.size:end] = rowids
        self.labels[self.size:end] = 0 if labels is None else labels
        self.vectors[self.size:end] = vectors
        self.size = end

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in (self.rowids, self.labels, self.vectors))

    def search(self, query: np.ndarray, k: int, *, labels: tuple[int, ...] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(row ids, dot products) of the best `k` rows, best first; exact."""
        if self.size == 0 or k <= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        sims = self.vectors[: self.size] @ np.asarray(query, dtype=np.float32).reshape(-1)
        if labels is not None:
            sims[~np.isin(self.labels[: self.size], np.array(labels, dtype=np.uint8))] = -np.inf
        k = min(k, len(sims))
        top = np.argpartition(-sims, k - 1)[:k]
        top = top[np.argsort(-sims[top], kind="stable")]
        top = top[np.isfinite(sims[top])]
        return self.rowids[top], sims[top]


def code_bytes(dims: int) -> int:
    """Bytes of 4-bit codes a row of `dims` dimensions takes."""
    return (dims + 1) // 2


def _grow(array: np.ndarray, rows: int) -> np.ndarray:
    grown = np.zeros((rows, *array.shape[1:]), dtype=array.dtype)
    grown[: len(array)] = array
    return grown
