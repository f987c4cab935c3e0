"""Incremental sync of the workspace into the index, and the atomic full rebuild.

Order of work: list files → stat → (only if mtime/size moved) read and hash → (only if the hash
moved) chunk and write keyword rows → remove rows of vanished files → embed chunks that have no
vector yet, cache first. Keyword rows are committed before any embedding starts, so a slow model
never keeps search waiting; vectors fill in behind and each embedded batch is committed, so an
interrupted sync keeps what it already paid for.
"""

from __future__ import annotations

import contextlib
import errno
import gc
import json
import operator
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import numpy as np

from ..embeddings.base import EmbeddingError, EmbeddingProvider
from ..embeddings.openclaw_cache import REUSED_META as OPENCLAW_REUSED_META
from ..embeddings.openclaw_cache import OpenClawVectors
from ..ingest.access import OutsideRoots, may_read, open_memory_file, settings_roots
from ..ingest.chunking import TextChunk, chunk_markdown, remap_lines
from ..ingest.chunking_v5 import chunk_markdown_v5
from ..ingest.openclaw_db import OpenClawDbError, read_consistent, read_session_jsonl
from ..ingest.regular_file import open_regular, read_regular
from ..ingest.sources import (
    DB_SESSION_PREFIX,
    DEFAULT_ROOT_FILES,
    SourceFile,
    Unreadable,
    flatten_session,
    has_undecodable_name,
    is_evergreen,
    list_sources,
    note_date_ms,
    stat_stamp,
)
from ..models import SyncCancelled, SyncProgress, SyncReport
from ..scrub import scrub
from ..settings import IndexSettings, fts_tokenize_clause
from ..store import (
    LINES_KEY,
    CachedVector,
    CacheScope,
    EmbeddingCache,
    FileRecord,
    IndexWriter,
    NewChunk,
    PendingChunk,
    Store,
    discard,
    open_temp_beside,
    swap_in,
)
from ..store.reader import IndexReader, SkippedFile
from ..textutil import segment_cjk_for_index, sha256_hex

FTS_ONLY_MODEL = "fts-only"
FILES_PER_TRANSACTION = 200
REBUILD_FILES_PER_TRANSACTION = 25 * FILES_PER_TRANSACTION  # a rebuild's temp file commits this seldom
_path_of = operator.attrgetter("path")
ProgressFn = Callable[[SyncProgress], None]


