"""The file view as a daily tool: find (/ n N, matches highlighted and counted), e opens the whole file in the
editor, transcript turns wrap under their own text, and follow mode shows a growing transcript's new lines."""

from __future__ import annotations

import json

import pytest
from textual.widgets import Input, OptionList, Static

from openclaw_memtui.tui.file_find import Match, find_matches, next_match
from openclaw_memtui.tui.screens.file_view import FOUND, FOUND_CURRENT, FileScreen

from .app_helpers import make_app, rendered_lines, wait_for
from .helpers import write


async def open_file_of(pilot, app, query: str) -> FileScreen:
    assert await wait_for(pilot, lambda: not app.sync_running)
    app.query_one("#query", Input).value = query
    app.search_screen.start_search()
    assert await wait_for(pilot, lambda: app.search_screen.pool is not None and app.search_screen.pool.query == query
                          and bool(app.search_screen.results))
    app.query_one(OptionList).focus()
    await pilot.press("enter")
    assert await wait_for(pilot, lambda: isinstance(app.screen, FileScreen) and app.screen._layout is not None)
    return app.screen


def long_note(ws):
    """A note of 120 lines where "walrus" is on lines 3, 60 and 110 and "narwhal" (the query) on line 5."""
    lines = [f"- routine line {n}" for n in range(1, 121)]
    lines[2], lines[59], lines[109] = "- a walrus at the top", "- the Walrus in the middle", "- walrus walrus at the end"
    lines[4] = "- the narwhal budget was approved"
    write(ws / "MEMORY.md", "# Memory\n")
    write(ws / "memory" / "zoo.md", "\n".join(lines) + "\n")


def highlighted(screen, style) -> list[str]:
    text = screen._layout.text  # the text the view shows, laid out at its width
    return [text.plain[s.start:s.end] for s in text.spans if str(s.style) == style]


def visible(screen) -> str:
    """The lines of the file on screen now."""
    scroll = screen.query_one("#file-body")
    text = screen.query_one("#file-text", Static)
    top = round(scroll.scroll_y)
    return "\n".join(text.render_line(y).text for y in range(top, top + scroll.scrollable_content_region.height))


def top_line(screen) -> str:
    scroll = screen.query_one("#file-body")
    return screen.query_one("#file-text", Static).render_line(round(scroll.scroll_y)).text


# -- find -----------------------------------------------------------------------------------------------

def test_find_is_smart_case_and_steps_around():
    rows = ["a Walrus", "no", "walrus walrus"]
    assert find_matches(rows, "walrus") == [Match(0, 2, 8), Match(2, 0, 6), Match(2, 7, 13)]
    assert find_matches(rows, "Walrus") == [Match(0, 2, 8)]  # a capital: exact case
    assert find_matches(rows, "") == []
    found = find_matches(rows, "walrus")
    assert next_match(found, 1, forward=True, current=-1) == 1  # the first at or below the top row
    assert next_match(found, 1, forward=False, current=-1) == 0
    assert next_match(found, 0, forward=True, current=2) == 0  # wraps around
    assert next_match(found, 0, forward=False, current=0) == 2
    assert next_match([], 0, forward=True, current=-1) == -1


