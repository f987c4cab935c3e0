"""Where memtui keeps its config and indexes (platformdirs, overridable for tests and users)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import platformdirs

APP_NAME = "memtui"
# The package's own folder: memtui is installed as files (its SQLite indexes and themes are read by
# path), never from a zip, so importlib.resources (more imports at every start) adds nothing.
PACKAGE_DIR = Path(__file__).resolve().parent


def config_dir() -> Path:
    return Path(os.environ.get("MEMTUI_CONFIG_DIR") or platformdirs.user_config_dir(APP_NAME))


def data_dir() -> Path:
    return Path(os.environ.get("MEMTUI_DATA_DIR") or platformdirs.user_data_dir(APP_NAME))


def cache_dir() -> Path:
    """Rebuildable files (the prepared model, the MCP handshake): MEMTUI_CACHE_DIR, else the user cache dir."""
    from .engine.embeddings.use_prepared import default_cache_dir

    return default_cache_dir()


def default_config_path() -> Path:
    env = os.environ.get("MEMTUI_CONFIG")
    return Path(env) if env else config_dir() / "config.toml"


# The bundled demo's index name: the demo's path changes with the install, its memory does not.
DEMO_INDEX_NAME = "demo.sqlite"


def is_demo_workspace(workspace: Path) -> bool:
    return Path(workspace).expanduser().resolve() == demo_workspace().resolve()


def default_db_path(workspace: Path, view: str = "") -> Path:
    """One index per memory: a workspace keyed by its absolute path, the bundled demo by name wherever it
    is installed, and an OpenClaw agent's view of a folder (`view`, e.g. its state and agent id) apart
    from the same folder opened as a plain workspace, since the two index different sources."""
    if not view and is_demo_workspace(workspace):
        return data_dir() / "indexes" / DEMO_INDEX_NAME
    absolute = str(Path(workspace).expanduser().resolve())
    import hashlib  # only without --db: `status --db` starts without it

    key = absolute if not view else f"{view}\n{absolute}"
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:12]
    name = Path(absolute).name or "root"
    if view:
        name = f"{view.rsplit(':', 1)[-1]}-{name}"
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-")[:40] or "ws"
    return data_dir() / "indexes" / f"{slug}-{digest}.sqlite"


def demo_workspace() -> Path:
    """The bundled demo workspace that ships inside the package."""
    return PACKAGE_DIR / "demo" / "workspace"


def demo_judgements() -> Path:
    """Judged questions about the demo workspace, read while the demo index has none of its own."""
    return PACKAGE_DIR / "demo" / "judgements.jsonl"


def openclaw_state_dir() -> Path:
    env = os.environ.get("OPENCLAW_STATE_DIR")
    if env:
        return Path(os.path.expanduser(env))
    home = Path(os.environ.get("OPENCLAW_HOME") or Path.home())
    primary = home / ".openclaw"
    legacy = home / ".clawdbot"
    return legacy if not primary.exists() and legacy.exists() else primary
