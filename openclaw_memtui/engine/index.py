"""MemoryIndex: the one object the TUI, the CLI and the tests use.

It owns the writer connection (sync), hands each thread its own read connection (search), creates
the embedding provider lazily, and never imports Textual.
"""

from __future__ import annotations

import contextlib
import os
import stat
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .embeddings.base import EmbeddingProvider
from .embeddings.choice import FallbackRecord, ProviderChoice, SwitchOnQueryFailure
from .embeddings.openclaw_cache import REUSED_META as OPENCLAW_REUSED_META
from .errors import disk_full, is_disk_full
from .ingest.access import index_in_memory
from .ingest.sources import ListingBudget, SourceFile, list_sources, stat_stamp
from .models import DirtyCheck, Status, SyncProgress, SyncReport
from .scrub import scrub
from .settings import DEFAULT_CANDIDATE_POOL, DEFAULT_KEYWORD_MODE, IndexSettings, KeywordMode, fts_tokenize_clause
from .store import InvalidIndex, Store, SyncLock, SyncLockTimeout, check_integrity
from .store.reader import IndexReader

if TYPE_CHECKING:
    from .search.browse import BrowseEntry, BrowseFilter
    from .search.rank import Pool, Result
    from .search.request import SearchRequest
    from .search.retrieval import RetrievalContext
    from .search.vector import VectorSearcher
    from .settings import SearchParams
    from .sync.syncer import CancelFlag

# `status` stats every file of an index of up to this many (~40 ms of CPU here); beyond, only those it
# reaches within STATUS_DIRTY_BUDGET_S, and says "unknown" when none of them changed (`--check-files`: all)
FULL_DIRTY_CHECK_FILES = 10_000
STATUS_DIRTY_BUDGET_S = 0.015