async def test_find_highlights_counts_and_n_and_shift_n_move_between_matches(tmp_path):
    ws = tmp_path / "ws"
    long_note(ws)
    app = make_app(ws, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_file_of(pilot, app, "narwhal budget")
        await pilot.press("slash", *"walrus")
        assert await wait_for(pilot, lambda: len(screen.matches) == 4)
        status = screen.query_one("#file-status", Static)
        assert "match 1 of 4 for “walrus”" in str(status.render())
        assert highlighted(screen, FOUND_CURRENT) == ["walrus"] and len(highlighted(screen, FOUND)) == 3
        await pilot.press("enter")  # keeps the find, back to the text
        assert not isinstance(app.focused, Input)
        await pilot.press("n")  # line 60, off screen: scrolled to it
        assert await wait_for(pilot, lambda: screen.current == 1 and "Walrus in the middle" in visible(screen))
        assert "match 2 of 4" in str(status.render())
        await pilot.press("n", "n")
        assert await wait_for(pilot, lambda: screen.current == 3)
        await pilot.press("n")  # past the last: the first again
        assert await wait_for(pilot, lambda: screen.current == 0 and top_line(screen).startswith("    1 "))
        await pilot.press("N")
        assert await wait_for(pilot, lambda: screen.current == 3 and "match 4 of 4" in str(status.render()))
        await pilot.press("escape")  # the first esc clears the find
        assert await wait_for(pilot, lambda: not screen.matches and not highlighted(screen, FOUND))
        assert not status.display
        await pilot.press("escape")  # the second goes back
        assert await wait_for(pilot, lambda: not isinstance(app.screen, FileScreen))


async def test_find_says_when_nothing_matches(tmp_path):
    ws = tmp_path / "ws"
    long_note(ws)
    app = make_app(ws, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_file_of(pilot, app, "narwhal budget")
        await pilot.press("slash", *"okapi", "enter")
        assert await wait_for(pilot, lambda: "no match for “okapi”" in str(screen.query_one("#file-status").render()))


# -- e --------------------------------------------------------------------------------------------------

async def test_e_opens_the_whole_file_in_the_editor_at_the_match_and_shows_the_edit(tmp_path, monkeypatch):
    monkeypatch.setenv("EDITOR", "vim")
    monkeypatch.delenv("VISUAL", raising=False)
    ws = tmp_path / "ws"
    long_note(ws)
    app = make_app(ws, tmp_path)
    ran = []

    def editor(command):  # the editor appends a line to the file
        ran.append(command)
        with (ws / "memory" / "zoo.md").open("a") as f:
            f.write("- an okapi added in the editor\n")
        return 0

    async with app.run_test(size=(120, 36)) as pilot:
        app.run_editor = editor
        screen = await open_file_of(pilot, app, "narwhal budget")
        await pilot.press("e")  # no find: at the result's first line
        assert await wait_for(pilot, lambda: len(ran) == 1)
        assert ran[0] == ["vim", f"+{app.search_screen.selected().start_line}", str((ws / "memory" / "zoo.md").resolve())]
        assert await wait_for(pilot, lambda: "okapi added in the editor" in screen.body.plain)  # read again
        await pilot.press("slash", *"walrus", "enter", "n")  # the second match: line 60
        assert await wait_for(pilot, lambda: screen.current == 1)
        await pilot.press("e")
        assert await wait_for(pilot, lambda: len(ran) == 2)
        assert ran[1][1] == "+60"


# -- transcripts ------------------------------------------------------------------------------------------

def transcript(ws, turns):
    lines = [{"type": "session", "id": "s1", "timestamp": "2026-11-01T10:00:00Z"}]
    for i, (role, text) in enumerate(turns):
        lines.append({"type": "message", "timestamp": f"2026-11-01T10:{i:02d}:00Z",
                      "message": {"role": role, "content": text}})
    write(ws / "sessions" / "s1.jsonl", "\n".join(json.dumps(x) for x in lines) + "\n")


def transcript_app(ws, tmp_path):
    write(ws / "MEMORY.md", "# Memory\n")
    return make_app(ws, tmp_path, cfg={"sources": ["memory", "sessions"], "sessionsDir": str(ws / "sessions")})


@pytest.mark.parametrize("width", [80, 120])
async def test_a_long_turn_wraps_under_its_own_text_not_to_column_0(tmp_path, width):
    ws = tmp_path / "ws"
    long_turn = "the zeppelin hangar plan " + " ".join(f"word{n}" for n in range(80))
    transcript(ws, [("user", "where is the zeppelin hangar?"), ("assistant", long_turn)])
    app = transcript_app(ws, tmp_path)
    async with app.run_test(size=(width, 36)) as pilot:
        screen = await open_file_of(pilot, app, "zeppelin hangar")
        lines = [line for line in rendered_lines(screen.query_one("#file-text")) if line.strip()]
        first = next(i for i, line in enumerate(lines) if "Assistant" in line)
        indent = lines[first].index("the zeppelin")  # where the turn's text starts, after number, time and speaker
        continued = lines[first + 1:]
        assert len(continued) >= 2  # it wrapped
        for line in continued:
            assert line[:indent].strip() == "" and line[indent] != " ", line  # under the text, not at column 0
        assert "word79" in continued[-1]


async def test_follow_shows_new_turns_as_the_transcript_grows(tmp_path):
    ws = tmp_path / "ws"
    transcript(ws, [("user", "zeppelin status?"), ("assistant", "the zeppelin is in the hangar")])
    app = transcript_app(ws, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_file_of(pilot, app, "zeppelin")
        await pilot.press("f")
        assert await wait_for(pilot, lambda: screen.following and "following" in str(
            screen.query_one("#file-title", Static).render()))
        path = ws / "sessions" / "s1.jsonl"
        for n in range(30):  # more turns than the screen holds: the view stays at the end
            with path.open("a") as f:
                f.write(json.dumps({"type": "message", "timestamp": "2026-11-01T11:00:00Z",
                                    "message": {"role": "user", "content": f"new turn number {n}"}}) + "\n")
        assert await wait_for(pilot, lambda: "new turn number 29" in screen.body.plain)
        body = screen.query_one("#file-body")
        assert await wait_for(pilot, lambda: body.max_scroll_y > 0 and body.scroll_y == body.max_scroll_y)
        assert "new turn number 29" in visible(screen)
        await pilot.press("f")  # stop following: later writes are not read
        assert await wait_for(pilot, lambda: not screen.following)
        # the watch thread ends once stopped: after that nothing is left that could read the file again
        assert await wait_for(pilot, lambda: not any(w.group == "follow" and not w.is_finished for w in app.workers))
        reads = screen.generation
        with path.open("a") as f:
            f.write(json.dumps({"type": "message", "message": {"role": "user", "content": "after stopping"}}) + "\n")
        await pilot.pause()
        assert screen.generation == reads and "after stopping" not in screen.body.plain
