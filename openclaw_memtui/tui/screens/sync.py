"""Index status and live sync progress."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, ProgressBar, Static

from ...engine.store import describe_integrity
from ...render import safe


class SyncScreen(Screen):
    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back", id="syncscreen.back"),
        Binding("s", "app.sync", "Sync now", id="syncscreen.sync"),
        Binding("c", "app.cancel_sync", "Cancel sync", id="syncscreen.cancel"),
        Binding("f", "app.sync(True)", "Full rebuild", id="syncscreen.rebuild"),
    ]

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="sync-phase")
        yield ProgressBar(id="sync-bar", show_eta=False)
        with VerticalScroll():
            yield Static(id="sync-status")
        yield Footer()

    def on_mount(self) -> None:
        self.refresh_status()
        self.set_interval(0.2, self.refresh_progress)

    def refresh_progress(self) -> None:
        p = self.app.sync_progress
        bar = self.query_one("#sync-bar", ProgressBar)
        label = self.query_one("#sync-phase", Static)
        if self.app.sync_running and p is not None:
            bar.update(total=max(1, p.total), progress=p.done)
            self._ticks = getattr(self, "_ticks", 0) + 1
            if self._ticks % 5 == 0:  # counts grow while vectors fill in
                self.refresh_status()
            label.update(Text(f"Syncing — {p.phase} {p.done}/{p.total} {safe(p.path or p.message, one_line=True)}", style="bold"))
        else:
            bar.update(total=1, progress=1 if self.app.last_report else 0)
            label.update(Text("Idle — s: sync now, f: full rebuild", style="dim"))

    def _openclaw_rows(self) -> list[tuple[str, str]]:
        """With --agent: OpenClaw's own index for that agent, inspected read-only."""
        agent = getattr(self.app.index, "openclaw_agent", None)
        if agent is None:
            return []
        from pathlib import Path

        from ...interop.agents import OpenClawError
        from ...interop.inspect_index import inspect_openclaw_index

        try:
            r = inspect_openclaw_index(Path(agent.index_path), agent)
        except OpenClawError as exc:
            return [("OpenClaw index", str(exc))]
        meta = r["meta"]
        rows = [
            ("OpenClaw index", f"{r['index_path']} (read-only; {r['layout']} layout, OpenClaw {r.get('openclaw_version') or '?'})"),
            ("  model", f"{meta.get('provider')} / {meta.get('model')} · dims {meta.get('vectorDims') or '-'}"),
            ("  indexed", f"{r['files']} files · {r['chunks']} chunks"),
            ("  stale", f"{len(r['changed_since_indexed'])} changed, {len(r['not_indexed'])} never indexed, "
                        f"{len(r['indexed_but_missing'])} missing on disk"),
        ]
        shown = 6  # the CLI (`memtui status --agent ID --openclaw-index`) lists them all
        for key, label in (("changed_since_indexed", "  changed"), ("not_indexed", "  never indexed"),
                           ("indexed_but_missing", "  gone")):
            names = r[key]
            if names:
                more = f" … and {len(names) - shown} more" if len(names) > shown else ""
                rows.append((label, ", ".join(names[:shown]) + more))
        return rows

    def refresh_status(self) -> None:
        status = self.app.index.status(check_dirty=False)
        rows = [
            ("Workspace", f"{status.workspace} ({self.app.origin})"),
            ("Index file", status.db_path),
            ("SQLite", f"{status.sqlite_version} via {status.sqlite_binding}"),
            ("sqlite-vec", status.sqlite_vec_version or "unavailable — vectors searched with numpy"),
            ("Vector backend", status.vector_backend),
            ("Provider / model", f"{status.provider} / {status.model}" + (f" ({status.dims} dims)" if status.dims else "")),
            ("Provider error", status.provider_error or "none"),
            ("Files / chunks", f"{status.files} files · {status.chunks} chunks · {status.embedded} embedded"),
            ("Dirty", "yes — changes waiting to sync" if self.app.dirty else "no"),
            ("Last sync", status.last_sync or "never"),
            ("Watcher", self.app.watcher_state()),
        ]
        for source, c in sorted(status.sources.items()):
            rows.append((f"  {source}", f"{c['files']} files · {c['chunks']} chunks · {c['embedded']} embedded"))
        if status.integrity:  # keyword rows and vectors against the chunks, as `memtui status` shows it
            rows.append(("Integrity", describe_integrity(status.integrity)))
        if status.chunk_dates:
            rows.append(("Chunk dates", ", ".join(f"{k} {v}" for k, v in sorted(status.chunk_dates.items()))))
        rows.extend(self._openclaw_rows())
        if status.skipped:
            rows.append(("Skipped", f"{len(status.skipped)} file(s)"))
            rows.extend(("", f"{item['path']}: {item['reason']}") for item in status.skipped)
        text = Text()
        for key, value in rows:
            text.append(f"{key:<18}", style="bold")
            text.append(safe(str(value), one_line=True) + "\n")
        self.query_one("#sync-status", Static).update(text)
