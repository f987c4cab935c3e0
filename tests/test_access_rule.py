"""One rule for what is memory (engine/ingest/access.py): the sync indexes only what memory_get would read."""

from __future__ import annotations

import json
import os

import pytest

from .helpers import write


def test_followed_links_outside_every_root_are_never_indexed_nor_read(tmp_path, workspace, capsys):
    from openclaw_memtui.cli.main import main

    outside = tmp_path / "outside"
    write(outside / "secret.md", "kestrel outside text\n")
    write(outside / "deeper" / "more.md", "kestrel deeper text\n")
    write(workspace / "memory" / "inner.md", "kestrel inner text\n")
    os.symlink(outside / "secret.md", workspace / "memory" / "file-link.md")  # a file outside
    os.symlink(outside, workspace / "memory" / "dir-link")  # a folder outside
    os.symlink(workspace / "memory" / "file-link.md", workspace / "memory" / "chain.md")  # a chain ending outside
    os.symlink(workspace / "memory" / "inner.md", workspace / "memory" / "inside-link.md")  # stays inside: kept
    write(workspace / "extra" / "x.md", "kestrel extra text\n")
    os.symlink(outside / "deeper" / "more.md", workspace / "extra" / "out.md")  # inside an extra path, pointing out
    config = tmp_path / "config.toml"
    config.write_text('followSymlinks = true\nextraPaths = ["extra/../extra"]\n', encoding="utf-8")
    argv = ["--workspace", str(workspace), "--db", str(tmp_path / "i.sqlite"), "--provider", "none",
            "--config", str(config)]
    assert main(["index", *argv]) == 0
    capsys.readouterr()
    assert main(["search", "kestrel", "--json", *argv]) == 0
    out = capsys.readouterr().out
    paths = {r["path"] for r in json.loads(out)["results"]}
    assert "outside" not in out and "deeper" not in out
    assert paths == {"memory/inner.md", "extra/x.md"}  # the inside link is the same file as inner.md


def test_a_sync_resolves_the_roots_once_and_only_its_own_thread_sees_them_pinned(tmp_path, workspace, make_settings,
                                                                                  monkeypatch):
    import threading

    from openclaw_memtui.engine.index import MemoryIndex
    from openclaw_memtui.engine.ingest import access

    for i in range(30):
        write(workspace / "memory" / f"n{i:02d}.md", f"kestrel note {i}\n")
    settings = make_settings(workspace)
    resolved: list[str] = []
    real = access.allowed_roots
    monkeypatch.setattr(access, "allowed_roots", lambda ws, *rest: resolved.append(str(ws)) or real(ws, *rest))
    other_thread: list[list[str]] = []
    with access.roots_pinned(settings):
        before = len(resolved)
        assert access.settings_roots(settings) == access.settings_roots(settings)
        assert len(resolved) == before  # pinned: not resolved again
        thread = threading.Thread(target=lambda: other_thread.append(access.settings_roots(settings)))
        thread.start()
        thread.join()
        assert len(resolved) == before + 1  # another thread resolves its own
    resolved.clear()
    report = MemoryIndex(settings, provider_name="none").sync()
    assert report.files_indexed >= 30  # with the fixture workspace's own notes
    assert len(resolved) == 1  # once for the whole pass, not once per file read
    access.settings_roots(settings)
    assert len(resolved) == 2  # the pin ends with the sync


def _swap_folder_after_listing(monkeypatch, folder, outside):
    """Replace `folder` with a link to `outside` once the sync has listed the files in it."""
    from openclaw_memtui.engine.sync import file_pass

    real_list = file_pass.list_sources

    def listed_then_swapped(*args, **kwargs):
        files = real_list(*args, **kwargs)
        folder.rename(folder.with_name(folder.name + "-moved"))
        os.symlink(outside, folder)
        return files

    monkeypatch.setattr(file_pass, "list_sources", listed_then_swapped)


