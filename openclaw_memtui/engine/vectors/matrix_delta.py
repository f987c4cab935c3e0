"""A quantised matrix brought up to date with the index without rebuilding it: the base (a saved,
memory-mapped file, or the matrix already in memory) minus the rows that changed, plus an exact
float32 matrix of the rows added since.

Every sync bumps the index generation, so without this a saved matrix would be stale after any
write (and a rebuild reads every vector). A chunk's id (sha256 of source, path, lines, text hash
and model) fixes its vector for a model, so comparing the base's (rowid, first 64 bits of the id)
pairs with the index's finds exactly the rows to drop and the rows to read. The fingerprint, not
the rowid alone, is what catches a rowid SQLite reused after the highest rows were deleted.

Past `REBUILD_FRACTION` of the rows or `REBUILD_ROWS` changed, the caller rebuilds instead: the
delta is scanned exactly (1.5 KB a row in memory, a full dot product per search) and its vectors
are read from SQLite one by one, so a large delta costs more than it saves.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np

from .matrix import FloatMatrix, QuantizedMatrix
from .matrix_file import release_pages

REBUILD_FRACTION = 0.05  # 50k of 1M: a delta matrix of 77 MB, scanned in full by every search
REBUILD_ROWS = 50_000
_HEX_ID = 64  # sync's ids are sha256 hex digests: their first 16 digits are the fingerprint as they stand


def fingerprints(ids: Iterable[str]) -> np.ndarray:
    """64 bits of each chunk id, as uint64: the first 16 digits of a sha256 hex id (one hex decode of
    all ids, no per-row int()), else 64 bits of its blake2b (ids written otherwise, as by the bench
    builder or an older memtui). A false "unchanged" is a 2^-64 chance."""
    ids = list(ids)
    if all(len(i) == _HEX_ID for i in ids):
        try:
            return np.frombuffer(bytes.fromhex("".join(i[:16] for i in ids)), dtype=">u8").astype(np.uint64)
        except ValueError:
            pass  # not all hex: each id on its own below
    return np.fromiter((_fingerprint(i) for i in ids), dtype=np.uint64, count=len(ids))


def fingerprints_of_scan(count: int, long_ids: int, rowids: str, heads: str) -> tuple[np.ndarray, np.ndarray] | None:
    """(rowids, fingerprints) from `IndexReader.chunk_id_heads`; None unless every id is a 64-digit
    hex id (then the caller fingerprints each id with `fingerprints`, the same rule, only slower)."""
    if long_ids != count:
        return None
    try:
        raw = bytes.fromhex(heads)
    except ValueError:
        return None
    ids = np.fromstring(rowids, dtype=np.int64, sep=",") if count else np.zeros(0, dtype=np.int64)
    if len(raw) != 8 * count or len(ids) != count:  # fromhex skips whitespace: the lengths catch it
        return None
    return ids, np.frombuffer(raw, dtype=">u8").astype(np.uint64)


def _fingerprint(chunk_id: str) -> int:
    if len(chunk_id) == _HEX_ID:
        try:
            return int(chunk_id[:16], 16)
        except ValueError:
            pass
    return int.from_bytes(hashlib.blake2b(chunk_id.encode(), digest_size=8).digest(), "big")


@dataclass(frozen=True)
class Changes:
    """How the index differs from a base matrix."""

    alive: np.ndarray  # bool per base row: still in the index under the same id
    fresh: np.ndarray  # rowids (ascending) the base lacks: new rows, or changed ones behind a kept rowid

    @property
    def dropped(self) -> int:
        return int(len(self.alive) - np.count_nonzero(self.alive))

    @property
    def rows(self) -> int:
        return self.dropped + len(self.fresh)

    def too_large(self, base_rows: int, *, unembedded: int = 0, unfitted: int = 0) -> bool:
        """Whether patching costs more than a rebuild, or the base's quantisation would drift too far.

        `unembedded`: the index's chunks without a vector of the base's model (always among `fresh`,
        never read into the delta: a failed embedding pass must not make every sync rebuild).
        `unfitted`: the base's rows already merged in with a fit made for other rows."""
        return self.counted(unembedded) + unfitted > patch_limit(base_rows)

    def counted(self, unembedded: int = 0) -> int:
        """Changed rows that carry a vector: dropped ones, and fresh ones less those without a vector."""
        return self.dropped + max(0, len(self.fresh) - unembedded)


def patch_limit(base_rows: int) -> float:
    """Changed rows (and rows merged since the fit) past which a base of `base_rows` is rebuilt."""
    return min(REBUILD_ROWS, REBUILD_FRACTION * max(base_rows, 1))


def diff(base_rowids: np.ndarray, base_fingerprints: np.ndarray, rowids: np.ndarray, prints: np.ndarray) -> Changes:
    """Compare the base's rows (rowids ascending) with the index's (any order)."""
    order = np.argsort(rowids, kind="stable")
    rowids, prints = rowids[order], prints[order]
    n = len(base_rowids)
    at = np.searchsorted(base_rowids, rowids)
    inside = at < n
    same = np.zeros(len(rowids), dtype=bool)
    same[inside] = (base_rowids[at[inside]] == rowids[inside]) & (base_fingerprints[at[inside]] == prints[inside])
    alive = np.zeros(n, dtype=bool)
    alive[at[same]] = True
    return Changes(alive, rowids[~same])


