"""The Textual app driven by Pilot: search, explain, tune, sync, watch, themes, key remaps."""

from __future__ import annotations

import sqlite3

from textual.widgets import Input, OptionList, Static

from openclaw_memtui.tui.widgets.slider import Slider
from openclaw_memtui.tui.widgets.tuning import TuningPanel

from .app_helpers import RecordingApp, copy_demo, make_app, open_status_screen, status_screen_text, wait_for
from .helpers import write


async def type_query(pilot, app, text, expect_results=True):
    await pilot.click("#query")
    await pilot.press(*list(text))
    wanted = " ".join(text.split())
    assert await wait_for(pilot, lambda: app.search_screen.pool is not None and app.search_screen.pool.query == wanted
                          and (bool(app.search_screen.results) or not expect_results))


async def test_type_query_shows_results_and_breakdown(tmp_path):
    app = make_app(copy_demo(tmp_path), tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        assert await wait_for(pilot, lambda: not app.sync_running)
        await type_query(pilot, app, "database migration")
        assert app.search_screen.results[0].path in ("memory/2026-10-21.md", "memory/2026-10-22.md")
        assert app.query_one("#results", OptionList).option_count == len(app.search_screen.results)
        breakdown = str(app.query_one("#breakdown", Static).render())
        assert "text" in breakdown and "final" in breakdown and "rank" in breakdown and "(score order)" in breakdown
        preview = str(app.query_one("#preview", Static).render())
        assert "migration" in preview.lower()
        await pilot.press("enter")  # into the list
        await pilot.press("enter")  # open the whole file
        assert await wait_for(pilot, lambda: app.screen.__class__.__name__ == "FileScreen")
        await pilot.press("escape")


async def test_slider_reranks_without_touching_the_database(tmp_path):
    app = make_app(copy_demo(tmp_path), tmp_path, provider="local")
    async with app.run_test(size=(120, 36)) as pilot:
        assert await wait_for(pilot, lambda: not app.sync_running, 60)
        await type_query(pilot, app, "who decided how API clients authenticate")
        assert app.search_screen.pool.mode == "hybrid"
        # the judged questions are retrieved once after a sync, in a worker of their own: the reads
        # counted below are the re-ranks', so that retrieval must be over first (it raced under load)
        assert await wait_for(pilot, lambda: app.search_screen.judging.judged is not None, 60)
        calls = {"retrieve": 0, "reader": 0}
        real_retrieve, real_reader = app.index.retrieve, app.index.reader

        def counting_retrieve(*a, **k):
            calls["retrieve"] += 1
            return real_retrieve(*a, **k)

        def counting_reader():
            calls["reader"] += 1
            return real_reader()

        app.index.retrieve, app.index.reader = counting_retrieve, counting_reader
        await pilot.press("ctrl+t")
        panel = app.query_one("#tuning", TuningPanel)
        assert panel.has_class("visible")
        vec = app.query_one("#sl-vector_weight", Slider)
        txt = app.query_one("#sl-text_weight", Slider)
        vec.focus()
        await pilot.press("end")
        txt.focus()
        await pilot.press("home")
        assert await wait_for(pilot, lambda: app.search_screen.params.vector_weight == 1.0
                              and app.search_screen.params.text_weight == 0.0)
        vector_order = [r.id for r in app.search_screen.results]
        vec.focus()
        await pilot.press("home")
        txt.focus()
        await pilot.press("end")
        assert await wait_for(pilot, lambda: app.search_screen.params.text_weight == 1.0)  # (0, 0) is refused: vector stays 1
        text_order = [r.id for r in app.search_screen.results]
        assert vector_order != text_order
        assert any(m not in (0, None) for m in app.search_screen.moves.values())  # the list shows who moved
        assert calls == {"retrieve": 0, "reader": 0}
        # exact numeric input, then a preset
        app.query_one("#in-max_results").value = "2"
        await pilot.click("#in-max_results")
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: len(app.search_screen.results) == 2)
        app.search_screen.apply_preset("openclaw")
        assert await wait_for(pilot, lambda: app.search_screen.params.vector_weight == 0.7)
        assert app.query_one("#sl-vector_weight", Slider).value == 0.7


