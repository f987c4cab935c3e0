"""What an agent's answer waits for (core/tools.py Freshness): never the embedding, never the agent's own
conversation; after a cold start over an index synced before, the first answer is complete at once.

The provider's batch embedding blocks on an event the test holds, so "the answer did not wait for it"
is a fact the test controls, not a timing."""

from __future__ import annotations

import threading
from dataclasses import replace

import pytest

from openclaw_memtui.cli.parser import build_parser
from openclaw_memtui.core.caller import Caller
from openclaw_memtui.core.config import validate
from openclaw_memtui.core.session import SessionOptions, open_session
from openclaw_memtui.core.tools import MemoryTools

from .app_helpers import SeededProvider, use_provider
from .helpers import transcript, write


class HeldProvider(SeededProvider):
    """Embeds queries at once; batches (a sync's embedding) only once `release` is set."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.batches_waiting = threading.Event()

    def embed_batch(self, texts):
        self.batches_waiting.set()
        assert self.release.wait(60), "the test never released the embedding"
        return super().embed_batch(texts)


@pytest.fixture
def ws(tmp_path):
    ws = tmp_path / "ws"
    write(ws / "MEMORY.md", "# Memory\n- The heron survey runs every spring.\n")
    transcript(ws / "sessions" / "now.jsonl", [("user", "what about the heron survey?"), ("assistant", "Looking.")])
    return ws


def tools_over(ws, tmp_path, provider) -> MemoryTools:
    args = build_parser().parse_args(["mcp", "--workspace", str(ws), "--db", str(tmp_path / "i.sqlite")])
    cfg = validate({"sources": ["memory", "sessions"], "sessionsDir": str(ws / "sessions")})
    session = open_session(SessionOptions.from_args(args), cfg)
    use_provider(session.index, provider)
    return MemoryTools(args, session, sync_wait=60.0, embed_wait=60.0)


def synced_before(ws, tmp_path) -> None:
    """The index as a previous serve left it: every chunk indexed and embedded."""
    tools = tools_over(ws, tmp_path, SeededProvider())
    try:
        tools.session.index.sync()
    finally:
        tools.close()


def test_a_cold_start_answers_at_once_and_in_full_while_the_conversation_syncs_behind(ws, tmp_path):
    synced_before(ws, tmp_path)
    # the agent's conversation grew since (as it does every turn): the sync must not hold the answer up
    transcript(ws / "sessions" / "now.jsonl", [("user", "what about the heron survey?"), ("assistant", "Looking."),
                                               ("user", "and the heron survey budget?")])
    provider = HeldProvider()
    tools = tools_over(ws, tmp_path, provider)
    try:
        answer = tools.call("memory_search", {"query": "heron survey"}, Caller("mcp"))
        assert answer["mode"] == "hybrid" and answer["warnings"] == []  # complete: no "still syncing", no "filling in"
        assert tools.freshness.waited == 0
        assert answer["results"] and not any(r["breakdown"]["vectorMissing"] for r in answer["results"])
        assert provider.batches_waiting.wait(60)  # the background sync reached the embedding of the new turn
        again = tools.call("memory_search", {"query": "heron survey"}, Caller("mcp"))  # while it embeds
        assert again["warnings"] == [] or any(r["breakdown"]["vectorMissing"] for r in again["results"])
    finally:
        provider.release.set()
        tools.close()


def test_a_changed_note_is_found_at_once_without_waiting_for_its_vectors(ws, tmp_path):
    synced_before(ws, tmp_path)
    provider = HeldProvider()
    tools = tools_over(ws, tmp_path, provider)
    try:
        write(ws / "memory" / "2026-12-01.md", "# Today\n- The egret census moved to Friday.\n")
        answer = tools.call("memory_search", {"query": "egret census"}, Caller("mcp"))
        # answered while the embedding of that very note is still held: the wait ended at its keyword rows
        assert not provider.release.is_set()
        assert answer["results"][0]["path"] == "memory/2026-12-01.md"
        assert answer["results"][0]["breakdown"]["vectorMissing"] is True  # scored on keywords, and said so
        assert any(w.startswith("vectors still filling in") for w in answer["warnings"])
        assert tools.freshness.waited == 1
    finally:
        provider.release.set()
        tools.close()


def test_an_index_never_built_is_built_before_the_first_answer(ws, tmp_path):
    tools = tools_over(ws, tmp_path, SeededProvider())
    try:
        answer = tools.call("memory_search", {"query": "heron survey"}, Caller("mcp"))
        assert answer["results"] and answer["warnings"] == [] and tools.freshness.waited == 1
    finally:
        tools.close()


def test_notes_changed_looks_at_notes_only(ws, tmp_path):
    from openclaw_memtui.engine.dirty_check import notes_changed

    synced_before(ws, tmp_path)
    tools = tools_over(ws, tmp_path, SeededProvider())
    try:
        index = tools.session.index
        assert not notes_changed(index.settings, index.reads())
        transcript(ws / "sessions" / "now.jsonl", [("user", "a new turn")])
        assert not notes_changed(index.settings, index.reads()) and index.is_dirty()
        (ws / "MEMORY.md").unlink()
        assert notes_changed(index.settings, index.reads())  # a note gone counts
        assert not notes_changed(replace(index.settings, sources=("sessions",)), index.reads())
    finally:
        tools.close()


def test_an_index_deleted_under_the_server_waits_for_its_rebuild_even_while_a_sync_holds_the_lock(ws, tmp_path):
    """The file gone from its path while a sync holds the index's lock (so no read can recreate it yet):
    the answer waits for the sync that rebuilds it, never answers from nothing at once."""
    synced_before(ws, tmp_path)
    tools = tools_over(ws, tmp_path, SeededProvider())
    try:
        index = tools.session.index
        assert tools.freshness.must_wait() == ""  # synced before, nothing changed: answered as it is
        for f in tmp_path.glob("i.sqlite*"):
            f.unlink()
        with index._sync_lock:  # a sync of this process is running
            assert tools.freshness.must_wait() == "sync"
    finally:
        tools.close()


def test_a_server_resumes_the_embedding_a_cancelled_sync_left(ws, tmp_path):
    """One rule for when to sync (MemoryIndex.needs_sync): chunks left without a vector are synced by a
    server too, not only by the app at launch; before, a server served without them until a file changed."""
    tools = tools_over(ws, tmp_path, SeededProvider())
    try:
        tools.session.index.sync(embed=False)  # keyword rows only: as a sync cancelled while embedding leaves it
        assert tools.session.index.unembedded() > 0 and not tools.session.index.is_dirty()
    finally:
        tools.close()
    provider = HeldProvider()
    tools = tools_over(ws, tmp_path, provider)
    try:
        tools.call("memory_search", {"query": "heron survey"}, Caller("mcp"))
        assert tools.freshness.waited == 0  # answered at once: the answer never waits on embedding
        assert provider.batches_waiting.wait(60)  # and the server's background sync embeds what was left
    finally:
        provider.release.set()
        tools.close()


def test_an_index_made_anew_by_another_thread_still_waits_for_its_rebuild(ws, tmp_path):
    """Under load the sync thread's read may make the deleted file anew (empty) before the answer's own
    check runs, while the answer's thread still reads the deleted file through its old connection (an inode
    number is often reused): "not empty" is no proof then. The index says it awaits a rebuild until a sync
    has filled it, whichever thread made it anew."""
    synced_before(ws, tmp_path)
    tools = tools_over(ws, tmp_path, SeededProvider())
    try:
        index = tools.session.index
        assert not index.file_gone()
        for f in tmp_path.glob("i.sqlite*"):
            f.unlink()
        other = threading.Thread(target=lambda: index.reads().is_empty())  # makes the file anew, empty
        other.start()
        other.join()
        assert any(tmp_path.glob("i.sqlite")) and index.file_gone()  # there again, but not filled yet
        assert tools.freshness.must_wait() == "sync"
        index.sync()
        assert not index.file_gone() and tools.freshness.must_wait() == ""
    finally:
        tools.close()
