"""`memtui index` and `memtui status` (also OpenClaw's own index): sync with a progress line, and report."""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import UserError
from .agents import default_agent_id
from .wait import lock_wait

if TYPE_CHECKING:
    from ..core.config_types import AppConfig
    from ..core.session import Session


class _ProgressLine:
    """A one-line progress display on a terminal's stderr; silent when piped.

    Called once per file: a line is drawn at most every REDRAW_S (and at each change of phase), since
    no one reads 10,000 lines a second and each draw cost more than indexing a note."""

    REDRAW_S = 0.05

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.last = ""
        self.last_phase = ""
        self.drawn_at = 0.0

    def __call__(self, p) -> None:
        if not self.enabled:
            return
        import time

        from ..render import safe

        now = time.monotonic()
        if p.phase == self.last_phase and now - self.drawn_at < self.REDRAW_S and p.done != p.total:
            return
        self.last_phase, self.drawn_at = p.phase, now
        if p.total:
            width = 30
            filled = int(width * p.done / max(p.total, 1))
            line = f"{p.phase:6} [{'#' * filled}{'.' * (width - filled)}] {p.done}/{p.total} {safe(p.path, one_line=True)[-40:]}"
        else:
            line = f"{p.phase:6} {safe(p.message, one_line=True)}"
        sys.stderr.write("\r" + line.ljust(len(self.last)))
        sys.stderr.flush()
        self.last = line

    def close(self) -> None:
        if self.enabled and self.last:
            sys.stderr.write("\r" + " " * len(self.last) + "\r")


def cmd_index(args: argparse.Namespace, cfg: AppConfig) -> int:
    from ..core.session import SessionOptions, open_session

    waiting = lock_wait(args)
    with open_session(SessionOptions.from_args(args), cfg, repair=True) as session:
        return _index(args, session, waiting)


def _index(args: argparse.Namespace, session: Session, waiting: dict[str, Any]) -> int:
    from ..render import dumps_json, safe

    index = session.index
    if index.provider is None and index.provider_error:
        # refused before the sync: without it the index was silently rebuilt keyword-only (its identity
        # has no model then), dropping the vectors of the provider the config names
        raise UserError(f"the embedding provider cannot be made: {index.provider_error}; nothing was indexed "
                        "(fix the config, or pass --provider none for a keyword-only index)")
    bar = _ProgressLine(sys.stderr.isatty() and not args.json)
    try:
        report = index.sync(force=args.force, progress=bar, embed=not args.no_embed, verify_dims=True,
                            check_files=args.check_files, **waiting)
        assert report is not None  # wait=True: it waits (bounded) for another process's sync, never returns None
    except KeyboardInterrupt:
        bar.close()
        print("memtui: index interrupted; what was written is kept and the next sync resumes", file=sys.stderr)
        return 130
    finally:
        bar.close()
    try:
        vector_file = _save_vector_file(index, report, not args.no_embed, bar.enabled)
    except KeyboardInterrupt:  # the sync is done and kept; only the file the app maps at launch is missing
        print("memtui: interrupted while saving the vector matrix; the index is complete and the app "
              "builds the matrix at launch (or run `memtui index` again)", file=sys.stderr)
        return 130
    # the text report shows no integrity line: its join of keyword rows with chunks (every row of a
    # small index) is left to --json and `memtui status`
    status = index.status(check_dirty=False, check_integrity=args.json)
    if args.json:
        print(dumps_json({"report": report.to_dict(), "status": status.to_dict(), "vector_file": vector_file}, indent=2))
    else:
        # a rebuild postponed (files it would lose cannot be read now) says so: "incremental" hid it
        what = (f"full rebuild ({report.rebuild_reason})" if report.full_rebuild
                else f"no rebuild ({report.rebuild_reason})" if report.rebuild_reason else "incremental")
        print(f"Indexed {safe(status.workspace, one_line=True)} — {what} in {report.seconds:.2f}s")
        print(f"  files: {report.files_total} seen, {report.files_indexed} indexed, {report.files_unchanged} unchanged, "
              f"{report.files_removed} removed, {report.files_skipped} skipped")
        print(f"  chunks: {status.chunks} total, {report.chunks_written} written, {status.embedded}/{status.chunks} embedded "
              f"({report.chunks_embedded} new, {report.embed_cache_hits} from cache)")
        if report.openclaw_cache_reused:
            print(f"  vectors: reused {report.openclaw_cache_reused} from OpenClaw's cache, "
                  f"fetched {report.embeddings_fetched} from {safe(status.provider, one_line=True)}")
        if report.lines_embedded:
            print(f"  line vectors: {report.lines_embedded} new (chunking.lineVectors)")
        if report.line_vectors_off:
            print(f"  line vectors: none, {report.line_vectors_off} (chunking.lineVectors)")
        if report.vectors_reset:
            print(f"  vectors: {safe(report.vectors_reset, one_line=True)}")
        if report.embed_error:
            print(f"  embeddings failed: {safe(report.embed_error, one_line=True)} — keyword search still works")
        if vector_file["saved"]:
            print(f"  vector matrix: saved beside the index in {vector_file['seconds']:.1f}s (the app maps it at launch)")
        elif vector_file["problem"]:
            print(f"  vector matrix: not saved: {safe(vector_file['problem'], one_line=True)} — the app builds it at launch")
        print(f"  index: {safe(status.db_path, one_line=True)}")
    return 0


