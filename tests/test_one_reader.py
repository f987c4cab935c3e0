"""One reader of memory files: the sync, memory_get and the app's file view open a listed
file by the same rule (engine/ingest/reading.py). Each test here is a place where they disagreed: the
file view followed links the others refuse, and memory_get served a file name the sync never indexes."""

from __future__ import annotations

import os

import pytest

from openclaw_memtui.engine.ingest.memory_files import AccessRefused, read_memory_file
from openclaw_memtui.engine.ingest.reading import read_indexed_file

from . import test_openclaw_2026 as oc2026
from .helpers import write

oc = oc2026.oc  # the real 2026.9.6 state, copied per test


def _view(settings, path: str, source: str) -> str:
    from openclaw_memtui.tui.screens.file_view import render_file

    return render_file(lambda: read_indexed_file(settings, path, source), path, 1, 1, source)[0].plain


def test_the_file_view_does_not_follow_a_note_swapped_for_a_link_when_links_are_off(tmp_path, make_settings):
    # followSymlinks off: the sync skips memory/a.md once it is a link (ELOOP) and memory_get refuses it;
    # the file view followed it and showed a file of the workspace that is no note
    ws = tmp_path / "ws"
    write(ws / "memory" / "a.md", "axolotl\n")
    write(ws / "private.txt", "the combination is 1234\n")
    settings = make_settings(ws)
    (ws / "memory" / "a.md").unlink()
    os.symlink(ws / "private.txt", ws / "memory" / "a.md")
    shown = _view(settings, "memory/a.md", "memory")
    assert "1234" not in shown
    assert shown == "cannot read memory/a.md: it is a symbolic link and followSymlinks is off"
    with pytest.raises(AccessRefused):
        read_memory_file(settings, "memory/a.md")


def test_the_file_view_does_not_follow_a_transcript_linked_outside_every_root(tmp_path, make_settings):
    # followSymlinks on: a link is read only while it stays inside the workspace, an extra path or the
    # sessions folder; the file view read a transcript linked anywhere
    ws = tmp_path / "ws"
    line = '{"type":"message","message":{"role":"user","content":"platypus"}}\n'
    write(ws / "sessions" / "s.jsonl", line)
    write(tmp_path / "elsewhere" / "other.jsonl", line.replace("platypus", "wallaby"))
    settings = make_settings(ws, follow_symlinks=True)
    (ws / "sessions" / "s.jsonl").unlink()
    os.symlink(tmp_path / "elsewhere" / "other.jsonl", ws / "sessions" / "s.jsonl")
    shown = _view(settings, "sessions/s.jsonl", "sessions")
    assert "wallaby" not in shown
    assert shown.startswith("cannot read sessions/s.jsonl: it resolves outside the workspace")


def test_memory_get_refuses_a_file_name_the_sync_never_indexes(tmp_path, make_settings):
    # a name that is not valid UTF-8 is skipped by the sync ("rename the file to index it"), so
    # memory_search never returns it; memory_get served it anyway under its displayed name
    ws = tmp_path / "ws"
    write(ws / "memory" / "a.md", "axolotl\n")
    with open(os.path.join(os.fsencode(ws / "memory"), b"caf\xe9.md"), "wb") as fh:
        fh.write(b"not indexed\n")
    settings = make_settings(ws)
    with pytest.raises(AccessRefused, match="not valid UTF-8"):
        read_memory_file(settings, "memory/caf\\xe9.md")
    assert read_memory_file(settings, "memory/a.md").text == "axolotl\n"


def test_the_file_view_shows_a_note_without_its_byte_order_mark_as_the_index_holds_it(tmp_path, make_settings):
    # the sync and memory_get drop a leading BOM; the file view kept it on line 1
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "memory" / "a.md").write_bytes(b"\xef\xbb\xbf# Title\nbody\n")
    settings = make_settings(ws)
    assert read_indexed_file(settings, "memory/a.md", "memory") == "# Title\nbody\n"
    assert read_memory_file(settings, "memory/a.md").text == "# Title\nbody\n"


