"""The embedding phase of a sync: give every chunk without a vector one, from the cache first.

Chunks are embedded in rowid order a batch at a time, each batch committed, so an interrupted sync
keeps what it already paid for; vectors OpenClaw already computed are reused, and a provider whose
vector size changed has every chunk embedded again.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

from ..embeddings.base import EmbeddingError, EmbeddingProvider
from ..embeddings.openclaw_cache import REUSED_META as OPENCLAW_REUSED_META
from ..embeddings.openclaw_cache import OpenClawVectors
from ..models import SyncProgress, SyncReport
from ..scrub import scrub
from ..store import CachedVector, CacheScope, EmbeddingCache, IndexWriter, PendingChunk
from ..store.reader import IndexReader
from ..vectors import line_vectors
from .state import SyncerState

LINE_PASS_CHUNKS = 256  # chunks read per step of the line-vector pass


class _VectorSizeChanged(Exception):
    """The provider returned vectors of another size than the index holds (old 0: unknown)."""

    def __init__(self, old: int, new: int) -> None:
        super().__init__(f"vector size changed from {old} to {new}")
        self.old, self.new = old, new


class EmbeddingPhase(SyncerState):
    """The Syncer's embedding phase (a mixin: `Syncer` sets the state)."""

    def _embed_missing(self, report: SyncReport) -> None:
        """Embed every chunk without a vector; when the provider's vector size changed for the same
        model, drop every vector of the old size and embed all chunks again (once per sync)."""
        # read before this sync's embedding marks it: an earlier sync stopped between chunk vectors and their lines
        self._lines_left_pending = bool(self.store.get_meta(line_vectors.LINES_PENDING_KEY))
        try:
            self._check_vector_size()
            self._embed_pass(report)
        except _VectorSizeChanged as change:
            provider = self.provider
            assert provider is not None
            report.vectors_reset = (f"{provider.id}/{provider.model} now returns {change.new}-dim vectors, the index "
                                    f"holds {change.old or 'other'}-dim ones: re-embedding every chunk")
            self._drop_vectors(change.new)
            try:
                self._embed_pass(report)
            except _VectorSizeChanged:
                message = f"{provider.id} keeps changing its vector size; check the model setting"
                report.embed_error = message
                self.store.set_meta("provider_error", message)

    def _check_vector_size(self) -> None:
        """Raise _VectorSizeChanged when the provider's vectors no longer have the stored size.

        With every chunk embedded nothing is sent to the provider, so a size change would go unseen
        and queries would silently lose their vector leg. The size the provider already reported
        (a local model's is fixed; a remote one's is known after a query) costs nothing; only an
        explicit `memtui index` (verify_dims) spends one short embedding call to ask.
        """
        provider = self.provider
        stored = self.store.get_meta("vectorDims")
        if provider is None or not stored:
            return
        dims = provider.dims
        if dims is None and self.verify_dims:
            try:
                dims = int(provider.embed_query("memtui vector size check").shape[-1])
            except EmbeddingError:
                return  # the embedding pass reports provider errors
        if dims is not None and int(dims) != int(stored):
            raise _VectorSizeChanged(int(stored), int(dims))

    def _drop_vectors(self, keep_dims: int) -> None:
        """Forget all stored vectors and the cached ones of another size than `keep_dims`."""
        provider = self.provider
        assert provider is not None
        store = self.store
        writer = IndexWriter(store.conn)
        writer.begin()
        try:
            writer.clear_vectors()
            if store.vec_dims() is not None:
                store.drop_vec_table()
            EmbeddingCache(store.conn).drop_other_sizes(self._cache_scope(provider), keep_dims)
            store.conn.execute("DELETE FROM line_vectors")  # the same model's lines, at the old size: made again
            store.delete_meta(line_vectors.LINE_VECTORS_KEY)
            store.delete_meta("vectorDims")  # the commit gives a new generation: clear_vectors changed rows
            writer.commit()
        except BaseException:
            writer.rollback()
            raise

    def _embed_pass(self, report: SyncReport) -> None:
        provider = self.provider
        assert provider is not None
        store = self.store
        writer = IndexWriter(store.conn)
        total = IndexReader(store.conn).count_unembedded(self.model)
        if not total:
            return
        scope = self._cache_scope(provider)
        reused_before = report.openclaw_cache_reused
        if self._lines_refused() is None:
            # marked before any chunk vector is written, cleared by the line pass that gives their lines one:
            # a sync cut short in between leaves it, and the next line pass then reads every chunk
            store.set_meta(line_vectors.LINES_PENDING_KEY, "1")
        self._openclaw_vectors = OpenClawVectors(self.settings.transcripts_db, provider) if self.settings.cache_enabled else None
        batch_size = max(1, getattr(provider, "sync_batch_items", 32))  # one commit per batch: progress survives a crash
        done = 0
        after = 0  # chunks are read a batch at a time in rowid order: 1M chunks' text never sits in memory
        try:
            while batch := writer.chunks_to_embed(self.model, after, batch_size):
                self._check_cancel()
                after = batch[-1].rowid
                self.progress(SyncProgress("embed", done, total, "", f"embedding {done}/{total} chunks"))
                vectors = self._vectors_for(batch, scope, report)
                dims = vectors.shape[1]
                stored_dims = store.get_meta("vectorDims")
                if stored_dims and int(stored_dims) != dims:
                    raise _VectorSizeChanged(int(stored_dims), dims)
                writer.begin()
                into_vec_table = store.ensure_vec_table(dims)
                writer.write_vectors([(chunk, v.tobytes()) for chunk, v in zip(batch, vectors, strict=True)],
                                     into_vec_table=into_vec_table)  # its commit gives a new generation
                store.set_meta("vectorDims", str(dims))
                writer.commit()
                done += len(batch)
                report.chunks_embedded += len(batch)
                self._embedded_rowids.extend(chunk.rowid for chunk in batch)
            store.set_meta("provider_error", "")
        except EmbeddingError as exc:
            report.embed_error = scrub(str(exc))  # shown by index/status and stored in meta: no key in it
            store.set_meta("provider_error", report.embed_error)
        finally:
            if writer.in_transaction:
                writer.rollback()
            EmbeddingCache(store.conn).prune(self.settings.cache_max_entries)
            reused = report.openclaw_cache_reused - reused_before
            if reused:  # status tells what OpenClaw's cache saved this index
                store.set_meta(OPENCLAW_REUSED_META, str(int(store.get_meta(OPENCLAW_REUSED_META) or 0) + reused))
        self.progress(SyncProgress("embed", done, total, "", f"embedded {done}/{total} chunks"
                                   + (f", reused {reused} vectors from OpenClaw's cache" if reused else "")))

    def _embed_lines(self, report: SyncReport) -> None:
        """Give every line of every embedded chunk a vector (`chunking.lineVectors`), or drop them all when
        the setting is off. After a complete pass for this model, only the chunks this sync embedded are
        read (an agent's server syncs at every turn: reading a large index's every chunk each time would
        cost seconds); every chunk is read when there was none, after a rebuild, or when an earlier sync
        stopped between its chunk vectors and their lines. Line vectors no chunk has any more are pruned
        by those full passes only: until then they cost space, never a score (a line is looked up by its
        text's hash). Each embedded batch is committed, so an interrupted pass keeps it."""
        store, conn = self.store, self.store.conn
        done_for = store.get_meta(line_vectors.LINE_VECTORS_KEY) or ""
        writer = IndexWriter(conn)
        refused = self._lines_refused()
        if refused is not None:
            report.line_vectors_off = refused
            if done_for or store.get_meta(line_vectors.LINES_PENDING_KEY) or line_vectors.has_line_vectors(conn, self.model):
                writer.begin()
                conn.execute("DELETE FROM line_vectors")
                store.delete_meta(line_vectors.LINE_VECTORS_KEY)
                store.delete_meta(line_vectors.LINES_PENDING_KEY)
                store.bump_generation(set())  # a cached pool scored with line vectors is stale
                writer.commit()
            return
        changed = (report.chunks_written or report.chunks_embedded or report.files_removed or report.full_rebuild
                   or self._lines_left_pending)
        if report.embed_error or (done_for == self.model and not changed):
            return
        # an earlier sync's chunks left without line vectors cannot be named: read them all
        full = done_for != self.model or report.full_rebuild or self._lines_left_pending
        seen: set[str] = set()
        wrote = 0
        try:
            if full:
                after = 0
                while rows := conn.execute("SELECT rowid, text FROM chunks WHERE model = ? AND rowid > ? ORDER BY rowid "
                                           "LIMIT ?", (self.model, after, LINE_PASS_CHUNKS)).fetchall():
                    after = rows[-1][0]
                    wrote += self._embed_lines_of([text for _, text in rows], seen, wrote, writer)
            else:
                embedded = self._embedded_rowids
                for i in range(0, len(embedded), LINE_PASS_CHUNKS):
                    part = embedded[i:i + LINE_PASS_CHUNKS]
                    rows = conn.execute(f"SELECT text FROM chunks WHERE model = ? AND rowid IN ({','.join('?' * len(part))})",
                                        (self.model, *part)).fetchall()
                    wrote += self._embed_lines_of([text for (text,) in rows], seen, wrote, writer)
            writer.begin()
            if full:
                line_vectors.prune(conn, self.model, seen)
            store.delete_meta(line_vectors.LINES_PENDING_KEY)
            store.set_meta(line_vectors.LINE_VECTORS_KEY, self.model)
            if wrote or full:  # a cached pool scored without these line vectors is stale; none made: nothing is
                store.bump_generation(set())
            writer.commit()
            report.lines_embedded += wrote
        except EmbeddingError as exc:
            report.embed_error = scrub(str(exc))
            store.set_meta("provider_error", report.embed_error)
        finally:
            if writer.in_transaction:
                writer.rollback()

    def _lines_refused(self) -> str | None:
        """None when this sync makes line vectors; else why not: "" when the setting is off (or there is no
        provider), a line for `memtui index` when the index or the provider is not one they are made for."""
        provider = self.provider
        if not self.settings.line_vectors or provider is None:
            return ""
        if provider.id != "local":  # the local model's only: a remote provider would be sent (and bill) every text twice
            return f"{provider.id} is a remote provider (it would be sent every note's text again)"
        chunks = IndexReader(self.store.conn).count_chunks()
        if chunks > line_vectors.LINE_VECTORS_MAX_CHUNKS:
            return f"{chunks:,} chunks, more than the {line_vectors.LINE_VECTORS_MAX_CHUNKS:,} line vectors are made for"
        return None

    def _embed_lines_of(self, texts: list[str], seen: set[str], wrote: int, writer: IndexWriter) -> int:
        """Embed the lines of these chunk texts that have no vector yet (`seen`: lines already handled in
        this pass); returns how many were embedded."""
        provider = self.provider
        assert provider is not None
        conn = self.store.conn
        self._check_cancel()
        batch = max(1, getattr(provider, "sync_batch_items", 32))
        fresh: dict[str, str] = {}
        for text in texts:
            for line in line_vectors.vector_lines(text):
                h = line_vectors.line_hash(line)
                if h not in seen:
                    seen.add(h)
                    fresh[h] = line
        known = line_vectors.stored_hashes(conn, self.model, list(fresh))
        todo = [(h, line) for h, line in fresh.items() if h not in known]
        for i in range(0, len(todo), batch):
            self._check_cancel()
            part = todo[i:i + batch]
            self.progress(SyncProgress("embed", wrote + i, wrote + len(todo), "", f"embedding lines: {wrote + i} done"))
            vectors = provider.embed_batch([line for _, line in part])
            if vectors.shape[0] != len(part):
                raise EmbeddingError(f"{provider.id} returned {vectors.shape[0]} vectors for {len(part)} texts")
            writer.begin()
            line_vectors.put(conn, self.model, [(h, v) for (h, _), v in zip(part, vectors, strict=True)])
            writer.commit()
        return len(todo)

    @staticmethod
    def _cache_scope(provider: EmbeddingProvider) -> CacheScope:
        return CacheScope(provider.id, provider.model, provider.provider_key())

    def _vectors_for(self, batch: list[PendingChunk], scope: CacheScope, report: SyncReport) -> np.ndarray:
        import numpy as np

        provider = self.provider
        assert provider is not None
        cache = EmbeddingCache(self.store.conn)
        hashes = [chunk.hash for chunk in batch]
        cached: dict[str, np.ndarray] = {}
        if self.settings.cache_enabled:
            cached = {h: np.frombuffer(blob, dtype=np.float32) for h, blob in cache.lookup(scope, hashes).items()}
        missing = [i for i, h in enumerate(hashes) if h not in cached]
        report.embed_cache_hits += len(batch) - len(missing)
        fresh: dict[int, np.ndarray] = {}
        if missing and self._openclaw_vectors is not None:  # vectors OpenClaw already paid for (read-only)
            taken = self._openclaw_vectors.take([batch[i].text for i in missing])
            fresh = {missing[j]: v for j, v in taken.items()}
            missing = [i for i in missing if i not in fresh]
        reused = len(fresh)
        if missing:
            vecs = provider.embed_batch([batch[i].text for i in missing])
            if vecs.shape[0] != len(missing):
                raise EmbeddingError(f"{provider.id} returned {vecs.shape[0]} vectors for {len(missing)} texts")
            fresh |= {i: vecs[j] for j, i in enumerate(missing)}
            report.embeddings_fetched += len(missing)
        report.openclaw_cache_reused += reused
        now = int(time.time() * 1000)
        if self.settings.cache_enabled:
            if fresh:
                cache.put(scope, [CachedVector(hashes[i], v.astype(np.float32).tobytes(), len(v)) for i, v in fresh.items()], now)
            if cached:
                cache.touch(scope, cached, now)
        rows = [cached[h] if h in cached else fresh[i] for i, h in enumerate(hashes)]
        dims = {len(r) for r in rows}
        fresh_dims = {len(v) for v in fresh.values()}
        if len(dims) != 1 and len(fresh_dims) == 1:  # the cache holds the old size, the provider a new one
            raise _VectorSizeChanged(0, fresh_dims.pop())
        if len(dims) != 1:
            raise EmbeddingError(f"{provider.id} returned vectors of different sizes {sorted(dims)}; check the model setting")
        return np.vstack(rows).astype(np.float32)
