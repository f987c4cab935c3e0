"""The agent's own searches in the app: the Agent searches screen, OpenClaw's hits marked, its scores shown.

Mixed into `MemtuiApp` (app.py only calls the hooks). The searches are read in a worker at launch and
after each sync (`interop.recalls`, read-only), with the memtui chunks at OpenClaw's hits looked up
there too, so the event loop never touches a database. Whenever the query on screen is one the agent
asked, `with_openclaw_hits` adds the hits OpenClaw returned that memtui ranks nowhere (rank 0, shown
"#—") so they can be judged like any result, and `openclaw_marks` gives the result list its ◆ marks.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from textual import work
from textual.message import Message

from ..engine.search.rank import Pool, Result, rank
from ..engine.store.reader import ChunkRow
from ..errors import describe
from ..interop.recall_compare import compare
from ..interop.recalls import Recall, RecallHit, RecallSet, normalize_query
from ..render import safe
from .screens.agent_searches import OPENCLAW_GLYPH, AgentSearchesScreen
from .teardown import skip_when_torn_down

if TYPE_CHECKING:
    from textual.app import App

    from ..core.gate import Gate
    from ..engine.index import MemoryIndex
    from ..engine.search.rank import SearchParams
    from ..engine.tuning.judgements import JudgementStore
    from ..interop.agents import Agent
    from .search_screen import MainScreen
    from .state import RankedResults

    class _App(App[None]):
        index: MemoryIndex
        gate: Gate
        agent: Agent | None
        params: SearchParams
        search_screen: MainScreen

        @property
        def judgement_store(self) -> JudgementStore: ...

        def key_for(self, binding_id: str) -> str: ...
        def rerank(self, track_moves: bool = True) -> None: ...
        def start_search(self) -> None: ...
else:
    _App = object

Place = tuple[str, int, int]


@dataclass
class RecallsLoaded(Message):
    found: RecallSet | None
    chunks: dict[Place, ChunkRow]
    no_judgements: bool
    error: str = ""


class AgentSearchesMixin(_App):
    recall_set: RecallSet | None = None
    _recalls_by_question: dict[str, Recall] = {}  # noqa: RUF012 - replaced whole, never mutated
    _recall_chunks: dict[Place, ChunkRow] = {}  # noqa: RUF012
    _recalls_hinted = False

    def load_recalls(self) -> None:
        if self.agent is not None:
            self._load_recalls()

    @work(thread=True, exclusive=True, group="recalls", exit_on_error=False)
    def _load_recalls(self) -> None:
        from ..core.agent_searches import agent_searches, gated
        from ..paths import openclaw_state_dir

        try:  # OpenClaw's recorded paths pass the gate too (core/gate.py): masked as memtui's results are
            found = gated(agent_searches(self.agent, self.index.settings.workspace, openclaw_state_dir()), self.gate)
            places = {(h.path, h.start_line, h.end_line) for r in found.recalls for h in r.hits if not h.outside}
            chunks = self.index.chunks_at(sorted(places))
            loaded = self.judgement_store.load()
        except Exception as exc:  # an unreadable OpenClaw state: said once, the app works without it
            self.post_message(RecallsLoaded(None, {}, False, describe(exc)))
            return
        self.post_message(RecallsLoaded(found, chunks, all(j.is_empty() for j in loaded.judgements)))

    @skip_when_torn_down
    def on_recalls_loaded(self, message: RecallsLoaded) -> None:
        if message.error:
            self.notify(f"The agent's searches could not be read: {safe(message.error, False)}", severity="warning",
                        markup=False, timeout=8)
            return
        self.recall_set = message.found
        self._recalls_by_question = message.found.by_question() if message.found is not None else {}
        self._recall_chunks = message.chunks
        for screen in self.screen_stack:
            if isinstance(screen, AgentSearchesScreen):
                screen.show(message.found)
        found = message.found
        if found is not None and found.recalls and message.no_judgements and not self._recalls_hinted:
            self._recalls_hinted = True  # the first-run hint: once per app
            asked = sum(len(r.timestamps) for r in found.recalls)
            queries = f"{len(found.recalls)} {'query' if len(found.recalls) == 1 else 'queries'}"
            self.notify(f"Your agent searched its memory {asked}× ({queries}): {self.key_for('agent_searches')} "
                        "(Agent searches) lists them, to judge what OpenClaw gave it and tune on its real questions",
                        markup=False, timeout=12)
        self.rerank(track_moves=False)  # the query on screen may be one of them: mark OpenClaw's hits

    # -- on the main screen ---------------------------------------------------------------------------
    def recall_for(self, query: str) -> Recall | None:
        """The agent's search of this query when OpenClaw answered it (its hits get the ◆ marks);
        None when memtui answered it: memtui's answers are never marked as OpenClaw's."""
        recall = self._recalls_by_question.get(normalize_query(query))
        return recall if recall is not None and recall.engine == "openclaw" else None

    def with_openclaw_hits(self, pool: Pool, results: tuple[Result, ...], params: SearchParams) -> tuple[Result, ...]:
        """`results`, then the hits OpenClaw returned for this query that they lack (rank 0): memtui's
        scores when the chunk is in the pool below the cut, else the chunk with no score."""
        recall = self.recall_for(pool.query)
        if recall is None:
            return results
        missing = [c for c in compare(recall.hits, results) if c.found == "openclaw" and not c.outside]
        if not missing:
            return results
        full = {(r.path, r.start_line, r.end_line): r for r in rank(pool, replace(
            params, min_score=0.0, max_results=max(1, len(pool.candidates))))}
        extras = []
        for c in missing:
            place = (c.path, c.start_line, c.end_line)
            ranked = full.get(place)
            if ranked is not None:
                extras.append(replace(ranked, rank=0))
                continue
            chunk = self._recall_chunks.get(place)
            if chunk is not None:  # not in memtui's pool at all; its text is memtui's own chunk
                # shown through the gate, as every result is (core/gate.py)
                extras.append(Result(chunk.path, chunk.start_line, chunk.end_line, chunk.source,
                                     self.gate.chunk_text(chunk.text, chunk.source), 0.0,
                                     None, 0.0, 0.0, 1.0, None, 0, 0, id=chunk.id))
        return results + tuple(extras)

    def openclaw_marks(self, ranked: RankedResults) -> dict[str, str]:
        """Result id → "◆2": OpenClaw returned it, at that rank, for the query on screen."""
        pool = ranked.pool
        recall = self.recall_for(pool.query) if pool is not None else None
        if recall is None:
            return {}
        marks = {}
        for r in ranked.results:
            found = recall.hit_for(r.path, r.start_line, r.end_line)
            if found is not None:
                marks[r.id] = f"{OPENCLAW_GLYPH}{found[0]}"
        return marks

    def openclaw_hit(self, result: Result, pool: Pool) -> tuple[int, RecallHit, Recall] | None:
        """OpenClaw's rank and hit for this result, for the score pane."""
        recall = self.recall_for(pool.query)
        found = recall.hit_for(result.path, result.start_line, result.end_line) if recall is not None else None
        return (found[0], found[1], recall) if found is not None and recall is not None else None

    # -- the screen ----------------------------------------------------------------------------------------
    def action_agent_searches(self) -> None:
        if self.agent is None:
            self.notify("Agent searches need an OpenClaw agent: start memtui with --agent ID", markup=False, timeout=4)
            return
        if any(isinstance(s, AgentSearchesScreen) for s in self.screen_stack):
            return
        keys = f"{self.key_for('results.mark_relevant')} / {self.key_for('results.mark_not_relevant')}"
        self.push_screen(AgentSearchesScreen(self.agent.id, self.recall_set, keys), self._run_agent_search)
        self.load_recalls()  # searches the agent ran since the app started

    def _run_agent_search(self, query: str | None) -> None:
        if not query:
            return
        from textual.widgets import Input

        screen = self.search_screen
        box = screen.query_one("#query", Input)
        screen.searches.focus_when_answered(screen.search_generation + 1)  # the search the change starts
        if box.value == query:
            screen.start_search()
        box.value = query