@contextlib.contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """Hold the cyclic garbage collector while a re-sync builds one tuple per file and per index row.

    Those 200,000 objects (at 100,000 files) hold no cycles, yet their allocations trigger collections
    that traverse everything alive, again and again (7 % of a no-op re-sync's instructions). Reference
    counting still frees everything meanwhile; the collector resumes (if it ran before) afterwards."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class CancelFlag(Protocol):
    def is_set(self) -> bool: ...


class _Never:
    def is_set(self) -> bool:
        return False


def provider_key_for(provider: EmbeddingProvider | None) -> str:
    if provider is None:
        return sha256_hex(json.dumps({"provider": "none", "model": FTS_ONLY_MODEL}, separators=(",", ":")))
    return provider.provider_key()


def fts_tokenizer_name(settings: IndexSettings) -> str:
    name = fts_tokenize_clause(settings).replace(" ", "+")
    return name + ("+cjk-bigram" if settings.cjk_segmentation == "bigram" else "")


# The version of what 2026.9 agents' transcripts are cleaned of (transcript_filters.py). 2: channel
# metadata blocks, OpenClaw's runtime context, heartbeat prompts and every form of silent reply.
TRANSCRIPT_FILTERS = "transcript-filters-2"


def _sessions_scope(settings: IndexSettings) -> str:
    """The sessions folder in the identity; inside a workspace with a stable name, relative to it."""
    sessions = settings.sessions_dir
    if sessions is None:
        return "None"
    if settings.workspace_identity and sessions.is_relative_to(settings.workspace):
        return f"<{settings.workspace_identity}>/{sessions.relative_to(settings.workspace).as_posix()}"
    return str(sessions)


def compute_identity(settings: IndexSettings, provider: EmbeddingProvider | None) -> dict[str, Any]:
    """What the index was built with; any difference from the stored one means a full rebuild."""
    scope = {
        # an index file reused for another workspace is rebuilt
        "workspace": settings.workspace_identity or str(settings.workspace),
        "extraPaths": sorted(p.strip() for p in settings.extra_paths if p.strip()),
        **({"extraPathPatterns": sorted(map(list, settings.extra_path_patterns))} if settings.extra_path_patterns else {}),
        "followSymlinks": settings.follow_symlinks,
        "sessionsDir": _sessions_scope(settings) if "sessions" in settings.sources else "",
    }
    # OpenClaw-layout settings join the scope only when they differ from the plain-workspace
    # defaults, so indexes of plain workspaces keep their identity (and are not rebuilt)
    if settings.root_files != DEFAULT_ROOT_FILES:
        scope["rootFiles"] = list(settings.root_files)
    if settings.transcripts_db is not None and "sessions" in settings.sources:
        scope["transcriptsDb"] = str(settings.transcripts_db)
    if settings.sessions_prefix != "sessions":
        scope["sessionsPrefix"] = settings.sessions_prefix
    if settings.transcript_wrap_chars:
        scope["transcriptWrapChars"] = settings.transcript_wrap_chars
    if settings.chunker != "classic":
        # with OpenClaw 2026.9's chunker come its transcript filters: an index built before them (or
        # before a change to them) holds transcript text they now take out, so it rebuilds once
        scope["chunker"] = f"{settings.chunker}+{TRANSCRIPT_FILTERS}"
    return {
        "model": provider.model if provider else FTS_ONLY_MODEL,
        "provider": provider.id if provider else "none",
        "providerKey": provider_key_for(provider),
        "sources": sorted(settings.sources),
        "scopeHash": sha256_hex(json.dumps(scope, sort_keys=True, separators=(",", ":"))),
        "chunkTokens": settings.chunk_tokens,
        "chunkOverlap": settings.chunk_overlap,
        "ftsTokenizer": fts_tokenizer_name(settings),
    }


def rebuild_reason(stored: dict[str, Any] | None, current: dict[str, Any]) -> str:
    if stored is None:
        return "new index"
    for key in ("provider", "model", "providerKey", "sources", "scopeHash", "chunkTokens", "chunkOverlap", "ftsTokenizer"):
        if stored.get(key) != current.get(key):
            return f"{key} changed"
    return ""


def chunk_id(source: str, path: str, chunk: TextChunk, model: str, text_hash: str = "") -> str:
    """`text_hash`: the chunk's `hash` when the caller already has it (each one is a sha256 of the text)."""
    return sha256_hex(f"{source}:{path}:{chunk.start_line}:{chunk.end_line}:{text_hash or chunk.hash}:{model}")


def chunk_ids(source: str, path: str, chunks: list[TextChunk], model: str, hashes: list[str] | None = None) -> list[str]:
    """One id per chunk, unique within the file.

    A long line of one repeated character is cut into identical segments on the same line, so
    (path, lines, text) alone repeats: the repeat replaced its twin in `chunks` and orphaned its
    FTS row, and a later edit collided on that rowid (IntegrityError on every sync). The first
    occurrence keeps the plain id (stable across versions); each repeat gets its ordinal.
    """
    seen: dict[str, int] = {}
    out = []
    for k, chunk in enumerate(chunks):
        base = chunk_id(source, path, chunk, model, hashes[k] if hashes else "")
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.append(base if n == 0 else sha256_hex(f"{base}:dup:{n}"))
    return out


