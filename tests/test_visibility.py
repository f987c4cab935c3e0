"""OpenClaw's session-visibility rule as ported in core/visibility.py, case by case (no database)."""

from __future__ import annotations

import pytest

from openclaw_memtui.core.provenance import message_origins, note_origin, transcript_provenance
from openclaw_memtui.core.visibility import Requester, effective_visibility, own_session_ids, visible_paths
from openclaw_memtui.interop.session_store import SessionEntry, SessionStore

NOW = 1_800_000_000_000.0
MAIN, ALICE, CHILD, OLD_CHILD, GHOST = "s-main", "s-alice", "s-child", "s-old", "s-ghost"
STORE = SessionStore(
    entries={
        "agent:main:main": SessionEntry("agent:main:main", MAIN, updated_at=NOW),
        "agent:main:telegram:direct:alice": SessionEntry("agent:main:telegram:direct:alice", ALICE, updated_at=NOW),
        "agent:main:subagent:a": SessionEntry("agent:main:subagent:a", CHILD, spawned_by="agent:main:telegram:direct:alice",
                                              status="running", started_at=NOW),
        # ended 40 minutes ago: OpenClaw drops the child link after 30
        "agent:main:subagent:b": SessionEntry("agent:main:subagent:b", OLD_CHILD, spawned_by="agent:main:telegram:direct:alice",
                                              status="done", ended_at=NOW - 40 * 60_000),
        "agent:main:dashboard:incognito-x": SessionEntry("agent:main:dashboard:incognito-x", GHOST, updated_at=NOW),
    },
    archives={f"{ALICE}.jsonl.reset.2026-11-01T00-00-00.000Z": (ALICE, "agent:main:telegram:direct:alice")})
ALL = {f"sessions/main/{s}.jsonl" for s in (MAIN, ALICE, CHILD, OLD_CHILD, GHOST)}


def seen(visibility: str, key: str | None, sandboxed: bool = False, paths=ALL, **cfg) -> set[str]:
    oc = {"tools": {"sessions": {"visibility": visibility}}, **cfg}
    got = visible_paths(paths, oc, Requester("main", key, sandboxed), STORE, NOW)
    return {p.rsplit("/", 1)[1].split(".jsonl")[0] for p in got}


def test_self_sees_only_its_own_session():
    assert seen("self", "agent:main:telegram:direct:alice") == {ALICE}


def test_tree_sees_what_it_spawned_while_the_link_is_live():
    assert seen("tree", "agent:main:telegram:direct:alice") == {ALICE, CHILD}


def test_the_main_session_s_tree_is_the_whole_agent_but_incognito():
    assert seen("tree", "agent:main:main") == {MAIN, ALICE, CHILD, OLD_CHILD}


@pytest.mark.parametrize("visibility", ["agent", "all"])
def test_agent_and_all_see_every_session_of_the_agent(visibility):
    # an incognito key is not in OpenClaw's combined store, so its live transcript counts as one no key
    # names: visible to agent/all as OpenClaw shows it (process-only sessions are not indexed by OpenClaw)
    assert seen(visibility, "agent:main:subagent:a") == {MAIN, ALICE, CHILD, OLD_CHILD, GHOST}


def test_a_sandboxed_run_is_clamped_to_tree():
    assert effective_visibility({"tools": {"sessions": {"visibility": "all"}}}, sandboxed=True) == "tree"
    assert effective_visibility({"tools": {"sessions": {"visibility": "self"}}}, sandboxed=True) == "tree"
    assert effective_visibility({}, sandboxed=False) == "all"  # OpenClaw's default
    sandbox_all = {"agents": {"defaults": {"sandbox": {"sessionToolsVisibility": "all"}}}}
    assert effective_visibility({"tools": {"sessions": {"visibility": "agent"}}, **sandbox_all}, sandboxed=True) == "agent"
    assert seen("all", "agent:main:subagent:a", sandboxed=True) == {CHILD}


def test_no_session_key_sees_no_transcript():
    assert seen("all", None) == set()


def test_another_agent_s_transcript_never_and_an_unknown_one_only_with_agent_or_all():
    stranger = {"sessions/research/s-main.jsonl", "sessions/main/s-nobody.jsonl"}
    assert seen("all", "agent:main:main", paths=stranger) == {"s-nobody"}
    assert seen("tree", "agent:main:main", paths=stranger) == set()


def test_an_archive_belongs_to_the_key_its_row_names():
    archive = {f"sessions/main/{ALICE}.jsonl.reset.2026-11-01T00-00-00.000Z"}
    assert seen("self", "agent:main:telegram:direct:alice", paths=archive) == {ALICE}
    assert seen("self", "agent:main:main", paths=archive) == set()


