"""Incremental sync of the workspace into the index, and the atomic full rebuild.

Order of work: list files → stat → (only if mtime/size moved) read and hash → (only if the hash
moved) chunk and write keyword rows → remove rows of vanished files → embed chunks that have no
vector yet, cache first. Keyword rows are committed before any embedding starts, so a slow model
never keeps search waiting; vectors fill in behind and each embedded batch is committed, so an
interrupted sync keeps what it already paid for.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Callable, Protocol

if TYPE_CHECKING:
    import numpy as np

from ..config import IndexSettings
from .chunking import TextChunk, chunk_markdown, remap_lines
from .embeddings.base import EmbeddingError, EmbeddingProvider
from .models import SyncCancelled, SyncProgress, SyncReport
from .scrub import scrub
from .sources import SourceFile, flatten_session, list_memory_files, list_session_files, note_date_ms, is_evergreen
from .store import Store, open_temp_beside
from .textutil import segment_cjk_for_index, sha256_hex

FTS_ONLY_MODEL = "fts-only"
FILES_PER_TRANSACTION = 200
ProgressFn = Callable[[SyncProgress], None]


class CancelFlag(Protocol):
    def is_set(self) -> bool: ...


class _Never:
    def is_set(self) -> bool:
        return False


def provider_key_for(provider: EmbeddingProvider | None) -> str:
    if provider is None:
        return sha256_hex(json.dumps({"provider": "none", "model": FTS_ONLY_MODEL}, separators=(",", ":")))
    return provider.provider_key()


def fts_tokenize_clause(settings: IndexSettings) -> str:
    """The FTS5 `tokenize` argument: English stemming (decide ~ decision) on top of unicode61."""
    return "porter unicode61" if settings.stemming == "porter" else "unicode61"


def fts_tokenizer_name(settings: IndexSettings) -> str:
    name = fts_tokenize_clause(settings).replace(" ", "+")
    return name + ("+cjk-bigram" if settings.cjk_segmentation == "bigram" else "")


def compute_identity(settings: IndexSettings, provider: EmbeddingProvider | None) -> dict[str, Any]:
    """What the index was built with; any difference from the stored one means a full rebuild."""
    scope = {
        "workspace": str(settings.workspace),  # an index file reused for another workspace is rebuilt
        "extraPaths": sorted(p.strip() for p in settings.extra_paths if p.strip()),
        "followSymlinks": settings.follow_symlinks,
        "sessionsDir": str(settings.sessions_dir) if "sessions" in settings.sources else "",
    }
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


def chunk_id(source: str, path: str, chunk: TextChunk, model: str) -> str:
    return sha256_hex(f"{source}:{path}:{chunk.start_line}:{chunk.end_line}:{chunk.hash}:{model}")


class Skip(Exception):
    """This file cannot be indexed now; the reason is shown in `status`."""


class Deferred(Exception):
    """The file changed while it was being read (half-written): try again next sync."""


@dataclass(slots=True)
class ChunkRow:
    chunk: TextChunk
    ts: float | None
    date_source: str


def read_source(sf: SourceFile, max_bytes: int) -> tuple[str, os.stat_result]:
    try:
        before = os.stat(sf.abs_path)
        if before.st_size > max_bytes:
            raise Skip(f"larger than {max_bytes} bytes (raise store.maxFileBytes to index it)")
        with open(sf.abs_path, "rb") as fh:
            data = fh.read(max_bytes + 1)
        after = os.stat(sf.abs_path)
    except FileNotFoundError:
        raise Deferred() from None
    except PermissionError as exc:
        raise Skip(f"unreadable: permission denied ({exc.strerror})") from None
    except OSError as exc:
        raise Skip(f"unreadable: {exc.strerror or exc}") from None
    if (before.st_mtime_ns, before.st_size) != (after.st_mtime_ns, after.st_size) or len(data) != after.st_size:
        raise Deferred()
    if b"\x00" in data[:65536]:
        raise Skip("binary file (contains NUL bytes)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Skip(f"not valid UTF-8 (byte {exc.start}); save it as UTF-8 to index it") from None
    return text.removeprefix("\ufeff"), after


def build_chunks(sf: SourceFile, text: str, mtime_ms: float, settings: IndexSettings) -> tuple[str, list[ChunkRow], int]:
    """Chunks of one file with their dates. Returns (content hash, rows, malformed transcript lines)."""
    if sf.source == "sessions":
        flat = flatten_session(text)
        digest = sha256_hex(
            flat.content + "\n" + ",".join(map(str, flat.line_map)) + "\n" + ",".join(f"{t:.0f}" for t in flat.timestamps_ms)
        )
        rows = []
        for c in chunk_markdown(flat.content, settings.chunk_tokens, settings.chunk_overlap):
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
    rows = [ChunkRow(c, ts, src) for c in chunk_markdown(text, settings.chunk_tokens, settings.chunk_overlap) if c.text.strip()]
    return digest, rows, 0


def list_sources(settings: IndexSettings) -> list[SourceFile]:
    files: list[SourceFile] = []
    if "memory" in settings.sources:
        files.extend(list_memory_files(settings.workspace, settings.extra_paths, settings.follow_symlinks))
    if "sessions" in settings.sources:
        files.extend(list_session_files(settings.sessions_dir))
    return files


class Syncer:
    def __init__(self, store: Store, settings: IndexSettings, provider: EmbeddingProvider | None,
                 progress: ProgressFn | None = None, cancel: CancelFlag | None = None) -> None:
        self.store = store
        self.settings = settings
        self.provider = provider
        self.progress = progress or (lambda _p: None)
        self.cancel = cancel or _Never()
        self.model = provider.model if provider else FTS_ONLY_MODEL

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
            self.store.set_meta("last_sync", datetime.now(timezone.utc).isoformat(timespec="seconds"))
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
            if live.get_identity() is not None or live.conn.execute("SELECT 1 FROM embedding_cache LIMIT 1").fetchone():
                temp.conn.execute("ATTACH DATABASE ? AS live", (str(live.path),))
                temp.conn.execute("INSERT OR IGNORE INTO embedding_cache SELECT * FROM live.embedding_cache")
                temp.conn.execute("DETACH DATABASE live")
            self._index_files(temp, report, force=True)
            temp.set_identity(identity)
            self.progress(SyncProgress("swap", report.files_total, report.files_total, "", "swapping in the rebuilt index"))
            live.swap_in(temp)
        except BaseException:
            temp.discard()
            raise

    # -- keyword phase -------------------------------------------------------------------------
    def _index_files(self, store: Store, report: SyncReport, force: bool) -> None:
        conn = store.conn
        self.progress(SyncProgress("scan", 0, 0, "", "listing files"))
        files = list_sources(self.settings)
        report.files_total = len(files)
        known = {row[0]: row[1:] for row in conn.execute("SELECT path, hash, mtime, size FROM files")}
        skipped: list[tuple[str, str, str]] = []
        has_vec = store.vec_dims() is not None
        conn.execute("BEGIN")
        try:
            for done, sf in enumerate(files, 1):
                self._check_cancel()  # the handler below commits the whole files written so far
                if done % 64 == 0:
                    time.sleep(0)  # hand the GIL over now and then: a UI thread stays responsive
                if done % FILES_PER_TRANSACTION == 0:
                    conn.execute("COMMIT")
                    conn.execute("BEGIN")
                self.progress(SyncProgress("index", done, len(files), sf.path))
                self._index_one(store, sf, known.get(sf.path), force, has_vec, report, skipped)
            listed = {sf.path for sf in files}
            for path in known.keys() - listed:
                self._delete_path(store, path, has_vec)
                report.files_removed += 1
            conn.execute("DELETE FROM skipped")
            conn.executemany("INSERT OR REPLACE INTO skipped(path, source, reason) VALUES (?, ?, ?)", skipped)
            if report.files_indexed or report.files_removed:
                store.bump_generation()
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("COMMIT")  # keep whole files already written; the rest resumes next sync
            raise

    def _index_one(self, store: Store, sf: SourceFile, known: tuple | None, force: bool, has_vec: bool,
                   report: SyncReport, skipped: list[tuple[str, str, str]]) -> None:
        conn = store.conn
        if known is not None and not force:
            try:
                st = os.stat(sf.abs_path)
            except OSError:
                st = None
            if st is not None and float(known[1]) == st.st_mtime_ns / 1e6 and int(known[2]) == st.st_size:
                report.files_unchanged += 1
                return
        try:
            text, st = read_source(sf, self.settings.max_file_bytes)
        except Skip as exc:
            skipped.append((sf.path, sf.source, str(exc)))
            report.files_skipped += 1
            if known is not None:
                self._delete_path(store, sf.path, has_vec)
            return
        except Deferred:
            report.files_deferred += 1
            return
        mtime_ms = st.st_mtime_ns / 1e6
        digest, rows, malformed = build_chunks(sf, text, mtime_ms, self.settings)
        if malformed:
            skipped.append((sf.path, sf.source, f"{malformed} malformed JSONL line(s) skipped"))
        if known is not None and known[0] == digest and not force:
            conn.execute("UPDATE files SET mtime = ?, size = ? WHERE path = ?", (mtime_ms, st.st_size, sf.path))
            report.files_unchanged += 1
            return
        self._delete_path(store, sf.path, has_vec)
        now = int(time.time() * 1000)
        segment = self.settings.cjk_segmentation == "bigram"
        for row in rows:
            c = row.chunk
            cid = chunk_id(sf.source, sf.path, c, self.model)
            cur = conn.execute(
                "INSERT OR REPLACE INTO chunks(id, path, source, start_line, end_line, hash, model, text, embedding,"
                " updated_at, ts, date_source) VALUES (?, ?, ?, ?, ?, ?, ?, ?, x'', ?, ?, ?)",
                (cid, sf.path, sf.source, c.start_line, c.end_line, c.hash, self.model, c.text, now, row.ts, row.date_source),
            )
            conn.execute(
                "INSERT INTO chunks_fts(rowid, text, id, path, source, model, start_line, end_line) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (cur.lastrowid, segment_cjk_for_index(c.text) if segment else c.text, cid, sf.path, sf.source,
                 self.model, c.start_line, c.end_line),
            )
        conn.execute(
            "INSERT INTO files(path, source, hash, mtime, size) VALUES (?, ?, ?, ?, ?) ON CONFLICT(path) DO UPDATE SET"
            " source = excluded.source, hash = excluded.hash, mtime = excluded.mtime, size = excluded.size",
            (sf.path, sf.source, digest, mtime_ms, st.st_size),
        )
        report.files_indexed += 1
        report.chunks_written += len(rows)

    @staticmethod
    def _delete_path(store: Store, path: str, has_vec: bool) -> None:
        conn = store.conn
        if has_vec:
            conn.execute("DELETE FROM chunks_vec WHERE id IN (SELECT id FROM chunks WHERE path = ?)", (path,))
        conn.execute("DELETE FROM chunks_fts WHERE rowid IN (SELECT rowid FROM chunks WHERE path = ?)", (path,))
        conn.execute("DELETE FROM chunks WHERE path = ?", (path,))
        conn.execute("DELETE FROM files WHERE path = ?", (path,))

    # -- embedding phase -----------------------------------------------------------------------
    def _embed_missing(self, report: SyncReport) -> None:
        provider = self.provider
        assert provider is not None
        store, conn = self.store, self.store.conn
        pending = conn.execute(
            "SELECT rowid, id, hash, text FROM chunks WHERE length(embedding) = 0 AND model = ? ORDER BY rowid",
            (self.model,),
        ).fetchall()
        total = len(pending)
        if not total:
            return
        key = provider.provider_key()
        batch_size = max(1, getattr(provider, "sync_batch_items", 32))  # one commit per batch: progress survives a crash
        done = 0
        try:
            for start in range(0, total, batch_size):
                self._check_cancel()
                batch = pending[start : start + batch_size]
                self.progress(SyncProgress("embed", done, total, "", f"embedding {done}/{total} chunks"))
                vectors = self._vectors_for(batch, key, report)
                conn.execute("BEGIN")
                dims = vectors.shape[1]
                if store.ensure_vec_table(dims):
                    conn.executemany("DELETE FROM chunks_vec WHERE id = ?", [(r[1],) for r in batch])
                    conn.executemany(
                        "INSERT INTO chunks_vec(id, embedding) VALUES (?, ?)",
                        [(r[1], v.tobytes()) for r, v in zip(batch, vectors)],
                    )
                conn.executemany(
                    "UPDATE chunks SET embedding = ? WHERE rowid = ?", [(v.tobytes(), r[0]) for r, v in zip(batch, vectors)]
                )
                store.bump_generation()
                store.set_meta("vectorDims", str(dims))
                conn.execute("COMMIT")
                done += len(batch)
                report.chunks_embedded += len(batch)
            store.set_meta("provider_error", "")
        except EmbeddingError as exc:
            report.embed_error = scrub(str(exc))  # shown by index/status and stored in meta: no key in it
            store.set_meta("provider_error", report.embed_error)
        finally:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            self._prune_cache()
        self.progress(SyncProgress("embed", done, total, "", f"embedded {done}/{total} chunks"))

    def _vectors_for(self, batch: list[tuple], key: str, report: SyncReport) -> np.ndarray:
        import numpy as np

        provider = self.provider
        assert provider is not None
        conn = self.store.conn
        hashes = [r[2] for r in batch]
        cached: dict[str, np.ndarray] = {}
        if self.settings.cache_enabled:
            marks = ",".join("?" * len(hashes))
            for h, blob in conn.execute(
                f"SELECT hash, embedding FROM embedding_cache WHERE provider = ? AND model = ? AND provider_key = ?"
                f" AND hash IN ({marks})",
                (provider.id, provider.model, key, *hashes),
            ):
                if blob:
                    cached[h] = np.frombuffer(blob, dtype=np.float32)
        missing = [i for i, h in enumerate(hashes) if h not in cached]
        fresh: dict[int, np.ndarray] = {}
        if missing:
            vecs = provider.embed_batch([batch[i][3] for i in missing])
            if vecs.shape[0] != len(missing):
                raise EmbeddingError(f"{provider.id} returned {vecs.shape[0]} vectors for {len(missing)} texts")
            fresh = {i: vecs[j] for j, i in enumerate(missing)}
        report.embed_cache_hits += len(batch) - len(missing)
        now = int(time.time() * 1000)
        if self.settings.cache_enabled:
            if fresh:
                conn.executemany(
                    "INSERT OR REPLACE INTO embedding_cache(provider, model, provider_key, hash, embedding, dims, updated_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [(provider.id, provider.model, key, hashes[i], v.astype(np.float32).tobytes(), len(v), now) for i, v in fresh.items()],
                )
            if cached:  # touch hits so pruning drops the least recently used rows first
                conn.executemany(
                    "UPDATE embedding_cache SET updated_at = ? WHERE provider = ? AND model = ? AND provider_key = ? AND hash = ?",
                    [(now, provider.id, provider.model, key, h) for h in cached],
                )
        rows = [cached[h] if h in cached else fresh[i] for i, h in enumerate(hashes)]
        dims = {len(r) for r in rows}
        if len(dims) != 1:
            raise EmbeddingError(f"{provider.id} returned vectors of different sizes {sorted(dims)}; check the model setting")
        return np.vstack(rows).astype(np.float32)

    def _prune_cache(self) -> None:
        cap = self.settings.cache_max_entries
        conn = self.store.conn
        (count,) = conn.execute("SELECT count(*) FROM embedding_cache").fetchone()
        if count > cap:
            conn.execute(
                "DELETE FROM embedding_cache WHERE rowid IN (SELECT rowid FROM embedding_cache ORDER BY updated_at ASC LIMIT ?)",
                (count - cap,),
            )
