"""The status screen's data: `read_status` (SQLite and OpenClaw's files: call it from a worker), the
rows built from what it read, and `StatusTable`, the widget that draws them."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console, ConsoleOptions, RenderResult
from rich.table import Table
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from ...engine.embeddings.choice import describe_fallback, where_embedded
from ...engine.index import MemoryIndex
from ...engine.models import Status, describe_chunk_dates
from ...engine.store import describe_integrity
from ...errors import describe
from ...render import safe
from ..state import SyncState

if TYPE_CHECKING:
    from ...interop.agents import Agent

Rows = list[tuple[str, str]]

LABEL_WIDTH = 18  # the longest label ("Provider / model") and a gap
OPENCLAW_NAMES_SHOWN = 6  # the CLI (`memtui status --agent ID --openclaw-index`) lists them all


@dataclass(frozen=True)
class StatusSnapshot:
    """What one read of the index status found; `status` is None when the read failed (`error`) or
    has not answered yet (`pending`)."""

    status: Status | None
    openclaw: Rows = field(default_factory=list)
    error: str = ""
    pending: bool = False
    agent: Agent | None = None  # the agent as OpenClaw's config described it at this read

    @classmethod
    def reading(cls) -> StatusSnapshot:
        """What the status screen shows until its first read answers."""
        return cls(None, pending=True)


def read_status(index: MemoryIndex, agent: Agent | None) -> StatusSnapshot:
    """Counts, integrity and the OpenClaw inspection (each reads the index or OpenClaw's files): never on the event loop.
    The agent is read again from OpenClaw's config: connected or turned off since the app started, it says so."""
    if agent is not None:
        from ...interop.agents import reread_agent

        agent = reread_agent(agent)
    try:
        status = index.status(check_dirty=False)
    except Exception as exc:  # a locked or vanished index: said on the screen, which stays open
        return StatusSnapshot(None, [], describe(exc), agent=agent)
    try:
        rows = openclaw_rows(agent)
    except Exception as exc:  # OpenClaw's file gone mid-read, a full temp folder for its copy: said in its row;
        rows = [("OpenClaw index", f"could not be read: {describe(exc)}")]  # a raise left "reading the index…" up
    return StatusSnapshot(status, rows, agent=agent)


def openclaw_rows(agent: Agent | None) -> Rows:
    """With --agent: OpenClaw's own index for that agent, inspected read-only. Reads its SQLite file."""
    if agent is None:
        return []
    from ...interop.agents import OpenClawError
    from ...interop.inspect_index import inspect_openclaw_index
    from ...interop.memory_slot import memory_search_text

    search = ("OpenClaw memory", memory_search_text(agent))
    try:
        r = inspect_openclaw_index(Path(agent.index_path), agent)
    except OpenClawError as exc:
        return [search, ("OpenClaw index", str(exc))]
    meta = r["meta"]
    rows = [
        search,
        ("OpenClaw index", f"{r['index_path']} (read-only; {r['layout']} layout, OpenClaw {r.get('openclaw_version') or '?'})"),
        ("  model", f"{meta.get('provider')} / {meta.get('model')} · dims {meta.get('vectorDims') or '-'}"),
        ("  indexed", f"{r['files']} files · {r['chunks']} chunks"),
        ("  stale", f"{len(r['changed_since_indexed'])} changed, {len(r['not_indexed'])} never indexed, "
                    f"{len(r['indexed_but_missing'])} missing on disk"),
    ]
    if r.get("scope_changed"):
        rows.append(("  scope", "changed: OpenClaw built it for other extra paths or multimodal settings and will rebuild it"))
    shown = OPENCLAW_NAMES_SHOWN
    for key, label in (("changed_since_indexed", "  changed"), ("not_indexed", "  never indexed"),
                       ("indexed_but_missing", "  gone"), ("forgotten", "  forgotten")):
        names = r.get(key) or []
        if names:
            more = f" … and {len(names) - shown} more" if len(names) > shown else ""
            rows.append((label, ", ".join(names[:shown]) + more))
    return rows


def unembedded(status: Status) -> int:
    """Chunks still waiting for a vector of the provider's model (none without a provider: keyword-only
    by choice), as `Status.unembedded` counts them for the CLI and `--json` too."""
    return status.unembedded


def dirty_text(status: Status, sync: SyncState, resume_key: str = "s") -> str:
    """Files changed since the last sync, or vectors a cancelled or failed sync left to embed (the
    screen's sync key, `resume_key`, resumes them)."""
    missing = unembedded(status)
    if sync.running:
        return "syncing now"
    if missing:
        return f"yes — {missing:,} of {status.chunks:,} chunks not embedded yet ({resume_key} resumes)"
    return "yes — changes waiting to sync" if sync.dirty else "no"


def status_rows(snapshot: StatusSnapshot, origin: str, sync: SyncState, resume_key: str = "s") -> Rows:
    """Index, provider and sync facts; dirty and watcher come from the app's live state."""
    status = snapshot.status
    if snapshot.pending:
        return [("Status", "reading the index…")]
    if status is None:
        return [("Status", f"could not read the index: {snapshot.error}")]
    rows = [
        ("Workspace", f"{status.workspace} ({origin})"),
        ("Index file", status.db_path),
        ("SQLite", f"{status.sqlite_version} via {status.sqlite_binding}"),
        ("sqlite-vec", status.sqlite_vec_version or "unavailable — vectors searched with numpy"),
        ("Vector backend", status.vector_backend),
        ("Provider / model", f"{status.provider} / {status.model}" + (f" ({status.dims} dims)" if status.dims else "")
         + f" · {where_embedded(status.provider)}"),
        ("Provider error", status.provider_error or "none"),
        *([("Fallback", describe_fallback(status.fallback))] if status.fallback else []),
        ("Files / chunks", f"{status.files} files · {status.chunks} chunks · {status.embedded} embedded"),
        ("Dirty", dirty_text(status, sync, resume_key)),
        ("Last sync", status.last_sync or "never"),
        ("Watcher", sync.watcher),
    ]
    for source, c in sorted(status.sources.items()):
        rows.append((f"  {source}", f"{c['files']} files · {c['chunks']} chunks · {c['embedded']} embedded"))
    if status.integrity:  # keyword rows and vectors against the chunks, as `memtui status` shows it
        rows.append(("Integrity", describe_integrity(status.integrity)))
    if status.chunk_dates:
        rows.append(("Chunk dates", describe_chunk_dates(status.chunk_dates)))
    rows.extend(snapshot.openclaw)
    if status.skipped:
        rows.append(("Skipped", f"{len(status.skipped)} file(s)"))
        rows.extend(("", f"{item['path']}: {item['reason']}") for item in status.skipped)
    return rows


class RowsTable:
    """The rows as a two-column grid: a value too long for the screen (a deep workspace path, the
    index file, a skipped file's reason) wraps under the value column, not under the labels. Every
    value is untrusted (paths, errors, model names) and escaped. str() is the plain text, a row a line."""

    def __init__(self, rows: Rows) -> None:
        self.rows = [(key, safe(str(value), one_line=True)) for key, value in rows]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        grid = Table.grid()
        grid.add_column(width=LABEL_WIDTH, no_wrap=True, overflow="ellipsis", style="bold")
        grid.add_column(ratio=1, no_wrap=False, overflow="fold")  # a path has no spaces: folded, not cut
        for key, value in self.rows:
            grid.add_row(Text(key), Text(value))
        yield grid

    def __str__(self) -> str:
        return "".join(f"{key:<{LABEL_WIDTH}}{value}\n" for key, value in self.rows)


class StatusTable(Widget):
    """The status screen's rows; the screen sets `rows`, the widget draws them (`RowsTable`)."""

    DEFAULT_CSS = "StatusTable { height: auto; }"

    rows: reactive[Rows] = reactive(list, layout=True)

    def render(self) -> RowsTable:
        return RowsTable(self.rows)
