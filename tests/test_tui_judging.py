"""Issue 14 in the app: judge results in the list, watch the metric move with a slider, stale marks
after an edit, suggested settings from the palette."""

from __future__ import annotations

import shutil

from textual.widgets import Input

from openclaw_memtui.engine.search.rank import SearchParams
from openclaw_memtui.engine.tuning.judgements import judgements_path
from openclaw_memtui.engine.tuning.tuner import Suggestion
from openclaw_memtui.paths import demo_judgements
from openclaw_memtui.tui.screens.suggest import SuggestScreen
from openclaw_memtui.tui.widgets.metric import MetricBox
from openclaw_memtui.tui.widgets.result_list import ResultList

from .app_helpers import SeededProvider, copy_demo, make_app, rendered_lines, settled_search, use_provider, wait_for

DEMO_NOW_MS = 1796040000000.0  # 2026-11-30T12:00Z: the demo's notes are days old


def palette_highlights(app, words: str) -> bool:
    """The command palette is up and its highlighted command is the one named `words`."""
    from textual.command import CommandList, CommandPalette

    if not isinstance(app.screen, CommandPalette):
        return False
    listing = app.screen.query_one(CommandList)
    if listing.highlighted is None or listing.option_count == 0:
        return False
    return words in str(listing.get_option_at_index(listing.highlighted).prompt)



def row(app, i: int) -> str:
    return str(app.query_one(ResultList).get_option_at_index(i).prompt)


def seeded_app(tmp_path, **kwargs):
    """The demo with its shipped judgements stored for the test's index."""
    app = make_app(copy_demo(tmp_path), tmp_path, **kwargs)
    shutil.copy(demo_judgements(), judgements_path(tmp_path / "tui.sqlite"))
    app.fixed_now_ms = DEMO_NOW_MS
    return app


