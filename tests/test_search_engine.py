"""Search over a real index file: keyword leg fixes, both vector paths, bootstrap, CLI output."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from openclaw_memtui.engine.index import MemoryIndex
from openclaw_memtui.engine.search.rank import SearchParams, rank
from openclaw_memtui.engine.vectors.vector import VectorSearcher

from .app_helpers import SeededProvider
from .helpers import env_for_subprocess, write


class SeededVectors(SeededProvider):
    """The app tests' deterministic provider, with the store tests' larger batches."""

    batch_max_items = 64
    sync_batch_items = 32  # the sync default, as before


def keyword_index(ws, make_settings, **kw):
    index = MemoryIndex(make_settings(ws, **kw), provider_name="none")
    index.sync()
    return index


def test_cjk_substring_found_by_bigrams(tmp_path, make_settings):
    ws = tmp_path / "ws"
    write(ws / "memory" / "2026-11-24.md", "评审结论：API鉴权方案改为 OAuth 2.0。\n")
    write(ws / "memory" / "2026-11-25.md", "今天讨论了部署流程。\n")
    index = keyword_index(ws, make_settings)
    for query in ("鉴权", "鉴权方案", "API 鉴权"):
        pool = index.retrieve(query)
        assert [c.path for c in pool.candidates if c.text_score > 0] == ["memory/2026-11-24.md"], query
    plain = keyword_index(ws, make_settings, cjk_segmentation="none", db=tmp_path / "plain.sqlite")
    assert not [c for c in plain.retrieve("鉴权").candidates if c.text_score > 0]  # unicode61 alone misses it


def test_and_miss_retries_with_or(tmp_path, make_settings):
    ws = tmp_path / "ws"
    write(ws / "memory" / "a.md", "The database migration moved notes to PostgreSQL.\n")
    write(ws / "memory" / "b.md", "Canary releases go to five percent of users first.\n")
    index = keyword_index(ws, make_settings)
    pool = index.retrieve("postgres database canary zebra")
    assert pool.keyword_form == "or"
    assert {c.path for c in pool.candidates} == {"memory/a.md", "memory/b.md"}
    strict = index.retrieve("postgres database canary zebra", keyword_mode="and")
    assert strict.candidates == [] and strict.keyword_form == "and"


def test_keyword_only_mode_openclaw_manager_example(tmp_path, make_settings):
    ws = tmp_path / "ws"
    write(ws / "memory" / "2026-01-12.md", "# Log\nAlpha memory line.\nZebra memory line.")
    index = keyword_index(ws, make_settings)
    _, results = index.search("Alpha")
    assert results and "Alpha" in results[0].snippet
    _, results = index.search("nonexistent_xyz_keyword")
    assert results == []


def test_search_reads_only_and_an_explicit_sync_builds_the_index(workspace, make_settings):
    index = MemoryIndex(make_settings(workspace), provider_name="none")
    _, results = index.search("ORBIT-10 codename", SearchParams(min_score=0, max_results=3))
    assert results == [] and index.is_empty()  # a read path never syncs
    index.sync()
    _, results = index.search("ORBIT-10 codename", SearchParams(min_score=0, max_results=3))
    assert results[0].source == "sessions" and "ORBIT-10" in results[0].snippet


def test_punctuation_and_huge_queries_are_harmless(workspace, make_settings):
    index = keyword_index(workspace, make_settings)
    assert index.retrieve("?!... ---").candidates == []
    assert index.retrieve("").candidates == []
    pool = index.retrieve("tea " * 5000)
    assert len(pool.query) <= 2000 and pool.candidates


def seeded_vector_index(tmp_path, make_settings, notes: int) -> MemoryIndex:
    ws = tmp_path / "vec"
    for i in range(notes):
        write(ws / "memory" / f"n{i:03d}.md", f"# Note {i}\nsubject {i % 17} detail {i}\n")
    index = MemoryIndex(make_settings(ws), provider_name="none")
    index._provider, index._provider_ready = SeededVectors(), True
    index.sync()
    return index


@pytest.fixture
def vector_index(tmp_path, make_settings):
    """300 notes: the paths' top 25 are compared over many more rows than they return."""
    return seeded_vector_index(tmp_path, make_settings, 300)