def _save_vector_file(index: Any, report: Any, wanted: bool, on_terminal: bool) -> dict[str, Any]:
    """After a completed sync of a large index, save its vector matrix file, so the app's first start
    maps it instead of building it from SQLite (far slower at a large size, searching sqlite-vec
    meanwhile; docs/benchmarks.md has the figures). Nothing to do for a small index or when a file of
    this index is there already."""
    import time

    if not wanted or report.cancelled or report.embed_error or not index.lacks_vector_file():
        return {"saved": False, "seconds": 0.0, "problem": ""}
    if on_terminal:
        sys.stderr.write("vectors: saving the matrix file the app maps at launch…")
        sys.stderr.flush()
    started = time.perf_counter()
    try:
        saved = index.save_vector_file()
    finally:
        if on_terminal:
            sys.stderr.write("\r" + " " * 60 + "\r")
    problem = "" if saved else index.vector_save_problem
    return {"saved": saved, "seconds": time.perf_counter() - started, "problem": problem}


def cmd_status(args: argparse.Namespace, cfg: AppConfig) -> int:
    if args.openclaw_index is not None:
        return cmd_openclaw_index(args, cfg)
    from ..core.session import SessionOptions, open_session

    with open_session(SessionOptions.from_args(args), cfg, read_only=True) as session:
        return _status(args, session)


def _status(args: argparse.Namespace, session: Session) -> int:
    from ..engine.dirty_check import STATUS_DIRTY_BUDGET_S
    from ..interop.memory_slot import memory_search_text
    from ..render import dumps_json, safe

    index, agent = session.index, session.agent
    status = index.status(dirty_budget_s=None if args.check_files else STATUS_DIRTY_BUDGET_S,
                          check_hashes=args.check_files)
    openclaw = _openclaw_summary(agent) if agent is not None else None
    if args.json:
        print(dumps_json(status.to_dict() | ({"openclaw": openclaw} if openclaw else {}), indent=2))
        return 0
    # the origin names an --agent id: escaped like any other untrusted text
    print(f"Workspace:   {safe(status.workspace, one_line=True)} ({safe(session.origin, one_line=True)})")
    if openclaw and agent is not None:
        where = ("live in its database" if agent.transcripts == "sqlite" else safe(agent.sessions_dir, one_line=True))
        print(f"OpenClaw:    agent {safe(agent.id, one_line=True)} · {openclaw['layout']} layout · "
              f"OpenClaw {safe(str(openclaw['version'] or 'unknown'), one_line=True)} · transcripts {where}")
        print(f"Memory:      {safe(memory_search_text(agent), one_line=True)}")
    not_built = "  (not built yet: run memtui index)" if not index.built else ""
    print(f"Index:       {safe(status.db_path, one_line=True)}{not_built}")
    print(f"SQLite:      {status.sqlite_version} via {status.sqlite_binding}; "
          f"sqlite-vec {status.sqlite_vec_version or 'unavailable'}")
    print(f"Vectors:     {status.vector_backend}; {status.embedded}/{status.chunks} chunks embedded; dims {status.dims or '-'}")
    if status.openclaw_cache_reused:
        print(f"             reused {status.openclaw_cache_reused} vectors from OpenClaw's cache (not paid again)")
    provider_error = f"  (error: {safe(status.provider_error, one_line=True)})" if status.provider_error else ""
    from ..engine.embeddings.choice import where_embedded

    print(f"Provider:    {safe(status.provider, one_line=True)} / {safe(status.model, one_line=True)}"
          f" ({where_embedded(status.provider)}){provider_error}")
    if status.fallback:
        from ..engine.embeddings.choice import describe_fallback

        print(f"Fallback:    {safe(describe_fallback(status.fallback), one_line=True)}")
    print(f"Files:       {status.files}   Chunks: {status.chunks}   Dirty: {dirty_text(status)}   "
          f"Last sync: {status.last_sync or 'never'}")
    for source, counts in sorted(status.sources.items()):
        print(f"  {source:9} {counts['files']} files · {counts['chunks']} chunks · {counts['embedded']} embedded")
    if status.integrity:
        print(f"Integrity:   {integrity_line(status.integrity)}")
    if status.chunk_dates:
        from ..engine.models import describe_chunk_dates

        print("Chunk dates: " + describe_chunk_dates(status.chunk_dates))
    if status.skipped:
        print(f"Skipped ({len(status.skipped)}):")
        for item in status.skipped:
            print(f"  {safe(item['path'], one_line=True)}: {safe(item['reason'], one_line=True)}")
    return 0


