"""One SQLite file per workspace: binding detection, schema, validation and atomic swaps.

Python's own `sqlite3` often cannot load extensions (pyenv builds, macOS system Python), so the
binding is chosen at start: sqlean.py, then pysqlite3, then the standard library. Whatever loads,
`status` reports it; without sqlite-vec the vector leg runs on numpy over the stored blobs.
"""

from __future__ import annotations

import importlib
import json
import os
import stat
import time
import uuid
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import IO, Any, Callable
from urllib.parse import quote

from .errors import MemtuiError

SCHEMA_VERSION = 1
META_KEY = "memory_index_meta_v1"  # OpenClaw's key, so its tools recognise the identity row
SCHEMA_KEY = "memtui_schema_version"
SQLITE_HEADER = b"SQLite format 3\x00"

_BINDINGS = ("sqlean", "pysqlite3.dbapi2", "sqlite3")


# The index holds the text of private notes: only its owner may read it, whatever the umask says.
DIR_MODE = 0o700
FILE_MODE = 0o600


def make_private_dirs(folder: Path) -> None:
    """Create `folder` and any missing parents 0700. Folders that already exist are left alone:
    they may be shared on purpose (a --db in /tmp), and they are not ours to change."""
    missing: list[Path] = []
    current = Path(folder)
    while not current.exists():
        missing.append(current)
        if current.parent == current:
            break
        current = current.parent
    for path in reversed(missing):
        try:
            os.mkdir(path, DIR_MODE)
        except FileExistsError:
            continue  # created meanwhile by another process
        os.chmod(path, DIR_MODE)  # mkdir's mode is filtered by the umask


