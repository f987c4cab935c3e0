"""Where an OpenClaw agent's index lives, apart from the same folder opened as a plain workspace.

Until this round an agent (`--agent main`) and its workspace opened as a plain folder shared one index
file, keyed by the folder alone; the two index different sources, so each switch was a full rebuild.
An agent's view now has its own file. The first time it is opened, an index left at the shared path is
copied (never moved: the plain view keeps it) so embeddings paid for are not paid again, and the
judgements made there are copied beside it.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path

from ..engine.judgements import judgements_path, write_private_atomic
from ..engine.store.files import make_private_dirs
from ..engine.store.schema import APPLICATION_ID
from ..paths import default_db_path


def agent_view(agent_dir: Path, agent_id: str) -> str:
    """The view key of agent `agent_id` whose OpenClaw folder is `agent_dir` (one per state and agent; see
    `paths.default_db_path`)."""
    return f"agent:{Path(agent_dir).expanduser().resolve()}:{agent_id}"


def agent_db_path(workspace: Path, agent_dir: Path, agent_id: str, *, read_only: bool = False) -> Path:
    """The agent's own index file; on first use seeded from the index the folder shared before. A read
    command creates nothing: until the agent's file exists it reads the shared one."""
    path = default_db_path(workspace, view=agent_view(agent_dir, agent_id))
    if path.exists():
        return path
    shared = default_db_path(workspace)
    if read_only:
        return shared if shared.exists() else path
    _seed_from_shared(shared, path)
    return path


def _is_memtui_index(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            header = fh.read(72)
    except OSError:
        return False
    return len(header) == 72 and int.from_bytes(header[68:72], "big") == APPLICATION_ID


def _seed_from_shared(shared: Path, target: Path) -> None:
    """Copy the shared index (an online backup, consistent even while another memtui writes it) and its
    judgements to `target`. Best effort: when anything fails the agent's index is simply built anew."""
    if shared.is_symlink() or not shared.is_file() or not _is_memtui_index(shared):
        return
    make_private_dirs(target.parent)
    partial = target.with_name(target.name + ".seeding")
    try:
        src = sqlite3.connect(f"file:{shared}?mode=ro", uri=True)
        try:
            partial.unlink(missing_ok=True)
            os.close(os.open(partial, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_NOFOLLOW, 0o600))
            dst = sqlite3.connect(partial)
            try:
                src.backup(dst)
            finally:
                dst.close()
        finally:
            src.close()
        partial.rename(target)
    except (OSError, sqlite3.Error):
        partial.unlink(missing_ok=True)
        return
    old_judgements = judgements_path(shared)
    new_judgements = judgements_path(target)
    if old_judgements.is_file() and not old_judgements.is_symlink() and not new_judgements.exists():
        with contextlib.suppress(OSError):  # the judgements stay at the shared path, where the plain view reads them
            write_private_atomic(new_judgements, old_judgements.read_bytes())
