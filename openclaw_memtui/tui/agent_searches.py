"""The agent's own searches on the search screen: the Agent searches screen, OpenClaw's hits marked, its scores shown.

`AgentSearches` is an object the search screen holds (search_screen.py), not a mixin. The searches are read
in a worker on the screen at launch and after each sync (`interop.recalls`, read-only), with the memtui
chunks at OpenClaw's hits looked up there too, so the event loop never touches a database. Whenever the
query on screen is one the agent asked, `with_openclaw_hits` adds the hits OpenClaw returned that memtui
ranks nowhere (rank 0, shown "#—") so they can be judged like any result, and `openclaw_marks` gives the
result list its ◆ marks.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from textual.message import Message

from ..engine.search.rank import Pool, Result, rank
from ..engine.store.reader import ChunkRow
from ..errors import describe
from ..interop.recall_compare import compare
from ..interop.recalls import Recall, RecallHit, RecallSet, normalize_query
from ..render import safe
from .screens.agent_searches import OPENCLAW_GLYPH, AgentSearchesScreen

if TYPE_CHECKING:
    from ..engine.index import MemoryIndex
    from ..engine.search.rank import SearchParams
    from .search_screen import MainScreen
    from .state import RankedResults

Place = tuple[str, int, int]


@dataclass
class RecallsLoaded(Message):
    found: RecallSet | None
    chunks: dict[Place, ChunkRow]
    no_judgements: bool
    error: str = ""
    titles: dict[str, str] = field(default_factory=dict)  # session id → its first user line (who asked)


def asked_in(found: RecallSet, index: MemoryIndex) -> dict[str, str]:
    """Session id → the first user line of the conversation each search was asked in (a transcript's
    memory_search call), as the result list names transcripts; ids whose transcript has no title are left out."""
    prefix = index.settings.sessions_prefix
    sessions = {e.session for r in found.recalls for e in r.events if e.session}
    paths = {f"{prefix}/{session}.jsonl": session for session in sessions}
    return {paths[path]: title for path, title in index.session_titles(sorted(paths)).items() if path in paths}


class AgentSearches:
    """The agent's searches, read for one search screen, and what they add to its results."""

    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self.recall_set: RecallSet | None = None
        self.titles: dict[str, str] = {}  # session id → its first user line: the conversation a search was asked in
        self._by_question: dict[str, Recall] = {}
        self._chunks: dict[Place, ChunkRow] = {}
        self._hinted = False  # the first-run hint: once per app

    def load(self) -> None:
        if self.screen.memtui.agent is not None:
            self.screen.run_worker(self._load, thread=True, exclusive=True, group="recalls", exit_on_error=False)

    def _load(self) -> None:
        from ..core.agent_searches import agent_searches, gated
        from ..paths import openclaw_state_dir

        app = self.screen.memtui
        assert app.agent is not None
        try:  # OpenClaw's recorded paths pass the gate too (core/gate.py): masked as memtui's results are
            found = gated(agent_searches(app.agent, app.index.settings.workspace, openclaw_state_dir()), app.gate)
            places = {(h.path, h.start_line, h.end_line) for r in found.recalls for h in r.hits if not h.outside}
            chunks = app.index.chunks_at(sorted(places))
            titles = asked_in(found, app.index)
            loaded = self.screen.judging.judgement_store.load()
        except Exception as exc:  # an unreadable OpenClaw state: said once, the app works without it
            self.screen.post_message(RecallsLoaded(None, {}, False, describe(exc)))
            return
        self.screen.post_message(RecallsLoaded(found, chunks, all(j.is_empty() for j in loaded.judgements),
                                               titles=titles))

    def loaded(self, message: RecallsLoaded) -> None:
        screen = self.screen
        if message.error:
            screen.notify(f"The agent's searches could not be read: {safe(message.error, False)}", severity="warning",
                          markup=False, timeout=8)
            return
        self.recall_set = message.found
        self.titles = message.titles
        self._by_question = message.found.by_question() if message.found is not None else {}
        self._chunks = message.chunks
        for shown in screen.app.screen_stack:
            if isinstance(shown, AgentSearchesScreen):
                shown.show(message.found, self.titles)
        found = message.found
        if found is not None and found.recalls and message.no_judgements and not self._hinted:
            self._hinted = True
            asked = sum(len(r.timestamps) for r in found.recalls)
            queries = f"{len(found.recalls)} {'query' if len(found.recalls) == 1 else 'queries'}"
            screen.notify(f"Your agent searched its memory {asked}× ({queries}): {screen.memtui.key_for('agent_searches')} "
                          "(Agent searches) lists them, to judge what OpenClaw gave it and tune on its real questions",
                          markup=False, timeout=12)
        screen.rerank(track_moves=False)  # the query on screen may be one of them: mark OpenClaw's hits

    # -- on the search screen ---------------------------------------------------------------------------
    def recall_for(self, query: str) -> Recall | None:
        """The agent's search of this query when OpenClaw answered it (its hits get the ◆ marks);
        None when memtui answered it: memtui's answers are never marked as OpenClaw's."""
        recall = self._by_question.get(normalize_query(query))
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
            chunk = self._chunks.get(place)
            if chunk is not None:  # not in memtui's pool at all; its text is memtui's own chunk
                # shown through the gate, as every result is (core/gate.py)
                extras.append(Result(chunk.path, chunk.start_line, chunk.end_line, chunk.source,
                                     self.screen.memtui.gate.chunk_text(chunk.text, chunk.source), 0.0,
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
    def open(self) -> None:
        """The Agent searches screen over the search screen; a query picked there is searched here."""
        screen, app = self.screen, self.screen.memtui
        if app.agent is None:
            screen.notify("Agent searches need an OpenClaw agent: start memtui with --agent ID", markup=False, timeout=4)
            return
        if any(isinstance(s, AgentSearchesScreen) for s in app.screen_stack):
            return
        keys = f"{app.key_for('results.mark_relevant')} / {app.key_for('results.mark_not_relevant')}"
        app.push_screen(AgentSearchesScreen(app.agent.id, self.recall_set, keys, self.titles), screen.search_for)
        self.load()  # searches the agent ran since the app started