@pytest.fixture
def small_vector_index(tmp_path, make_settings):
    """For tests where the index's size is not the point (a cache following a change, a failing provider)."""
    return seeded_vector_index(tmp_path, make_settings, 40)


def test_numpy_and_sqlite_vec_return_the_same_top_k(vector_index):
    assert vector_index.store.vec_loaded
    conn = vector_index.reader()
    provider = vector_index.provider
    count = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    numpy_leg, vec_leg = VectorSearcher("numpy", exact=True), VectorSearcher("sqlite-vec")
    int8_leg = VectorSearcher("numpy", exact_up_to_bytes=0)  # quantised however small
    for i in range(20):
        q = provider.embed_query(f"query {i}")
        kwargs = dict(generation=vector_index.store_generation(), model=provider.model, vec_loaded=True,
                      sources=("memory", "sessions"), count=count)
        a = numpy_leg.search(conn, q, 25, **kwargs)
        b = vec_leg.search(conn, q, 25, **kwargs)
        c = int8_leg.search(conn, q, 25, **kwargs)
        assert [r for r, _ in a] == [r for r, _ in b] == [r for r, _ in c]
        assert np.allclose([s for _, s in a], [s for _, s in b], atol=1e-5)
        assert np.allclose([s for _, s in a], [s for _, s in c], atol=1e-6)  # rescored from the float vectors
    assert numpy_leg.last_path == "numpy" and vec_leg.last_path == "sqlite-vec" and int8_leg.last_path == "numpy-int8"


def test_vector_cache_follows_index_changes(small_vector_index):
    ws = small_vector_index.settings.workspace
    write(ws / "memory" / "fresh.md", "brand new note")
    small_vector_index.sync()
    pool = small_vector_index.retrieve("brand new note")
    best = max(pool.candidates, key=lambda c: c.vector_score or -1)
    assert best.path == "memory/fresh.md" and best.vector_score == pytest.approx(1.0, abs=1e-5)


def test_failing_query_embedding_degrades_to_keywords(small_vector_index):
    class Broken(SeededVectors):
        def embed_query(self, text):
            from openclaw_memtui.engine.embeddings.base import EmbeddingError

            raise EmbeddingError("openai: 401 invalid API key (set OPENAI_API_KEY)")

    small_vector_index._provider = Broken()
    pool = small_vector_index.retrieve("subject 3")
    assert pool.mode == "keyword" and "invalid API key" in pool.warnings[0]
    assert rank(pool, SearchParams(min_score=0))


def test_cli_search_json_shape(workspace, tmp_path):
    out = subprocess.run([sys.executable, "-m", "openclaw_memtui", "search", "Nebula codename", "--workspace", str(workspace),
                          "--db", str(tmp_path / "s.sqlite"), "--provider", "none", "--json", "--max-results", "2"],
                         capture_output=True, text=True, env=env_for_subprocess(), timeout=60)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["query"] == "Nebula codename" and "timings_ms" in data
    keys = {"path", "start_line", "end_line", "source", "snippet", "score", "vector_score", "text_score",
            "hybrid_score", "decay", "age_days", "rank_before_mmr", "rank"}
    assert data["results"] and keys <= set(data["results"][0])
    assert data["results"][0]["path"] == "sessions/s1.jsonl"


def test_cli_table_shows_control_sequences_literally(tmp_path):
    ws = tmp_path / "ws"
    write(ws / "MEMORY.md", "evil \x1b[2J\x1b]0;pwned\x07 text [bold]markup[/bold]\n")
    out = subprocess.run([sys.executable, "-m", "openclaw_memtui", "search", "evil", "--workspace", str(ws),
                          "--db", str(tmp_path / "e.sqlite"), "--provider", "none"],
                         capture_output=True, text=True, env=env_for_subprocess(), timeout=60)
    assert "\x1b" not in out.stdout and "\x07" not in out.stdout
    assert "\\x1b[2J" in out.stdout and "[bold]markup[/bold]" in out.stdout