def create_private_file(path: Path) -> None:
    """Create `path` empty with mode 0600 unless it exists, so SQLite (which gives its -wal and
    -shm the mode of the main file) and the lock never start out world-readable."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    except FileExistsError:
        return
    try:
        os.fchmod(fd, FILE_MODE)
    finally:
        os.close(fd)


def make_private(path: Path) -> None:
    """Best effort 0600 on a file we own (an index created by an older memtui was 0644)."""
    try:
        st = os.stat(path)
        if stat.S_ISREG(st.st_mode) and st.st_uid == os.getuid() and stat.S_IMODE(st.st_mode) & 0o077:
            os.chmod(path, stat.S_IMODE(st.st_mode) & ~0o077)
    except (OSError, AttributeError):  # not ours, gone, or no getuid (Windows)
        pass


def ro_uri(path: Path) -> str:
    """A read-only SQLite URI; the path is quoted so '?' or '#' in a folder name stays a name.

    A read-only open of a WAL database still creates its -wal and -shm when they are absent.
    They are absent only when no connection has the file open (a live one keeps them), so then
    the file is opened `immutable` and nothing is created beside it. A writer that starts during
    that one read is not seen (status is a snapshot; the next status sees it).
    """
    uri = f"file:{quote(os.path.abspath(path))}?mode=ro"
    if not any(os.path.exists(f"{path}{suffix}") for suffix in ("-wal", "-shm", "-journal")):
        uri += "&immutable=1"
    return uri


def check_regular_file(path: Path) -> None:
    """Refuse an index path that exists but is not a regular file (/dev/null, a folder, a FIFO):
    SQLite would create `/dev/null-journal` beside it, and reading a FIFO blocks forever."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise InvalidIndex(f"index path {path} cannot be used: {exc.strerror}") from None
    if not stat.S_ISREG(mode):
        kind = ("a folder" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
                else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a regular file")
        raise InvalidIndex(f"index path {path} is {kind}, not a regular file; pass --db a file path")


@dataclass(frozen=True)
class Backend:
    name: str
    module: Any
    sqlite_version: str
    can_load_extensions: bool
    vec_version: str | None
    vec_error: str | None

    @property
    def vector_available(self) -> bool:
        return self.vec_version is not None


@lru_cache(maxsize=1)
def vec_extension_path() -> str | None:
    """Where the sqlite-vec package keeps its loadable extension, found without importing it.

    Importing `sqlite_vec` pulls in numpy (~60 ms); a keyword-only CLI search should not pay that.
    """
    import importlib.util

    spec = importlib.util.find_spec("sqlite_vec")
    if spec is None or not spec.submodule_search_locations:
        return None
    return os.path.join(list(spec.submodule_search_locations)[0], "vec0")


def load_vec(conn: Any) -> None:
    path = vec_extension_path()
    if path is None:
        raise RuntimeError("the sqlite-vec package is not installed")
    conn.enable_load_extension(True)
    try:
        conn.load_extension(path)
    finally:
        conn.enable_load_extension(False)


def _probe(module: Any) -> tuple[bool, str | None, str | None]:
    conn = module.connect(":memory:")
    try:
        if not hasattr(conn, "enable_load_extension"):
            return False, None, "this SQLite binding cannot load extensions"
        try:
            load_vec(conn)
            (version,) = conn.execute("select vec_version()").fetchone()
            return True, version, None
        except Exception as exc:  # the extension is optional: record why, fall back to numpy
            return True, None, f"sqlite-vec did not load: {exc}"
    finally:
        conn.close()


@lru_cache(maxsize=1)
def detect_backend() -> Backend:
    """First binding that loads sqlite-vec wins; else the first that imports at all."""
    forced = os.environ.get("MEMTUI_SQLITE_BINDING")
    names = (forced,) if forced else _BINDINGS
    fallback: Backend | None = None
    for name in names:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        can_load, vec_version, vec_error = _probe(module)
        backend = Backend(name.split(".")[0], module, module.sqlite_version, can_load, vec_version, vec_error)
        if os.environ.get("MEMTUI_DISABLE_SQLITE_VEC"):
            backend = Backend(backend.name, module, module.sqlite_version, can_load, None, "disabled by MEMTUI_DISABLE_SQLITE_VEC")
        if backend.vector_available:
            return backend
        fallback = fallback or backend
    if fallback is None:
        raise RuntimeError("no usable SQLite binding (install sqlean.py)")
    return fallback


class SyncLock:
    """A cross-process lock beside the index file: one sync (and one temp-file cleanup) at a time.

    A second memtui (the CLI while the app syncs) must neither start a competing rebuild nor delete
    the other's half-built file. POSIX `flock`; where it does not exist the lock is a no-op.
    """

    def __init__(self, db_path: Path) -> None:
        self.path = Path(f"{db_path}.lock")
        self._fh: IO[str] | None = None

    def acquire(self, wait: bool = True) -> bool:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows
            return True
        make_private_dirs(self.path.parent)
        create_private_file(self.path)
        self._fh = open(self.path, "a+")
        try:
            fcntl.flock(self._fh.fileno(), fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            self._fh.close()
            self._fh = None
            return False
        return True

    def release(self) -> None:
        if self._fh is not None:
            import fcntl

            fcntl.flock(self._fh.fileno(), fcntl.LOCK_UN)
            self._fh.close()
            self._fh = None


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

REQUIRED_TABLES = {"meta", "files", "chunks", "embedding_cache", "chunks_fts"}


def _check_file(path: Path) -> bool:
    """True for a healthy memtui index, False when `path` is absent, empty or an SQLite file with no
    tables yet; raise InvalidIndex for anything else. Reads only: no byte of the file changes."""
    if not path.exists() or path.stat().st_size == 0:
        return False
    with open(path, "rb") as fh:
        if fh.read(16) != SQLITE_HEADER:
            raise InvalidIndex("it is not an SQLite database")
    backend = detect_backend()
    try:
        conn = backend.module.connect(ro_uri(path), uri=True)
    except Exception as exc:
        raise InvalidIndex(f"it cannot be opened ({exc})") from None
    try:
        try:
            (check,) = conn.execute("PRAGMA quick_check").fetchone()
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table','view')")}
        except Exception as exc:
            raise InvalidIndex(f"it is damaged ({exc})") from None
        if check != "ok":
            raise InvalidIndex(f"it is damaged ({check})")
        if not tables:
            return False
        if not REQUIRED_TABLES <= tables:
            raise InvalidIndex("it belongs to another program (memtui tables are missing)")
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (SCHEMA_KEY,)).fetchone()
        if row is None:
            raise InvalidIndex("it has no memtui schema version (an OpenClaw or foreign index?)")
        if int(row[0]) != SCHEMA_VERSION:
            raise InvalidIndex(f"it uses schema version {row[0]}, this memtui uses {SCHEMA_VERSION}")
    finally:
        conn.close()
    return True


def check_integrity(conn: Any, dims: int | None) -> dict[str, Any]:
    """Do the keyword rows and vectors match the chunks? Read-only; `status` reports it.

    `ok` is False when an FTS row has no chunk (or another chunk's id), a chunk has no FTS row,
    or a stored vector has another size than the index's `dims`.
    """
    (chunks,) = conn.execute("SELECT count(*) FROM chunks").fetchone()
    # FTS5 keeps its rows in the shadow table `<name>_content` (id = rowid, c1 = our `id` column):
    # joining that plain table is ~3x faster than scanning the virtual table (~90 ms at 100k chunks)
    if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'chunks_fts_content'").fetchone():
        fts, rowid, fts_id = "chunks_fts_content", "id", "c1"
    else:  # pragma: no cover - an FTS5 build without a content table
        fts, rowid, fts_id = "chunks_fts", "rowid", "id"
    (fts_rows,) = conn.execute(f"SELECT count(*) FROM {fts}").fetchone()
    (orphans,) = conn.execute(
        f"SELECT count(*) FROM {fts} f WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.rowid = f.{rowid} AND c.id = f.{fts_id})"
    ).fetchone()
    (unindexed,) = conn.execute(
        f"SELECT count(*) FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM {fts} f WHERE f.{rowid} = c.rowid)"
    ).fetchone()
    other_size = 0
    if dims:
        (other_size,) = conn.execute(
            "SELECT count(*) FROM chunks WHERE length(embedding) > 0 AND length(embedding) != ?", (4 * int(dims),)
        ).fetchone()
    return {"ok": fts_rows == chunks and not orphans and not unindexed and not other_size,
            "chunks": chunks, "fts_rows": fts_rows, "orphan_fts_rows": orphans, "chunks_without_fts_row": unindexed,
            "vectors_of_other_size": other_size}


def describe_integrity(report: dict[str, Any]) -> str:
    """`ok`, or what does not match and how to mend it (a sync repairs keyword rows, --force all)."""
    if report.get("ok"):
        return f"ok ({report['fts_rows']} keyword rows for {report['chunks']} chunks)"
    problems = []
    if report["fts_rows"] != report["chunks"]:
        problems.append(f"{report['fts_rows']} keyword rows for {report['chunks']} chunks")
    if report["orphan_fts_rows"]:
        problems.append(f"{report['orphan_fts_rows']} keyword rows without a chunk")
    if report["chunks_without_fts_row"]:
        problems.append(f"{report['chunks_without_fts_row']} chunks without a keyword row")
    if report["vectors_of_other_size"]:
        problems.append(f"{report['vectors_of_other_size']} vectors of another size")
    return "PROBLEM: " + "; ".join(problems) + " (run memtui index to repair, or memtui index --force)"


def side_files(path: Path) -> list[Path]:
    return [path, Path(f"{path}-wal"), Path(f"{path}-shm")]


def move_aside(path: Path) -> Path:
    """Rename an untrusted index (and its -wal/-shm) out of the way; nothing is deleted."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = Path(f"{path}.invalid-{stamp}")
    n = 1
    while any(Path(str(target) + suffix).exists() for suffix in ("", "-wal", "-shm")):
        n += 1  # a second invalid file within the same second must not replace the first
        target = Path(f"{path}.invalid-{stamp}-{n}")
    for src in side_files(path):
        if src.exists():
            dest = Path(str(target) + str(src)[len(str(path)) :])
            os.replace(src, dest)
            make_private(dest)  # it may hold private text, whoever wrote it
    return target


class Store:
    """A connection to one index file with the memtui schema in place."""

    def __init__(self, path: Path, *, readonly: bool = False, notice: Callable[[str], None] | None = None,
                 fresh: bool = False, tokenize: str = "unicode61", repair: bool = True) -> None:
        """`fresh` opens a new file we just named (a rebuild's temp file): nothing to validate or clean.

        `readonly` never creates, moves or changes a file: an absent or empty index reads as an
        empty one held in memory (`missing`), an invalid one raises InvalidIndex. Writers with
        `repair` (memtui index, the app) move an invalid file aside and start afresh; without it
        (search) they raise too: only an explicit index may move a file the user pointed us at.
        """
        self.path = Path(path)
        self.backend = detect_backend()
        self.readonly = readonly
        self.tokenize = tokenize  # FTS5 tokenizer for a newly created chunks_fts
        self.notice = notice or (lambda _msg: None)
        self.vec_loaded = False
        self.missing = False
        check_regular_file(self.path)
        if readonly:
            try:
                self.missing = not _check_file(self.path)
            except InvalidIndex as exc:
                raise InvalidIndex(f"not a memtui index: {self.path}: {exc}; run `memtui index` to rebuild") from None
        elif not fresh:
            try:
                _check_file(self.path)
                problem = None
            except InvalidIndex as exc:
                if not repair:  # checked before anything is created beside it (the lock, the folder)
                    raise InvalidIndex(f"not a memtui index: {self.path}: {exc}; run `memtui index` to rebuild") from None
                problem = exc
            make_private_dirs(self.path.parent)
            self._cleanup_temp_files()
            if problem is not None:
                aside = move_aside(self.path)
                self.notice(f"index {self.path} was not trusted: {problem}; moved it to {aside} and rebuilding from the workspace")
        if not readonly:
            make_private_dirs(self.path.parent)
            create_private_file(self.path)
            for side in side_files(self.path):
                make_private(side)
        if self.missing:  # nothing on disk to read: an empty index in memory, so status has zeros to show
            self.conn = self._connect_memory()
        else:
            self.conn = self._connect(self.path, readonly)
        self.inode = self.file_inode()
        if not readonly:
            self.ensure_schema()

    def file_inode(self) -> int | None:
        """The inode now at our path: differs from `self.inode` once another process swapped the file."""
        try:
            return self.path.stat().st_ino
        except OSError:
            return None

    def _connect_memory(self) -> Any:
        conn = self.backend.module.connect(":memory:", check_same_thread=False, isolation_level=None)
        if self.backend.vector_available:  # so status reports sqlite-vec as it will be used
            try:
                load_vec(conn)
                self.vec_loaded = True
            except Exception:
                pass
        conn.executescript(SCHEMA_SQL + FTS_SQL.format(tokenize=self.tokenize))
        return conn

    def reopen(self) -> None:
        """Follow the file at our path after another process replaced it."""
        self.close()
        self.conn = self._connect(self.path, self.readonly)
        self.inode = self.file_inode()
        if not self.readonly:
            self.ensure_schema()

    # -- connections -------------------------------------------------------------------------
    def open_reader(self) -> Any:
        """A new read-only connection to the live file (WAL lets it read while a sync writes)."""
        return self._connect(self.path, readonly=True)

    def _connect(self, path: Path, readonly: bool) -> Any:
        mod = self.backend.module
        if readonly:
            conn = mod.connect(ro_uri(path), uri=True, check_same_thread=False, isolation_level=None)
        else:
            conn = mod.connect(str(path), check_same_thread=False, isolation_level=None)
        conn.execute("PRAGMA busy_timeout = 5000")
        if self.backend.vector_available:
            try:
                load_vec(conn)
                self.vec_loaded = True
            except Exception:
                self.vec_loaded = False
        if not readonly:
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
        return conn

    def ensure_schema(self) -> None:
        self.conn.executescript(SCHEMA_SQL + FTS_SQL.format(tokenize=self.tokenize))
        if self.get_meta(SCHEMA_KEY) is None:
            self.set_meta(SCHEMA_KEY, str(SCHEMA_VERSION))

    def _cleanup_temp_files(self) -> None:
        """Remove half-built rebuilds left by a process that died mid-way (never another's live one)."""
        lock = SyncLock(self.path)
        if not lock.acquire(wait=False):
            return  # another process is syncing: its temp file is in use
        try:
            self._remove_temp_files()
        finally:
            lock.release()

    def _remove_temp_files(self) -> None:
        for leftover in self.path.parent.glob(self.path.name + ".tmp-*"):
            try:
                leftover.unlink()
            except OSError:
                pass

    def close(self) -> None:
        try:
            self.conn.close()
        except Exception:
            pass

    # -- meta ----------------------------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        try:
            row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        except Exception:
            return None
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def get_identity(self) -> dict[str, Any] | None:
        raw = self.get_meta(META_KEY)
        if not raw:
            return None
        try:
            value = json.loads(raw)
        except ValueError:
            return None
        return value if isinstance(value, dict) else None

    def set_identity(self, identity: dict[str, Any]) -> None:
        self.set_meta(META_KEY, json.dumps(identity, separators=(",", ":")))

    def bump_generation(self) -> None:
        """Tell in-process caches (the numpy vector matrix) that vectors changed."""
        self.conn.execute(
            "INSERT INTO meta(key, value) VALUES ('generation', '1') "
            "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1"
        )

    def generation(self) -> int:
        return int(self.get_meta("generation") or 0)

    # -- vectors ------------------------------------------------------------------------------
    def vec_dims(self) -> int | None:
        row = self.conn.execute("SELECT sql FROM sqlite_master WHERE name = 'chunks_vec'").fetchone()
        if not row:
            return None
        sql = row[0] or ""
        start = sql.find("float[")
        return int(sql[start + 6 : sql.index("]", start)]) if start >= 0 else None

    def ensure_vec_table(self, dims: int) -> bool:
        """Create `chunks_vec` for `dims`; a different dimension drops and recreates it."""
        if not self.vec_loaded:
            return False
        current = self.vec_dims()
        if current == dims:
            return True
        if current is not None:
            self.conn.execute("DROP TABLE chunks_vec")
        self.conn.execute(
            f"CREATE VIRTUAL TABLE chunks_vec USING vec0(id TEXT PRIMARY KEY, embedding float[{int(dims)}] distance_metric=cosine)"
        )
        return True

    # -- atomic rebuild ----------------------------------------------------------------------
    def temp_path(self) -> Path:
        return Path(f"{self.path}.tmp-{uuid.uuid4().hex[:12]}")

    def swap_in(self, built: "Store") -> None:
        """Replace the live file with a fully built one in one rename.

        The live WAL is checkpointed and truncated first, so the stale `-wal` of the old file can
        never be replayed onto the new one.
        """
        built.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        built.conn.execute("PRAGMA journal_mode = DELETE")
        built.close()
        make_private(built.path)
        try:
            self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except Exception:
            pass
        self.close()
        os.replace(built.path, self.path)
        for side in side_files(self.path)[1:]:
            try:
                side.unlink()
            except FileNotFoundError:
                pass
        self.conn = self._connect(self.path, False)
        self.inode = self.file_inode()
        self.ensure_schema()

    def discard(self) -> None:
        """Close and delete this file with its -wal/-shm (a rebuild that did not finish)."""
        self.close()
        for side in side_files(self.path):
            try:
                side.unlink()
            except FileNotFoundError:
                pass


def open_temp_beside(live: Store) -> Store:
    return Store(live.temp_path(), notice=live.notice, fresh=True, tokenize=live.tokenize)