async def test_the_apps_file_view_shows_a_2026_9_agents_transcript_as_its_index_holds_it(tmp_path):
    # an OpenClaw 2026.9 agent's transcripts are indexed (and served by memory_get) without what
    # OpenClaw leaves out, here a cron prompt; the file view flattened them without those filters
    from dataclasses import replace

    from textual.widgets import OptionList, Static

    from openclaw_memtui.core.config import index_settings, validate
    from openclaw_memtui.engine.index import MemoryIndex
    from openclaw_memtui.engine.search.rank import SearchParams
    from openclaw_memtui.tui.screens.file_view import FileScreen

    from .app_helpers import NOW_MS, RecordingApp, wait_for

    ws = tmp_path / "ws"
    write(ws / "MEMORY.md", "# Memory\n")
    write(ws / "sessions" / "s.jsonl",
          '{"type":"message","message":{"role":"user","content":"[cron:nightly-digest] compile the wombat digest"}}\n'
          '{"type":"message","message":{"role":"assistant","content":"The wombat digest is ready."}}\n')
    cfg = validate({})
    settings = replace(index_settings(cfg, ws, tmp_path / "tui.sqlite"), chunker="openclaw-v5", watch_debounce_ms=200)
    assert "cron:nightly" not in read_memory_file(settings, "sessions/s.jsonl").text
    app = RecordingApp(MemoryIndex(settings, provider_name="none"), cfg, origin="test", now_ms=NOW_MS,
                       params=SearchParams(min_score=0.0), watch=False, initial_query="wombat")
    async with app.run_test(size=(120, 36)) as pilot:
        assert await wait_for(pilot, lambda: any(r.path == "sessions/s.jsonl" for r in app.search_screen.results))
        listing = app.query_one("#results", OptionList)
        listing.highlighted = next(i for i, r in enumerate(app.search_screen.results) if r.path == "sessions/s.jsonl")
        listing.focus()
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: isinstance(app.screen, FileScreen))
        shown = str(app.screen.query_one("#file-text", Static).render())
        assert "The wombat digest is ready." in shown
        assert "cron:nightly" not in shown


def test_memory_get_refuses_a_database_transcript_larger_than_the_sync_indexes(oc, tmp_path):
    # the sync skips a live transcript of an agent database over store.maxFileBytes, as it skips a file;
    # memory_get served it whatever its size
    from dataclasses import replace

    from openclaw_memtui.engine.ingest.memory_files import find_source
    from openclaw_memtui.engine.ingest.reading import Skip, read_db_transcript

    from .test_openclaw_2026 import SESSION_MAIN
    from .test_openclaw_privacy import main_index

    index = main_index(tmp_path / "m.sqlite")
    settings = replace(index.settings, max_file_bytes=10)
    index.close()
    sf = find_source(settings, SESSION_MAIN)
    assert sf.in_database
    with pytest.raises(Skip, match="larger than 10 bytes"):
        read_db_transcript(sf, settings.transcripts_db, settings.max_file_bytes)
    with pytest.raises(AccessRefused, match="larger than 10 bytes"):
        read_memory_file(settings, SESSION_MAIN)
    assert "User:" in read_memory_file(replace(settings, max_file_bytes=10_000_000), SESSION_MAIN).text


def test_check_files_hashes_by_the_same_rule_the_sync_reads_by(tmp_path, make_settings):
    # `--check-files` compares content_hash with the stored hash; it read a note swapped for a link
    # since the listing (links off) and hashed a file that is no note, where the sync skips it
    from openclaw_memtui.engine.ingest.listing import list_sources
    from openclaw_memtui.engine.sync.file_pass import content_hash

    ws = tmp_path / "ws"
    write(ws / "memory" / "a.md", "axolotl\n")
    write(ws / "private.txt", "the combination is 1234\n")
    settings = make_settings(ws)
    (listed,) = [sf for sf in list_sources(settings) if sf.path == "memory/a.md"]
    assert content_hash(listed, settings) is not None
    (ws / "memory" / "a.md").unlink()
    os.symlink(ws / "private.txt", ws / "memory" / "a.md")
    assert content_hash(listed, settings) is None


def test_the_index_facade_reads_a_file_and_its_chunks_by_the_same_rule(tmp_path, make_settings):
    """Front ends read a file range and chunk rows through MemoryIndex, never the reader's rows or the
    store's fields: the same access rule as the sync (a note swapped for a link is refused)."""
    from openclaw_memtui.engine.index import MemoryIndex

    ws = tmp_path / "ws"
    write(ws / "memory" / "a.md", "axolotl\n")
    write(ws / "private.txt", "the combination is 1234\n")
    index = MemoryIndex(make_settings(ws), provider_name="none")
    index.sync()
    assert index.built and index.read_file("memory/a.md", "memory") == "axolotl\n"
    spans = index.chunk_spans(["memory/a.md"])["memory/a.md"]
    (start, end, _), = spans
    assert index.chunks_at([("memory/a.md", start, end)])[("memory/a.md", start, end)].text.startswith("axolotl")
    (ws / "memory" / "a.md").unlink()
    os.symlink(ws / "private.txt", ws / "memory" / "a.md")
    with pytest.raises(OSError):
        index.read_file("memory/a.md", "memory")
