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
from pathlib import Path

from ..engine.store.backend import detect_backend, ro_uri
from ..engine.store.files import create_private_file, make_private_dirs, temp_path_beside, write_private_atomic
from ..engine.store.schema import made_by_memtui
from ..engine.tuning.judgements import judgements_path
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


def _seed_from_shared(shared: Path, target: Path) -> None:
    """Copy the shared index (an online backup, consistent even while another memtui writes it) and its
    judgements to `target`. Best effort: when anything fails the agent's index is simply built anew."""
    if shared.is_symlink() or not shared.is_file() or not made_by_memtui(shared):
        return
    make_private_dirs(target.parent)
    sqlite = detect_backend().module
    partial = temp_path_beside(target)  # a fresh name: a seed another memtui is writing is never touched
    try:
        create_private_file(partial)
        src = sqlite.connect(ro_uri(shared), uri=True)
        try:
            dst = sqlite.connect(partial)
            try:
                src.backup(dst)
            finally:
                dst.close()
        finally:
            src.close()
        os.link(partial, target)  # never replaces: an index another memtui made there meanwhile is kept
    except (OSError, sqlite.Error):
        return
    finally:
        partial.unlink(missing_ok=True)
    old_judgements = judgements_path(shared)
    new_judgements = judgements_path(target)
    if old_judgements.is_file() and not old_judgements.is_symlink() and not new_judgements.exists():
        with contextlib.suppress(OSError):  # the judgements stay at the shared path, where the plain view reads them
            write_private_atomic(new_judgements, old_judgements.read_bytes())