def test_the_requesting_session_is_known_by_its_key():
    assert own_session_ids(Requester("main", "agent:main:main"), STORE) == {MAIN}
    assert own_session_ids(Requester("main", None), STORE) == set()


def test_note_origin_classes_follow_openclaws_paths():
    assert [note_origin(p) for p in ("MEMORY.md", "USER.md", "memory/a/b.md", "users/dana/USER.md")] == ["agent"] * 4
    assert [note_origin(p) for p in ("DREAMS.md", "memory/dreaming/x.md", "memory/.dreams/y.md")] == ["system"] * 3
    assert [note_origin(p) for p in ("projects/plan.md", "notes.txt")] == ["untrusted"] * 2


def test_a_chunk_takes_the_least_trusted_class_of_its_lines():
    import json

    def msg(role, owner=None, internal=False, tainted=False, ts=0):
        message = {"role": role, "content": "x"}
        if owner is not None:
            message["__openclaw"] = {"senderIsOwner": owner}
        if tainted:
            message["__openclaw"] = {"turnTainted": True}
        if internal:
            message["provenance"] = {"kind": "internal_system"}
        return json.dumps({"type": "message", "timestamp": 1796076000000 + ts, "message": message})

    jsonl = "\n".join([json.dumps({"type": "session"}), msg("user", owner=True, ts=1), msg("assistant", ts=2),
                       msg("user", owner=False, ts=3), msg("assistant", ts=4), msg("user", internal=True, ts=5),
                       msg("assistant", tainted=True, ts=6)])
    origins = message_origins(jsonl)
    assert [origins[n][0] for n in range(2, 8)] == ["owner", "agent", "untrusted", "untrusted", "system", "untrusted"]
    assert transcript_provenance(origins, 2, 3, "interactive", 0) == {"originClass": "agent", "sessionKind": "interactive",
                                                                     "observedAt": 1796076000002}
    assert transcript_provenance(origins, 2, 2, "cron", 0)["originClass"] == "owner"
    assert transcript_provenance(origins, 2, 5, "interactive", 0)["originClass"] == "untrusted"
    assert transcript_provenance(origins, 6, 6, "interactive", 0)["originClass"] == "system"


def test_transcript_provenance_is_the_one_the_real_openclaw_stored():
    """OpenClaw 2026.9.6 stores each chunk's provenance (memory_index_chunk_provenance): memtui computes the
    same for the same lines of the same transcript, and the same class for every note."""
    import sqlite3
    from pathlib import Path

    from openclaw_memtui.core.provenance import session_kind
    from openclaw_memtui.engine.ingest.reading import read_db_session
    from openclaw_memtui.interop.session_store import session_store

    db = Path(__file__).parent / "fixtures" / "openclaw-2026.9.6" / "state" / "agents" / "main" / "agent" / \
        "openclaw-agent.sqlite"
    conn = sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True)
    rows = conn.execute("SELECT c.path, c.start_line, c.end_line, p.origin_class, p.session_kind, p.observed_at FROM "
                        "memory_index_chunk_provenance p JOIN memory_index_chunks c ON c.id = p.chunk_id").fetchall()
    conn.close()
    store = session_store(db)
    transcripts = [r for r in rows if r[0].startswith("sessions/")]
    assert transcripts and len(rows) > len(transcripts)
    for path, start, end, origin, kind, observed in transcripts:
        lines = message_origins(read_db_session(db, path.rsplit("/", 1)[1].removesuffix(".jsonl")))
        assert transcript_provenance(lines, start, end, session_kind(path, store), 0) == {
            "originClass": origin, "sessionKind": kind, "observedAt": observed}
    assert all(note_origin(path) == origin for path, _, _, origin, _, _ in rows if not path.startswith("sessions/"))


def test_an_empty_or_odd_agent_to_agent_pattern_denies_as_openclaw_compiles_it():
    """OpenClaw compiles an allow entry that is empty (or not a string) to a "deny" pattern, which still
    makes the list non-empty: a cross-agent requester is then refused, not let through as by no list."""
    cross = "agent:research:main"  # a session of another agent asking about main's transcripts
    every = {MAIN, ALICE, CHILD, OLD_CHILD, GHOST}  # GHOST: no key names it, a live transcript (as above)
    assert seen("all", cross) == every  # no allow list: every agent may
    for allow in ([""], ["  "], [7], [None]):
        assert seen("all", cross, tools={"sessions": {"visibility": "all"}, "agentToAgent": {"allow": allow}}) == {GHOST}
    assert seen("all", cross, tools={"sessions": {"visibility": "all"}, "agentToAgent": {"allow": ["", "*"]}}) == every