def test_stemming_matches_word_forms(tmp_path, make_settings):
    ws = tmp_path / "ws"
    write(ws / "memory" / "a.md", "The decision: clients authenticate with OAuth tokens.\n")
    stemmed = keyword_index(ws, make_settings)
    candidates = stemmed.retrieve("what did we decide about authentication").candidates
    assert [c.path for c in candidates if c.text_score > 0] == ["memory/a.md"]
    assert stemmed.store.get_identity()["ftsTokenizer"] == "porter+unicode61+cjk-bigram"
    plain = keyword_index(ws, make_settings, stemming="none", db=tmp_path / "plain.sqlite")
    assert not [c for c in plain.retrieve("decide authentication").candidates if c.text_score > 0]


# -- best-line keyword scores --------------------------------------------------------------------

SPREAD = ("Trip planning notes.\nThe museum was closed on Monday.\nWe talked about pottery for an hour.\n"
          "Her sister likes the museum shop.\nPottery again, it was fun.\nA museum note for the weekend.\n")
ONE_LINE = ("Weekend notes.\nShe went to a pottery museum last week.\nThe weather was grey.\n"
            "Dinner was pasta.\nWe watched a film.\nThe cat slept all day.\n")


def lines_of(index) -> int:
    return index.reader().execute("SELECT count(*) FROM lines_fts").fetchone()[0]


def nonempty_lines(index) -> int:
    texts = [t for (t,) in index.reader().execute("SELECT text FROM chunks")]
    return sum(1 for t in texts for line in t.split("\n") if line.strip())


def test_a_chunk_whose_one_line_holds_the_query_outranks_one_with_the_words_spread(tmp_path, make_settings):
    ws = tmp_path / "ws"
    write(ws / "memory" / "spread.md", SPREAD)
    write(ws / "memory" / "one-line.md", ONE_LINE)
    index = keyword_index(ws, make_settings)
    pool = index.retrieve("Which pottery museum did she visit?")
    scores = {c.path: (c.text_score, c.line_score) for c in pool.candidates}
    assert scores["memory/spread.md"][0] > scores["memory/one-line.md"][0]  # the whole chunk favours the spread one
    assert scores["memory/one-line.md"][1] > scores["memory/spread.md"][1]  # its best line is the one-line one
    chunk_only = rank(pool, SearchParams(line_weight=0.0, min_score=0))
    assert [r.path for r in chunk_only] == ["memory/spread.md", "memory/one-line.md"]
    with_lines = rank(pool, SearchParams(min_score=0))  # the shipped default weighs lines in
    assert [r.path for r in with_lines] == ["memory/one-line.md", "memory/spread.md"]
    assert "lines" in pool.timings_ms


def test_question_words_do_not_score_a_line(tmp_path, make_settings):
    ws = tmp_path / "ws"
    write(ws / "memory" / "a.md", "What did you do when it rained?\nNothing much.\n")
    write(ws / "memory" / "b.md", "Rain notes.\nThe garden flooded after the rain.\n")
    index = keyword_index(ws, make_settings)
    pool = index.retrieve("What did they do when the garden flooded?")
    lines = {c.path: c.line_score for c in pool.candidates}
    assert lines.get("memory/a.md", 0.0) == 0.0 and lines["memory/b.md"] > 0


def test_lines_follow_the_chunks_through_edits_and_deletes(tmp_path, make_settings):
    ws = tmp_path / "ws"
    write(ws / "memory" / "a.md", SPREAD)
    write(ws / "memory" / "b.md", ONE_LINE)
    index = keyword_index(ws, make_settings)
    assert lines_of(index) == nonempty_lines(index) > 0
    write(ws / "memory" / "a.md", "Only one line about gardening now.\n")
    (ws / "memory" / "b.md").unlink()
    index.sync()
    assert lines_of(index) == nonempty_lines(index) == 1
    pool = index.retrieve("pottery museum")
    assert all(c.line_score == 0 for c in pool.candidates)  # no line of a deleted chunk still scores


def test_an_index_from_before_lines_gets_them_on_its_next_sync(tmp_path, make_settings):
    ws = tmp_path / "ws"
    write(ws / "memory" / "b.md", ONE_LINE)
    index = keyword_index(ws, make_settings)
    conn = index.store.conn
    conn.execute("INSERT INTO lines_fts(lines_fts) VALUES ('delete-all')")
    conn.execute("DELETE FROM meta WHERE key = 'memtui_lines_filled'")  # what an older index looks like
    assert all(c.line_score == 0 for c in index.retrieve("pottery museum").candidates)
    index.sync()
    assert lines_of(index) == nonempty_lines(index)
    assert max(c.line_score for c in index.retrieve("pottery museum").candidates) > 0


