"""Watch the memory sources and call back (debounced) when they change.

Two `watchfiles` watchers: one recursive over the memory folder, extra folders and the sessions
folder, one non-recursive over the workspace root (for MEMORY.md), so a workspace that also holds a
huge repository never costs one inotify watch per folder of it. With an OpenClaw 2026.9 agent, a
third one watches the folder of its database (and only the database and its WAL in it): a new agent
turn is a write there. If the OS refuses watches (inotify limits, network file systems) the watcher
falls back to a periodic stat scan and says so.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

from ..ingest.sources import IGNORED_DIRS, is_transcript_name, list_sources
from ..settings import IndexSettings

ChangeFn = Callable[[set[str]], None]


def _relevant(path: str) -> bool:
    parts = Path(path).parts
    if any(part in IGNORED_DIRS for part in parts):
        return False
    name = parts[-1] if parts else ""
    return name.endswith(".md") or is_transcript_name(name) or "." not in name  # folders come and go too


def _is_file_path(path: Path) -> bool:
    """An extra path naming a file: one that is, or a `.md` not created yet (its creation is watched too)."""
    return path.is_file() or (path.name.endswith(".md") and not path.exists())


class MemoryWatcher:
    def __init__(self, settings: IndexSettings, on_change: ChangeFn, force_polling: bool = False) -> None:
        self.settings = settings
        self.on_change = on_change
        self.force_polling = force_polling or bool(os.environ.get("MEMTUI_WATCH_POLL"))
        self.state = "off"
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    # -- lifecycle -----------------------------------------------------------------------------
    def start(self) -> None:
        self._stop.clear()
        if self.force_polling:
            self._start_polling("polling (forced by configuration)")
            return
        roots = self._recursive_roots()
        self.state = "watching"
        self._spawn(self._watch_loop, [p for p in roots if p.is_dir()], True)
        self._spawn(self._watch_loop, [self.settings.workspace], False)
        for folder, names in self._extra_files().items():  # its folder alone, never all below it
            self._spawn(self._watch_loop, [folder], False, lambda path, names=names: Path(path).name in names)
        db = self._transcripts_db()
        if db is not None:
            self._when_present(db.parent, self._watch_database)
        for root in roots:  # memory/ (or an extra folder) created while the app is open
            if not root.is_dir():
                self._when_present(root, lambda found: self._spawn(self._watch_loop, [found], True))

    def _watch_database(self, folder: Path) -> None:
        db = self._transcripts_db()
        assert db is not None
        names = {db.name, f"{db.name}-wal"}
        self._spawn(self._watch_loop, [folder], False, lambda path: Path(path).name in names)

    def _when_present(self, folder: Path, start: Callable[[Path], None]) -> None:
        """Start watching `folder` now, or once it appears: a new agent gets its database folder at its
        first turn, a new workspace its memory/ folder at its first note. Until then a cheap stat every
        poll interval; when it appears, a sync (whatever it already holds) and the watch."""
        if folder.is_dir():
            start(folder)
            return

        def wait() -> None:
            while not self._stop.wait(min(self.settings.poll_seconds, 1.0)):
                if folder.is_dir():
                    self.on_change({str(folder)})
                    start(folder)
                    return

        self._spawn(wait)

    def _transcripts_db(self) -> Path | None:
        s = self.settings
        return s.transcripts_db if "sessions" in s.sources and s.transcripts_db is not None else None

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=2)
        self._threads.clear()
        self.state = "off"

    def _spawn(self, target: Callable[..., object], *args: object) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True, name="memtui-watch")
        self._threads.append(thread)
        thread.start()

    def _extra_paths(self) -> list[Path]:
        s = self.settings
        paths = [Path(os.path.expanduser(raw.strip())) for raw in s.extra_paths if raw.strip()]
        return [p if p.is_absolute() else s.workspace / p for p in paths]

    def _recursive_roots(self) -> list[Path]:
        s = self.settings
        roots = [s.workspace / "memory"]
        # an extra path that is a file is watched in _extra_files: watching its folder recursively put
        # an inotify watch on every folder below it (extraPaths = ["~/notes.md"] walked all of $HOME)
        roots += [p for p in self._extra_paths() if not _is_file_path(p)]
        if "sessions" in s.sources and s.sessions_dir is not None:
            roots.append(s.sessions_dir)
        return roots

    def _extra_files(self) -> dict[Path, set[str]]:
        """Extra paths that are files, by folder: each folder is watched alone, for those names only."""
        out: dict[Path, set[str]] = {}
        for p in self._extra_paths():
            if _is_file_path(p) and p.parent.is_dir():
                out.setdefault(p.parent, set()).add(p.name)
        return out

    # -- native watching ---------------------------------------------------------------------
    def _watch_loop(self, roots: list[Path], recursive: bool, relevant: Callable[[str], bool] = _relevant) -> None:
        if not roots:
            return
        from watchfiles import watch

        try:
            for changes in watch(
                *roots,
                watch_filter=lambda _change, path: relevant(path),
                debounce=self.settings.watch_debounce_ms,
                stop_event=self._stop,
                recursive=recursive,
                raise_interrupt=False,
                yield_on_timeout=False,
            ):
                paths = {path for _change, path in changes}
                if paths:
                    self.on_change(paths)
        except Exception as exc:  # inotify limit, vanished root, unsupported FS
            if not self._stop.is_set() and not self.state.startswith("polling"):
                self._start_polling(f"polling every {self.settings.poll_seconds:g}s (file watching failed: {exc})")

    # -- fallback ------------------------------------------------------------------------------
    def _signature(self) -> dict[str, tuple[int, int]]:
        sig = {}
        for sf in list_sources(self.settings):
            if sf.stamp is not None:  # the listing's stat (a transcript in OpenClaw's database: the database's)
                sig[sf.abs_path] = (int(sf.stamp[0] * 1e6), sf.stamp[1])
                continue
            try:
                st = os.stat(sf.abs_path)
            except OSError:
                continue
            sig[str(sf.abs_path)] = (st.st_mtime_ns, st.st_size)
        return sig

    def _start_polling(self, state: str) -> None:
        self.state = state
        self._spawn(self._poll_loop)

    def _poll_loop(self) -> None:
        previous = self._signature()
        while not self._stop.wait(self.settings.poll_seconds):
            current = self._signature()
            if current != previous:
                changed = {p for p in current.keys() | previous.keys() if current.get(p) != previous.get(p)}
                previous = current
                self.on_change(changed)
