"""The one gate every answer passes, whichever front end serves it (the plugin's `memtui serve`,
`memtui mcp`, `memtui search`, the app).

What it decides, once, for a `Caller` (core/caller.py):

* **May this caller be answered at all?** (`admit`) An agent whose memory search OpenClaw turns off
  (`memory.search.enabled: false` globally or for the agent, `plugins.slots.memory` "none" or another
  plugin, read through the one OpenClaw config reader with its `$include`s) is not answered: an
  agent front end gets `Refused`. A person (CLI, app) searching their own memory always is.
* **Which chunks may be in the answer?** (`pool`) Forgotten sessions never (`openclaw memory
  forget`); for an agent, OpenClaw's session visibility (core/visibility.py: `tools.sessions.visibility`,
  sandbox clamp, spawned sessions), and never the requesting session's own transcript. A caller that
  cannot say which session asks (`memtui mcp`) sees transcripts only where visibility is `agent` or
  `all`. The filter runs on the candidate pool, before ranking, as OpenClaw filters its search window
  before it cuts to maxResults.
* **What may each field hold?** Every chunk text is masked as part of its whole file before a
  snippet is cut from it (engine/served.py), every path masked as a field (a note named after a key),
  and then every string of the whole answer, keys included (`mask_answer`). Warnings and errors too.
* **`memory_get`** (`check_get`): an OpenClaw agent reads no transcript through it (OpenClaw's
  contract: "Session transcript paths are unsupported"); other callers read those they may see.
* **`provenance`** on each hit for an agent (core/provenance.py), as OpenClaw gives it.

Front ends only serialize what comes out of here.
"""

from __future__ import annotations

import functools
import logging
import os
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..engine.errors import MemtuiError
from ..engine.ingest.memory_files import AccessRefused
from .caller import Caller

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..engine.index import MemoryIndex
    from ..engine.search.browse import BrowseEntry
    from ..engine.search.rank import Pool, Result
    from ..interop.recalls import RecallHit
    from ..interop.session_store import SessionStore

log = logging.getLogger("memtui.gate")

AGENT_FRONT_ENDS = ("plugin", "mcp")
CONFIG_RECHECK_S = 2.0  # the OpenClaw config is re-read at most this often (its includes have no cheap stamp)
TRANSCRIPT_GET_REFUSED = ("Session transcript paths are unsupported: memory_get reads memory files only; "
                          "use the memory_search hit's snippet for a conversation")
TRANSCRIPT_GET_CODE = "MEMORY_PATH_NOT_ALLOWED"  # OpenClaw's code for a path memory_get does not read


class Refused(MemtuiError):
    """This caller gets no memory answer; the message is one line saying why."""


class TranscriptRefused(AccessRefused):
    """memory_get of a transcript path, refused as OpenClaw refuses it."""

    code = TRANSCRIPT_GET_CODE


@dataclass
class GatedPool:
    """A pool ready to rank, and what the gate needs later to finish the answer."""

    pool: Pool
    real_paths: dict[str, str] = field(default_factory=dict)  # chunk id -> its path before masking
    withheld: int = 0  # transcript chunks left out by session visibility or as the caller's own


@dataclass
class _OpenClawView:
    cfg: dict[str, Any]
    disabled: str  # why OpenClaw gives the agent no memory search ("" when it does)
    error: str  # the config cannot be read now
    state_db: Path | None