def repair_fts(store: Store, segment: bool) -> int:
    """Make `chunks_fts` hold exactly one row per chunk (see IndexWriter.repair_fts) and `lines_fts`
    the lines of every chunk; returns how many chunk rows were fixed, and tells in-memory caches when any was."""
    fts_text = segment_cjk_for_index if segment else _as_is
    writer = IndexWriter(store.conn)
    fixed = writer.repair_fts(fts_text)
    if fixed or store.get_meta(LINES_KEY) != "1":  # an index from before lines_fts existed gets its lines once
        writer.refill_lines(fts_text)
        store.set_meta(LINES_KEY, "1")
    if fixed:
        store.bump_generation(changed=())  # keyword rows only: no chunk row or vector changed
    return fixed


def _as_is(text: str) -> str:
    return text


class _VectorSizeChanged(Exception):
    """The provider returned vectors of another size than the index holds (old 0: unknown)."""

    def __init__(self, old: int, new: int) -> None:
        super().__init__(f"vector size changed from {old} to {new}")
        self.old, self.new = old, new


class Skip(Exception):
    """This file cannot be indexed now; the reason is shown in `status`."""


class ReadFailed(Skip):
    """The file could not be read now (an I/O error, OpenClaw's database busy or damaged). Unlike a
    Skip for what a file holds (too large, binary, not UTF-8), this says nothing about its content:
    the rows indexed from it are kept, and its stamp is left as it was, so the next sync reads it again.
    A read failure is never a deletion."""


class Deferred(Exception):
    """The file changed while it was being read (half-written): try again next sync."""


@dataclass(frozen=True, slots=True)
class _FileWrite:
    """One changed file, read and chunked, waiting to be written with its batch."""

    record: FileRecord
    source: SourceFile
    known: bool  # the index holds an older version: its rows go first
    chunks: list[tuple[NewChunk, str]]  # each chunk with the text its keyword row indexes


@dataclass(slots=True)
class ChunkRow:
    chunk: TextChunk
    ts: float | None
    date_source: str
    hash: str = ""  # the chunk text's sha256 when already known ("": computed when needed)

    def text_hash(self) -> str:
        return self.hash or self.chunk.hash