def line_rowids(index, match: str) -> list[int]:
    """The line rows whose indexed terms match (rowids only: a contentless table can list them, and a
    term left behind by a wrong 'delete' would still point at its row)."""
    return [r for (r,) in index.store.conn.execute("SELECT rowid FROM lines_fts WHERE lines_fts MATCH ?", (match,))]


def test_the_lines_of_an_edited_or_deleted_cjk_note_leave_no_term_behind(tmp_path, make_settings):
    """`lines_fts` keeps no copy of its text: each line is deleted by the text it was indexed as (CJK
    bigrams here). Deleted by the raw text instead, the bigram terms would stay behind, still matching."""
    ws = tmp_path / "ws"
    write(ws / "memory" / "a.md", "评审结论：API鉴权方案改为 OAuth 2.0。\n第二行：部署流程。\n")
    write(ws / "memory" / "b.md", "今天讨论了部署流程。\n")
    index = keyword_index(ws, make_settings)
    assert len(line_rowids(index, '"鉴权"')) == 1 and len(line_rowids(index, '"部署"')) == 2
    write(ws / "memory" / "a.md", "评审结论：改用 OAuth。\n")  # edited: its old lines go, the new one comes
    index.sync()
    assert line_rowids(index, '"鉴权"') == [] and len(line_rowids(index, '"部署"')) == 1
    assert len(line_rowids(index, '"评审"')) == 1
    (ws / "memory" / "a.md").unlink()
    index.sync()
    assert line_rowids(index, '"评审"') == [] and len(line_rowids(index, "OAuth")) == 0
    assert lines_of(index) == nonempty_lines(index) == 1
    pool = index.retrieve("部署流程")
    assert [c.path for c in pool.candidates if c.line_score > 0] == ["memory/b.md"]


def test_an_index_of_the_previous_schema_is_read_as_it_is_and_rebuilt_by_its_next_sync(tmp_path, make_settings):
    """Schema 1 kept a copy of every line in `lines_fts`; such an index still answers a search, and its
    next sync rebuilds it once (beside the live file) into the contentless table of schema 2."""
    from openclaw_memtui.engine.store import SCHEMA_KEY, SCHEMA_VERSION
    from openclaw_memtui.engine.store.writer import line_rows
    from openclaw_memtui.engine.textutil import segment_cjk_for_index

    ws = tmp_path / "ws"
    write(ws / "memory" / "b.md", ONE_LINE)
    write(ws / "memory" / "c.md", SPREAD)
    index = keyword_index(ws, make_settings)
    before = [(c.path, c.text_score, c.line_score) for c in index.retrieve("pottery museum").candidates]
    conn = index.store.conn
    conn.execute("DROP TABLE lines_fts")  # what schema 1 wrote: lines_fts with its own copy of the text
    conn.execute("CREATE VIRTUAL TABLE lines_fts USING fts5(text, tokenize = 'porter unicode61')")
    conn.execute("INSERT INTO meta(key, value) VALUES (?, '1') ON CONFLICT(key) DO UPDATE SET value = '1'", (SCHEMA_KEY,))
    for rowid, text in conn.execute("SELECT rowid, text FROM chunks").fetchall():
        conn.executemany("INSERT INTO lines_fts(rowid, text) VALUES (?, ?)", line_rows(rowid, segment_cjk_for_index(text)))
    index.close()
    reopened = MemoryIndex(make_settings(ws), provider_name="none")
    assert reopened.store.get_meta(SCHEMA_KEY) == "1"  # opened, not moved aside
    assert [(c.path, c.text_score, c.line_score) for c in reopened.retrieve("pottery museum").candidates] == before
    report = reopened.sync()
    assert report.full_rebuild and report.rebuild_reason == f"schema version 1, this memtui writes {SCHEMA_VERSION}"
    assert reopened.store.get_meta(SCHEMA_KEY) == str(SCHEMA_VERSION)
    (sql,) = reopened.store.conn.execute("SELECT sql FROM sqlite_master WHERE name = 'lines_fts'").fetchone()
    assert "content = ''" in sql
    assert [(c.path, c.text_score, c.line_score) for c in reopened.retrieve("pottery museum").candidates] == before
    again = reopened.sync()
    assert not again.full_rebuild and again.rebuild_reason == ""


