"""Line vectors (`chunking.lineVectors`): each line of a chunk embedded on its own, a chunk's cosine raised to its
best line's; made, kept current and dropped by the sync; on by default up to LINE_VECTORS_MAX_CHUNKS chunks."""

from __future__ import annotations

import numpy as np
import pytest

from openclaw_memtui.core.config import ConfigError, index_settings, validate
from openclaw_memtui.engine.index import MemoryIndex
from openclaw_memtui.engine.search.rank import SearchParams
from openclaw_memtui.engine.vectors import line_vectors as lv

# a daily note of unrelated bullets, in Chinese; the question is English and about one of them
NOTE = ("# 2026-09-14\n\n"
        "- 给狗买了新的胸背带，M 号太小，换成了 L 号。\n"
        "- 物业说电梯从下周一开始维修，停用三天。\n"
        "- 倒车雷达坏了，4S店说要换一个探头，四百五十块。\n"
        "- 新来的实习生小陈负责写接口文档，周五前交初稿。\n")
QUESTION = "the car's parking sensor is broken"
SENSOR_LINE = "- 倒车雷达坏了，4S店说要换一个探头，四百五十块。"


def test_the_lines_that_get_a_vector():
    assert lv.vector_lines("# day\n\n  - one  \n\n- two\n") == ["# day", "- one", "- two"]
    assert lv.vector_lines("only one line\n") == []  # its chunk vector already is its line's
    assert lv.vector_lines("") == []


def test_best_line_cosines_reads_the_best_stored_line_of_each_text(tmp_path):
    import sqlite3

    from openclaw_memtui.engine.store.schema import LINE_VECTORS_SQL

    conn = sqlite3.connect(":memory:")
    conn.executescript(LINE_VECTORS_SQL)
    e = np.eye(3, dtype=np.float32)
    lv.put(conn, "m", [(lv.line_hash("a"), e[0]), (lv.line_hash("b"), e[1]), (lv.line_hash("c"), 0.5 * e[0])])
    lv.put(conn, "other", [(lv.line_hash("d"), e[1])])
    q = np.array([0.2, 0.9, 0.0], dtype=np.float32)
    got = lv.best_line_cosines(conn, "m", ["a\nb", "a\nc", "d\nx", "b"], q)
    # best of two lines; the better of a and c; another model's vector is not this one's; one line: none
    assert got[:2] == pytest.approx([0.9, 0.2], abs=1e-3) and got[2] is None and got[3] is None  # float16
    assert lv.prune(conn, "m", {lv.line_hash("a")}) == 3  # other's d, and m's b and c no chunk holds
    assert lv.stored_hashes(conn, "m", [lv.line_hash(x) for x in "abc"]) == {lv.line_hash("a")}


def test_the_setting_is_on_by_default_and_checked():
    assert index_settings(validate({}), __import__("pathlib").Path("/tmp")).line_vectors is True
    assert validate({"chunking": {"lineVectors": True}}).chunking.line_vectors is True
    with pytest.raises(ConfigError, match="chunking.lineVectors"):
        validate({"chunking": {"lineVectors": "yes"}})


def _index(tmp_path, ws, on: bool) -> MemoryIndex:
    cfg = validate({"chunking": {"lineVectors": on}})
    return MemoryIndex(index_settings(cfg, ws, tmp_path / "index.sqlite"), provider_name="local")


def _note_result(index: MemoryIndex) -> float:
    _, results = index.search(QUESTION, SearchParams(min_score=0.0, max_results=10))
    hit = next(r for r in results if r.path == "memory/2026-09-14.md")
    assert hit.vector_score is not None
    return hit.vector_score


def test_a_chunk_is_as_close_as_its_closest_line_and_the_sync_keeps_the_lines_current(tmp_path, workspace):
    note = workspace / "memory" / "2026-09-14.md"
    note.write_text(NOTE, encoding="utf-8")
    off = _index(tmp_path, workspace, on=False)
    report = off.sync()
    assert report.lines_embedded == 0
    chunk_only = _note_result(off)
    off.close()

    on = _index(tmp_path, workspace, on=True)
    report = on.sync()
    provider = on.provider
    assert provider is not None
    lines = lv.vector_lines(NOTE)
    assert report.lines_embedded >= len(lines)  # the demo workspace's notes have lines too
    q = provider.embed_query(QUESTION)
    best = max(float(v @ q) for v in provider.embed_batch(lines))
    assert best == pytest.approx(float(provider.embed_batch([SENSOR_LINE])[0] @ q), abs=1e-5)  # the sensor line
    assert best > chunk_only + 0.05  # the bullet is much closer to the question than the note's average
    assert _note_result(on) == pytest.approx(best, abs=2e-3)  # stored as float16
    assert on.sync().lines_embedded == 0  # nothing changed: nothing embedded again

    # an edit: the new line gets a vector, and the note no longer scores by the line gone (looked up by the
    # chunk's lines as they are now); the line gone keeps its vector until a full pass prunes it
    note.write_text(NOTE.replace(SENSOR_LINE, "- 倒车雷达修好了。"), encoding="utf-8")
    assert on.sync().lines_embedded == 1
    both = [lv.line_hash(SENSOR_LINE), lv.line_hash("- 倒车雷达修好了。")]
    assert lv.stored_hashes(on.reads().conn, provider.model, both) == set(both)
    edited = NOTE.replace(SENSOR_LINE, "- 倒车雷达修好了。")
    best_now = max(float(v @ q) for v in provider.embed_batch(lv.vector_lines(edited)))
    assert _note_result(on) == pytest.approx(best_now, abs=2e-3) and abs(best_now - best) > 2e-3
    on.sync(force=True)
    assert lv.stored_hashes(on.reads().conn, provider.model, both) == {lv.line_hash("- 倒车雷达修好了。")}
    on.close()

    # turned off again: the lines are dropped and a chunk scores by its own vector
    note.write_text(NOTE, encoding="utf-8")
    off = _index(tmp_path, workspace, on=False)
    off.sync()
    assert not lv.has_line_vectors(off.reads().conn, provider.model)
    assert _note_result(off) == pytest.approx(chunk_only, abs=1e-5)
    off.close()