def dirty_text(status: Any) -> str:
    """Dirty as the app says it: chunks waiting for a vector count, whatever the files say."""
    if status.unembedded:
        return (f"yes ({status.unembedded:,} of {status.chunks:,} chunks not embedded with {status.model} yet: "
                "run memtui index)")
    if status.dirty is not None:
        return "yes (files changed since the last sync)" if status.dirty else "no"
    check = status.dirty_check
    return (f"unknown (no change among {check['checked']:,} of {check['indexed']:,} files checked; "
            "--check-files checks them all)")


def integrity_line(report: dict[str, Any]) -> str:
    from ..engine.store import describe_integrity

    return describe_integrity(report)


def _openclaw_summary(agent: Any) -> dict[str, Any]:
    """Which OpenClaw layout and version an agent comes from: the config's, else its database's."""
    from ..interop.agents import OpenClawError, load_installation

    version = None
    with contextlib.suppress(OpenClawError):
        version = load_installation().version
    if version is None and agent.transcripts == "sqlite" and Path(agent.index_path).is_file():
        from ..engine.ingest.openclaw_db import OpenClawDbError, read_consistent, schema_meta

        with contextlib.suppress(OpenClawDbError):
            version = read_consistent(Path(agent.index_path), schema_meta).get("app_version")
    return {"agent": agent.id, "layout": agent.layout, "version": version, "index_path": agent.index_path,
            "transcripts": agent.transcripts, "sources": agent.sources, "memorySlot": agent.memory_slot,
            "memoryPlugin": agent.memory_plugin, "searchDisabled": agent.search_disabled or None,
            "connected": agent.connected, "connectProblem": agent.connect_problem or None}


def cmd_openclaw_index(args: argparse.Namespace, cfg: AppConfig) -> int:
    from ..interop.agents import OpenClawError, find_agent
    from ..interop.inspect_index import inspect_openclaw_index
    from ..render import dumps_json, safe

    agent = None
    try:
        if args.agent or not args.openclaw_index:
            agent = find_agent(args.agent or default_agent_id())
        if args.openclaw_index:
            path = Path(args.openclaw_index).expanduser()
        else:
            assert agent is not None  # found just above: no explicit path means the agent's index
            path = Path(agent.index_path)
        workspace = Path(agent.workspace) if agent else (Path(args.workspace).expanduser() if args.workspace else None)
        report = inspect_openclaw_index(path, agent, workspace if workspace and workspace.is_dir() else None)
    except OpenClawError as exc:
        raise UserError(str(exc)) from None
    if args.json:
        print(dumps_json(report, indent=2))
        return 0
    # the meta row comes from another program's file: every value is untrusted
    meta = {k: safe(str(v), one_line=True) for k, v in report["meta"].items()}
    version = safe(str(report.get("openclaw_version") or "unknown"), one_line=True)
    print(f"OpenClaw index: {safe(report['index_path'], one_line=True)} (read-only; {report['layout']} layout, "
          f"written by OpenClaw {version})")
    if not report.get("built"):
        print("Indexed:        nothing yet (run `openclaw memory index` to build OpenClaw's index)")
    print(f"Model:          {meta.get('provider')} / {meta.get('model')} · "
          f"chunks {meta.get('chunkTokens')}/{meta.get('chunkOverlap')}"
          f" · dims {meta.get('vectorDims') or '-'} · tokenizer {meta.get('ftsTokenizer') or 'unicode61'}")
    print(f"Indexed:        {report['files']} files · {report['chunks']} chunks"
          + (f" · {report['live_sessions']} live transcript(s) in the database" if report.get("live_sessions") else ""))
    for source, c in sorted(report["sources"].items()):
        print(f"  {safe(source, one_line=True):9} {c['files']} files · {c['chunks']} chunks")
    if "stale" in report:
        print(f"Stale:          {'yes' if report['stale'] else 'no'}")
        if report.get("scope_changed"):
            print("  index scope changed: OpenClaw built it for other extra paths or multimodal settings "
                  "and will rebuild it (`openclaw memory index`)")
        for key, label in (("changed_since_indexed", "changed since indexed"), ("not_indexed", "on disk, never indexed"),
                           ("indexed_but_missing", "indexed, no longer on disk")):
            for item in report[key]:
                print(f"  {label}: {safe(item, one_line=True)}")
        for item in report.get("forgotten") or []:
            print(f"  forgotten (openclaw memory forget; memtui neither indexes nor serves it): {safe(item, one_line=True)}")
    return 0


