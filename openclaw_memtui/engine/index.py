"""MemoryIndex: the one object the TUI, the CLI and the tests use.

It owns the writer connection (sync), hands each thread its own read connection (search), creates
the embedding provider lazily, and never imports Textual. Parts of it live apart and are given only
what they need: `dirty_check` (do the files differ from the index), `index_status` (what it holds,
built from the reader, store and provider), `index_vectors` (the vector matrix and its file, an object
the index holds as `vectors`) and `search.forgotten_filter`.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from .dirty_check import check_dirty
from .embeddings.base import EmbeddingProvider
from .embeddings.choice import FallbackRecord, ProviderChoice, SwitchOnQueryFailure
from .errors import disk_full, is_disk_full
from .index_status import IntegrityCache, index_status
from .ingest.access import index_in_memory
from .models import DirtyCheck, Status, SyncProgress, SyncReport
from .search.forgotten_filter import without_forgotten
from .settings import DEFAULT_CANDIDATE_POOL, DEFAULT_KEYWORD_MODE, IndexSettings, KeywordMode, fts_tokenize_clause
from .store import InvalidIndex, Store, SyncLock, SyncLockTimeout
from .store.reader import ChunkRow, IndexReader
from .vectors.index_vectors import IndexVectors

# how long close() waits for a sync running on another thread (see close)
CLOSE_WAIT_S = 30.0

if TYPE_CHECKING:
    from .ingest.transcripts import FlatSession
    from .search.browse import BrowseEntry, BrowseFilter
    from .search.rank import Pool, Result
    from .search.request import SearchRequest
    from .search.retrieval import RetrievalContext
    from .settings import SearchParams
    from .sync.state import CancelFlag
    from .vectors.vector import VectorSearcher


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
                           readonly=read_only, repair=repair, records=settings.index_records)
        self._provider: EmbeddingProvider | None = None
        self._provider_ready = False
        self._provider_lock = threading.Lock()
        self.provider_error = ""
        self._sync_lock = threading.Lock()
        self._local = threading.local()
        self._epoch = 0  # bumped when the live file is swapped, so readers reconnect
        # set from the moment a deleted index file is made anew (empty) until a sync has filled it: another
        # thread may still read the deleted file through its old connection meanwhile, so "not empty" is no proof
        self._recreated = False
        self.watcher_state = "off"
        self.vectors = IndexVectors(settings, self.store, read_only, self._ensure_index_id)
        self._integrity = IntegrityCache()

    def built_with(self) -> tuple[str, str]:
        """(provider, model) the index's vectors were made with, ("", "") for an index never built."""
        import json

        from .store.schema import META_KEY

        try:
            meta = json.loads(self.reads().meta(META_KEY) or "{}")
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
        return None if self.store.missing else FallbackRecord.from_json(self.reads().meta("provider_fallback"))

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
            # the old connection is dropped, not closed: a reader this thread still holds (a status being
            # read while a rebuild swapped the file in) finishes on it, and it closes when the last one goes
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
                self._recreated = True  # before the new file exists: nobody sees it without the flag
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
        from .sync.runner import Syncer  # the chunkers and writers: `status` and search never load them

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
        if not report.cancelled:
            self._recreated = False
        self._remove_foreign_matrix()
        return report

    def _remove_foreign_matrix(self) -> None:
        """The vector matrix saved beside the index for an index no longer there (rebuilt, replaced,
        deleted and built again) can never be used: delete it rather than leave ~440 MB (1M chunks)."""
        from .vectors.matrix_names import any_matrix_file

        if self.store.missing or not any_matrix_file(self.settings.db_path):
            return  # none (a keyword-only index, a small one): a sync need not even load numpy
        from .vectors.matrix_file import matrix_path, remove_foreign

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

    @property
    def built(self) -> bool:
        """Whether the index file exists (one never built reads as an empty index held in memory)."""
        return not self.store.missing

    def is_empty(self) -> bool:
        return self.reads().is_empty()

    def file_gone(self) -> bool:
        """The index file is no longer at its path (deleted under this process), or was made anew empty
        and no sync has filled it yet: only a sync gives it back its rows."""
        if self.read_only or self.store.missing:
            return False
        return self._recreated or self.store.file_inode() is None

    def notes_changed(self) -> bool:
        """Whether a memory file (a note, an extra path) is new, changed or gone since the last sync;
        transcripts are not looked at (see dirty_check.notes_changed)."""
        from .dirty_check import notes_changed

        return notes_changed(self.settings, self.reads())

    def is_dirty(self) -> bool:
        """True when files on disk differ from what the index holds (new, changed or gone): every file is stat-ed."""
        return bool(self.check_dirty().dirty)

    def needs_sync(self) -> bool:
        """Whether a sync has work to do: the index was never built, a file on disk differs from what it
        holds, or chunks wait for a vector (a sync cancelled or quit while embedding). The one rule every
        front end asks before it syncs on its own; every file is stat-ed."""
        return self.is_empty() or self.is_dirty() or self.unembedded() > 0

    def check_dirty(self, budget_s: float | None = None, full_up_to: int | None = None,
                    hashes: bool = False) -> DirtyCheck:
        """Compare the files on disk with the index's (mtime, size) stamps, within `budget_s` when
        given, unless the index holds at most `full_up_to` files; `hashes` compares content hashes
        too. `dirty` is None ("unknown") when the budget ran out first (see dirty_check.check_dirty)."""
        return check_dirty(self.settings, self.reads(), budget_s, full_up_to, hashes)

    # -- status ---------------------------------------------------------------------------------
    def status(self, check_dirty: bool = True, dirty_budget_s: float | None = None,
               check_hashes: bool = False, check_integrity: bool = True) -> Status:
        """What the index holds; `check_dirty` compares it with the files on disk, all of them, or with
        `dirty_budget_s` those stat-ed within that time (see check_dirty: `dirty` may then be None);
        `check_hashes` reads every file and compares its content hash too. Without `check_integrity`
        the keyword rows are not compared with the chunks (`integrity` is empty): up to 10,000 chunks
        that join reads every row, for a caller that does not show it."""
        reads = self.reads()
        dirty = self.check_dirty(dirty_budget_s, hashes=check_hashes) if check_dirty else None
        provider = self.provider
        dims = reads.meta("vectorDims")
        integrity = (self._integrity.report(reads.conn, self.store_generation(), int(dims) if dims else None)
                     if check_integrity else {})
        unembedded = self.unembedded() if provider is not None and not self.store.missing else 0
        return index_status(reads, self.store, self.settings, provider, dirty, unembedded, integrity,
                            self.provider_error, self.fallback, self.watcher_state, self.notices)

    # -- search ---------------------------------------------------------------------------------
    @property
    def vector_searcher(self) -> VectorSearcher:
        return self.vectors.searcher

    def warm_up_vectors(self) -> None:
        """Load the in-memory vector matrix now (a long-lived process calls it on a worker thread at
        launch); from then on a change of the index is patched in (the rows changed since), or past
        `matrix_delta`'s limit reloaded in the background while searches use sqlite-vec. A one-shot
        search of a large index never builds it (sqlite-vec serves, or the matrix file saved beside
        the index, patched if older); this process, unless read-only, saves each matrix it builds
        (or merges, past `matrix_cache.MERGE_SAVE_ROWS` patched rows) there for the next start."""
        self.vectors.warm_up(self._model(), self._epoch)

    def lacks_vector_file(self) -> bool:
        """Would the next long-lived process (the app, `memtui mcp`) build the vector matrix from SQLite
        at its first start (seconds at 1M chunks, its searches on sqlite-vec meanwhile)? Only a large
        index without a matrix file of its own does (see VectorSearcher.lacks_file)."""
        return self.vectors.lacks_file(self._model())

    def save_vector_file(self) -> bool:
        """Build the vector matrix and save it beside the index now (`memtui index` does, after its
        sync, when `lacks_vector_file`); True when the file saved is for the index's state now. When
        not, `vector_save_problem` says why (a full disk; a folder at the file's path, found
        before the build: a large matrix that cannot be saved is not built for nothing)."""
        saved = self.vectors.save_file(self._model(), self._epoch)
        return saved is not None and saved.generation == self.reads().generation()

    @property
    def vector_save_problem(self) -> str:
        """Why the last `save_vector_file` saved no file for the index's state now ("" when it did)."""
        return self.vectors.save_problem

    def map_saved_vectors(self) -> bool:
        """Map in the vector matrix saved beside the index, if it is current (a long-lived process
        calls it on a worker thread at launch: a checksum of the file, not a rebuild, so its first
        search need not fall back to sqlite-vec). Builds nothing; False when there is no usable file."""
        return self.vectors.map_saved(self._model(), self._epoch)

    def query_vector_ready(self) -> bool:
        """False while a query's vector would wait for a local model to load (a front end may show keyword
        results first and re-rank them when the vector arrives); True with no provider, a loaded model,
        or a remote provider (whose round trip each query pays alike). Makes the provider, not the model."""
        provider = self.provider
        return provider is None or bool(getattr(provider, "ready", True))

    def warm_up_model(self) -> None:
        """Make the provider and load a local model now, so the first query does not wait for it. Safe from
        any thread; a provider that cannot be made is left for the search to report."""
        try:
            provider = self.provider
            warm_up = getattr(provider, "warm_up", None)
            if warm_up is not None:
                warm_up()
        except Exception:  # noqa: BLE001 - the first search says why, in its own words
            return

    def vectors_pending(self) -> bool:
        """True when a search now would wait seconds for its vector leg over a large index (a sqlite-vec
        KNN, or patching an older matrix with a sync's rows) because the vector matrix is neither in
        memory nor saved for this state: meanwhile a front end may show keyword results first
        (docs/benchmarks.md has the figures)."""
        model = self._model()
        if model is None or self.store.missing:
            return False
        generation = self.store_generation()
        embedded, _ = self.chunk_counts(model, generation)
        return self.vectors.pending(model, self.reader(), generation, embedded)

    def _model(self) -> str | None:
        """The current provider's model (None without one: keyword-only)."""
        provider = self.provider
        return provider.model if provider is not None else None

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

        Counting scans every row: at 100k chunks, uncached, a search would pay for it every time.
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
        return without_forgotten(pool, self.settings)

    def pool_for(self, request: SearchRequest) -> Pool:
        """The pool of a front end's request: the one way the TUI, CLI, MCP and tuner retrieve."""
        return self.retrieve(request.query, pool_size=request.pool_size, keyword_mode=request.keyword_mode,
                             now_ms=request.now_ms, use_vectors=request.use_vectors, time_aware=request.time_words,
                             sources=request.sources)

    def read_file(self, path: str, source: str) -> str:
        """The current text of an indexed file, by its index path, under the access rule (see
        ingest.reading.read_indexed_file: FileNotFoundError when it is gone, another OSError when it
        may not be read)."""
        from .ingest.reading import read_indexed_file

        return read_indexed_file(self.settings, path, source)

    def flatten_transcript(self, raw: str) -> FlatSession:
        """A transcript's raw text as this index holds it: masked, wrapped and filtered as the sync
        flattens it (what the file view shows of a transcript read with `read_file`)."""
        from .ingest.reading import flatten_transcript

        return flatten_transcript(raw, self.settings)

    def session_titles(self, paths: Iterable[str]) -> dict[str, str]:
        """path → a title a person can read (the first user line) for the transcripts among `paths` named
        by a UUID (see search/titles.py)."""
        from .search.titles import session_titles

        return session_titles(self.reads(), paths)

    def chunk_spans(self, paths: Iterable[str]) -> dict[str, list[tuple[int, int, str]]]:
        """(start_line, end_line, text hash) of every chunk of these paths: what judgements are checked against."""
        return self.reads().chunk_spans(paths)

    def file_chunks(self, path: str) -> list[tuple[int, int, str]]:
        """(start_line, end_line, text) of every chunk of one file, in line order: the whole file as the
        index holds it, which a snippet is masked against before it is cut."""
        return [row[1:] for row in self.reads().chunks_of_path(path)]

    def chunks_at(self, places: Iterable[tuple[str, int, int]]) -> dict[tuple[str, int, int], ChunkRow]:
        """The chunks at exactly these (path, start_line, end_line): the hits another engine returned."""
        return self.reads().chunks_at(places)

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
        """Close this thread's reader and the store. A sync running on another thread writes through the
        store's connection, and closing it under that thread crashed the process (a segmentation fault in
        SQLite, seen in the suite: a test closed the index while the app's launch sync still ran). So a
        running sync is waited for, up to CLOSE_WAIT_S (its caller cancels it first: the servers' freshness
        thread does; the app ends the process instead); past that the store is left open for the process's
        end rather than closed under it."""
        if not self._sync_lock.acquire(timeout=CLOSE_WAIT_S):
            self._notice(f"index {self.store.path}: a sync still ran after {CLOSE_WAIT_S:g}s; left open, not closed under it")
            return
        try:
            conn = getattr(self._local, "conn", None)
            if conn is not None:
                conn.close()
            self.store.close()
        finally:
            self._sync_lock.release()