def test_memtui_index_says_how_many_line_vectors_it_made(tmp_path, workspace, capsys):
    from openclaw_memtui.cli.main import main

    (workspace / "memory" / "2026-09-14.md").write_text(NOTE, encoding="utf-8")
    config = tmp_path / "config.toml"
    config.write_text("[chunking]\nlineVectors = true\n", encoding="utf-8")
    args = ["index", "--workspace", str(workspace), "--db", str(tmp_path / "i.sqlite"), "--config", str(config)]
    assert main(args) == 0
    made = int(capsys.readouterr().out.split("line vectors: ", 1)[1].split()[0])
    assert made >= len(lv.vector_lines(NOTE))
    assert main([*args, "--json"]) == 0  # nothing changed: none made, and the line is left out
    assert '"lines_embedded": 0' in capsys.readouterr().out
    assert main(args) == 0
    assert "line vectors" not in capsys.readouterr().out


def test_a_remote_provider_gets_no_line_vectors_and_the_sync_says_why(tmp_path, monkeypatch):
    """Line vectors send every line's text to the provider again: with a remote one that doubles what it is sent
    and what it bills, so only the local model makes them, and `memtui index` says why there are none."""
    from .fake_api import FakeAPI
    from .helpers import write

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret-key-123456")
    api = FakeAPI("openai")
    try:
        ws = tmp_path / "ws"
        for i in range(3):
            write(ws / "memory" / f"n{i}.md", f"# note {i}\nmanatees graze at dawn {i}\nthey swim slowly {i}\n")
        settings = index_settings(validate({"chunking": {"lineVectors": True}}), ws, tmp_path / "i.sqlite")
        index = MemoryIndex(settings, provider_name="openai", remote={"baseUrl": api.url})
        report = index.sync()
        assert report.chunks_embedded == 3 and report.lines_embedded == 0
        assert "openai is a remote provider" in report.line_vectors_off
        assert not lv.has_line_vectors(index.reads().conn, index.provider.model)
        assert all(text != "manatees graze at dawn 0" for r in api.requests for text in r["body"]["input"])  # no line sent
        index.close()
    finally:
        api.close()

def test_after_a_complete_pass_a_sync_reads_only_the_lines_of_the_chunks_it_embedded(tmp_path, workspace, monkeypatch):
    """An agent's server syncs at every turn: the line pass must not read every chunk of a large index each time."""
    on = _index(tmp_path, workspace, on=True)
    on.sync()
    read: list[str] = []
    real = lv.vector_lines
    monkeypatch.setattr(lv, "vector_lines", lambda text: read.append(text) or real(text))
    (workspace / "memory" / "2026-09-14.md").write_text(NOTE, encoding="utf-8")
    assert on.sync().lines_embedded == len(lv.vector_lines(NOTE))
    assert read and all(text in NOTE for text in read)  # the new note's chunks only
    on.close()


def test_lines_a_sync_stopped_before_embedding_are_embedded_by_the_next_one(tmp_path, workspace):
    """Chunk vectors written, then the line pass failed (or the process ended): the next sync, with nothing
    changed, still gives those chunks' lines their vectors, and finds that note by its line."""
    on = _index(tmp_path, workspace, on=True)
    on.sync()
    provider = on.provider
    assert provider is not None
    note = workspace / "memory" / "2026-09-14.md"
    note.write_text(NOTE, encoding="utf-8")
    real_batch = provider.embed_batch

    def chunks_only(texts):
        if any(text.strip() == SENSOR_LINE for text in texts):  # the line pass's batch
            from openclaw_memtui.engine.embeddings.base import EmbeddingError

            raise EmbeddingError("the provider went away")
        return real_batch(texts)

    provider.embed_batch = chunks_only
    report = on.sync()
    assert report.embed_error and report.chunks_embedded > 0
    assert lv.line_hash(SENSOR_LINE) not in lv.stored_hashes(on.reads().conn, provider.model, [lv.line_hash(SENSOR_LINE)])
    provider.embed_batch = real_batch
    assert on.sync().lines_embedded >= len(lv.vector_lines(NOTE))  # nothing changed on disk: done all the same
    assert lv.line_hash(SENSOR_LINE) in lv.stored_hashes(on.reads().conn, provider.model, [lv.line_hash(SENSOR_LINE)])
    on.close()


def test_an_index_past_the_chunk_cap_goes_without_line_vectors_and_says_so(tmp_path, workspace, monkeypatch):
    (workspace / "memory" / "2026-09-14.md").write_text(NOTE, encoding="utf-8")
    on = _index(tmp_path, workspace, on=True)
    on.sync()
    model = on.provider.model
    assert lv.has_line_vectors(on.reads().conn, model)
    chunks = on.status(check_dirty=False).chunks
    monkeypatch.setattr(lv, "LINE_VECTORS_MAX_CHUNKS", chunks - 1)  # one chunk over the cap
    report = on.sync(force=True)
    assert report.lines_embedded == 0 and f"{chunks:,} chunks" in report.line_vectors_off
    assert not lv.has_line_vectors(on.reads().conn, model)
    monkeypatch.setattr(lv, "LINE_VECTORS_MAX_CHUNKS", chunks)  # at the cap: made again
    report = on.sync(force=True)
    assert report.lines_embedded > 0 and report.line_vectors_off == ""
    on.close()
