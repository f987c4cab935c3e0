"""What a memtui index file holds: its tables, its schema version, and the check that a file is one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import MemtuiError
from .backend import detect_backend, ro_uri

# 2: `lines_fts` is contentless (its lines are not stored a second time; deleted with FTS5's 'delete'
# command). An index of an older version is still read as it is, and its next sync rebuilds it
# (`outdated_schema`); a newer version than this memtui knows is refused.
SCHEMA_VERSION = 2
META_KEY = "memory_index_meta_v1"  # OpenClaw's key, so its tools recognise the identity row
SCHEMA_KEY = "memtui_schema_version"
SQLITE_HEADER = b"SQLite format 3\x00"
# `PRAGMA application_id` of every index memtui writes (bytes 68-71 of the file, "mtui"): a file memtui
# made can be told from any other SQLite file (OpenClaw's index has the same tables) even once damaged
APPLICATION_ID = int.from_bytes(b"mtui", "big")
QUICK_CHECK_BYTES = 64 * 1024 * 1024


class InvalidIndex(MemtuiError):
    """The file at the index path is not a memtui index we can trust."""


SCHEMA_SQL = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
  path TEXT PRIMARY KEY, source TEXT NOT NULL DEFAULT 'memory', hash TEXT NOT NULL,
  mtime INTEGER NOT NULL, size INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS chunks (
  id TEXT PRIMARY KEY, path TEXT NOT NULL, source TEXT NOT NULL DEFAULT 'memory',
  start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, hash TEXT NOT NULL, model TEXT NOT NULL,
  text TEXT NOT NULL, embedding BLOB NOT NULL DEFAULT x'', updated_at INTEGER NOT NULL,
  ts REAL, date_source TEXT NOT NULL DEFAULT 'evergreen'
);
CREATE INDEX IF NOT EXISTS idx_chunks_path ON chunks(path);
CREATE INDEX IF NOT EXISTS idx_chunks_source ON chunks(source);
CREATE TABLE IF NOT EXISTS embedding_cache (
  provider TEXT NOT NULL, model TEXT NOT NULL, provider_key TEXT NOT NULL, hash TEXT NOT NULL,
  embedding BLOB NOT NULL, dims INTEGER, updated_at INTEGER NOT NULL,
  PRIMARY KEY (provider, model, provider_key, hash)
);
CREATE INDEX IF NOT EXISTS idx_embedding_cache_updated_at ON embedding_cache(updated_at);
CREATE TABLE IF NOT EXISTS skipped (path TEXT PRIMARY KEY, source TEXT NOT NULL, reason TEXT NOT NULL);
"""

FTS_SQL = """
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
  text, id UNINDEXED, path UNINDEXED, source UNINDEXED, model UNINDEXED,
  start_line UNINDEXED, end_line UNINDEXED, tokenize = '{tokenize}'
);
"""

# Counts that `status`, the search's "N of M embedded" and the integrity check read at once,
# whatever the size: kept by triggers in the same transaction as the rows they count, so no write
# path can forget them (a COUNT(*) over 1M chunks with their vectors reads ~2 GB).
COUNTS_SQL = """
CREATE TABLE IF NOT EXISTS chunk_counts (
  source TEXT NOT NULL, date_source TEXT NOT NULL, model TEXT NOT NULL, vector_bytes INTEGER NOT NULL,
  n INTEGER NOT NULL, PRIMARY KEY (source, date_source, model, vector_bytes)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS file_counts (source TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS chunk_counts_insert AFTER INSERT ON chunks BEGIN
  INSERT INTO chunk_counts VALUES (NEW.source, NEW.date_source, NEW.model, length(NEW.embedding), 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER IF NOT EXISTS chunk_counts_delete AFTER DELETE ON chunks BEGIN
  UPDATE chunk_counts SET n = n - 1 WHERE source = OLD.source AND date_source = OLD.date_source
    AND model = OLD.model AND vector_bytes = length(OLD.embedding);
END;
CREATE TRIGGER IF NOT EXISTS chunk_counts_update AFTER UPDATE OF source, date_source, model, embedding ON chunks BEGIN
  UPDATE chunk_counts SET n = n - 1 WHERE source = OLD.source AND date_source = OLD.date_source
    AND model = OLD.model AND vector_bytes = length(OLD.embedding);
  INSERT INTO chunk_counts VALUES (NEW.source, NEW.date_source, NEW.model, length(NEW.embedding), 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER IF NOT EXISTS file_counts_insert AFTER INSERT ON files BEGIN
  INSERT INTO file_counts VALUES (NEW.source, 1) ON CONFLICT DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER IF NOT EXISTS file_counts_delete AFTER DELETE ON files BEGIN
  UPDATE file_counts SET n = n - 1 WHERE source = OLD.source;
END;
CREATE TRIGGER IF NOT EXISTS file_counts_update AFTER UPDATE OF source ON files BEGIN
  UPDATE file_counts SET n = n - 1 WHERE source = OLD.source;
  INSERT INTO file_counts VALUES (NEW.source, 1) ON CONFLICT DO UPDATE SET n = n + 1;
END;
"""