def read_source(sf: SourceFile, max_bytes: int, settings: IndexSettings | None = None) -> tuple[str, os.stat_result]:
    """A listed file's text and stat. With `settings`, opened under the access rule (engine/ingest/access.py):
    a file swapped for a link since the listing (outside the roots, or at all without followSymlinks)
    is not read, so the index never holds what memory_get would refuse."""
    if has_undecodable_name(sf.abs_path):
        raise Skip("file name is not valid UTF-8; rename the file to index it")
    try:
        before = os.stat(sf.abs_path)
        if before.st_size > max_bytes:
            raise Skip(f"larger than {max_bytes} bytes (raise store.maxFileBytes to index it)")
        if settings is None:
            opened = open_regular(sf.abs_path)  # a FIFO swapped in since the listing would block open()
        else:
            opened = os.fdopen(open_memory_file(sf.abs_path, settings_roots(settings), settings.follow_symlinks), "rb")
        with opened as fh:
            # read(n) allocates n bytes up front: ask for what the file holds (+1 to notice growth),
            # never for the limit itself (maxFileBytes = 1e11 was a MemoryError)
            data = fh.read(before.st_size + 1)
        after = os.stat(sf.abs_path)
    except FileNotFoundError:
        raise Deferred() from None
    except PermissionError as exc:
        raise ReadFailed(f"unreadable: permission denied ({exc.strerror})") from None
    except OutsideRoots as exc:  # not a read failure: the file may not be indexed, so its old rows go
        raise Skip(f"not read: {exc.strerror}") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Skip("not read: it is a symbolic link and followSymlinks is off") from None
        raise ReadFailed(f"unreadable: {exc.strerror or exc}") from None
    if (before.st_mtime_ns, before.st_size) != (after.st_mtime_ns, after.st_size) or len(data) != after.st_size:
        raise Deferred()
    if b"\x00" in data[:65536]:
        raise Skip("binary file (contains NUL bytes)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Skip(f"not valid UTF-8 (byte {exc.start}); save it as UTF-8 to index it") from None
    return text.removeprefix("\ufeff"), after


def chunk_text(text: str, settings: IndexSettings, per_entry: bool = False) -> list[TextChunk]:
    """Cut text with the configured chunker; `per_entry` (OpenClaw 2026.9, MEMORY.md and USER.md)
    starts a chunk at every bullet and heading."""
    if settings.chunker == "openclaw-v5":
        return chunk_markdown_v5(text, settings.chunk_tokens, settings.chunk_overlap, per_entry)
    return chunk_markdown(text, settings.chunk_tokens, settings.chunk_overlap)


def content_hash(sf: SourceFile, settings: IndexSettings) -> str | None:
    """The hash a sync would store for `sf` now (what `files.hash` holds), read from disk or OpenClaw's
    database; None when the sync would not index it as it is (skipped, or changing while read).
    `--check-files` compares it, as OpenClaw does on every sync: a note edited to the same size with
    its old mtime put back (`touch -d`, `rsync -t`, `cp -p`) has the stamp the index holds."""
    try:
        if sf.in_database:
            text, _ = read_db_transcript(sf, settings.transcripts_db, settings.max_file_bytes)
        else:
            text, _ = read_source(sf, settings.max_file_bytes)
    except (Skip, Deferred):
        return None
    if sf.source == "sessions":
        return build_chunks(sf, text, 0.0, settings)[0]  # the transcript's hash covers its flattened form
    return sha256_hex(text)


def build_chunks(sf: SourceFile, text: str, mtime_ms: float, settings: IndexSettings) -> tuple[str, list[ChunkRow], int]:
    """Chunks of one file with their dates. Returns (content hash, rows, malformed transcript lines)."""
    ts: float | None  # None: evergreen, never decays
    if sf.source == "sessions":
        flat = flatten_session(text, wrap_chars=settings.transcript_wrap_chars,
                               openclaw_filters=settings.chunker == "openclaw-v5")  # 2026.9 agents
        digest = sha256_hex(
            flat.content + "\n" + ",".join(map(str, flat.line_map)) + "\n" + ",".join(f"{t:.0f}" for t in flat.timestamps_ms)
        )
        rows = []
        for c in chunk_text(flat.content, settings):
            if not c.text.strip():
                continue
            stamps = [t for t in flat.timestamps_ms[c.start_line - 1 : c.end_line] if t > 0]
            ts, src = (max(stamps), "messages") if stamps else (mtime_ms, "mtime")
            rows.append(ChunkRow(remap_lines([c], flat.line_map)[0], ts, src))
        return digest, rows, flat.malformed_lines
    digest = sha256_hex(text)
    dated = note_date_ms(sf.path)
    if dated is not None:
        ts, src = dated, "name"
    elif is_evergreen(sf.path, sf.source):
        ts, src = None, "evergreen"
    else:
        ts, src = mtime_ms, "mtime"
    per_entry = sf.path in ("MEMORY.md", "USER.md")  # OpenClaw 2026.9 indexes curated memory entry by entry
    rows = [ChunkRow(c, ts, src) for c in chunk_text(text, settings, per_entry) if c.text.strip()]
    if len(rows) == 1 and rows[0].chunk.text == text:  # a note of one chunk (most): its hash is the file's
        rows[0].hash = digest
    return digest, rows, 0


def read_indexed_file(settings: IndexSettings, path: str, source: str) -> str:
    """The current text of an indexed file, by its index path (for showing it whole).

    Transcripts named `<sessions prefix>/<id>.jsonl` come from OpenClaw's database when that is
    where they live; other transcripts from the sessions folder; memory files from the workspace
    (extra paths outside it are stored relative to it). Raises FileNotFoundError when it is gone.
    """
    if source == "sessions":
        from ..ingest.forgotten import is_forgotten, settings_forgotten

        if is_forgotten(path, source, settings.sessions_prefix, settings_forgotten(settings)):
            raise FileNotFoundError(f"{path}: OpenClaw was told to forget this conversation")
        name = path.removeprefix(settings.sessions_prefix + "/")
        if settings.transcripts_db is not None and name.endswith(".jsonl") and settings.transcripts_db.is_file():
            session_id = name[: -len(".jsonl")]
            try:
                text = read_consistent(settings.transcripts_db, lambda conn: read_session_jsonl(conn, session_id))
            except OpenClawDbError as exc:
                raise FileNotFoundError(str(exc)) from None
            if text:
                return text
        if settings.sessions_dir is None:
            raise FileNotFoundError(path)
        target = settings.sessions_dir / name
    else:
        target = (settings.workspace / path).resolve()
        if not may_read(str(settings.workspace / path), settings_roots(settings)):
            raise FileNotFoundError(f"{path} resolves outside the workspace and its extra paths")
    text = read_regular(target).decode("utf-8", errors="replace")
    return text.replace("\r\n", "\n").replace("\r", "\n")  # newlines as read_text gave them (universal mode)


class _DbStamp:
    """The part of an os.stat_result the sync uses, for a transcript kept in a database."""

    def __init__(self, mtime_ms: float, size: int) -> None:
        # kept as given: mtime_ms -> ns -> ms is not exact in floating point (1796079440762 came back
        # as 1796079440761.9998), and a stored stamp that never equals the listed one made every live
        # transcript "changed": status always dirty, every search warned, every sync re-read it
        self.mtime_ms = mtime_ms
        self.st_mtime_ns = int(round(mtime_ms * 1e6))
        self.st_size = size


def read_db_transcript(sf: SourceFile, db: Path | None, max_bytes: int) -> tuple[str, _DbStamp]:
    """A live transcript from OpenClaw's database as JSONL text (line N = event N, as OpenClaw maps it)."""
    assert sf.stamp is not None
    if db is None:
        raise Skip("transcript database not configured")
    if sf.stamp[1] > max_bytes:
        raise Skip(f"larger than {max_bytes} bytes (raise store.maxFileBytes to index it)")
    session_id = sf.abs_path[len(DB_SESSION_PREFIX):]
    try:
        text = read_consistent(db, lambda conn: read_session_jsonl(conn, session_id))
    except OpenClawDbError as exc:
        raise ReadFailed(f"unreadable OpenClaw database: {exc}") from None
    return text, _DbStamp(*sf.stamp)


def reason_of(report: SyncReport) -> str:
    return report.rebuild_reason or "rebuild"


class Syncer:
    def __init__(self, store: Store, settings: IndexSettings, provider: EmbeddingProvider | None,
                 progress: ProgressFn | None = None, cancel: CancelFlag | None = None, *,
                 verify_dims: bool = False, check_files: bool = False) -> None:
        """`check_files` (`index --check-files`): read and hash every file, not only those whose
        (mtime, size) stamp moved; a file whose hash is the stored one is still not rewritten."""
        self.store = store
        self.verify_dims = verify_dims
        self.check_files = check_files
        self.settings = settings
        self.provider = provider
        self.progress = progress or (lambda _p: None)
        self.cancel = cancel or _Never()
        self.model = provider.model if provider else FTS_ONLY_MODEL
        self._previous_skips: dict[str, SkippedFile] = {}
        self._read_failures: list[str] = []  # files a read failed for this sync (their rows are kept)
        self._openclaw_vectors: OpenClawVectors | None = None

    # -- entry point ---------------------------------------------------------------------------
    def run(self, force: bool = False, embed: bool = True) -> SyncReport:
        started = time.perf_counter()
        report = SyncReport()
        identity = compute_identity(self.settings, self.provider)
        reason = "forced" if force else rebuild_reason(self.store.get_identity(), identity)
        try:
            if reason:
                report.full_rebuild, report.rebuild_reason = True, reason
                self._rebuild(identity, report)
            else:
                self._index_files(self.store, report, force=False)
            if embed and self.provider is not None:
                self._embed_missing(report)
        except SyncCancelled:
            report.cancelled = True
        report.seconds = time.perf_counter() - started
        if not report.cancelled:
            self.store.set_meta("last_sync", datetime.now(UTC).isoformat(timespec="seconds"))
            self.store.set_meta("last_sync_report", scrub(json.dumps(report.to_dict())))  # never store a key
        self.progress(SyncProgress("done", report.files_total, report.files_total, "",
                                   "cancelled" if report.cancelled else "finished"))
        return report

    def _check_cancel(self) -> None:
        if self.cancel.is_set():
            raise SyncCancelled()

    # -- full rebuild beside the live file -------------------------------------------------------
    def _rebuild(self, identity: dict[str, Any], report: SyncReport) -> None:
        live = self.store
        temp = open_temp_beside(live)
        try:
            if live.get_identity() is not None or not EmbeddingCache(live.conn).is_empty():
                EmbeddingCache(temp.conn).copy_from(live.path)  # a rebuild re-embeds nothing it already paid for
            self._index_files(temp, report, force=True)
            held = IndexWriter(live.conn).file_stamps()
            lost = [path for path in self._read_failures if path in held]
            if lost:
                # the rebuilt index would lack what could not be read now: keep the live one, retry later
                discard(temp)
                report.full_rebuild = False
                report.rebuild_reason = (f"{reason_of(report)}; postponed: {len(lost)} indexed file(s) could not be "
                                         f"read now (first: {lost[0]}); the index is kept as it was")
                return
            temp.set_identity(identity)
            self.progress(SyncProgress("swap", report.files_total, report.files_total, "", "swapping in the rebuilt index"))
            swap_in(live, temp)
        except BaseException:
            discard(temp)
            raise

    # -- keyword phase -------------------------------------------------------------------------
    def _index_files(self, store: Store, report: SyncReport, force: bool) -> None:
        """Stat every file; read, chunk and write only those that changed.

        Changed files are written in batches of FILES_PER_TRANSACTION, each batch in one savepoint
        with one statement per table (a savepoint per file made FTS5 flush a segment per file:
        10,000 notes took 7 s). When a batch fails, it is rolled back and its files are written
        again one savepoint each, so one bad file is skipped and the others still land.
        """
        writer = IndexWriter(store.conn)
        self.progress(SyncProgress("scan", 0, 0, "", "listing files"))
        unchanged: list[str] = []  # files the listing found unchanged: their paths only
        unreadable: list[Unreadable] = []  # folders it could not read: said, or their notes vanish without a word
        with cyclic_gc_paused():
            known = writer.file_stamps()
            files = list_sources(self.settings, known=None if force or self.check_files else known,
                                 unchanged=unchanged, unreadable=unreadable)
        report.files_total = len(files) + len(unchanged)
        skipped = [SkippedFile(u.path, u.source, f"folder cannot be read ({u.reason}); the files in it are not indexed")
                   for u in unreadable]
        # an unchanged file is not read again, so the note of its malformed lines is carried over
        self._previous_skips = {s.path: s for s in IndexReader(store.conn).skipped() if "malformed" in s.reason}
        has_vec = store.vec_dims() is not None
        batch: list[_FileWrite] = []
        writer.begin()
        try:
            if not force:
                repair_fts(store, self.settings.cjk_segmentation == "bigram")
            else:  # a rebuild starts empty: every chunk it writes gets its lines as it is inserted
                store.set_meta(LINES_KEY, "1")
            previous_skips = self._previous_skips
            listed = set(unchanged)
            listed.update(map(_path_of, files))
            if force or self.check_files:  # check_files: _prepare compares each file's hash
                candidates = files
            else:
                # the common case of a re-sync: the listing's stat is the indexed (mtime ms, size), so the
                # file is not read at all. The listing left out most such files already; one comprehension
                # sorts out the rest (a stamp of None, a stat that failed, or an unknown path never equals:
                # `0` stands for "not indexed").
                get = known.get
                candidates = [sf for sf in files if get(sf.path, 0) != sf.stamp]
                report.files_unchanged += len(unchanged) + len(files) - len(candidates)
                if previous_skips:  # an unchanged file is not read again: the note of its malformed lines stays
                    changed = set(map(_path_of, candidates))
                    skipped += [skip for path, skip in previous_skips.items() if path in listed and path not in changed]
            total = report.files_total
            first = total - len(candidates)
            if first:
                self._check_cancel()
                self.progress(SyncProgress("index", first, total, ""))
            written = 0
            for done, sf in enumerate(candidates, first + 1):
                stamp = known.get(sf.path)
                # a listing that could not stat the file: its stat now may still match the index
                if (stamp is not None and not force and not self.check_files and sf.stamp is None
                        and stat_stamp(sf.abs_path) == stamp):
                    report.files_unchanged += 1
                    if previous_skips and sf.path in previous_skips:
                        skipped.append(previous_skips[sf.path])
                    continue
                self._check_cancel()  # the handler below writes the files read so far and commits
                self.progress(SyncProgress("index", done, total, sf.path))
                record = writer.file_record(sf.path) if stamp is not None else None
                prepared = self._prepare_safely(writer, sf, record, force, has_vec, report, skipped)
                if prepared is not None:
                    batch.append(prepared)
                if len(batch) >= FILES_PER_TRANSACTION:
                    self._write_batch(writer, batch, has_vec, report, skipped)
                    batch = []
                    written += FILES_PER_TRANSACTION
                    # a rebuild writes a temp file that no reader sees and a crash discards: committing it
                    # less often spares FTS5 merging a segment per batch (~8 % of a first index of 10,000
                    # notes, bench/first_index.py); it still commits now and then, so the WAL stays bounded
                    if not force or written % REBUILD_FILES_PER_TRANSACTION == 0:
                        writer.commit()
                        writer.begin()
                    time.sleep(0)  # hand the GIL over: a UI thread stays responsive
            self._write_batch(writer, batch, has_vec, report, skipped)
            batch = []
            self.progress(SyncProgress("index", total, total, ""))
            for path in known.keys() - listed:
                writer.delete_file(path, has_vec_table=has_vec)
                report.files_removed += 1
            writer.replace_skipped(skipped)
            writer.commit()  # a new generation if any chunk changed, deleted ones of skipped files included
        except SyncCancelled:
            if writer.in_transaction:
                self._write_batch(writer, batch, has_vec, report, skipped)  # every file read before the cancel
                writer.commit()
            raise
        except BaseException:
            if writer.in_transaction:
                writer.commit()  # keep whole files already written; the rest resumes next sync
            raise

    def _prepare_safely(self, writer: IndexWriter, sf: SourceFile, known: FileRecord | None, force: bool,
                        has_vec: bool, report: SyncReport, skipped: list[SkippedFile]) -> _FileWrite | None:
        """Read and chunk one file; a file that cannot be is listed as skipped, the others go on."""
        try:
            return self._prepare(writer, sf, known, force, has_vec, report, skipped)
        except Exception as exc:  # SyncCancelled is raised between files, never in here
            from ..errors import describe

            skipped.append(SkippedFile(sf.path, sf.source, f"could not be indexed: {describe(exc)}"))
            report.files_skipped += 1
            return None

    def _prepare(self, writer: IndexWriter, sf: SourceFile, known: FileRecord | None, force: bool, has_vec: bool,
                 report: SyncReport, skipped: list[SkippedFile]) -> _FileWrite | None:
        """What to write for one file, or None when nothing is (skipped, deferred, same content)."""
        st: _DbStamp | os.stat_result
        try:
            if sf.in_database:
                text, st = read_db_transcript(sf, self.settings.transcripts_db, self.settings.max_file_bytes)
            else:
                text, st = read_source(sf, self.settings.max_file_bytes, self.settings)
        except ReadFailed as exc:
            self._read_failures.append(sf.path)
            kept = "; the copy indexed before is kept and read again at the next sync" if known is not None else ""
            skipped.append(SkippedFile(sf.path, sf.source, f"{exc}{kept}"))
            report.files_skipped += 1
            return None  # its rows and stamp stay: the stamp still differs, so the next sync retries it
        except Skip as exc:  # what the file holds cannot be indexed: the rows of an older version go
            skipped.append(SkippedFile(sf.path, sf.source, str(exc)))
            report.files_skipped += 1
            if known is not None:
                writer.delete_file(sf.path, has_vec_table=has_vec)
            return None
        except Deferred:
            report.files_deferred += 1
            return None
        mtime_ms = st.mtime_ms if isinstance(st, _DbStamp) else st.st_mtime_ns / 1e6  # as the listing stamps it
        digest, rows, malformed = build_chunks(sf, text, mtime_ms, self.settings)
        if malformed:
            skipped.append(SkippedFile(sf.path, sf.source, f"{malformed} malformed JSONL line(s) skipped"))
        if known is not None and known.hash == digest and not force:
            writer.touch_file(sf.path, mtime_ms, st.st_size)
            report.files_unchanged += 1
            return None
        now = int(time.time() * 1000)
        segment = self.settings.cjk_segmentation == "bigram"
        hashes = [row.text_hash() for row in rows]  # once each: the id and the row both need it
        ids = chunk_ids(sf.source, sf.path, [row.chunk for row in rows], self.model, hashes)
        chunks = []
        for row, cid, text_hash in zip(rows, ids, hashes, strict=True):
            c = row.chunk
            chunks.append((NewChunk(cid, sf.path, sf.source, c.start_line, c.end_line, text_hash, self.model, c.text,
                                    now, row.ts, row.date_source),
                           segment_cjk_for_index(c.text) if segment else c.text))
        return _FileWrite(FileRecord(digest, mtime_ms, st.st_size), sf, known is not None, chunks)

    def _write_batch(self, writer: IndexWriter, batch: list[_FileWrite], has_vec: bool, report: SyncReport,
                     skipped: list[SkippedFile]) -> None:
        """Write prepared files together; if that fails, one savepoint per file (the bad one is skipped)."""
        if not batch:
            return
        try:
            with writer.savepoint("batch"):
                self._write_files(writer, batch, has_vec)
        except Exception:
            for one in batch:
                try:
                    with writer.savepoint("one_file"):
                        writer.delete_file(one.source.path, has_vec_table=has_vec)  # whatever a half-known file left
                        self._write_files(writer, [one], has_vec)
                except Exception as exc:
                    from ..errors import describe

                    skipped.append(SkippedFile(one.source.path, one.source.source, f"could not be indexed: {describe(exc)}"))
                    report.files_skipped += 1
                else:
                    report.files_indexed += 1
                    report.chunks_written += len(one.chunks)
            return
        report.files_indexed += len(batch)
        report.chunks_written += sum(len(one.chunks) for one in batch)

    @staticmethod
    def _write_files(writer: IndexWriter, batch: list[_FileWrite], has_vec: bool) -> None:
        for one in batch:
            if one.known:
                writer.delete_file(one.source.path, has_vec_table=has_vec)
        writer.insert_chunks([chunk for one in batch for chunk in one.chunks])
        writer.upsert_files([(one.source.path, one.source.source, one.record.hash, one.record.mtime_ms, one.record.size)
                             for one in batch])

    # -- embedding phase -----------------------------------------------------------------------
    def _embed_missing(self, report: SyncReport) -> None:
        """Embed every chunk without a vector; when the provider's vector size changed for the same
        model, drop every vector of the old size and embed all chunks again (once per sync)."""
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