async def test_marks_are_keys_of_the_list_shown_in_it_and_stored(tmp_path):
    app = make_app(copy_demo(tmp_path), tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await settled_search(pilot, app, "database migration")
        assert await wait_for(pilot, lambda: app.search_screen.judging.judgements_read)
        await pilot.click("#query")
        await pilot.press("plus")  # in the query box + is a character, not a mark
        assert "+" in app.query_one("#query", Input).value and app.search_screen.judging.judgements == []
        app.query_one("#query", Input).value = "database migration"
        app.search_screen.start_search()
        assert await wait_for(pilot, lambda: app.search_screen.pool.query == "database migration")
        app.query_one(ResultList).focus()
        await pilot.press("down", "plus", "up", "minus")
        first, second = app.search_screen.results[0], app.search_screen.results[1]
        assert row(app, 0).startswith("✗") and row(app, 1).startswith("✓")
        store = app.search_screen.judging.judgement_store
        assert await wait_for(pilot, lambda: store.path.exists() and len(store.load().judgements[0].not_relevant) == 1)
        stored = store.load().judgements[0]
        assert stored.question == "database migration"
        assert [(t.path, t.start_line, t.end_line) for t in stored.targets] == [(second.path, second.start_line, second.end_line)]
        assert stored.not_relevant[0].path == first.path and stored.targets[0].hash
        await pilot.press("x")  # clear the first one's mark
        assert not row(app, 0).startswith(("✓", "✗"))
        assert await wait_for(pilot, lambda: store.load().judgements[0].not_relevant == [])


async def test_the_metric_moves_with_a_slider_against_the_saved_settings(tmp_path):
    app = seeded_app(tmp_path)
    use_provider(app.index, SeededProvider())  # hybrid pools: the weights change the ranking
    async with app.run_test(size=(120, 36)) as pilot:
        assert await wait_for(pilot, lambda: app.search_screen.judging.metric_view.current is not None, 30)
        before = app.search_screen.judging.metric_view.current
        assert app.search_screen.judging.metric_view.judged == 24 and app.search_screen.judging.metric_view.saved == before
        await pilot.press("ctrl+t")
        app.query_one("#sl-vector_weight").focus()
        await pilot.press("end")  # vector weight 1.0: the seeded provider's vectors are noise
        assert await wait_for(pilot, lambda: app.search_screen.judging.metric_view.current != before)
        after = app.search_screen.judging.metric_view
        assert after.saved == before and after.current.ndcg < before.ndcg
        shown = str(app.query_one(MetricBox).render())
        assert f"{after.current.ndcg:.3f} ▼{before.ndcg - after.current.ndcg:.3f}" in shown
        await pilot.press("home")  # and back down: better than with noise only
        assert await wait_for(pilot, lambda: app.search_screen.judging.metric_view.current.ndcg > after.current.ndcg)


async def test_an_edited_note_flags_its_judgement_stale(tmp_path):
    app = make_app(copy_demo(tmp_path), tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await settled_search(pilot, app, "rate limiting policy")
        assert await wait_for(pilot, lambda: app.search_screen.judging.judged is not None)
        app.query_one(ResultList).focus()
        await pilot.press("plus")
        judged = app.search_screen.results[0]
        assert row(app, 0).startswith("✓")
        assert await wait_for(pilot, lambda: app.search_screen.judging.metric_view.judged == 1
                              and app.search_screen.judging.metric_view.stale == 0)
        note = app.index.settings.workspace / judged.path
        heading, rest = note.read_text(encoding="utf-8").split("\n", 1)
        note.write_text(f"{heading} (edited)\n{rest}", encoding="utf-8")  # same lines, other text
        app.action_sync()
        assert await wait_for(pilot, lambda: app.search_screen.judging.metric_view.stale == 1, 30)
        assert "1 stale" in str(app.query_one(MetricBox).render())
        app.query_one("#query", Input).value = "limiting policy"
        app.search_screen.start_search()
        assert await wait_for(pilot, lambda: app.search_screen.pool.query == "limiting policy")
        app.query_one("#query", Input).value = "rate limiting policy"
        app.search_screen.start_search()
        assert await wait_for(pilot, lambda: app.search_screen.pool.query == "rate limiting policy"
                              and bool(app.search_screen.results))
        ids = [r.id for r in app.search_screen.results]
        edited = next(r for r in app.search_screen.results if r.path == judged.path)
        assert row(app, ids.index(edited.id)).startswith("!")


async def test_suggest_from_the_palette_is_at_least_as_good_and_saves_with_one_key(tmp_path):
    config = tmp_path / "memtui.toml"
    app = seeded_app(tmp_path, config_path=config)
    use_provider(app.index, SeededProvider())  # hybrid pools: a keyword-only suggestion is never saved
    # the shipped defaults (minScore 0.35)
    app.search_screen.params = app.default_params = app.search_screen.judging.saved_params = SearchParams()
    async with app.run_test(size=(120, 36)) as pilot:
        assert await wait_for(pilot, lambda: app.search_screen.judging.metric_view.current is not None, 30)
        await pilot.press("ctrl+p")
        await pilot.press(*"Suggest settings")
        assert await wait_for(pilot, lambda: palette_highlights(app, "Suggest settings"))  # not a fixed pause
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: isinstance(app.screen, SuggestScreen) and app.screen.result is not None, 60)
        found = app.screen.result
        assert isinstance(found, Suggestion) and found.current == app.search_screen.params and found.n == 24
        assert found.cv_best[0] >= found.cv_current[0]  # cross-validated: at least as good as the defaults
        assert found.better, found.to_dict()  # on the demo the search finds better settings
        await pilot.press("s")
        assert await wait_for(pilot, lambda: app.search_screen.params == found.best
                              and app.search_screen.judging.saved_params == found.best)
        assert config.exists() and "minScore" in config.read_text()
        judging = app.search_screen.judging
        assert await wait_for(pilot, lambda: judging.metric_view.current == judging.metric_view.saved)
        assert f"{app.search_screen.judging.metric_view.current.ndcg:.3f} =" in str(app.query_one(MetricBox).render())


async def test_a_mark_before_the_stored_judgements_are_read_is_refused_not_saved_over_them(tmp_path):
    import threading

    app = seeded_app(tmp_path)
    store = app.search_screen.judging.judgement_store
    shipped = store.path.read_text(encoding="utf-8")
    release, real_load = threading.Event(), store.load

    def slow_load():
        release.wait(10)
        return real_load()

    store.load = slow_load
    async with app.run_test(size=(120, 36)) as pilot:
        await settled_search(pilot, app, "rate limiting policy")
        app.query_one(ResultList).focus()
        await pilot.press("plus")
        assert any("still being read" in text for _, text in app.toasts) and app.search_screen.judging.judgements == []
        release.set()
        assert await wait_for(pilot, lambda: app.search_screen.judging.judgements_read
                              and len(app.search_screen.judging.judgements) == 24)
        await pilot.press("plus")
        assert await wait_for(pilot, lambda: store.path.read_text(encoding="utf-8") != shipped)
        assert len(real_load().judgements) == 24  # the mark joined the stored questions


async def test_suggest_with_too_few_judgements_says_how_many_more_and_help_lists_the_keys(tmp_path):
    from textual.widgets import Static

    app = make_app(copy_demo(tmp_path), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settled_search(pilot, app, "rate limiting policy")
        assert await wait_for(pilot, lambda: app.search_screen.judging.judgements_read)
        app.query_one(ResultList).focus()
        await pilot.press("plus")
        app.search_screen.action_suggest_settings()
        assert await wait_for(pilot, lambda: isinstance(app.screen, SuggestScreen) and app.screen.result is not None)
        body = str(app.screen.query_one("#suggest-body", Static).render())
        assert "judge 9 more" in body.replace("\n", " ")
        await pilot.press("a")  # nothing to apply
        assert isinstance(app.screen, SuggestScreen)
        await pilot.press("escape", "f1")
        assert await wait_for(pilot, lambda: app.screen.__class__.__name__ == "HelpScreen")
        keys = "\n".join(rendered_lines(app.screen.query_one("#help-text")))
        assert "Judge relevant" in keys and "Judge not relevant" in keys and "Clear judgement" in keys


async def test_a_mark_keeps_a_stored_line_that_is_not_utf8_and_every_other_judgement(tmp_path):
    app = seeded_app(tmp_path)
    stored = judgements_path(tmp_path / "tui.sqlite")
    bad = b'{"qid": "x", "question": "caf\xe9", "targets": []}'
    shipped = stored.read_bytes()
    stored.write_bytes(shipped + bad + b"\n")
    async with app.run_test(size=(120, 36)) as pilot:
        await settled_search(pilot, app, "database migration")
        assert await wait_for(pilot, lambda: app.search_screen.judging.judgements_read)
        assert len(app.search_screen.judging.judgements) == 24  # the good lines are used
        app.query_one(ResultList).focus()
        await pilot.press("plus")
        assert await wait_for(pilot, lambda: stored.read_bytes() != shipped + bad + b"\n")
        after = stored.read_bytes()
        assert bad + b"\n" in after and len(app.search_screen.judging.judgement_store.load().judgements) >= 24


async def test_a_suggestion_found_without_vectors_can_be_applied_but_not_saved(tmp_path):
    config = tmp_path / "memtui.toml"
    app = seeded_app(tmp_path, config_path=config)  # provider none: keyword-only pools
    app.search_screen.params = app.default_params = app.search_screen.judging.saved_params = SearchParams()
    async with app.run_test(size=(120, 36)) as pilot:
        assert await wait_for(pilot, lambda: app.search_screen.judging.metric_view.current is not None, 30)
        app.search_screen.action_suggest_settings()
        assert await wait_for(pilot, lambda: isinstance(app.screen, SuggestScreen) and app.screen.result is not None, 60)
        found = app.screen.result
        assert isinstance(found, Suggestion) and found.better and not found.vectors
        assert "tuned with keywords only" in str(app.screen.query_one("#suggest-body").render())
        await pilot.press("s")
        await pilot.pause()
        assert isinstance(app.screen, SuggestScreen) and not config.exists()
        await pilot.press("a")
        assert await wait_for(pilot, lambda: app.search_screen.params == found.best)
        assert not config.exists() and app.search_screen.judging.saved_params == SearchParams()


async def test_help_paragraphs_wrap_cleanly_at_both_sizes(tmp_path):
    """Hard line breaks in the help text plus the screen's wrapping left one-word lines ("in", "x")."""
    from textual.widgets import Static

    for size in ((120, 36), (80, 24)):
        app = make_app(copy_demo(tmp_path / f"{size[0]}"), tmp_path / f"{size[0]}")
        async with app.run_test(size=size) as pilot:
            await pilot.press("f1")
            assert await wait_for(pilot, lambda app=app: app.screen.__class__.__name__ == "HelpScreen")
            widget = app.screen.query_one(Static)
            lines = rendered_lines(widget)
            start = next(i for i, line in enumerate(lines) if line.startswith("Type a query"))  # after the keys (issue 31)
            about = lines[start:]
            for line, after in zip(about, about[1:], strict=False):
                if line and after:  # inside a paragraph: a line is only short at its paragraph's end
                    assert len(line) > widget.size.width // 2, (size, line)
            assert any("e opens it in $EDITOR" in line or line.endswith("e opens it") for line in about)
            keys = lines[lines.index("Keys") + 1: start]
            titles = [line for line in keys if line and not line.startswith("  ")]  # the other panes' keys, titled
            assert titles and all(t.startswith(("On ", "In ")) for t in titles), titles
            # a wrapped description stays in its column
            assert keys and all(line.startswith("  ") for line in keys if line and line not in titles)


async def test_the_focused_slider_is_drawn_apart_and_left_moves_it(tmp_path):
    from openclaw_memtui.tui.widgets.slider import Slider
    from openclaw_memtui.tui.widgets.tuning import NumberInput

    app = make_app(copy_demo(tmp_path), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+t")
        first = app.query_one("#sl-vector_weight", Slider)
        assert await wait_for(pilot, lambda: app.focused is first)
        await pilot.pause()
        knobs = {s.id: "".join(rendered_lines(s)) for s in app.query(Slider)}
        assert "◉" in knobs["sl-vector_weight"] and not any("◉" in k for i, k in knobs.items() if i != "sl-vector_weight")
        await pilot.press("shift+tab")  # to the number box above it: no slider looks focused any more
        assert isinstance(app.focused, NumberInput)
        await pilot.pause()
        assert "◉" not in "".join(rendered_lines(first))
        await pilot.press("tab", "left")
        moved = round(SearchParams().vector_weight - 0.05, 2)  # left: one step of 0.05
        assert await wait_for(pilot, lambda: first.value == moved and app.search_screen.params.vector_weight == moved)
        assert "◉" in "".join(rendered_lines(first))


async def test_judgements_imported_while_the_app_is_open_are_counted_and_kept_by_the_next_mark(tmp_path):
    """`memtui judgements import` while the app ran: the app kept its old list, so the panel never counted
    the imported questions and the next mark saved that list over them (24 questions gone)."""
    from openclaw_memtui.cli.main import main

    ws = copy_demo(tmp_path)
    app = make_app(ws, tmp_path)
    app.fixed_now_ms = DEMO_NOW_MS
    async with app.run_test(size=(120, 36)) as pilot:
        assert await wait_for(pilot, lambda: app.search_screen.judging.judged is not None)
        assert app.search_screen.judging.judgements == []
        code = main(["judgements", "import", str(demo_judgements()), "--workspace", str(ws),
                     "--db", str(tmp_path / "tui.sqlite"), "--provider", "none"])
        assert code == 0
        import threading

        store, release = app.search_screen.judging.judgement_store, threading.Event()
        real_load = store.load
        store.load = lambda: release.wait(10) and real_load()
        await pilot.press("ctrl+t")  # the panel counts what was imported, and says it is reading them meanwhile
        assert await wait_for(pilot, lambda: "reading the judgements again" in " ".join(rendered_lines(app.query_one(MetricBox))))
        release.set()
        assert await wait_for(pilot, lambda: app.search_screen.judging.metric_view.judged == 24, 30)
        store.load = real_load
        await settled_search(pilot, app, "database migration")
        app.query_one(ResultList).focus()
        await pilot.press("plus")
        assert await wait_for(pilot, lambda: len(store.load().judgements) == 25)
        assert await wait_for(pilot, lambda: app.search_screen.judging.metric_view.judged == 25, 30)


async def test_a_mark_right_after_an_import_keeps_the_imported_questions(tmp_path):
    """The same without opening the panel first: the mark itself reads the file again before saving."""
    from openclaw_memtui.cli.main import main

    ws = copy_demo(tmp_path)
    app = make_app(ws, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settled_search(pilot, app, "database migration")
        assert await wait_for(pilot, lambda: app.search_screen.judging.judgements_read
                              and app.search_screen.judging.judged is not None)
        assert main(["judgements", "import", str(demo_judgements()), "--workspace", str(ws),
                     "--db", str(tmp_path / "tui.sqlite"), "--provider", "none"]) == 0
        app.query_one(ResultList).focus()
        await pilot.press("plus")
        store = app.search_screen.judging.judgement_store
        assert await wait_for(pilot, lambda: len(store.load().judgements) == 25)
        questions = {j.question for j in store.load().judgements}
        assert "database migration" in questions and len(app.search_screen.judging.judgements) == 25


async def test_the_suggest_hints_name_the_remapped_keys_and_those_keys_work(tmp_path):
    """The modal said "a apply · esc close" whatever tui.keys had remapped them to."""
    import threading

    from textual.widgets import Static

    keys = {"suggest.apply": "y", "suggest.save": "ctrl+w", "suggest.close": "f9"}
    app = seeded_app(tmp_path, config_path=tmp_path / "memtui.toml", cfg={"tui": {"keys": keys}})
    app.search_screen.params = app.default_params = app.search_screen.judging.saved_params = SearchParams()
    async with app.run_test(size=(120, 36)) as pilot:
        searching = threading.Event()  # a screen with no search behind it: it keeps saying it searches
        app.push_screen(SuggestScreen(searching))
        assert await wait_for(pilot, lambda: isinstance(app.screen, SuggestScreen) and app.screen.is_mounted)
        assert str(app.screen.query_one("#suggest-keys", Static).render()) == "f9 stops the search"
        await pilot.press("escape")  # the default key no longer closes it
        assert isinstance(app.screen, SuggestScreen) and not searching.is_set()
        await pilot.press("f9")
        assert await wait_for(pilot, lambda: not isinstance(app.screen, SuggestScreen)) and searching.is_set()

        assert await wait_for(pilot, lambda: app.search_screen.judging.metric_view.current is not None, 30)
        app.search_screen.action_suggest_settings()  # keyword-only pools (provider none): applied, never saved
        assert await wait_for(pilot, lambda: isinstance(app.screen, SuggestScreen) and app.screen.result is not None, 60)
        found = app.screen.result
        assert isinstance(found, Suggestion) and found.better and not found.vectors
        hint = str(app.screen.query_one("#suggest-keys", Static).render())
        assert hint == "y apply (not saved: tuned without vectors) · f9 close", hint
        await pilot.press("a")  # the default key does nothing now
        await pilot.pause()
        assert isinstance(app.screen, SuggestScreen) and app.search_screen.params != found.best
        await pilot.press("y")
        assert await wait_for(pilot, lambda: app.search_screen.params == found.best)
        assert not isinstance(app.screen, SuggestScreen)