# the triggers above, by name (a rebuild's temp file drops them while it is written: swap.open_temp_beside)
COUNT_TRIGGERS = ("chunk_counts_insert", "chunk_counts_delete", "chunk_counts_update",
                  "file_counts_insert", "file_counts_delete", "file_counts_update")

# an index written before the count tables: one scan fills them, then the triggers keep them
FILL_COUNTS_SQL = """
DELETE FROM chunk_counts;
DELETE FROM file_counts;
INSERT INTO chunk_counts SELECT source, date_source, model, length(embedding), count(*) FROM chunks GROUP BY 1, 2, 3, 4;
INSERT INTO file_counts SELECT source, count(*) FROM files GROUP BY source;
"""

# One keyword row per non-empty line of each chunk, so a chunk can be scored by its best-matching line
# (a question usually targets one turn or one bullet of a 1,600-character chunk). Row ids encode the
# chunk: line row id = chunk rowid << LINE_BITS | line number within the chunk, so a chunk's lines are
# one rowid range and no chunk column is needed. Contentless (`content = ''`): the lines are the chunk's
# text, kept in `chunks` already, and a second copy cost a fifth of this table's insert time in a first
# index (docs/first-index.md). A search reads only rowids and bm25 (the sizes FTS5 keeps), never a
# line's text. Rows are deleted with FTS5's 'delete' command, given the same lines they were inserted
# with (`writer.line_rows` of the chunk's text), which every SQLite with FTS5 supports (a plain DELETE
# would need `contentless_delete`, SQLite 3.43; the standard library's is older on many systems).
LINE_BITS = 12
LINES_FTS_SQL = """
CREATE VIRTUAL TABLE IF NOT EXISTS lines_fts USING fts5(text, content = '', tokenize = '{tokenize}');
"""
LINES_KEY = "memtui_lines_filled"  # meta: lines_fts holds the lines of every chunk (older indexes fill it on sync)

# lines_fts is not required: an index written before it existed is searched without line scores
REQUIRED_TABLES = {"meta", "files", "chunks", "embedding_cache", "chunks_fts"}


# Which chunk rows each change of the index touched, by the generation it gave the index and the one
# before (`connection.bump_generation`): a vector matrix of an earlier generation is patched from these
# rowids instead of a scan of every chunk id (slow at 1M chunks). `rowids` is int64s, little-endian, or
# NULL when there were too many to list; a generation with no row (an older memtui wrote it, or the log
# was pruned) breaks the chain and the reader scans.
CHANGES_SQL = """
CREATE TABLE IF NOT EXISTS chunk_changes (generation INTEGER PRIMARY KEY, previous INTEGER NOT NULL, rowids BLOB);
"""


# Line vectors (`chunking.lineVectors`, engine/vectors/line_vectors.py): one vector per distinct line text and
# model, so a chunk can be scored by its best line's cosine. Not required: absent or empty, chunks are scored
# by their own vectors alone. A rowid table: rows of 2 KB vectors in a WITHOUT ROWID b-tree took twice the space.
LINE_VECTORS_SQL = """
CREATE TABLE IF NOT EXISTS line_vectors (
  model TEXT NOT NULL, hash TEXT NOT NULL, embedding BLOB NOT NULL, UNIQUE (model, hash)
);
"""


def schema_script(tokenize: str) -> str:
    """Every CREATE the schema needs; `tokenize` only matters for newly created FTS tables."""
    return (SCHEMA_SQL + FTS_SQL.format(tokenize=tokenize) + LINES_FTS_SQL.format(tokenize=tokenize) + COUNTS_SQL
            + CHANGES_SQL + LINE_VECTORS_SQL)