async def test_sync_streams_progress_and_toasts(tmp_path):
    ws = tmp_path / "big"
    for i in range(300):
        write(ws / "memory" / f"n{i:03d}.md", f"# Note {i}\nsome text {i}\n")
    app = make_app(ws, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        assert await wait_for(pilot, lambda: not app.sync_running and app.last_report is not None)
        assert "index" in app.sync_events and app.last_report.files_indexed == 300
        assert any("Sync started" in t for _, t in app.toasts)
        assert any("Sync finished: 300 indexed" in t for _, t in app.toasts)
        status = await open_status_screen(pilot, app)
        assert "300 files" in status and "sqlite" in status.lower()


async def test_editing_a_file_updates_index_and_results(tmp_path):
    ws = copy_demo(tmp_path)
    app = make_app(ws, tmp_path, watch=True)
    async with app.run_test(size=(120, 36)) as pilot:
        assert await wait_for(pilot, lambda: not app.sync_running)
        await type_query(pilot, app, "zeppelin", expect_results=False)
        assert app.search_screen.results == [] or all("zeppelin" not in r.snippet for r in app.search_screen.results)
        write(ws / "memory" / "2026-11-29.md", "# 2026-11-29\n- Booked a zeppelin ride for the team offsite.\n")
        assert await wait_for(pilot, lambda: any("zeppelin" in r.snippet for r in app.search_screen.results), 20)
        assert app.index.status(check_dirty=False).files == 19


async def started_with_themes(tmp_path, files: dict[str, str], theme: str) -> tuple[list[str], RecordingApp]:
    """The error toasts of an app started with these theme files and `tui.theme`, and the app after."""
    themes = tmp_path / "themes"
    for name, text in files.items():
        write(themes / name, text)
    app = make_app(copy_demo(tmp_path), tmp_path, theme_dirs=[themes], cfg={"tui": {"theme": theme}})
    async with app.run_test(size=(80, 24)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
    return [t for s, t in app.toasts if s == "error"], app


async def test_broken_theme_is_one_toast_and_app_starts(tmp_path):
    errors, app = await started_with_themes(tmp_path, {
        "broken.toml": "name = 'broken'\nprimary = 'not-a-colour'\n",
        "ok.toml": "name = 'okay'\nprimary = '#123456'\ndark = true\n"}, "okay")
    assert len(errors) == 1 and "broken.toml" in errors[0]
    assert app.theme == "okay" and "nord-memtui" in app.available_themes


async def test_a_broken_file_of_the_configured_theme_is_one_toast_too(tmp_path):
    """tui.theme naming the broken file's theme said it twice: the file's error, then "no theme named"."""
    errors, app = await started_with_themes(tmp_path, {"mine.toml": "name = 'mine'\n[colors\n"}, "mine")
    assert len(errors) == 1 and errors[0].startswith("theme mine.toml: cannot read it") and app.theme == "memtui-dark"


async def test_remapped_key(tmp_path):
    app = make_app(copy_demo(tmp_path), tmp_path, cfg={"tui": {"keys": {"toggle_tuning": "f5"}}})
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("f5")
        assert app.query_one("#tuning").has_class("visible")
        await pilot.press("ctrl+t")
        assert app.query_one("#tuning").has_class("visible")  # the old key no longer toggles


async def test_untrusted_text_is_shown_literally_and_odd_queries_are_harmless(tmp_path):
    ws = tmp_path / "ws"
    write(ws / "MEMORY.md",
          "poison [bold]markup[/bold] [link=http://x]l[/link] [@click=app.quit]q[/] \x1b[31mred\x1b[0m bell\x07\n")
    app = make_app(ws, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        assert await wait_for(pilot, lambda: not app.sync_running)
        await type_query(pilot, app, "poison")
        preview = str(app.query_one("#preview", Static).render())
        assert "[bold]markup[/bold]" in preview and "[@click=app.quit]" in preview
        assert "\x1b" not in preview and "\\x1b[31m" in preview and "\x07" not in preview
        for odd in ("?!?! ...", "x" * 10_000):
            asked = app.search_screen.search_generation
            app.query_one("#query").value = odd
            assert await wait_for(pilot,
                                  lambda asked=asked: app.search_screen.search_generation > asked)  # the debounced search started
            await app.workers.wait_for_complete()
            await pilot.pause()
        assert app.is_running and not [t for s, t in app.toasts if s == "error"]


async def test_time_window_shown_and_cleared(tmp_path):
    app = make_app(copy_demo(tmp_path), tmp_path)
    app.fixed_now_ms = 1796040000000.0  # 2026-11-30T12:00Z
    async with app.run_test(size=(120, 36)) as pilot:
        assert await wait_for(pilot, lambda: not app.sync_running)
        await type_query(pilot, app, "auth last week")
        assert app.search_screen.pool.time_window is not None
        assert "last week" in str(app.query_one("#info", Static).render())
        assert "time" in str(app.query_one("#breakdown", Static).render())
        await pilot.press("f3")
        assert await wait_for(pilot, lambda: app.search_screen.pool is not None and app.search_screen.pool.time_window is None)
        assert all(r.time_factor == 1.0 for r in app.search_screen.results)


async def test_empty_workspace_is_calm(tmp_path):
    ws = tmp_path / "empty"
    ws.mkdir()
    app = make_app(ws, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        assert await wait_for(pilot, lambda: not app.sync_running and app.last_report is not None)
        await type_query(pilot, app, "anything", expect_results=False)
        preview = str(app.query_one("#preview", Static).render())
        assert "No memory files in" in preview and "MEMORY.md" in preview and "memory/**/*.md" in preview
        # it said "memtui tui PATH": there is no `tui` command, and that line fails with "unrecognized arguments"
        assert "(memtui PATH, or --agent ID)" in preview and "memtui tui" not in preview
        assert not [t for s, t in app.toasts if s == "error"]


def test_highlight_whole_words_and_cjk():
    from rich.text import Text

    from openclaw_memtui.tui.widgets.detail_pane import highlight_terms

    text = Text("We decided in two weeks: 鉴权方案 uses OAuth; decisions were logged.")
    highlight_terms(text, "what did we decide about 鉴权")
    marked = [text.plain[s.start:s.end] for s in text.spans]
    assert "decided" in marked and "鉴权" in marked
    assert "we" not in [m.lower() for m in marked] and not any("week" in m for m in marked)


async def test_command_palette_offers_the_app_commands(tmp_path):
    app = make_app(copy_demo(tmp_path), tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        titles = [c.title for c in app.get_system_commands(app.screen)]
        for wanted in ("Sync now", "Cancel sync", "Preset: Keyword-heavy", "Export settings", "Copy snippet",
                       "Copy result as JSON"):
            assert wanted in titles
        assert any("theme" in t.lower() for t in titles)
        command = next(c for c in app.get_system_commands(app.screen) if c.title == "Preset: Keyword-heavy")
        command.callback()
        assert await wait_for(pilot, lambda: app.search_screen.params.text_weight == 0.8)


async def test_palette_copy_and_edit_with_no_result_say_why_nothing_happened(tmp_path):
    """Copy snippet / Copy result as JSON from the palette before any search did nothing at all."""
    app = make_app(copy_demo(tmp_path), tmp_path)
    edited = []
    app.run_editor = lambda command: edited.append(command) or 0
    async with app.run_test(size=(80, 24)) as pilot:
        assert await wait_for(pilot, lambda: not app.sync_running)
        # a query that matches nothing (an empty one browses the memory, whose entries copy like results)
        app.query_one("#query", Input).value = "zzqx"
        app.search_screen.start_search()
        assert await wait_for(pilot, lambda: app.search_screen.pool is not None and app.search_screen.pool.query == "zzqx")
        commands = {c.title: c.callback for c in app.get_system_commands(app.screen)}
        for title in ("Copy snippet", "Copy result as JSON"):
            commands[title]()
        app.search_screen.action_open_in_editor()
        await pilot.pause()
        said = [t for _, t in app.toasts if t.startswith("No result to")]
        assert said == ["No result to copy: search, then pick one in the list"] * 2 + [
            "No result to open: search, then pick one in the list"] and edited == []
        assert app.clipboard == ""


# -- architecture: widgets render what they are given, the index is read off the event loop ------------------

async def test_launch_and_status_screen_read_the_index_off_the_event_loop(tmp_path):
    import threading

    app = make_app(copy_demo(tmp_path), tmp_path, initial_query="database migration")
    index = app.index
    index.sync()  # an existing index: the launch check finds nothing to do and searches at once
    threads: dict[str, set[str]] = {}
    for name in ("is_empty", "is_dirty", "status", "retrieve"):
        real = getattr(index, name)

        def recording(*a, _real=real, _name=name, **k):
            threads.setdefault(_name, set()).add(threading.current_thread().name)
            return _real(*a, **k)

        setattr(index, name, recording)
    main = threading.main_thread().name
    async with app.run_test(size=(120, 36)) as pilot:
        assert await wait_for(pilot, lambda: bool(app.search_screen.results))
        assert not app.sync_state.busy and app.sync_state.last_report is None  # no sync was needed
        assert "files" in await open_status_screen(pilot, app)
    assert set(threads) == {"is_empty", "is_dirty", "status", "retrieve"}
    assert all(main not in names for names in threads.values()), threads


async def test_status_screen_opens_before_its_status_read_answers(tmp_path):
    """F2 shows the screen at once, saying it is reading; the counts follow when the worker answers
    (at 1M chunks the read used to run before the screen was even pushed)."""
    import threading

    app = make_app(copy_demo(tmp_path), tmp_path)
    app.index.sync()
    release, real_status = threading.Event(), app.index.status

    def slow_status(*a, **k):
        release.wait(10)
        return real_status(*a, **k)

    app.index.status = slow_status
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("f2")
        assert await wait_for(pilot, lambda: "reading the index" in status_screen_text(app))
        assert app.screen.__class__.__name__ == "SyncScreen"
        bar = "".join(s.text for s in app.screen.query_one("#sync-bar").render_line(0)).strip()
        assert bar.endswith("…") and "%" not in bar  # no made-up percentage before the counts
        release.set()
        assert await wait_for(pilot, lambda: "Files / chunks" in status_screen_text(app))
        assert "reading the index" not in status_screen_text(app)
        await pilot.press("escape", "f2", "f2")  # asked twice: one screen on the stack
        assert await wait_for(pilot, lambda: "Files / chunks" in status_screen_text(app))
        assert sum(s.__class__.__name__ == "SyncScreen" for s in app.screen_stack) == 1
        await pilot.press("f1")  # help over it, then the palette's "Sync status": back to it, still one
        assert await wait_for(pilot, lambda: app.screen.__class__.__name__ == "HelpScreen")
        next(c for c in app.get_system_commands(app.screen) if c.title == "Sync status").callback()
        assert await wait_for(pilot, lambda: app.screen.__class__.__name__ == "SyncScreen")
        assert [s.__class__.__name__ for s in app.screen_stack][1:] == ["SyncScreen"]


async def test_status_screen_bar_claims_nothing_when_the_status_read_fails(tmp_path):
    """An index that cannot be read (locked, deleted, garbage): the bar shows no figure beside "could
    not read the index", not the last finished sync's 100 %."""
    app = make_app(copy_demo(tmp_path), tmp_path)

    def bar() -> str:
        return "".join(s.text for s in app.screen.query_one("#sync-bar").render_line(0)).strip()

    async with app.run_test(size=(80, 24)) as pilot:
        assert await wait_for(pilot, lambda: not app.sync_running and app.last_report is not None)
        assert not app.last_report.cancelled  # a finished sync: what the bar used to show as 100 %

        def locked(*a, **k):
            raise sqlite3.OperationalError("database is locked")

        app.index.status = locked
        await pilot.press("f2")
        assert await wait_for(pilot, lambda: "locked by another process (a memtui sync" in status_screen_text(app))
        assert "%" not in bar() and bar().endswith("…")


async def test_a_sync_state_set_before_the_status_screen_is_composed_is_shown_not_raised(tmp_path):
    """F2 pushes the screen at once; the app sets each new SyncState (a running sync's progress) on it,
    which may come before the screen has composed: that raised NoMatches and ended the app."""
    from dataclasses import replace

    app = make_app(copy_demo(tmp_path), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        assert await wait_for(pilot, lambda: not app.sync_running and app.last_report is not None)
        app.action_sync_screen()
        app.sync_state = replace(app.sync_state, dirty=True)  # before the screen's compose has run
        assert await wait_for(pilot, lambda: "Dirty" in status_screen_text(app))
        assert "yes — changes waiting to sync" in status_screen_text(app)
        assert app.is_running and app.return_code is None


async def test_status_screen_bar_shows_what_the_index_holds_embedded(tmp_path):
    """The bar is the share of chunks with a vector (a cancelled embed is not 100 %), the sync's own
    progress while one runs, and full for a keyword-only index."""
    from dataclasses import replace

    from openclaw_memtui.tui.screens.status_rows import StatusSnapshot
    from openclaw_memtui.tui.state import SyncProgress, SyncState

    app = make_app(copy_demo(tmp_path), tmp_path)
    app.index.sync()

    def bar() -> str:
        return "".join(s.text for s in app.screen.query_one("#sync-bar").render_line(0)).strip()

    async with app.run_test(size=(80, 24)) as pilot:
        await open_status_screen(pilot, app)
        assert bar().endswith(" 100%")  # provider none: nothing waits for a vector
        status = app.screen.snapshot.status
        app.screen.snapshot = StatusSnapshot(replace(status, provider="seeded", chunks=40, embedded=10, unembedded=30))
        assert await wait_for(pilot, lambda: bar().endswith(" 25%"))
        app.screen.sync_state = SyncState(running=True, progress=SyncProgress("embed", 3, 4))
        assert await wait_for(pilot, lambda: bar().endswith(" 75%"))


async def test_tuning_buttons_post_messages_the_app_acts_on(tmp_path):
    from textual.widgets import Button

    from openclaw_memtui.paths import config_dir

    config = tmp_path / "memtui.toml"
    app = make_app(copy_demo(tmp_path), tmp_path, config_path=config)
    posted = []
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("ctrl+t")
        panel = app.query_one("#tuning", TuningPanel)
        panel.post_message = lambda m, _post=panel.post_message: posted.append(type(m).__name__) or _post(m)
        app.query_one("#save", Button).press()
        assert await wait_for(pilot, lambda: config.exists())
        app.query_one("#export", Button).press()
        assert await wait_for(pilot, lambda: any((config_dir() / n).exists() for n in (
            "openclaw-memory.search.json", "openclaw-memorySearch.json")))
    assert [name for name in posted if name.endswith("Requested")] == ["SaveRequested", "ExportRequested"]
    assert "minScore" in config.read_text(encoding="utf-8") or "min_score" in config.read_text(encoding="utf-8")


async def test_rerank_keeps_the_same_result_highlighted(tmp_path):
    from dataclasses import replace

    app = make_app(copy_demo(tmp_path), tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        assert await wait_for(pilot, lambda: not app.sync_running)
        await type_query(pilot, app, "migration")
        assert len(app.search_screen.results) >= 3
        before = [r.id for r in app.search_screen.results]
        listing = app.query_one("#results", OptionList)
        listing.highlighted = len(app.search_screen.results) - 1  # the last one: any change of order moves it up
        await pilot.pause()
        chosen = app.search_screen.selected()
        params = app.search_screen.params
        app.search_screen.params = replace(params, decay=not params.decay, mmr=not params.mmr, text_weight=0.9, vector_weight=0.1,
                                           line_weight=0.0 if params.line_weight else 0.5)
        app.search_screen.rerank()
        assert [r.id for r in app.search_screen.results] != before  # the order changed ...
        assert app.search_screen.selected().id == chosen.id  # ... and the highlight followed the result
        assert f"lines {chosen.start_line}-{chosen.end_line}" in str(app.query_one("#preview", Static).render())


def test_sync_progress_messages_coalesce_within_a_phase():
    from openclaw_memtui.engine.models import SyncProgress
    from openclaw_memtui.tui.messages import SyncProgressed

    first = SyncProgressed(SyncProgress("index", 1, 10))
    assert first.can_replace(SyncProgressed(SyncProgress("index", 2, 10)))
    assert not first.can_replace(SyncProgressed(SyncProgress("embed", 0, 10)))  # a phase change gets through


async def test_status_values_wrap_under_their_own_column_at_80_columns(tmp_path):
    """A deep workspace path, the index file or a skip reason wrapped under the labels: a ragged table."""
    from dataclasses import replace

    from textual.geometry import Region

    from openclaw_memtui.tui.screens.status_rows import StatusSnapshot, status_rows

    deep = tmp_path / "a-folder-with-a-rather-long-name" / "and-another-level-below-it" / "workspace-of-the-agent"
    ws = copy_demo(deep)
    app = make_app(ws, tmp_path)
    app.index.sync()
    reason = "not UTF-8 (byte 0xff at offset 2); save it as UTF-8 and sync again, or move it out of memory/"
    async with app.run_test(size=(80, 24)) as pilot:
        await open_status_screen(pilot, app)
        status = app.screen.snapshot.status
        app.screen.snapshot = StatusSnapshot(replace(status, skipped=[{"path": "memory/bad \x1b[31m.md", "reason": reason}]))
        assert await wait_for(pilot, lambda: "Skipped" in status_screen_text(app))
        widget = app.screen.query_one("#sync-status")
        labels = {key.strip() for key, _ in status_rows(app.screen.snapshot, app.origin, app.sync_state) if key.strip()}
        drawn = widget.render_lines(Region(0, 0, *widget.outer_size))  # padding included: all of each line
        lines = [strip.text.rstrip() for strip in drawn if strip.text.strip()]
        left = widget.styles.padding.left
        value_at = left + 18  # the label column's width
        values: dict[str, str] = {}
        label = ""
        for line in lines:
            head, value = line[left:value_at].strip(), line[value_at:]
            assert head in labels or (not head and value[:1] not in ("", " ")), line
            label = head or label
            values[label] = values.get(label, "") + value.strip()
        assert lines and all(len(line) <= widget.outer_size.width for line in lines)
        assert values["Workspace"].replace(" ", "") == f"{ws}(test)" and len(str(ws)) > 80 - value_at  # it did wrap
        assert values["Index file"] == str(tmp_path / "tui.sqlite")
        skipped = f"1 file(s)memory/bad \\x1b[31m.md: {reason}"  # the label's row, then the file's (escaped)
        assert values["Skipped"].replace(" ", "") == skipped.replace(" ", "")  # a wrap at a space drops it
