"""The Textual app: what is app-wide around the screens.

The search screen (search_screen.py) owns the query, the results, reranking, tuning, judging, the agent's
searches and their keys; each other screen owns its keys too. The app keeps what is app-wide: the index,
the config, themes, the keymap, sync and the watcher (a `SyncControl` it holds, sync_control.py), help,
the status screen, the palette and quitting; it tells the search screen when the index changed in a
message. Widgets render what is set on them, panels post typed messages, and every call into the index
runs in a thread worker that answers with a message from `messages.py`.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import events, work
from textual.actions import SkipAction
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.command import CommandPalette
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Input
from textual.worker import Worker

from ..engine.index import MemoryIndex
from ..engine.models import SyncProgress, SyncReport
from ..engine.search.rank import SearchParams
from ..engine.settings import DEFAULT_SEARCH_PARAMS
from ..errors import crash_report
from ..render import safe
from . import theme_picker
from .clipboard import copy_and_tell
from .editor import run_suspended
from .header import workspace_subtitle
from .keys import checked_keymap, key_for
from .messages import AgentReread, FilesChanged, IndexChecked, SyncFinished, SyncProgressed
from .quit import DaemonThreads
from .screens.agent_picker import AgentPickerScreen
from .screens.agent_searches import AgentSearchesScreen
from .screens.confirm_quit import ConfirmQuitScreen, quit_needs_asking
from .screens.file_view import FileScreen
from .screens.help import HelpScreen, open_help
from .screens.suggest import SuggestScreen
from .screens.sync import SyncScreen
from .search_screen import VECTORS_FOLLOW, MainScreen
from .settings_actions import Outcome
from .state import SyncState
from .sync_control import SyncControl
from .teardown import skip_when_torn_down
from .themes import install_themes
from .widgets.info_bar import working_label
from .widgets.query_input import HistoryInput
from .widgets.result_list import ResultList
from .widgets.slider import Slider

if TYPE_CHECKING:
    from ..core.config_types import AppConfig
    from ..core.session import Session
    from ..engine.tuning.judgements import JudgementStore
    from ..interop.agents import Agent

__all__ = ["VECTORS_FOLLOW", "MemtuiApp"]

OPENCLAW_CONFIG_CHECK_S = 2.0  # how often OpenClaw's config is stat-ed for a change made outside the app


def openclaw_config_stamp() -> tuple[int, int, int] | None:
    """(inode, size, mtime) of OpenClaw's config, None when there is none: what changes when it is rewritten."""
    import os

    from ..interop.agents import config_path

    path = config_path()
    try:
        st = os.stat(path) if path is not None else None
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns) if st is not None else None


