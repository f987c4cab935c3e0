"""The file pass of a sync: stat every file, read and chunk only those that changed, write them in batches.

Files are read through engine/ingest/reading.py (the one reader of memory files); this module also
holds the hash `--check-files` compares and the repair of keyword rows.
"""

from __future__ import annotations

import contextlib
import gc
import operator
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass

from ..ingest.listing import list_sources
from ..ingest.reading import Deferred, ReadFailed, Skip, _DbStamp, read_db_transcript, read_source
from ..ingest.sources import SourceFile, Unreadable, stat_stamp
from ..models import SyncCancelled, SyncProgress, SyncReport
from ..settings import IndexSettings
from ..store import LINES_KEY, FileRecord, IndexWriter, NewChunk, Store
from ..store.reader import IndexReader, SkippedFile
from ..textutil import segment_cjk_for_index, sha256_hex
from .chunks import build_chunks, chunk_ids
from .state import SyncerState

FILES_PER_TRANSACTION = 200
# A rebuild writes a temp file that no reader sees and a crash discards, so it writes (and commits) far
# larger batches: each batch ends in a savepoint, where FTS5 flushes its pending terms as one more
# segment per keyword table, later merged again (bench/first_index.py; docs/first-index.md). The
# text bound keeps a batch of long notes (a 1M-chunk workspace) from holding its text all at once.
REBUILD_FILES_PER_TRANSACTION = 25 * FILES_PER_TRANSACTION
REBUILD_BATCH_TEXT = 16 * 1024 * 1024  # characters of chunk text a rebuild's batch holds at most
_path_of = operator.attrgetter("path")


@contextlib.contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """Hold the cyclic garbage collector while the file pass builds one tuple per file and per index row.

    Those objects (200,000 at 100,000 files; a batch of 5,000 files' chunks in a rebuild) hold no cycles,
    yet their allocations trigger collections that traverse everything alive, again and again (7 % of a
    no-op re-sync's instructions; 0.02-0.03 s of a 10,000-note first index's 0.53 s). Reference counting
    still frees everything meanwhile; the collector resumes (if it ran before) afterwards. The pass is the
    keyword phase only (seconds at 100,000 notes), never the embedding."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


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


@dataclass(frozen=True, slots=True)
class _FileWrite:
    """One changed file, read and chunked, waiting to be written with its batch."""

    record: FileRecord
    source: SourceFile
    known: bool  # the index holds an older version: its rows go first
    chunks: list[tuple[NewChunk, str]]  # each chunk with the text its keyword row indexes


def content_hash(sf: SourceFile, settings: IndexSettings) -> str | None:
    """The hash a sync would store for `sf` now (what `files.hash` holds), read from disk or OpenClaw's
    database; None when the sync would not index it as it is (skipped, or changing while read).
    `--check-files` compares it, as OpenClaw does on every sync: a note edited to the same size with
    its old mtime put back (`touch -d`, `rsync -t`, `cp -p`) has the stamp the index holds."""
    try:
        if sf.in_database:
            text, _ = read_db_transcript(sf, settings.transcripts_db, settings.max_file_bytes)
        else:
            text, _ = read_source(sf, settings.max_file_bytes, settings)  # the access rule, as the sync reads
    except (Skip, Deferred):
        return None
    if sf.source == "sessions":
        return build_chunks(sf, text, 0.0, settings)[0]  # the transcript's hash covers its flattened form
    return sha256_hex(text)


class FilePass(SyncerState):
    """The Syncer's keyword phase (a mixin: `Syncer` sets the state)."""

    def _fts_text(self, text: str) -> str:
        """What a chunk's text is indexed as in the keyword tables (CJK segmented into bigrams, or as it is)."""
        return segment_cjk_for_index(text) if self.settings.cjk_segmentation == "bigram" else text

    def _index_files(self, store: Store, report: SyncReport, force: bool) -> None:
        """Stat every file; read, chunk and write only those that changed.

        Changed files are written in batches of FILES_PER_TRANSACTION (a rebuild: of
        REBUILD_FILES_PER_TRANSACTION or REBUILD_BATCH_TEXT), each batch in one savepoint with one
        statement per table (a savepoint per file made FTS5 flush a segment per file: 10,000 notes
        took 7 s), each committed. When a batch fails, it is rolled back and its files are written
        again one savepoint each, so one bad file is skipped and the others still land. The cyclic
        garbage collector waits meanwhile (cyclic_gc_paused).
        """
        with cyclic_gc_paused():
            self._write_changed_files(store, report, force)

    def _write_changed_files(self, store: Store, report: SyncReport, force: bool) -> None:
        writer = IndexWriter(store.conn)
        self.progress(SyncProgress("scan", 0, 0, "", "listing files"))
        unchanged: list[str] = []  # files the listing found unchanged: their paths only
        unreadable: list[Unreadable] = []  # folders it could not read: said, or their notes vanish without a word
        known = writer.file_stamps()
        # kept: the live index's stamps (in a rebuild `store` is the new, empty file), so transcripts that
        # cannot be listed now are listed as they were, read, fail, and keep the live index (runner.py)
        kept = known if store is self.store else IndexWriter(self.store.conn).file_stamps()
        files = list_sources(self.settings, known=None if force or self.check_files else known,
                             unchanged=unchanged, unreadable=unreadable, kept=kept, stamped=not force)
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
            per_batch = REBUILD_FILES_PER_TRANSACTION if force else FILES_PER_TRANSACTION
            batch_text = 0  # characters of chunk text in `batch` (a rebuild bounds it)
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
                    if force:
                        batch_text += sum(len(chunk.text) for chunk, _ in prepared.chunks)
                if len(batch) >= per_batch or batch_text >= REBUILD_BATCH_TEXT:
                    self._write_batch(writer, batch, has_vec, report, skipped)
                    batch, batch_text = [], 0
                    writer.commit()
                    writer.begin()
                    time.sleep(0)  # hand the GIL over: a UI thread stays responsive
            self._write_batch(writer, batch, has_vec, report, skipped)
            batch = []
            self.progress(SyncProgress("index", total, total, ""))
            for path in known.keys() - listed:
                writer.delete_file(path, has_vec_table=has_vec, fts_text=self._fts_text)
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
                writer.delete_file(sf.path, has_vec_table=has_vec, fts_text=self._fts_text)
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
        hashes = [row.text_hash() for row in rows]  # once each: the id and the row both need it
        ids = chunk_ids(sf.source, sf.path, [row.chunk for row in rows], self.model, hashes)
        chunks = []
        for row, cid, text_hash in zip(rows, ids, hashes, strict=True):
            c = row.chunk
            chunks.append((NewChunk(cid, sf.path, sf.source, c.start_line, c.end_line, text_hash, self.model, c.text,
                                    now, row.ts, row.date_source),
                           self._fts_text(c.text)))
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
                        writer.delete_file(one.source.path, has_vec_table=has_vec,
                                           fts_text=self._fts_text)  # whatever a half-known file left
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

    def _write_files(self, writer: IndexWriter, batch: list[_FileWrite], has_vec: bool) -> None:
        for one in batch:
            if one.known:
                writer.delete_file(one.source.path, has_vec_table=has_vec, fts_text=self._fts_text)
        writer.insert_chunks([chunk for one in batch for chunk in one.chunks])
        writer.upsert_files([(one.source.path, one.source.source, one.record.hash, one.record.mtime_ms, one.record.size)
                             for one in batch])