def test_a_folder_swapped_for_a_link_outside_after_the_listing_is_not_read(tmp_path, workspace, make_settings,
                                                                            monkeypatch):
    """The sync opens a note beneath its folder's descriptor: a folder replaced by a link to elsewhere
    between the listing and the reads puts nothing from elsewhere in the index, links followed or not."""
    from openclaw_memtui.engine.index import MemoryIndex

    for follow in (False, True):
        root = tmp_path / f"follow-{follow}"
        outside = root / "outside"
        write(outside / "a.md", "kestrel secret from outside\n")
        ws = root / "ws"
        write(ws / "memory" / "sub" / "a.md", "kestrel inside note\n")
        _swap_folder_after_listing(monkeypatch, ws / "memory" / "sub", outside)
        index = MemoryIndex(make_settings(ws, db=root / "i.sqlite", follow_symlinks=follow), provider_name="none")
        report = index.sync()
        texts = [text for (text,) in index.store.conn.execute("SELECT text FROM chunks")]
        assert not any("secret" in text for text in texts), (follow, texts)
        assert report.files_indexed == 0
        index.close()
        monkeypatch.undo()


def _read_one_then(monkeypatch, name, act):
    """Run `act` right after the sync has read the note called `name`."""
    from openclaw_memtui.engine.ingest.reading import read_source as real_read
    from openclaw_memtui.engine.sync import file_pass

    def read_then_act(sf, *args, **kwargs):
        got = real_read(sf, *args, **kwargs)
        if sf.path.endswith(name):
            act()
        return got

    monkeypatch.setattr(file_pass, "read_source", read_then_act)


@pytest.mark.parametrize("openat2", [True, False], ids=["openat2", "proc"])
def test_a_folder_renamed_out_of_the_workspace_while_read_gives_nothing_from_outside(tmp_path, make_settings,
                                                                                     monkeypatch, openat2):
    """Between two notes of one folder the folder leaves the workspace and an outside file takes the
    second note's name: its real path is outside now, so it is not indexed (links followed or not, with
    openat2 or judged through /proc)."""
    from openclaw_memtui.engine.index import MemoryIndex
    from openclaw_memtui.engine.ingest import no_links

    if openat2 and not no_links.available():
        pytest.skip("openat2 is not available here")
    if not openat2:
        monkeypatch.setitem(no_links._state, "off", True)
    for follow in (False, True):
        root = tmp_path / f"follow-{follow}"
        ws, outside = root / "ws", root / "outside"
        write(ws / "memory" / "sub" / "a.md", "kestrel inside a\n")
        write(ws / "memory" / "sub" / "b.md", "kestrel inside b\n")
        write(outside / "secret.md", "kestrel secret from outside\n")

        def away(ws=ws, outside=outside):
            (ws / "memory" / "sub").rename(outside / "sub")
            (outside / "secret.md").replace(outside / "sub" / "b.md")

        _read_one_then(monkeypatch, "sub/a.md", away)
        index = MemoryIndex(make_settings(ws, db=root / "i.sqlite", follow_symlinks=follow), provider_name="none")
        index.sync()
        texts = [text for (text,) in index.store.conn.execute("SELECT text FROM chunks")]
        assert texts == ["kestrel inside a\n"], (follow, texts)
        index.close()


def test_a_sync_reads_notes_without_a_proc_look_up_of_each(tmp_path, make_settings, monkeypatch):
    """With openat2, a note opened by its real path through no link is inside by that path: no note needs
    the /proc look-up of where it really is (a third of a first index's reading)."""
    from openclaw_memtui.engine.index import MemoryIndex
    from openclaw_memtui.engine.ingest import access, no_links

    if not no_links.available():
        pytest.skip("openat2 is not available here")
    ws = tmp_path / "ws"
    for i in range(40):
        write(ws / "memory" / f"2026-01-{i % 28 + 1:02d}-n{i}.md", f"kestrel note {i}\n")
    write(ws / "memory" / "deeper" / "one.md", "kestrel deeper\n")
    write(ws / "kept" / "linked.md", "kestrel linked\n")
    os.symlink(ws / "kept" / "linked.md", ws / "memory" / "link.md")  # a link, followed inside: judged through /proc
    looked_up: list[str] = []
    real = access._opened_path
    monkeypatch.setattr(access, "_opened_path", lambda fd, path: looked_up.append(path) or real(fd, path))
    report = MemoryIndex(make_settings(ws, follow_symlinks=True), provider_name="none").sync()
    assert report.files_indexed == 42
    assert looked_up == [str(ws / "memory" / "link.md")]