class MemoryIndex:
    def __init__(self, settings: IndexSettings, provider_name: str = "local", model: str = "",
                 remote: dict[str, Any] | None = None, notice: Callable[[str], None] | None = None,
                 *, read_only: bool = False, repair: bool = True, fallback: str = "none",
                 sleep: Callable[[float], None] | None = None) -> None:
        """`read_only` (status) never creates, moves or changes a file; `repair=False` (search) refuses
        an invalid index file instead of moving it aside (see Store). `fallback`: the provider used when
        `provider_name` fails (OpenClaw's memorySearch.fallback); `sleep` (tests) the retries' wait."""
        self.settings = settings
        self.provider_name = provider_name
        self.model_name = model
        self.remote = remote or {}
        self.provider_choice = ProviderChoice(provider_name, model, self.remote, fallback, sleep,
                                              stored=self._stored_fallback)
        self.notices: list[str] = []
        self._notice_cb = notice
        self.read_only = read_only
        problem = index_in_memory(settings)
        if problem is not None:
            raise InvalidIndex(f"index path {settings.db_path} cannot be used: {problem}; memtui will not write "
                               "its index there: pass --db (or [store] path) a file outside the memory folders")
        self.store = Store(settings.db_path, notice=self._notice, tokenize=fts_tokenize_clause(settings),
                           readonly=read_only, repair=repair)
        self._provider: EmbeddingProvider | None = None
        self._provider_ready = False
        self._provider_lock = threading.Lock()
        self.provider_error = ""
        self._sync_lock = threading.Lock()
        self._local = threading.local()
        self._epoch = 0  # bumped when the live file is swapped, so readers reconnect
        self.watcher_state = "off"
        self._vector_searcher: VectorSearcher | None = None

    def built_with(self) -> tuple[str, str]:
        """(provider, model) the index's vectors were made with, ("", "") for an index never built."""
        import json

        from .store.schema import META_KEY

        try:
            meta = json.loads(self.store.get_meta(META_KEY) or "{}")
        except ValueError:
            return "", ""
        return str(meta.get("provider") or ""), str(meta.get("model") or "")

    def tell(self, message: str) -> None:
        """A notice for whoever opened the index (the CLI prints it, the app toasts it)."""
        self._notice(message)

    def _notice(self, message: str) -> None:
        self.notices.append(message)
        if self._notice_cb:
            self._notice_cb(message)

    # -- provider -----------------------------------------------------------------------------
    @property
    def provider(self) -> EmbeddingProvider | None:
        if not self._provider_ready:
            with self._provider_lock:  # the app's launch threads may ask at the same moment: one provider
                if not self._provider_ready:
                    self._provider = self.provider_choice.first()  # the fallback when the provider cannot be made
                    self.provider_error = self.provider_choice.error
                    self._provider_ready = True
        return self._provider

    @property
    def fallback(self) -> FallbackRecord | None:
        """The configured provider failed and the fallback is in use (None: the configured one is)."""
        return self.provider_choice.record if self._provider_ready else None

    def _stored_fallback(self) -> FallbackRecord | None:
        return None if self.store.missing else FallbackRecord.from_json(self.store.get_meta("provider_fallback"))

    def _switch_to_fallback(self, failed: EmbeddingProvider, error: str) -> bool:
        """`failed` could not embed: use the fallback from now on, if one is configured and unused."""
        with self._provider_lock:
            if self._provider is not failed:
                return False  # already switched by another thread
            fallback = self.provider_choice.switch(failed, error)
            if fallback is None:
                return False
            self._provider = fallback
        record = self.provider_choice.record
        if record is not None:
            self._notice(f"{record.line()}; using {record.to_id} ({record.model}), whose vectors the next sync builds")
        return True

    # -- connections ---------------------------------------------------------------------------
    def reader(self) -> Any:
        """A read connection for the calling thread (WAL lets it read while a sync writes)."""
        if self.store.missing:
            return self.store.conn  # no file yet (read-only): the empty in-memory index
        conn = getattr(self._local, "conn", None)
        inode = self.store.file_inode()
        if inode is None and not self.read_only:
            inode = self._recreate_deleted()
        if conn is None or getattr(self._local, "epoch", -1) != self._epoch or getattr(self._local, "inode", None) != inode:
            if conn is not None:
                conn.close()
            conn = self.store.open_reader()
            self._local.conn, self._local.epoch, self._local.inode = conn, self._epoch, inode
        return conn

    def _recreate_deleted(self) -> int | None:
        """The index file is gone from its path (deleted while this process serves it): make a new,
        empty one there and say so once; the next sync (the server's freshness check finds it empty)
        builds it again from the workspace. Our own running sync is left to it: its rebuild swaps a
        new file in anyway."""
        if not self._sync_lock.acquire(blocking=False):
            return None
        try:
            if self.store.file_inode() is None:
                self.store.recreate()
                self._epoch += 1  # every thread's reader reconnects; caches keyed on the generation drop
                self._notice(f"index {self.store.path} was deleted while in use; recreated it empty, "
                             "the next sync rebuilds it from the workspace")
        finally:
            self._sync_lock.release()
        return self.store.file_inode()

    # -- sync -----------------------------------------------------------------------------------
    def sync(self, force: bool = False, progress: Callable[[SyncProgress], None] | None = None,
             cancel: CancelFlag | None = None, embed: bool = True, wait: bool = True,
             verify_dims: bool = False, wait_s: float | None = None,
             on_wait: Callable[[str], None] | None = None, check_files: bool = False) -> SyncReport | None:
        """Sync the workspace. With wait=False, returns None at once if another process is syncing.

        Waiting for another process's sync, `on_wait` (else `progress`) is told at once what it waits
        for; `wait_s` bounds the wait (SyncLockTimeout), `cancel` ends it (a cancelled report).
        `verify_dims` (an explicit `memtui index`) may spend one embedding call to learn whether the
        provider's vector size changed although no chunk needs a vector (see Syncer). `check_files`
        reads and hashes every file, not only those whose (mtime, size) stamp moved."""
        if self.read_only:
            raise RuntimeError("this index was opened read-only")  # a programming error, not a user's
        with self._sync_lock:
            lock = SyncLock(self.store.path)
            if not lock.acquire(wait=False):
                if not wait:
                    return None
                what = f"waiting for the sync lock {lock.path}: another process is syncing this index"
                if on_wait is not None:
                    if wait_s != 0:  # --wait 0 gives up at once: its one line says it all
                        on_wait(what + (f" (giving up after {wait_s:g}s)" if wait_s is not None else ""))
                elif progress:
                    progress(SyncProgress("scan", 0, 0, "", what))
                if not lock.acquire(wait=True, timeout=wait_s, cancel=cancel):
                    if cancel is not None and cancel.is_set():
                        return SyncReport(cancelled=True)
                    raise SyncLockTimeout(lock.path, wait_s or 0.0)
            try:
                return self._sync_locked(force, progress, cancel, embed, verify_dims, check_files)
            except Exception as exc:
                if is_disk_full(exc):  # "could not write to vector blob" said nothing of the disk
                    raise disk_full(os.path.dirname(os.path.abspath(self.store.path)), exc) from exc
                raise
            finally:
                lock.release()

    def _sync_locked(self, force: bool, progress: Callable[[SyncProgress], None] | None, cancel: CancelFlag | None,
                     embed: bool, verify_dims: bool = False, check_files: bool = False) -> SyncReport:
        if self.store.file_inode() != self.store.inode:  # another process swapped in a rebuilt file
            self.store.reopen()
            self._epoch += 1
        from .sync.syncer import Syncer  # the chunkers and writers: `status` and search never load them

        before = self.store.inode
        provider = self.provider
        if embed and (recovered := self.provider_choice.probe_primary()) is not None:
            self._notice(f"{recovered.id} answers again: the index is rebuilt with it instead of the fallback")
            self._provider = provider = recovered
        report = Syncer(self.store, self.settings, provider, progress, cancel,
                        verify_dims=verify_dims, check_files=check_files).run(force=force, embed=embed)
        if report.embed_error and provider is not None and not report.cancelled \
                and self._switch_to_fallback(provider, report.embed_error):
            # OpenClaw's runtime fallback: a full rebuild with the fallback (its model changes the index identity)
            report = Syncer(self.store, self.settings, self._provider, progress, cancel).run(force=False, embed=embed)
        if embed and not report.cancelled:  # kept in the index: the next process goes on with the vectors it holds
            record = self.provider_choice.record
            stored = record.to_json() if record is not None else ""
            if (self.store.get_meta("provider_fallback") or "") != stored:
                self.store.set_meta("provider_fallback", stored)
        if report.embed_error:
            self.provider_error = report.embed_error
        elif self._provider is not None and not report.cancelled:
            self.provider_error = ""
        if before != self.store.inode or report.full_rebuild:
            self._epoch += 1
        self._remove_foreign_matrix()
        return report

    def _remove_foreign_matrix(self) -> None:
        """The vector matrix saved beside the index for an index no longer there (rebuilt, replaced,
        deleted and built again) can never be used: delete it rather than leave ~440 MB (1M chunks)."""
        from .search.matrix_names import any_matrix_file

        if self.store.missing or not any_matrix_file(self.settings.db_path):
            return  # none (a keyword-only index, a small one): numpy is not even loaded (~0.1 s of a sync)
        from .search.matrix_file import matrix_path, remove_foreign

        if not self.store.missing:
            # tidying only: the sync has committed, and a file we could not inspect or remove must not
            # turn it into a failed sync
            with contextlib.suppress(OSError):
                remove_foreign(matrix_path(self.settings.db_path), IndexReader(self.store.conn).index_id())

    @property
    def syncing(self) -> bool:
        return self._sync_lock.locked()

    def reads(self) -> IndexReader:
        """Typed reads over the calling thread's read connection."""
        return IndexReader(self.reader())

    def is_empty(self) -> bool:
        return self.reads().is_empty()

    def is_dirty(self) -> bool:
        """True when files on disk differ from what the index holds (new, changed or gone): every file is stat-ed."""
        return bool(self.check_dirty().dirty)

    def check_dirty(self, budget_s: float | None = None, full_up_to: int | None = None,
                    hashes: bool = False) -> DirtyCheck:
        """Compare the files on disk with the index's (mtime, size) stamps; with `hashes` (`status
        --check-files`) every file is also read and its content hash compared (no budget then), so an
        edit that kept the size and put the old mtime back is seen.

        With `budget_s` None every file is listed and stat-ed (~0.5 s of CPU at 100,000 files). With a
        budget the listing stops once it has run that long, unless the index holds at most `full_up_to`
        (default FULL_DIRTY_CHECK_FILES) files: a change among the files stat-ed by then is still a
        definite "dirty"; otherwise the answer is None ("unknown"), never a clean bill the check did not
        earn. Only the stamps of the files listed are read then, so the whole check stays within about
        twice the budget.
        """
        reads = self.reads()
        skipped = reads.retry_skipped_paths()
        indexed = reads.count_files()
        files: list[SourceFile]
        unchanged: list[str] = []  # files the listing itself found unchanged (see list_sources)
        if hashes:
            return self._check_hashes(reads, skipped, indexed)
        if budget_s is None or indexed <= (FULL_DIRTY_CHECK_FILES if full_up_to is None else full_up_to):
            known = reads.file_stamps()
            files, complete = list_sources(self.settings, known=known, unchanged=unchanged), True
        else:
            budget = ListingBudget(budget_s)
            files = list_sources(self.settings, budget)
            complete = not budget.exhausted
            known = reads.file_stamps_of([sf.path for sf in files])
        get = known.get
        seen = len(unchanged)
        for checked, sf in enumerate(files, seen + 1):
            if skipped and sf.path in skipped:
                continue
            stamp = get(sf.path)  # the listing stats each file (a transcript in OpenClaw's database: its stamps)
            if stamp is None or (sf.stamp or stat_stamp(sf.abs_path)) != stamp:
                return DirtyCheck(True, checked, indexed, complete)
            seen += 1
        return DirtyCheck(seen != indexed if complete else None, len(unchanged) + len(files), indexed, complete)

    def _check_hashes(self, reads: IndexReader, skipped: set[str], indexed: int) -> DirtyCheck:
        from .sync.syncer import content_hash  # reads every file: only on an explicit --check-files

        known, digests = reads.file_stamps(), reads.file_hashes()
        files = list_sources(self.settings)
        for checked, sf in enumerate(files, 1):
            if skipped and sf.path in skipped:
                continue
            stamp = known.get(sf.path)
            if stamp is None or (sf.stamp or stat_stamp(sf.abs_path)) != stamp \
                    or content_hash(sf, self.settings) != digests.get(sf.path):
                return DirtyCheck(True, checked, indexed, True)
        listed = {sf.path for sf in files}
        return DirtyCheck(any(path not in listed for path in known), len(files), indexed, True)

    # -- status ---------------------------------------------------------------------------------
    def status(self, check_dirty: bool = True, dirty_budget_s: float | None = None,
               check_hashes: bool = False) -> Status:
        """What the index holds; `check_dirty` compares it with the files on disk, all of them, or with
        `dirty_budget_s` those stat-ed within that time (see check_dirty: `dirty` may then be None);
        `check_hashes` reads every file and compares its content hash too."""
        reads = self.reads()
        dirty = self.check_dirty(dirty_budget_s, hashes=check_hashes) if check_dirty else None
        dims_raw = self.store.get_meta("vectorDims")
        # a vector of another size than the index's is not usable: it does not count as embedded
        vec_bytes = 4 * int(dims_raw) if dims_raw else 0
        sources: dict[str, dict[str, int]] = {}
        for source, files in reads.files_per_source().items():
            sources.setdefault(source, {"files": 0, "chunks": 0, "embedded": 0})["files"] = files
        for counts in reads.chunks_per_source(vec_bytes):
            entry = sources.setdefault(counts.source, {"files": 0, "chunks": 0, "embedded": 0})
            entry["chunks"], entry["embedded"] = counts.chunks, counts.embedded
        dates = reads.chunk_dates()
        skipped = [row._asdict() for row in reads.skipped()]
        provider = self.provider
        integrity = self._integrity(reads.conn, int(dims_raw) if dims_raw else None)
        stored_error = self.store.get_meta("provider_error") or ""
        backend = self.store.backend
        return Status(
            workspace=str(self.settings.workspace),
            db_path=str(self.settings.db_path),
            sqlite_binding=backend.name,
            sqlite_version=backend.sqlite_version,
            sqlite_vec_version=backend.vec_version if self.store.vec_loaded else None,
            vector_backend="sqlite-vec" if self.store.vec_loaded else "numpy",
            fts=True,
            provider=provider.id if provider else "none",
            model=provider.model if provider else "fts-only",
            dims=int(dims_raw) if dims_raw else (provider.dims if provider else None),
            files=sum(v["files"] for v in sources.values()),
            chunks=sum(v["chunks"] for v in sources.values()),
            embedded=sum(v["embedded"] for v in sources.values()),
            sources=sources,
            dirty=dirty.dirty if dirty is not None else False,
            dirty_check=dirty.to_dict() if dirty is not None else {},
            last_sync=self.store.get_meta("last_sync"),
            skipped=skipped,
            chunk_dates=dates,
            provider_error=scrub(self.provider_error or stored_error),  # an index written before scrubbing may hold a key
            fallback=self.fallback.to_dict() if self.fallback is not None else None,
            watcher=self.watcher_state,
            notices=list(self.notices),
            integrity=integrity,
            openclaw_cache_reused=int(self.store.get_meta(OPENCLAW_REUSED_META) or 0),
        )

    def _integrity(self, conn: Any, dims: int | None) -> dict[str, Any]:
        """check_integrity, cached until the index changes: the app's status screen refreshes every
        second during a sync, and the check reads every row."""
        key = (self.store_generation(), dims)
        cached = getattr(self, "_integrity_cache", None)
        if cached is None or cached[0] != key:
            self._integrity_cache = cached = (key, check_integrity(conn, dims))
        return dict(cached[1])

    # -- search ---------------------------------------------------------------------------------
    @property
    def vector_searcher(self) -> VectorSearcher:
        if self._vector_searcher is None:
            from .search.matrix_file import matrix_path
            from .search.vector import VectorSearcher

            missing = self.store.missing
            self._vector_searcher = VectorSearcher(self.settings.vector_backend, self.settings.vector_memory_budget_mb,
                                                   exact=self.settings.vector_exact,
                                                   open_reader=None if missing else self.store.open_reader,
                                                   matrix_file=None if missing else matrix_path(self.settings.db_path))
        return self._vector_searcher

    def warm_up_vectors(self) -> None:
        """Load the in-memory vector matrix now (a long-lived process calls it on a worker thread at
        launch); from then on a change of the index is patched in (the rows changed since), or past
        `matrix_delta`'s limit reloaded in the background while searches use sqlite-vec. A one-shot
        search of a large index never builds it (sqlite-vec serves, or the matrix file saved beside
        the index, patched if older); this process, unless read-only, saves each matrix it builds
        (or merges, past `matrix_cache.MERGE_SAVE_ROWS` patched rows) there for the next start."""
        provider = self.provider
        if provider is None or self.store.missing:
            return
        persist = not self.read_only
        conn = self.store.open_reader()  # its own connection: the caller's thread may search meanwhile
        try:
            reads = IndexReader(conn)
            if persist and not reads.index_id():
                self._ensure_index_id()
            generation = (self._epoch, reads.generation())
            embedded = reads.count_embedded(provider.model)
            if embedded:
                self.vector_searcher.warm_up(conn, generation, provider.model, embedded, persist=persist)
        finally:
            conn.close()

    def lacks_vector_file(self) -> bool:
        """Would the next long-lived process (the app, `memtui mcp`) build the vector matrix from SQLite
        at its first start (~20 s at 1M chunks, its searches on sqlite-vec meanwhile)? Only a large
        index without a matrix file of its own does (see VectorSearcher.lacks_file)."""
        provider = self.provider
        if provider is None or self.store.missing or self.read_only:
            return False
        conn = self.store.open_reader()
        try:
            return self.vector_searcher.lacks_file(conn, provider.model, IndexReader(conn).count_embedded(provider.model))
        finally:
            conn.close()

    def save_vector_file(self) -> bool:
        """Build the vector matrix and save it beside the index now (`memtui index` does, after its
        sync, when `lacks_vector_file`); True when the file saved is for the index's state now. When
        not, `vector_searcher.save_problem` says why (a full disk; a folder at the file's path, found
        before the build: at 1M chunks building a matrix that cannot be saved costs ~20 s)."""
        searcher = self.vector_searcher
        searcher.save_problem = ""
        path = searcher.matrix_file
        with contextlib.suppress(OSError):  # nothing there: the usual case
            if path is not None and stat.S_ISDIR(os.lstat(path).st_mode):
                searcher.save_problem = f"a folder is in its place ({path.name}): move it away"
                return False
        self.warm_up_vectors()
        saved = searcher.saved
        return saved is not None and saved.generation == self.reads().generation()

    def map_saved_vectors(self) -> bool:
        """Map in the vector matrix saved beside the index, if it is current (a long-lived process
        calls it on a worker thread at launch: ~0.25 s at 1M chunks, so its first search need not
        fall back to sqlite-vec). Builds nothing; False when there is no usable file."""
        provider = self.provider
        if provider is None or self.store.missing:
            return False
        conn = self.store.open_reader()
        try:
            reads = IndexReader(conn)
            generation = (self._epoch, reads.generation())
            embedded = reads.count_embedded(provider.model)
            return bool(embedded) and self.vector_searcher.map_file(conn, (generation, provider.model), embedded) is not None
        finally:
            conn.close()

    def vectors_pending(self) -> bool:
        """True when a search now would wait seconds for its vector leg over a large index (a sqlite-vec
        KNN, or patching an older matrix with a sync's rows: ~2 s at 1M chunks) because the vector
        matrix is neither in memory nor saved for this state: meanwhile a front end may show keyword
        results first."""
        provider = self.provider
        if provider is None or self.store.missing:
            return False
        generation = self.store_generation()
        embedded, _ = self.chunk_counts(provider.model, generation)
        return self.vector_searcher.would_defer(self.reader(), (generation, provider.model), embedded, self.store.vec_loaded)

    def _ensure_index_id(self) -> None:
        """An index an older memtui built has no id until its next change: give it one now, so its
        matrix can be saved. Skipped while our own sync holds the writer (its commit sets the id)."""
        if not self._sync_lock.acquire(blocking=False):
            return
        try:
            self.store.ensure_index_id()
        except Exception:  # noqa: BLE001 - locked by another process: its next change sets the id
            pass
        finally:
            self._sync_lock.release()

    def chunk_counts(self, model: str, generation: tuple[int, int] | None = None) -> tuple[int, int]:
        """(chunks embedded with `model`, all chunks), cached until the index changes.

        Counting scans every row; at 100k chunks that alone cost ~40 ms a search before caching.
        Pass the `store_generation()` you already read to save reading it again.
        """
        key = (generation or self.store_generation(), model)
        cached = getattr(self, "_counts", None)
        if cached is None or cached[0] != key:
            reads = self.reads()
            embedded, total = reads.count_embedded(model), reads.count_chunks()
            self._counts = cached = (key, (embedded, total))
        return cached[1]

    def unembedded(self) -> int:
        """Chunks still waiting for a vector from the current provider (0 without one): what a
        cancelled or interrupted sync left, so a front end can resume it at launch."""
        provider = self.provider
        if provider is None:
            return 0
        embedded, total = self.chunk_counts(provider.model)
        return total - embedded

    def store_generation(self) -> tuple[int, int]:
        """Changes whenever vectors or chunks change, or the file is swapped: a cache key."""
        return (self._epoch, self.reads().generation())

    def retrieval_context(self, use_vectors: bool = True) -> RetrievalContext:
        """What retrieval needs, read now: the calling thread's connection, the provider, the caches.
        Without `use_vectors` the provider is not even created (keyword-only)."""
        from .search.retrieval import RetrievalContext

        provider = self.provider if use_vectors else None  # created on first use; its error is known after
        if provider is not None and self.provider_choice.can_fall_back(provider.id):
            provider = SwitchOnQueryFailure(provider, self._switch_to_fallback)
        return RetrievalContext(
            reads=self.reads(), sources=self.settings.search_sources or self.settings.sources,
            cjk_bigram=self.settings.cjk_segmentation == "bigram",
            vectors=self.vector_searcher if provider is not None else None, vec_loaded=self.store.vec_loaded,
            provider=provider,
            provider_error=self.provider_error, generation=self.store_generation, chunk_counts=self.chunk_counts)

    def retrieve(self, query: str, pool_size: int = DEFAULT_CANDIDATE_POOL, keyword_mode: KeywordMode = DEFAULT_KEYWORD_MODE,
                 now_ms: float | None = None, use_vectors: bool = True, time_aware: bool = True,
                 sources: tuple[str, ...] | None = None) -> Pool:
        """Run the legs once into a candidate pool. Reads only: an index never built is searched as
        it is (empty); building it is the caller's explicit step (`sync`). `sources` narrows the
        searched sources (an agent's `corpus=memory`); it never adds one the index does not search."""
        from dataclasses import replace

        from .search.retrieval import retrieve

        ctx = self.retrieval_context(use_vectors)
        if sources is not None:
            ctx = replace(ctx, sources=tuple(s for s in ctx.sources if s in sources))
        pool = retrieve(ctx, query, pool_size, keyword_mode, now_ms, use_vectors, time_aware)
        return self._without_forgotten(pool)

    def pool_for(self, request: SearchRequest) -> Pool:
        """The pool of a front end's request: the one way the TUI, CLI, MCP and tuner retrieve."""
        return self.retrieve(request.query, pool_size=request.pool_size, keyword_mode=request.keyword_mode,
                             now_ms=request.now_ms, use_vectors=request.use_vectors, time_aware=request.time_words,
                             sources=request.sources)

    def _without_forgotten(self, pool: Pool) -> Pool:
        """The pool without chunks of sessions OpenClaw was told to forget (see engine.ingest.forgotten): an
        index synced before the forget still holds them until the next sync drops them."""
        if not any(c.source == "sessions" for c in pool.candidates):
            return pool
        from .ingest.forgotten import is_forgotten, settings_forgotten

        forgotten = settings_forgotten(self.settings)
        if forgotten is not None and not forgotten:
            return pool
        prefix = self.settings.sessions_prefix
        kept = [c for c in pool.candidates if not is_forgotten(c.path, c.source, prefix, forgotten)]
        if len(kept) != len(pool.candidates):
            pool.candidates = kept
            pool._jaccard = None
            if forgotten is None:
                pool.warnings.append("OpenClaw's database cannot be read now, so which conversations it was told to "
                                     "forget is unknown: transcripts are left out of these results")
        return pool

    def browse(self, which: BrowseFilter = "all", offset: int = 0, limit: int = 200,
               now_ms: float | None = None) -> list[BrowseEntry]:
        """A page of the memory newest first, of the sources searched (see search/browse.py)."""
        import time

        from .search.browse import browse_page

        searchable = tuple(self.settings.search_sources or self.settings.sources)
        return browse_page(self.reads(), searchable, which, time.time() * 1000 if now_ms is None else now_ms,
                           offset, limit)

    def search(self, query: str, params: SearchParams | None = None, **kwargs: Any) -> tuple[Pool, list[Result]]:
        from .search.rank import rank
        from .settings import DEFAULT_SEARCH_PARAMS

        pool = self.retrieve(query, **kwargs)
        return pool, rank(pool, params or DEFAULT_SEARCH_PARAMS)

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
        self.store.close()
