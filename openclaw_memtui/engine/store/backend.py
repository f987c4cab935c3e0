"""Which SQLite binding memtui runs on, and the sqlite-vec extension it loads into each connection.

Python's own `sqlite3` often cannot load extensions (pyenv builds, macOS system Python), so the
binding is chosen at start: sqlean.py, then pysqlite3, then the standard library. Whatever loads,
`status` reports it; without sqlite-vec the vector leg runs on numpy over the stored blobs.
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import quote

_BINDINGS = ("sqlean", "pysqlite3.dbapi2", "sqlite3")


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

    Importing `sqlite_vec` pulls in numpy, a slow import; a keyword-only CLI search should not pay that.
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
            backend = Backend(backend.name, module, module.sqlite_version, can_load, None,
                              "disabled by MEMTUI_DISABLE_SQLITE_VEC")
        if backend.vector_available:
            return backend
        fallback = fallback or backend
    if fallback is None:
        raise RuntimeError("no usable SQLite binding (install sqlean.py)")
    return fallback


def ro_uri(path: Path) -> str:
    """A read-only SQLite URI; the path is quoted so '?' or '#' in a folder name stays a name.

    A read-only open of a WAL database still creates its -wal and -shm when they are absent.
    They are absent only when no connection has the file open (a live one keeps them), so then
    the file is opened `immutable` and nothing is created beside it. A writer that starts during
    that one read is not seen (status is a snapshot; the next status sees it).
    """
    uri = f"file:{quote(os.path.abspath(path))}?mode=ro"
    if not any(os.path.lexists(f"{path}{suffix}") for suffix in ("-wal", "-shm", "-journal")):
        uri += "&immutable=1"
    return uri