def test_an_index_of_a_newer_schema_is_refused(tmp_path, make_settings):
    from openclaw_memtui.engine.store import SCHEMA_KEY, SCHEMA_VERSION, InvalidIndex
    from openclaw_memtui.engine.store.schema import holds_index

    ws = tmp_path / "ws"
    write(ws / "memory" / "b.md", ONE_LINE)
    index = keyword_index(ws, make_settings)
    index.store.set_meta(SCHEMA_KEY, str(SCHEMA_VERSION + 1))
    db = index.settings.db_path
    index.close()
    with pytest.raises(InvalidIndex, match=f"schema version {SCHEMA_VERSION + 1}"):
        holds_index(db)


# -- overlapping chunks ---------------------------------------------------------------------------

def test_a_chunk_repeating_the_lines_above_it_gives_way_to_another_file(tmp_path, make_settings):
    ws = tmp_path / "ws"
    # small chunks that share their edge lines, as the chunker's overlap makes them
    write(ws / "memory" / "trip.md", "Kayak trip notes.\nThe kayak trip on the lake.\nKayak rental was cheap.\n"
          "Lunch by the lake after the kayak trip.\nDrove home late.\n")
    write(ws / "memory" / "other.md", "Another kayak trip is planned for the lake in May.\n")
    for i in range(8):  # unrelated notes, so the query's words are rare enough to score
        write(ws / "memory" / f"list-{i}.md", f"Grocery list {i}: bread, milk and eggs.\nCall the plumber.\n")
    index = keyword_index(ws, make_settings, chunk_tokens=20, chunk_overlap=10)
    pool = index.retrieve("kayak trip lake")
    where = [(r.path, r.start_line, r.end_line) for r in rank(pool, SearchParams(overlap_penalty=0.0, min_score=0))]
    assert where[:2] == [("memory/trip.md", 1, 3), ("memory/trip.md", 2, 4)]  # by score: the same lines twice
    shipped = [(r.path, r.start_line, r.end_line) for r in rank(pool, SearchParams(min_score=0))]
    # lines 2-4 repeat two of their three lines from 1-3 just above: other.md's chunk now comes first
    assert shipped.index(("memory/other.md", 1, 2)) < shipped.index(("memory/trip.md", 2, 4))
    assert sorted(shipped) == sorted(where)  # nothing dropped, only moved


class _StopAfterFirstBatch:
    """A cancel flag a sync's progress raises once the first batch of vectors is under way."""

    def __init__(self) -> None:
        self.flag = False

    def progress(self, p) -> None:
        if p.phase == "embed":
            self.flag = True

    def is_set(self) -> bool:
        return self.flag


def test_half_embedded_index_ranks_the_best_keyword_match_first_and_says_it_has_no_vector(tmp_path, make_settings):
    """On a real index: a sync stopped after its first batch of vectors leaves the note that holds every
    query word without one. It must still rank first (scored 0 on the vector leg it sank below the
    embedded notes) and say that it had no vector."""
    from .app_helpers import use_provider

    ws = tmp_path / "ws"
    for i in range(12):  # written first: their rowids come first, so the first batch embeds them
        write(ws / "memory" / f"a{i:02d}.md", f"# Note {i}\nplanning notes about the quarterly roadmap {i}\n")
    write(ws / "memory" / "z-target.md", "# Target\nthe kafka consumer lag alert fired during the nightly batch\n")
    index = MemoryIndex(make_settings(ws), provider_name="none")
    use_provider(index, SeededProvider())
    stop = _StopAfterFirstBatch()
    index.sync(progress=stop.progress, cancel=stop)
    embedded, total = index.chunk_counts(SeededProvider.model)
    assert 0 < embedded < total
    pool, results = index.search("kafka consumer lag alert nightly batch", SearchParams(min_score=0.0))
    assert pool.mode == "hybrid"
    assert results[0].path == "memory/z-target.md"
    assert results[0].vector_missing and results[0].vector_score is None
    assert all(not r.vector_missing for r in results if r.vector_score is not None)
