"""Names a person can read: the bundled demo is "demo workspace" in the header (not its path inside the
installed package), transcripts are named by their first user line instead of their UUID, and a file's
neighbouring chunks (MEMORY.md's bullets) are one browse row with its bullets inside."""

from __future__ import annotations

import json

from textual.widgets import Input

from openclaw_memtui.engine.search.browse import BrowseEntry, one_row_per_file
from openclaw_memtui.engine.search.rank import Result
from openclaw_memtui.engine.search.titles import needs_title, session_title
from openclaw_memtui.paths import demo_workspace
from openclaw_memtui.tui.widgets.result_list import ResultList

from .app_helpers import make_app, rendered_lines, wait_for
from .helpers import write

UUID = "3f2a9c1e-7b4d-4e8a-9f10-2c3d4e5f6a7b"


def test_a_title_is_the_first_user_line_on_one_line_and_cut():
    assert session_title("Assistant: hi\nUser:   where is   the hangar?\nUser: later") == "where is the hangar?"
    assert session_title("Assistant: only me") == ""
    assert session_title("User: " + "x" * 100, limit=10) == "x" * 9 + "…"
    assert needs_title(f"sessions/{UUID}.jsonl") and needs_title(f"sessions/main/{UUID}.jsonl.reset.2026-11-01")
    assert not needs_title("sessions/2026-11-25-canary.jsonl")  # a name a person gave it stays


def entry(path, start, end, day="2026-11-27 Fri", snippet="s"):
    r = Result(path, start, end, "memory", snippet, 0.0, None, 0.0, 0.0, 1.0, None, 1, 1, id=f"{path}:{start}")
    return BrowseEntry(r, 0.0, day)


def test_neighbouring_chunks_of_a_file_are_one_row_with_all_their_text():
    rows = one_row_per_file([entry("MEMORY.md", 1, 2, snippet="- a"), entry("MEMORY.md", 3, 4, snippet="- b"),
                             entry("memory/x.md", 1, 5), entry("MEMORY.md", 5, 6, day="2026-11-26 Thu")])
    assert [(e.result.path, e.result.start_line, e.result.end_line) for e in rows] == [
        ("MEMORY.md", 1, 4), ("memory/x.md", 1, 5), ("MEMORY.md", 5, 6)]  # another day is another row
    assert rows[0].result.snippet == "- a\n- b" and rows[0].result.id == "MEMORY.md:1"


async def test_the_bundled_demo_is_named_demo_workspace_in_the_header(tmp_path):
    for width in (80, 120):
        app = make_app(demo_workspace(), tmp_path / str(width))
        async with app.run_test(size=(width, 24)) as pilot:
            assert await wait_for(pilot, lambda app=app: app.sub_title.startswith("demo workspace"))
            assert "openclaw_memtui" not in app.sub_title and "[test]" not in app.sub_title


def transcript_ws(tmp_path):
    ws = tmp_path / "ws"
    write(ws / "MEMORY.md", "# Memory\n")
    lines = [{"type": "session", "id": UUID, "timestamp": "2026-11-01T10:00:00Z"},
             {"type": "message", "timestamp": "2026-11-01T10:00:00Z",
              "message": {"role": "user", "content": "How do we roll out the zeppelin hangar doors?"}},
             {"type": "message", "timestamp": "2026-11-01T10:01:00Z",
              "message": {"role": "assistant", "content": "Open the zeppelin hangar doors one bay at a time."}}]
    write(ws / "sessions" / f"{UUID}.jsonl", "\n".join(json.dumps(x) for x in lines) + "\n")
    return ws


async def test_transcripts_are_listed_by_their_first_user_line_not_their_uuid(tmp_path):
    ws = transcript_ws(tmp_path)
    app = make_app(ws, tmp_path, cfg={"sources": ["memory", "sessions"], "sessionsDir": str(ws / "sessions")})
    async with app.run_test(size=(80, 24)) as pilot:
        listing = app.query_one(ResultList)

        def rows() -> str:
            return "\n".join(rendered_lines(listing))

        assert await wait_for(pilot, lambda: app.search_screen.ranked.browsing and "“How do we" in rows())  # browsing
        assert UUID[:8] not in rows()
        app.query_one("#query", Input).value = "zeppelin hangar"
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: not app.search_screen.ranked.browsing and app.search_screen.results
                              and "“How do we" in rows())
        assert UUID[:8] not in rows()
        # the path itself is unchanged (the detail pane shows it)
        assert app.search_screen.selected().path.endswith(f"{UUID}.jsonl")


async def test_memory_md_of_many_bullets_is_one_browse_row(tmp_path):
    ws = tmp_path / "ws"
    bullets = [f"- fact number {n}: " + "the team agreed on a detail worth keeping " * 4 for n in range(60)]
    write(ws / "MEMORY.md", "# Memory\n\n" + "\n".join(bullets) + "\n")
    app = make_app(ws, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        assert await wait_for(pilot, lambda: app.search_screen.ranked.browsing and bool(app.search_screen.results)
                              and not app.sync_running)
        assert len(app.index.reads().chunks_of_path("MEMORY.md")) > 1  # the note was cut into several chunks
        assert [r.path for r in app.search_screen.results] == ["MEMORY.md"]
        only = app.search_screen.results[0]
        chunks = app.index.reads().chunks_of_path("MEMORY.md")
        assert only.start_line == 1 and only.end_line == chunks[-1][2]
        assert all(text.split("\n")[-1][:20] in only.snippet for *_, text in chunks[1:])  # every chunk's bullets inside


async def test_the_status_screen_and_header_follow_openclaws_config_without_a_restart(tmp_path, monkeypatch):
    """After a change to OpenClaw's config in another terminal (here: memory search turned off for the agent),
    F2 kept saying what was true at launch until a restart."""
    from openclaw_memtui.interop.agents import find_agent

    from .app_helpers import open_status_screen, status_screen_text
    from .connect_helpers import make_state

    root = make_state(tmp_path, monkeypatch)
    agent = find_agent("main")
    app = make_app(root / "ws-main", tmp_path, agent=agent)
    async with app.run_test(size=(120, 36)) as pilot:
        text = await open_status_screen(pilot, app)
        assert "builtin memory-core answers" in text and "search off" not in app.sub_title
        cfg_path = root / "state" / "openclaw.json"
        cfg = json.loads(cfg_path.read_text())
        cfg["agents"]["entries"]["main"]["memory"] = {"search": {"enabled": False}}
        cfg_path.write_text(json.dumps(cfg))
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: not status_screen_text(app))
        await pilot.press("f2")
        assert await wait_for(pilot, lambda: "memory search is off" in status_screen_text(app))
        assert "[OpenClaw memory search off]" in app.sub_title and app.agent.search_disabled