class MemtuiApp(App[None]):
    CSS_PATH = Path(__file__).with_name("app.tcss")  # absolute, so subclasses elsewhere still find it
    TITLE = "memtui"
    BINDINGS = [
        Binding("f1", "help", "Help", id="help"),
        # priority: from the list, the file view or an empty query box (a query may hold a "?": typed there)
        Binding("question_mark", "help('key')", "Help", show=False, priority=True, id="help_key"),
        Binding("ctrl+r", "sync", "Sync", id="sync"),
        Binding("ctrl+g", "cancel_sync", "Cancel", id="cancel_sync"),  # in the footer only while a sync runs
        Binding("f2", "sync_screen", "Status", id="sync_screen"),
        # k9s's ":": another agent's memory; priority, and only where nothing is being typed (as "?")
        Binding("colon", "switch_agent('key')", "Switch agent", show=False, priority=True, id="switch_agent"),
        # the search screen's settings, exported from any screen; priority: the query input binds ctrl+e (end of line)
        # and would swallow it
        Binding("ctrl+e", "export_settings", "Export settings", show=False, priority=True, id="export_settings"),
        # priority: also while help or another modal screen is open (Textual's own ctrl+q is too)
        Binding("ctrl+q", "quit", "Quit", priority=True, id="quit"),
    ]

    sync_state: reactive[SyncState] = reactive(SyncState, init=False)
    # what runs in the background, for the info line ("" when nothing does): see _refresh_working
    working: reactive[str] = reactive("", init=False)

    def __init__(self, index: MemoryIndex, cfg: AppConfig, *, origin: str = "", agent: Agent | None = None,
                 now_ms: float | None = None, config_path: Path | None = None, watch: bool = True,
                 initial_query: str = "", params: SearchParams | None = None,
                 theme_dirs: list[Path] | None = None, judgements: JudgementStore | None = None) -> None:
        super().__init__()
        self.index = index
        self.cfg = cfg
        self.origin = origin
        self.agent = agent  # the OpenClaw agent this workspace belongs to (--agent), if any
        from ..core.gate import Gate

        self.gate = Gate(index, agent.id if agent is not None else None)  # what every search shows passes it
        self.fixed_now_ms = now_ms
        self.config_path = config_path
        self.enable_watch = watch
        self.initial_query = initial_query
        self.theme_dirs = theme_dirs
        self.default_params = params or DEFAULT_SEARCH_PARAMS  # as the CLI and the config rank
        if judgements is None:
            from ..engine.tuning.judgements import JudgementStore, judgements_path

            judgements = JudgementStore(judgements_path(index.settings.db_path))
        # the default screen, made now so what tests and scripts set before the app runs reaches it
        self.search_screen = MainScreen(self.default_params, judgements, self.default_params)
        self.crash_report = ""  # what stderr says after an unexpected error ended the app (_fatal_error)
        self.switch_to: str | None = None  # the agent picked in Switch agent: the app ends and launch.py opens it
        self._openclaw_stamp: tuple[int, int, int] | None = None  # OpenClaw's config as last seen (with an agent)
        self.syncs = SyncControl(self)  # the launch check, syncs, their progress and the watcher
        keys = cfg.tui.keys
        self._key_errors: list[str] = []
        if keys:
            # a remap that takes another binding's key is refused (ctrl+q for tuning took Quit away)
            palette = Binding(self.COMMAND_PALETTE_BINDING, "command_palette", "Command palette", id="command_palette")
            accepted, self._key_errors = checked_keymap(dict(keys), [*self.BINDINGS, palette], self._binding_scopes())
            self.set_keymap(accepted)
        # Before the app runs: choosing a theme later re-parses every stylesheet (~100 ms at launch)
        self.theme_choice = theme_picker.ThemeChoice(config_path)
        self._theme_errors = self._install_themes()
        # The vector matrix saved beside the index is mapped while Textual starts (mostly a checksum of
        # the file, 0.3-0.7 s at 1M chunks, that releases the GIL), so the first search finds it in memory
        threading.Thread(target=self._map_saved_vectors, name="memtui-map-vectors", daemon=True).start()

    @classmethod
    def from_session(cls, session: Session, **options: Any) -> MemtuiApp:
        """The app over an opened session (see `session.open_session`); `options` as for __init__."""
        options.setdefault("judgements", session.judgements())
        return cls(session.index, session.cfg, origin=session.origin, agent=session.agent, **options)

    @property
    def sync_running(self) -> bool:
        """True until the launch check answered and while a sync runs."""
        return self.sync_state.busy

    @property
    def sync_progress(self) -> SyncProgress | None:
        return self.sync_state.progress

    @property
    def last_report(self) -> SyncReport | None:
        return self.sync_state.last_report

    # -- layout ------------------------------------------------------------------------------------
    def get_default_screen(self) -> Screen[Any]:
        return self.search_screen

    def compose(self) -> ComposeResult:
        yield from self.search_screen.widgets()  # into the default screen, before on_mount (search_screen.py)

    def on_resize(self, event: events.Resize) -> None:
        self._show_workspace(event.size.width)

    def _show_workspace(self, width: int) -> None:
        self.sub_title = workspace_subtitle(self.title, self.origin, self.agent, self.index, width)

    def _fatal_error(self) -> None:
        """An unexpected error ends the app as it ends a command: `crash_report` (one scrubbed line, or
        with MEMTUI_DEBUG=1 the scrubbed traceback), which run_tui writes once the terminal is back.
        Textual's own report (this hook is Textual's, and private) is a Rich traceback with every
        frame's locals, printed raw: a key an exception or a provider holds, a note's escape
        sequences; and Rich would wrap or crop the line at the console's width."""
        self.bell()
        error = sys.exc_info()[1] or self._exception  # called while the error is handled
        if error is not None and not self.crash_report:
            self.crash_report = crash_report(error)
        self._close_messages_no_wait()

    def on_mount(self) -> None:
        # ctrl+q must not wait for a thread worker: the loop's executor abandons them (quit.py)
        self.executor = DaemonThreads()
        asyncio.get_running_loop().set_default_executor(self.executor)
        self._warm_up_model()
        # Sync and search run in threads; a shorter GIL switch interval (default 5 ms) hands the
        # event loop its turn sooner, so typing stays smooth while a long sync runs.
        sys.setswitchinterval(0.001)
        for error in self._theme_errors:
            self.notify(safe(error, False) + " — using the built-in themes", severity="error", markup=False, timeout=8)
        self._show_workspace(self.size.width)
        for binding_id in self.cfg.tui.keys:
            if binding_id not in self._binding_ids():
                self.notify(f"tui.keys: no binding with id '{safe(binding_id, one_line=True)}'", severity="warning", markup=False)
        for error in self._key_errors:
            self.notify(safe(error, one_line=True), severity="warning", markup=False, timeout=10)
        for notice in self.index.notices:
            self.notify(safe(notice, False), severity="warning", markup=False, timeout=10)
        if self.enable_watch:
            self.syncs.start_watcher()
        if self.agent is not None:  # `memtui connect` in another terminal, memory search turned off: said here too
            self._openclaw_stamp = openclaw_config_stamp()
            self.set_interval(OPENCLAW_CONFIG_CHECK_S, self._check_openclaw_config)
        # the search screen, once composed, focuses the query and starts the launch check (search_screen.py)

    @work(thread=True, exclusive=True, group="model", exit_on_error=False)
    def _warm_up_model(self) -> None:
        """Load the local model from the start, so the first query's vector does not wait for it (its keyword
        results do not wait at all). Not at a lower priority: on a busy machine the OS left such a thread
        holding the GIL unscheduled, and the event loop and the search waited behind it."""
        self.index.warm_up_model()

    # -- OpenClaw's config, read again when it changes ---------------------------------------------------
    def _check_openclaw_config(self) -> None:
        """A stat of OpenClaw's config every few seconds (microseconds); the agent is read again, in a worker,
        only when the file changed."""
        stamp = openclaw_config_stamp()
        if stamp != self._openclaw_stamp:
            self._openclaw_stamp = stamp
            self._reread_agent()

    @work(thread=True, exclusive=True, group="agent", exit_on_error=False)
    def _reread_agent(self) -> None:
        from ..interop.agents import reread_agent

        if self.agent is not None:
            self.post_message(AgentReread(reread_agent(self.agent)))

    def on_agent_reread(self, message: AgentReread) -> None:
        """The agent as OpenClaw's config says it now: the header says it, and an open status screen reads again."""
        if message.agent == self.agent:
            return
        self.agent = message.agent
        self._show_workspace(self.size.width)  # "[connected to OpenClaw]", "[OpenClaw memory search off]"
        for screen in self.screen_stack:
            if isinstance(screen, SyncScreen) and screen.agent != message.agent:
                screen.agent = message.agent
                screen.load_status()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        self.refresh_working()

    def refresh_working(self) -> None:
        """Name what runs in the background (the app's and its screens' workers) on the info line."""
        self.working = working_label(worker.group for worker in self.workers if worker.is_running)

    # -- themes --------------------------------------------------------------------------------------
    def _install_themes(self) -> list[str]:
        """Register the bundled and user themes, choose the configured one; return the errors to toast."""
        errors, self.theme = install_themes(self, self.cfg.tui.theme or "memtui-dark", self.theme_dirs)
        self._saved_theme = self.theme
        return errors

    def watch_theme(self, theme: str) -> None:
        """A theme set outside the picker's preview is kept: written to the config's `tui.theme`."""
        if not self.theme_choice.previewing:
            self._keep_theme(theme)

    def _keep_theme(self, theme: str) -> None:
        saved = getattr(self, "_saved_theme", None)
        if saved is None or theme == saved or not self.is_running:
            return
        self._saved_theme = theme
        self.tell(self.theme_choice.keep(theme))

    def search_themes(self) -> None:
        """The theme picker previews the highlighted theme; only a confirmed one is written (theme_picker.py)."""
        theme_picker.open_picker(self, self.theme_choice)

    def confirm_theme(self, theme: str) -> None:
        self.theme_choice.close()
        self.theme = theme
        self._keep_theme(theme)

    def on_command_palette_option_highlighted(self, event: CommandPalette.OptionHighlighted) -> None:
        theme_picker.previewed(self, self.theme_choice, event)

    def on_command_palette_closed(self, event: CommandPalette.Closed) -> None:
        theme_picker.closed(self, self.theme_choice, event)

    # -- keys ------------------------------------------------------------------------------------------
    @staticmethod
    def _binding_scopes() -> list[list[Any]]:
        """The bindings of each screen and widget besides the app's own: the ids tui.keys may remap. The
        search screen's keys answer on its widgets too, so each of its widgets is checked with them."""
        home = list(MainScreen.BINDINGS)
        return [list(cls.BINDINGS) for cls in (SyncScreen, FileScreen, HelpScreen, SuggestScreen, AgentSearchesScreen,
                                                ConfirmQuitScreen, AgentPickerScreen)] + [home + list(cls.BINDINGS) for cls in
                                                                       (ResultList, Slider, HistoryInput)]

    def _binding_ids(self) -> set[str]:
        ids = {b.id for b in self.BINDINGS if isinstance(b, Binding) and b.id}
        for scope in self._binding_scopes():  # the result list's too: results.mark_relevant was "no binding with id"
            ids |= {b.id for b in scope if isinstance(b, Binding) and b.id}
        return ids

    def key_for(self, binding_id: str) -> str:
        """The first key of the binding `binding_id` (the app's, the search screen's or the result list's) after
        the config's remap (tui.keys), spelled for prose (`ctrl+t`, `f5`, `+`), so text that names a key names
        the one that works."""
        return key_for(self, (*self.BINDINGS, *MainScreen.BINDINGS, *ResultList.BINDINGS), binding_id)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Keep the footer to what applies now: it must fit 80 columns."""
        if action == "cancel_sync":
            return self.sync_state.running
        if action == "sync_screen":
            return self.screen is self.screen_stack[0] if self.screen_stack else True
        return True

    def refresh_footer(self) -> None:
        if self.screen_stack:  # none left while the app shuts down
            self.refresh_bindings()

    def now_ms(self) -> float:
        return self.fixed_now_ms if self.fixed_now_ms is not None else time.time() * 1000

    # -- sync: the held SyncControl's workers answer the app ----------------------------------------
    def action_sync(self, force: bool = False) -> None:
        self.syncs.start(force)

    def action_cancel_sync(self) -> None:
        self.syncs.cancel()

    def watch_sync_state(self, state: SyncState) -> None:
        self.refresh_footer()  # "Cancel" shows in the footer while a sync runs
        for screen in self.screen_stack:
            if isinstance(screen, SyncScreen):
                screen.sync_state = state

    def on_index_checked(self, message: IndexChecked) -> None:
        self.syncs.index_checked(message)

    @skip_when_torn_down
    def on_sync_progressed(self, message: SyncProgressed) -> None:
        self.syncs.progressed(message)

    @skip_when_torn_down
    def on_sync_finished(self, message: SyncFinished) -> None:
        self.syncs.finished(message)

    def on_files_changed(self, message: FilesChanged) -> None:
        self.syncs.files_changed(message)

    def on_unmount(self) -> None:
        self.syncs.stop()

    # -- settings --------------------------------------------------------------------------------------
    def action_export_settings(self) -> None:
        """The search screen's settings, exported from wherever the key is pressed."""
        self.search_screen.export_tuned(self.search_screen.params)

    def tell(self, outcome: Outcome) -> None:
        """Say a settings action's outcome: its toasts, and where its clipboard copy went."""
        if outcome.clipboard is not None:  # said in a toast of its own: where it went, or that it went nowhere
            copy_and_tell(self, outcome.clipboard, "The settings block")
        for toast in outcome.toasts:
            self.notify(toast.text, severity=toast.severity, timeout=toast.timeout, markup=False)

    def deliver_screenshot(self, filename: str | None = None, path: str | None = None,
                           time_format: str | None = None) -> str | None:
        """The palette's Screenshot (and action_screenshot), saved where it can be (tui/screenshot.py)
        and said in a toast: Textual's own fails without ~/Downloads. Returns the file's path."""
        from .screenshot import deliver_screenshot

        return deliver_screenshot(self, filename, path, time_format)

    # -- other actions ---------------------------------------------------------------------------
    async def action_quit(self) -> None:
        """Quit now, whatever runs: nothing waits for a worker (quit.py). A sync is cancelled; what it had
        not embedded is embedded at the next start, so say so."""
        if quit_needs_asking(self):  # settings applied but unsaved: say which first (screens/confirm_quit.py)
            return
        if not self.sync_state.running:
            self.exit()
            return
        self.syncs.cancel_event.set()
        self.exit(message=Text("memtui: quit during a sync; the notes it had not embedded are embedded at the next start"))

    def action_help(self, how: str = "") -> None:
        """Help; `?` (how "key") only where it is not being typed: any text box but an empty query."""
        focused = self.focused
        if how == "key" and isinstance(focused, Input) and (focused.id != "query" or focused.value):
            raise SkipAction()  # the key goes on to the text box
        if isinstance(self.screen, HelpScreen):
            self.pop_screen()  # ? again closes it (the priority binding answers before help's own)
        else:
            open_help(self)

    def action_switch_agent(self, how: str = "") -> None:
        """Switch agent: pick another OpenClaw agent; its index and settings then open in this app's place."""
        focused = self.focused
        if how == "key" and isinstance(focused, Input) and (focused.id != "query" or focused.value):
            raise SkipAction()  # ":" goes on to the text box
        if any(isinstance(s, AgentPickerScreen) for s in self.screen_stack):
            return
        self.push_screen(AgentPickerScreen(self.agent.id if self.agent is not None else None), self._agent_picked)

    def _agent_picked(self, agent_id: str | None) -> None:
        if agent_id is None:
            return
        if self.agent is not None and agent_id == self.agent.id:
            self.notify(f"Agent {safe(agent_id, one_line=True)} is open already", markup=False, timeout=3)
            return
        if self.sync_state.running:  # its writes would go on under a closed index
            self.notify(f"A sync is running: wait for it, or cancel it ({self.key_for('cancel_sync')}), then switch",
                        severity="warning", markup=False, timeout=6)
            return
        from .screens.confirm_quit import unsaved_changes

        search = self.search_screen
        if unsaved_changes(search.judging.saved_params, search.params):  # switching would drop them
            self.notify("Ranking settings applied but not saved: save them (palette: Save settings) or Reset them, "
                        "then switch", severity="warning", markup=False, timeout=8)
            return
        self.switch_to = agent_id
        self.exit()

    def action_sync_screen(self) -> None:
        """Open the status screen at once; it reads its counts in a worker as it mounts (~25 ms at 1M
        chunks), so the read and the screen's compose overlap instead of running one after the other."""
        if any(isinstance(s, SyncScreen) for s in self.screen_stack):
            # one status screen (f2 f2); asked from a screen over it (the palette's "Sync status" on help): back to it
            while not isinstance(self.screen, SyncScreen):
                self.pop_screen()
            return
        self.push_screen(SyncScreen(self.index, self.origin, self.agent, self.sync_state))

    def run_editor(self, command: list[str]) -> int:
        """Run the editor in the terminal, the app suspended meanwhile; its exit status (editor.py)."""
        return run_suspended(self, command)

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        keyed = self.keyed_help
        yield SystemCommand("Sync now", keyed("Index changed memory files", "sync"), self.action_sync)
        yield SystemCommand("Full rebuild", "Rebuild the whole index atomically", lambda: self.action_sync(True))
        yield SystemCommand("Cancel sync", keyed("Stop the running sync between batches", "cancel_sync"),
                            self.action_cancel_sync)
        yield SystemCommand("Sync status", keyed("Index, provider, watcher and skipped files", "sync_screen"),
                            self.action_sync_screen)
        yield SystemCommand("Switch agent", keyed("Open another OpenClaw agent's memory, as `memtui agents` lists them",
                                                  "switch_agent"), self.action_switch_agent)
        yield from self.search_screen.system_commands()  # presets, settings, agent searches, copy

    def keyed_help(self, text: str, binding_id: str) -> str:
        """A palette command's help line with its key as remapped, as Posting's palette shows it."""
        return f"{text}  · key: {self.key_for(binding_id)}"

    def _map_saved_vectors(self) -> None:
        """Map in the vector matrix saved beside the index (a thread started before the app runs);
        without a current one, searches use sqlite-vec until the warm-up after the first results."""
        with contextlib.suppress(Exception):  # a closed or unreadable index: the first search says so
            self.index.map_saved_vectors()
