"""One SQLite file per workspace, and every statement that writes it.

    backend.py          which SQLite binding runs, and loading sqlite-vec into a connection
    schema.py           the tables, the schema version, and whether a file holds a memtui index
    files.py            the file and its neighbours on disk: private modes, -wal/-shm, temp and set-aside files
    lock.py             the cross-process sync lock
    ownership.py        which index files memtui made: a record per index in memtui's own folder
    connection.py       `Store`: the writer's connection, its meta rows and vec table
    swap.py             the atomic rebuild: a temp file beside the live one, swapped in by one rename
    writer.py           `IndexWriter`: the sync's writes to files, chunks, keyword rows and vectors
    embedding_cache.py  `EmbeddingCache`: vectors by content hash, kept across rebuilds
    integrity.py        whether keyword rows and vectors agree with the chunks (`status`)

Reads of the search path live in `store/reader.py`; search modules keep only their MATCH and KNN queries.
"""

from .backend import Backend, detect_backend, load_vec, ro_uri, vec_extension_path
from .connection import Store
from .embedding_cache import CachedVector, CacheScope, EmbeddingCache
from .files import (
                    DIR_MODE,
                    FILE_MODE,
                    check_regular_file,
                    create_private_file,
                    make_private,
                    make_private_dirs,
                    move_aside,
                    private_atomic_writer,
                    side_files,
                    write_private_atomic,
)
from .integrity import check_integrity, describe_integrity
from .lock import SyncLock, SyncLockTimeout
from .schema import LINE_BITS, LINES_KEY, META_KEY, SCHEMA_KEY, SCHEMA_VERSION, SQLITE_HEADER, InvalidIndex
from .swap import discard, open_temp_beside, swap_in
from .writer import FileRecord, IndexWriter, NewChunk, PendingChunk

__all__ = [
    "DIR_MODE", "FILE_MODE", "LINE_BITS", "LINES_KEY", "META_KEY", "SCHEMA_KEY", "SCHEMA_VERSION", "SQLITE_HEADER",
    "Backend", "CacheScope", "CachedVector", "EmbeddingCache", "FileRecord", "IndexWriter", "InvalidIndex",
    "NewChunk", "PendingChunk", "Store", "SyncLock", "SyncLockTimeout",
    "check_integrity", "check_regular_file", "create_private_file", "describe_integrity", "detect_backend",
    "discard", "load_vec", "make_private", "make_private_dirs", "move_aside", "open_temp_beside",
    "private_atomic_writer", "ro_uri", "side_files", "swap_in", "vec_extension_path", "write_private_atomic",
]