class Gate:
    """The policy for the answers over one open index (one agent, or a plain workspace)."""

    def __init__(self, index: MemoryIndex, agent_id: str | None, *, serve_disabled: bool = False) -> None:
        self.index = index
        self.settings = index.settings
        self.agent_id = agent_id
        self.serve_disabled = serve_disabled  # `memtui mcp --serve-disabled`: the user said to serve it anyway
        self._lock = threading.Lock()
        self._view: _OpenClawView | None = None
        self._view_at = -1.0
        self._view_stamp: tuple[int, int] | None = None
        self._origins: dict[str, tuple[tuple[int, ...] | None, dict[int, tuple[str, float]]]] = {}

    # -- OpenClaw's side, read once per change ---------------------------------------------------------
    def openclaw(self) -> _OpenClawView:
        """OpenClaw's config and this agent's off switch, re-read when the config file changes (and at
        most every CONFIG_RECHECK_S, for a change inside an `$include`)."""
        from ..interop.agents import config_path

        path = config_path()
        stamp = _stamp(path)
        now = time.monotonic()
        with self._lock:
            if self._view is not None and stamp == self._view_stamp and now - self._view_at < CONFIG_RECHECK_S:
                return self._view
        view = self._read_view(path)
        with self._lock:
            last = self._view
            if view.error and last is not None and not last.error:
                # a config OpenClaw cannot read either (an edit half saved): OpenClaw keeps running on the
                # last good one, and so does the gate — never fail open into answering a switched-off agent
                view = replace(last, error="")
                log.warning("OpenClaw's config cannot be read now; keeping the last good reading")
            self._view, self._view_at, self._view_stamp = view, now, stamp
        return view

    def _read_view(self, path: Path | None) -> _OpenClawView:
        from ..interop.agents import OpenClawError, load_installation, read_config
        from ..interop.recalls import state_database

        if self.agent_id is None or path is None:
            return _OpenClawView({}, "", "", None)
        try:
            cfg = read_config(path)
            inst = load_installation()
        except OpenClawError as exc:
            return _OpenClawView({}, "", str(exc), None)
        agent = next((a for a in inst.agents if a.id == self.agent_id), None)
        disabled = agent.search_disabled if agent is not None else ""
        return _OpenClawView(cfg, disabled, "", state_database(Path(inst.state_dir)))

    # -- who may be answered ---------------------------------------------------------------------------
    def admit(self, caller: Caller) -> None:
        """Raise Refused when this caller gets no memory answer (an agent OpenClaw gives none)."""
        if caller.front_end not in AGENT_FRONT_ENDS or self.agent_id is None:
            return
        view = self.openclaw()
        if view.disabled and not (caller.front_end == "mcp" and self.serve_disabled):
            raise Refused(f"memory search is off for agent {self.agent_id} in OpenClaw ({view.disabled})")
        if view.error and not (caller.front_end == "mcp" and self.serve_disabled):
            # never read well since this server started: whether OpenClaw turns this agent's memory off
            # cannot be told, so nothing is answered until the config reads again
            raise Refused(f"OpenClaw's config cannot be read ({view.error}); memory is unavailable until it can")

    # -- what may be in an answer ----------------------------------------------------------------------
    def _store(self) -> SessionStore:
        from ..interop.session_store import session_store

        return session_store(self.settings.transcripts_db)

    def visible_transcripts(self, caller: Caller, paths: set[str]) -> set[str]:
        """Of these transcript paths (index names), those the caller may be shown."""
        from ..engine.ingest.forgotten import is_forgotten, settings_forgotten

        forgotten = settings_forgotten(self.settings)
        prefix = self.settings.sessions_prefix
        paths = {p for p in paths if not is_forgotten(p, "sessions", prefix, forgotten)}
        if not paths or caller.front_end not in AGENT_FRONT_ENDS or self.agent_id is None:
            return paths
        from .visibility import Requester, configured_visibility, own_session_ids, transcript_identity, visible_paths

        view = self.openclaw()
        if view.error:
            return set()  # OpenClaw's rules cannot be read now: no conversation is quoted
        if caller.front_end == "mcp" and not caller.session_key:
            # an MCP client cannot say which session asks: the agent's transcripts only where OpenClaw
            # lets any session of the agent see them
            return paths if configured_visibility(view.cfg) in ("agent", "all") else set()
        store = self._store()
        requester = Requester(self.agent_id, caller.session_key, caller.sandboxed)
        if not store.readable:
            return set()
        kept = visible_paths(paths, view.cfg, requester, store, time.time() * 1000)
        own = own_session_ids(requester, store)
        return {p for p in kept if (ident := transcript_identity(p)) is None or ident.archived or ident.stem not in own}

    def pool(self, caller: Caller, pool: Pool) -> GatedPool:
        """`pool` with what the caller may not see left out and every chunk's text and path masked
        (text as part of its whole file, so a snippet cut from it later cannot cut a secret in two)."""
        from ..engine.scrub import mask_output
        from ..engine.served import served_chunk

        sessions = {c.path for c in pool.candidates if c.source == "sessions"}
        allowed = self.visible_transcripts(caller, sessions) if sessions else set()
        kept = [c for c in pool.candidates if c.source != "sessions" or c.path in allowed]
        withheld = len(pool.candidates) - len(kept)
        files: dict[str, list[tuple[int, int, str]]] = {}
        texts: dict[str, str | None] = {}  # a file's text, read once per answer (a chunk cut inside a long line)
        real: dict[str, str] = {}
        masked = []
        for c in kept:
            if c.source == "sessions":
                text = served_chunk((c.start_line, c.end_line, c.text), c.source, [])
            else:
                if c.path not in files:
                    files[c.path] = self.index.file_chunks(c.path)
                text = served_chunk((c.start_line, c.end_line, c.text), c.source, files[c.path],
                                    functools.partial(self._file_text, c.path, c.source, texts))
            path = mask_output(c.path)
            real[c.id] = c.path
            masked.append(c if text == c.text and path == c.path else replace(c, text=text, path=path))
        out = replace(pool, candidates=masked, warnings=[mask_output(w) for w in pool.warnings])
        out._jaccard = None
        return GatedPool(out, real, withheld)

    def _file_text(self, path: str, source: str, texts: dict[str, str | None]) -> str | None:
        """The file a chunk was cut from, as it is now (None when it cannot be read)."""
        if path not in texts:
            try:
                texts[path] = self.index.read_file(path, source)
            except (OSError, ValueError):
                texts[path] = None
        return texts[path]

    def results(self, results: list[Result]) -> list[Result]:
        """Results ranked from a gated pool, every text field masked once more (a snippet is cut from
        masked text already; a key shape the cut made is still caught)."""
        from ..engine.scrub import mask_output

        return [replace(r, path=mask_output(r.path), snippet=mask_output(r.snippet)) for r in results]

    def recalled(self, hits: Sequence[RecallHit]) -> list[RecallHit]:
        """Hits another engine answered with (OpenClaw's recorded searches), each path masked as the
        paths of memtui's own results are: a note named after a key reads `memory/[redacted].md` on
        both sides, so the two compare as the same note."""
        from ..engine.scrub import mask_output

        return [replace(h, path=mask_output(h.path)) for h in hits]

    def chunk_text(self, text: str, source: str) -> str:
        """A chunk's text shown on its own (the app's row for a hit OpenClaw returned that memtui's pool
        lacks): masked as a served text is, then as a field."""
        from ..engine.scrub import mask_output
        from ..engine.served import served_text

        return mask_output(served_text(text, source))

    # -- what each hit says about itself ---------------------------------------------------------------
    def provenance(self, results: list[Result], gated: GatedPool) -> list[dict[str, Any]]:
        """OpenClaw's `provenance` of each result (core/provenance.py)."""
        from ..interop.session_store import recorded_write_origin
        from .provenance import note_provenance, session_kind, transcript_provenance

        view = self.openclaw()
        store = self._store()
        real = [gated.real_paths.get(r.id, r.path) for r in results]
        origins = self._message_origins({path for r, path in zip(results, real, strict=True) if r.source == "sessions"})
        out = []
        for r, path in zip(results, real, strict=True):
            if r.source == "sessions":
                fallback = (time.time() - (r.age_days or 0) * 86400) * 1000
                out.append(transcript_provenance(origins.get(path, {}), r.start_line, r.end_line,
                                                 session_kind(path, store), fallback))
                continue
            absolute = Path(path) if os.path.isabs(path) else self.settings.workspace / path
            relative = path if not os.path.isabs(path) else ""
            recorded = recorded_write_origin(view.state_db, self.settings.workspace, relative) if relative else None
            out.append(note_provenance(relative or path, absolute, recorded))
        return out

    def _message_origins(self, paths: set[str]) -> dict[str, dict[int, tuple[str, float]]]:
        """Each transcript's line classes, cached while its database (or file) is unchanged; the
        database's transcripts read in one consistent read (one private copy at most while OpenClaw
        has WAL frames, not one per hit)."""
        from ..engine.ingest.openclaw_db import OpenClawDbError, read_consistent, read_session_jsonl
        from ..interop.session_store import db_stamp
        from .provenance import message_origins

        db = self.settings.transcripts_db
        stamp = db_stamp(db) if db is not None else None
        head = self.settings.sessions_prefix.rstrip("/") + "/"
        out: dict[str, dict[int, tuple[str, float]]] = {}
        wanted: dict[str, str] = {}
        for path in paths:
            cached = self._origins.get(path)
            if cached is not None and cached[0] == stamp and stamp is not None:
                out[path] = cached[1]
                continue
            name = path[len(head):] if path.startswith(head) else ""
            if db is not None and stamp is not None and name.endswith(".jsonl") and "/" not in name:
                wanted[path] = name[: -len(".jsonl")]
        if wanted and db is not None:
            try:
                texts = read_consistent(db, lambda conn: {p: read_session_jsonl(conn, sid) for p, sid in wanted.items()})
            except OpenClawDbError:
                texts = {}
            for path, text in texts.items():
                if text:
                    out[path] = message_origins(text)
                    self._origins[path] = (stamp, out[path])
        for path in paths - out.keys():  # a JSONL file in the sessions folder (an archive, the older layout)
            try:
                out[path] = message_origins(self.index.read_file(path, "sessions"))
            except OSError:
                out[path] = {}
        if len(self._origins) > 256:  # bounded: the newest answers' transcripts
            self._origins.clear()
        return out

    def browse(self, caller: Caller, entries: list[BrowseEntry]) -> list[BrowseEntry]:
        """The app's listing of the memory, newest first, through the gate: forgotten sessions out
        (an index synced before the forget still holds them), each snippet and path masked."""
        from ..engine.scrub import mask_output
        from ..engine.search.rank import SNIPPET_MAX_CHARS
        from ..engine.served import mask_cut_end
        from ..engine.textutil import utf16_len

        def snippet(text: str, source: str) -> str:  # cut before masked: a key the cut halves goes too
            shown = self.chunk_text(text, source)
            return mask_cut_end(shown) if utf16_len(text) >= SNIPPET_MAX_CHARS else shown

        sessions = {e.result.path for e in entries if e.result.source == "sessions"}
        allowed = self.visible_transcripts(caller, sessions) if sessions else set()
        return [replace(e, result=replace(e.result, path=mask_output(e.result.path),
                                          snippet=snippet(e.result.snippet, e.result.source)))
                for e in entries if e.result.source != "sessions" or e.result.path in allowed]

    # -- memory_get ------------------------------------------------------------------------------------
    def check_get(self, caller: Caller, path: str) -> None:
        """Raise AccessRefused when the caller may not read this path (it is read under the access
        rule afterwards: engine/ingest/memory_files.py)."""
        from ..engine.ingest.memory_files import REFUSED, find_source

        self.admit(caller)
        try:
            source = find_source(self.settings, path)
        except AccessRefused:
            if caller.front_end == "plugin" and path.replace("\\", "/").startswith("sessions/"):
                raise TranscriptRefused(TRANSCRIPT_GET_REFUSED) from None
            raise
        if source.source != "sessions":
            return
        if caller.front_end == "plugin":
            raise TranscriptRefused(TRANSCRIPT_GET_REFUSED)
        if source.path not in self.visible_transcripts(caller, {source.path}):
            raise AccessRefused(f"{path}: {REFUSED}")


def mask_answer(answer: dict[str, Any]) -> dict[str, Any]:
    """Every string of an answer, keys and values, masked (engine/served.mask_fields): the last step
    before any front end serializes it."""
    from ..engine.served import mask_fields

    masked = mask_fields(answer)
    assert isinstance(masked, dict)
    return masked


def mask_error(text: str) -> str:
    """An error line for a caller: every known secret and key shape masked, `key: value` wording too."""
    from ..engine.scrub import mask_output, scrub

    return mask_output(scrub(text))


def _stamp(path: Path | None) -> tuple[int, int] | None:
    if path is None:
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)