def outdated_schema(conn: Any) -> str:
    """Why an index written by an older memtui must be rebuilt before it is written to ("" when current).

    Such an index reads as it is (a search of it works), but its tables differ from what this memtui
    writes (`lines_fts` held a copy of its text before version 2, and rows cannot be deleted from it
    the way they are now), so a sync rebuilds it beside the live file once, as for a new model."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (SCHEMA_KEY,)).fetchone()
    if row is None or not str(row[0]).isdigit() or int(row[0]) >= SCHEMA_VERSION:
        return ""  # not ours to judge here: opening refuses a version it does not know (`holds_index`)
    return f"schema version {row[0]}, this memtui writes {SCHEMA_VERSION}"


def quick_check_tables(conn: Any) -> str:
    """`PRAGMA quick_check` of each ordinary table (its b-tree, indexes and records): "ok" or the first problem.

    Not of the whole file: since SQLite 3.44 that also runs each FTS5 table's own consistency check,
    which re-tokenises every row (several times the cost of checking every table here, at every
    open). FTS5 keeps its rows in ordinary shadow tables, checked like the
    others; whether the keyword rows match the chunks is what `status` reports (check_integrity).
    """
    tables = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'"
                          " AND coalesce(sql, '') NOT LIKE 'CREATE VIRTUAL%'").fetchall()
    for name in ["sqlite_schema", *(row[0] for row in tables)]:
        quoted = name.replace("'", "''")
        (result,) = conn.execute(f"PRAGMA quick_check('{quoted}')").fetchone()
        if result != "ok":
            return str(result)
    return "ok"


def holds_index(path: Path) -> bool:
    """True for a healthy memtui index, False when `path` is absent, empty or an SQLite file with no
    tables yet; raise InvalidIndex for anything else. Reads only: no byte of the file changes."""
    if not path.exists() or path.stat().st_size == 0:
        return False
    with open(path, "rb") as fh:
        if fh.read(16) != SQLITE_HEADER:
            raise InvalidIndex("it is not an SQLite database")
    size = path.stat().st_size
    backend = detect_backend()
    try:
        conn = backend.module.connect(ro_uri(path), uri=True)
    except Exception as exc:
        raise InvalidIndex(f"it cannot be opened ({exc})") from None
    try:
        try:
            # quick_check reads every table's pages, its cost grows with the file. Above QUICK_CHECK_BYTES (a 1M-chunk
            # index is ~3 GB) opening would take seconds, so it is left out: SQLite still refuses a
            # file shorter than its header says (truncated), and a damaged page inside shows when read.
            check = quick_check_tables(conn) if size <= QUICK_CHECK_BYTES else "ok"
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table','view')")}
        except Exception as exc:
            raise InvalidIndex(f"it is damaged ({exc})") from None
        if check != "ok":
            raise InvalidIndex(f"it is damaged ({check})")
        if not tables:
            return False
        if not tables >= REQUIRED_TABLES:
            raise InvalidIndex("it belongs to another program (memtui tables are missing)")
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (SCHEMA_KEY,)).fetchone()
        if row is None:
            raise InvalidIndex("it has no memtui schema version (an OpenClaw or foreign index?)")
        if not str(row[0]).isdigit() or not 1 <= int(row[0]) <= SCHEMA_VERSION:
            # a newer memtui's index: this one cannot know how to write it
            raise InvalidIndex(f"it uses schema version {row[0]}, this memtui uses {SCHEMA_VERSION}")
    finally:
        conn.close()
    return True


def made_by_memtui(path: Path) -> bool:
    """The file at `path` is one memtui created as an index: its header carries memtui's application id,
    or (an index an older memtui wrote, before the id) its meta table names a memtui schema version.
    Anything else — a note, a README, another program's database, OpenClaw's own index — is not ours to
    move aside, replace or chmod. Reads only."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(100)
    except OSError:
        return False
    if not head.startswith(SQLITE_HEADER):
        return False
    if len(head) >= 72 and int.from_bytes(head[68:72], "big") == APPLICATION_ID:
        return True
    try:
        conn = detect_backend().module.connect(ro_uri(path), uri=True)
    except Exception:
        return False
    try:
        return conn.execute("SELECT 1 FROM meta WHERE key = ?", (SCHEMA_KEY,)).fetchone() is not None
    except Exception:
        return False
    finally:
        conn.close()