def diff_touched(base_rowids: np.ndarray, base_fingerprints: np.ndarray, touched: np.ndarray, rowids: np.ndarray,
                 prints: np.ndarray) -> Changes:
    """`diff` when only the rows at the `touched` rowids can have changed since the base (the writes
    logged them): (`rowids`, `prints`) are the index's rows among them. A base row at an untouched
    rowid is kept without a look at the index."""
    among = diff(base_rowids, base_fingerprints, rowids, prints)  # touched rows the index still holds unchanged
    at = np.searchsorted(base_rowids, touched)
    hit = at < len(base_rowids)
    hit[hit] = base_rowids[at[hit]] == touched[hit]
    untouched = np.ones(len(base_rowids), dtype=bool)
    untouched[at[hit]] = False
    return Changes(untouched | among.alive, among.fresh)


class PatchedMatrix:
    """A base quantised matrix (never modified: it may be a read-only mapping) with tombstoned rows,
    searched together with an exact matrix of the rows added since."""

    def __init__(self, base: QuantizedMatrix, alive: np.ndarray, fresh: FloatMatrix, fresh_prints: np.ndarray) -> None:
        self.base, self.alive, self.fresh, self.fresh_prints = base, alive, fresh, fresh_prints
        self.dims = base.dims
        self.size = int(np.count_nonzero(alive)) + fresh.size
        self.delta_rows = int(len(alive) - np.count_nonzero(alive)) + fresh.size

    def candidates(self, q: np.ndarray, k: int, shortlist: int, labels: tuple[int, ...] | None) -> np.ndarray:
        """Row ids to rescore exactly: the base's best `k` live rows (approximate) and the delta's best `k`."""
        base_rows, _ = self.base.search(q, k, shortlist=shortlist, labels=labels, alive=self.alive)
        fresh_rows, _ = self.fresh.search(q, k, labels=labels)
        return np.concatenate([base_rows, fresh_rows])

    def merged(self) -> MergedRows:
        """The same rows as one quantised matrix, to be written block by block (`MergedRows`)."""
        return MergedRows(self)


_MERGE_BLOCK = 16_384  # rows copied at a time: 4 MB of 4-bit codes at 512 dims


class MergedRows:
    """Base + delta as the arrays of one quantised matrix (rowids ascending, as a saved file needs),
    the delta quantised with the base's mean and scales, produced block by block (`arrays`).

    The merged matrix is never held in memory: each block is gathered from the base (at 1M rows a
    read-only mapping of the old file) and written out, and the base's pages it came from are
    dropped from this process's resident memory (`release_pages`). Holding the merged copy beside
    the mapped base, then mapping the saved file beside both, peaked at 1.4 GB RSS at 1M rows."""

    def __init__(self, patched: PatchedMatrix) -> None:
        base, fresh, n_fresh = patched.base, patched.fresh, patched.fresh.size
        self.base, self.dims, self.keep = base, base.dims, np.flatnonzero(patched.alive)
        self.rows = len(self.keep) + n_fresh
        self.unfitted_rows = base.unfitted_rows + n_fresh
        order = np.argsort(fresh.rowids[:n_fresh], kind="stable")
        self.fresh = QuantizedMatrix(base.dims, base.mean, base.scale, capacity=n_fresh, bit_dims=base.bit_dims)
        if n_fresh:
            self.fresh.add(fresh.rowids[:n_fresh][order], fresh.vectors[:n_fresh][order], fresh.labels[:n_fresh][order])
        self.fresh_prints = patched.fresh_prints[order]
        # the merged position of each delta row: after the kept base rows of lower rowids (a delta
        # rowid never equals a kept one: a base row behind a reused rowid is not alive)
        before = np.searchsorted(base.rowids[self.keep], self.fresh.rowids[:n_fresh])
        self.is_fresh = np.zeros(self.rows, dtype=bool)
        self.is_fresh[before + np.arange(n_fresh)] = True

    def arrays(self) -> dict[str, Iterable[np.ndarray]]:
        """Each array of the matrix file's layout by name, as blocks in order (`matrix_file.write_matrix`)."""
        base, fresh, n = self.base, self.fresh, self.fresh.size
        prints = base.fingerprints if base.fingerprints is not None else np.zeros(base.size, dtype=np.uint64)
        return {"mean": [base.mean], "scale": [base.scale], "bitdims": [base.bit_dims],
                "rowids": self._blocks(base.rowids, fresh.rowids[:n]),
                "labels": self._blocks(base.labels, fresh.labels[:n]),
                "codes": self._blocks(base.codes, fresh.codes[:n]),
                "bits": itertools.chain.from_iterable(self._blocks(base.bits[w], fresh.bits[w, :n])
                                                      for w in range(base.words)),
                "fingerprints": self._blocks(prints, self.fresh_prints)}

    def _blocks(self, base_rows: np.ndarray, fresh_rows: np.ndarray) -> Iterator[np.ndarray]:
        """A per-row array in merged order: the kept rows of `base_rows` and all of `fresh_rows`."""
        kept = done = 0
        for start in range(0, self.rows, _MERGE_BLOCK):
            is_fresh = self.is_fresh[start : start + _MERGE_BLOCK]
            n_fresh = int(np.count_nonzero(is_fresh))
            picked = self.keep[kept : kept + len(is_fresh) - n_fresh]
            from_base = base_rows[picked]
            if len(picked):
                release_pages(base_rows[picked[0] : picked[-1] + 1])  # copied out: the mapping's pages may go
            if n_fresh:
                block = np.empty((len(is_fresh), *fresh_rows.shape[1:]), dtype=fresh_rows.dtype)
                block[~is_fresh] = from_base
                block[is_fresh] = fresh_rows[done : done + n_fresh]
                from_base = block
            kept, done = kept + len(picked), done + n_fresh
            yield from_base
