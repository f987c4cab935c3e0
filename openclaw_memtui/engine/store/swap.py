"""The atomic rebuild: build a new index in a temp file beside the live one, then swap it in with one rename."""

from __future__ import annotations

import contextlib
import os

from .connection import Store
from .files import make_private, remove_side_files, temp_path_beside


def open_temp_beside(live: Store) -> Store:
    """A fresh, empty index beside `live` with its tokenizer, for a rebuild that readers never see half-done."""
    return Store(temp_path_beside(live.path), notice=live.notice, fresh=True, tokenize=live.tokenize)


def swap_in(live: Store, built: Store) -> None:
    """Replace the live file with a fully built one in one rename, and reconnect `live` to it.

    The live WAL is checkpointed and truncated first, so the stale `-wal` of the old file can
    never be replayed onto the new one.
    """
    built.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    built.conn.execute("PRAGMA journal_mode = DELETE")
    built.close()
    make_private(built.path)
    with contextlib.suppress(Exception):
        live.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    live.close()
    os.replace(built.path, live.path)
    remove_side_files(live.path, keep_main=True)
    live.reopen()


def discard(store: Store) -> None:
    """Close and delete this file with its -wal/-shm (a rebuild that did not finish)."""
    store.close()
    remove_side_files(store.path)
