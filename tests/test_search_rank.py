"""Ranking parity with OpenClaw (spec §10.1–10.5) and the deliberate fixes."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from openclaw_memtui.engine.search.keyword import bm25_rank_to_score
from openclaw_memtui.engine.search.query import build_fts_query, extract_keywords, mmr_tokens
from openclaw_memtui.engine.search.rank import (
    Candidate,
    Pool,
    SearchParams,
    decay_multiplier,
    demote_overlaps,
    mmr_order,
    overlap_fraction,
    pairwise_jaccard,
    rank,
    rank_moves,
)
from openclaw_memtui.engine.settings import OPENCLAW_SEARCH_PARAMS

NOW = 1770681600000.0  # 2026-02-10T00:00Z


def openclaw(**changes) -> SearchParams:
    """OpenClaw's ranking (weights 0.7/0.3, no keyword rescue) with `changes`: what the parity tests compare against."""
    return replace(OPENCLAW_SEARCH_PARAMS, **changes)


def cand(i, score_v=None, score_t=0.0, text="", path=None, ts=None, source="memory", line=0.0):
    return Candidate(rowid=i, id=f"id{i}", path=path or f"memory/{i}.md", source=source, start_line=1, end_line=2,
                     text=text or f"q text {i}", vector_score=score_v, text_score=score_t, bm25_rank=None, ts_ms=ts,
                     date_source="evergreen" if ts is None else "name", line_score=line)


def test_fts_query_parity():
    assert build_fts_query("hello world") == '"hello" AND "world"'
    assert build_fts_query("FOO_bar baz-1") == '"FOO_bar" AND "baz" AND "1"'
    assert build_fts_query("金银价格") == '"金银价格"'
    assert build_fts_query("価格 2026年") == '"価格" AND "2026年"'
    assert build_fts_query("   ") is None
    assert build_fts_query("what's up? \"quoted\" café") == '"what" AND "s" AND "up" AND "quoted" AND "café"'
    assert build_fts_query("x² ½ e\u0301") == '"x²" AND "½" AND "e"'


def test_bm25_conversion_parity():
    assert bm25_rank_to_score(0) == 1 and bm25_rank_to_score(1) == 0.5
    assert bm25_rank_to_score(2) == 0.3333333333333333 and bm25_rank_to_score(10) == 0.09090909090909091
    assert bm25_rank_to_score(-100) == 0.9900990099009901 and bm25_rank_to_score(-4.2) == 0.8076923076923077
    assert bm25_rank_to_score(-2.1) == 0.6774193548387097 and bm25_rank_to_score(-0.5) == 0.3333333333333333
    assert bm25_rank_to_score(math.inf) == 0.001 and bm25_rank_to_score(math.nan) == 0.001


def test_keyword_extraction_parity():
    assert extract_keywords("that thing we discussed about the API") == ["discussed", "api"]
    assert extract_keywords("what was the solution for the CFR bug") == ["solution", "cfr", "bug"]
    assert extract_keywords("之前讨论的那个方案") == [
        "之", "讨", "论", "个", "方", "案", "前讨", "讨论", "论的", "的那", "个方", "方案"]
    assert extract_keywords("test test testing 42 ab") == ["test", "testing"]
    assert extract_keywords("the a an is are") == [] and extract_keywords("   ") == []


def test_mmr_tokenizer_and_jaccard_parity():
    assert mmr_tokens("Hello World 123") == {"hello", "world", "123"}
    assert mmr_tokens("今天讨论") == {"今", "天", "讨", "论", "今天", "天讨", "讨论"}
    assert mmr_tokens("我a好") == {"a", "我", "好"}
    jac = pairwise_jaccard([frozenset("abc"), frozenset("bcd"), frozenset(), frozenset()])
    assert jac[0, 1] == pytest.approx(0.5) and jac[2, 3] == 1.0 and jac[0, 2] == 0.0
    a, b = mmr_tokens("今天我们讨论了项目进展"), mmr_tokens("今天我们讨论了会议安排")
    assert pairwise_jaccard([a, b])[0, 1] == pytest.approx(0.4482758620689655)


def test_mmr_order_parity():
    texts = ["machine learning neural networks", "machine learning deep learning",
             "database systems sql queries", "machine learning algorithms"]
    scores = [1.0, 0.95, 0.9, 0.85]
    jac = pairwise_jaccard([mmr_tokens(t) for t in texts])
    assert [i + 1 for i in mmr_order(scores, jac, 0.5)] == [1, 3, 2, 4]
    assert [i + 1 for i in mmr_order(scores, jac, 0.7)] == [1, 2, 3, 4]
    texts = ["apple banana cherry", "apple banana date", "elderberry fig grape"]
    jac = pairwise_jaccard([mmr_tokens(t) for t in texts])
    assert mmr_order([1.0, 0.9, 0.8], jac, 0.0)[:2] == [0, 2]
    assert mmr_order([1.0, 0.9, 0.8], jac, -0.5)[:2] == [0, 2]
    assert mmr_order([1.0, 0.9, 0.8], jac, 1.5) == [0, 1, 2]


def test_hybrid_merge_parity():
    # a keyword hit whose vector is far from the query (cosine 0); one with no vector at all is ranked on
    # its keywords alone (test_a_chunk_without_a_vector_is_ranked_on_its_keywords_not_as_a_zero)
    pool = Pool("q", [cand(1, 0.9, 0.0, path="memory/a.md"), cand(2, 0.0, 1.0, path="memory/b.md")], NOW, "hybrid")
    res = rank(pool, openclaw(min_score=0))
    assert [(r.path, round(r.score, 6)) for r in res] == [("memory/a.md", 0.63), ("memory/b.md", 0.3)]
    pool = Pool("q", [cand(1, 0.9), cand(3, 0.5, 0.5), cand(2, 0.0, 1.0)], NOW, "hybrid")
    assert [round(r.score, 6) for r in rank(pool, openclaw(min_score=0))] == [0.63, 0.5, 0.3]
    # weights renormalise: 0.6/0.6 behaves as 0.5/0.5
    pool = Pool("q", [cand(1, 0.2, 1.0)], NOW, "hybrid")
    assert rank(pool, SearchParams(vector_weight=0.6, text_weight=0.6, line_weight=0, min_score=0))[0].score == pytest.approx(0.6)


def test_temporal_decay_parity():
    assert decay_multiplier(10, 30) == pytest.approx(0.7937005259840998)
    assert decay_multiplier(30, 30) == pytest.approx(0.5) and decay_multiplier(60, 30) == pytest.approx(0.25)
    day = 86_400_000
    pool = Pool("q", [
        cand(1, 0.95, path="memory/2025-01-01.md", ts=NOW - 405 * day),
        cand(2, 0.8, path="memory/2026-02-10.md", ts=NOW),
        cand(3, 0.5, path="MEMORY.md", ts=None),
        cand(4, 0.9, path="memory/2099-01-01.md", ts=NOW + 1000 * day),
    ], NOW, "vector")
    res = {r.path: r for r in rank(pool, SearchParams(decay=True, min_score=0, max_results=10))}
    assert res["memory/2025-01-01.md"].score == pytest.approx(8.200090846279555e-05)
    assert res["MEMORY.md"].score == 0.5 and res["MEMORY.md"].age_days is None
    assert res["memory/2099-01-01.md"].score == pytest.approx(0.9)
    assert rank(pool, SearchParams(decay=True, min_score=0))[0].path == "memory/2099-01-01.md"


def test_keyword_only_hits_survive_min_score():
    pool = Pool("q", [cand(1, 0.2, 0.0), cand(2, 0.1, 0.9)], NOW, "hybrid")
    res = rank(pool, openclaw(keyword_rescue=True))  # 0.7·0.1 + 0.3·0.9 = 0.34 < 0.35
    assert [r.id for r in res] == ["id2"]
    strict = rank(pool, openclaw())
    assert [r.id for r in strict] == ["id2"]  # OpenClaw's relaxed rule also keeps it (≥ textWeight 0.3)


def test_top_result_does_not_depend_on_max_results():
    rng = np.random.default_rng(0)
    cands = [cand(i, float(rng.random()), float(rng.random()), text=f"w{i % 7} w{i % 5} w{i}") for i in range(200)]
    pool = Pool("q", cands, NOW, "hybrid")
    full = [r.id for r in rank(pool, SearchParams(mmr=True, max_results=50, min_score=0))]
    for n in (1, 3, 10):
        assert [r.id for r in rank(pool, SearchParams(mmr=True, max_results=n, min_score=0))] == full[:n]


def test_rank_is_pure_and_explains():
    candidates = [cand(1, 0.9, 0.5, text="alpha beta"), cand(2, 0.89, 0.5, text="alpha beta"), cand(3, 0.7, 0.4, text="gamma")]
    pool = Pool("q", candidates, NOW, "hybrid")
    before = [(c.id, c.vector_score) for c in pool.candidates]
    res = rank(pool, openclaw(mmr=True, mmr_lambda=0.5, min_score=0))
    assert [(c.id, c.vector_score) for c in pool.candidates] == before
    assert [r.id for r in res] == ["id1", "id3", "id2"]
    moved = {r.id: (r.rank_before_mmr, r.rank) for r in res}
    assert moved["id3"] == (3, 2) and moved["id2"] == (2, 3)
    assert res[0].hybrid_score == pytest.approx(0.7 * 0.9 + 0.3 * 0.5) and res[0].decay == 1.0


def test_recent_first_puts_new_dated_notes_above_undated_ones():
    """Plain decay never ages an undated note, so "Recent first" showed MEMORY.md first; with
    decay_evergreen it ages like the oldest dated candidate (and still shows no age of its own)."""
    day = 86_400_000.0
    now = 1_000 * day
    pool = Pool(query="q", mode="keyword", now_ms=now, candidates=[
        cand(1, score_t=0.8, path="MEMORY.md", ts=None),
        cand(2, score_t=0.7, path="memory/new.md", ts=now - day),
        cand(3, score_t=0.7, path="memory/old.md", ts=now - 60 * day)])
    plain = SearchParams(decay=True, half_life_days=7, min_score=0.0)
    assert [r.path for r in rank(pool, plain)][0] == "MEMORY.md"
    recent = rank(pool, replace(plain, decay_evergreen=True))
    assert [r.path for r in recent][:2] == ["memory/new.md", "MEMORY.md"]
    assert next(r for r in recent if r.path == "MEMORY.md").age_days is None


def test_line_weight_blends_the_best_line_into_the_keyword_score():
    # chunk 1 matches slightly better as a whole; chunk 2 holds the query's words in one line
    pool = Pool("q", [cand(1, 0.5, 0.80, line=0.20), cand(2, 0.5, 0.75, line=0.70)], NOW, "hybrid")
    chunk_only = rank(pool, SearchParams(line_weight=0.0, min_score=0))
    assert [r.path for r in chunk_only] == ["memory/1.md", "memory/2.md"]
    blended = rank(pool, SearchParams(line_weight=0.5, min_score=0))
    assert [r.path for r in blended] == ["memory/2.md", "memory/1.md"]
    assert blended[0].text_score == pytest.approx(0.5 * 0.75 + 0.5 * 0.70)  # the breakdown shows what was fused
    d = SearchParams()
    assert blended[0].score == pytest.approx(d.vector_weight * 0.5 + d.text_weight * 0.725)


def test_line_weight_zero_ranks_exactly_as_chunk_only_bm25():
    rng = np.random.default_rng(7)
    cands = [cand(i, float(rng.random()), float(rng.random()), line=float(rng.random())) for i in range(40)]
    without_lines = [replace(c, line_score=0.0) for c in cands]
    for fusion in ("openclaw", "normalized"):
        params = SearchParams(line_weight=0.0, fusion=fusion, min_score=0, max_results=40)
        a = rank(Pool("q", cands, NOW, "hybrid"), params)
        b = rank(Pool("q", without_lines, NOW, "hybrid"), params)
        assert [(r.path, r.score, r.text_score) for r in a] == [(r.path, r.score, r.text_score) for r in b]


def test_a_line_match_alone_is_a_keyword_hit_for_the_rescue():
    # below minScore, only keyword hits are rescued; a chunk whose best line matched counts as one
    pool = Pool("q", [cand(1, 0.1, 0.0, line=0.4), cand(2, 0.1, 0.0)], NOW, "hybrid")
    res = rank(pool, SearchParams(line_weight=0.5, min_score=0.9, max_results=5))
    assert [r.path for r in res] == ["memory/1.md"]


def span(i, score_v, path, start, end):
    """A chunk of `path` covering lines start..end, its score all from the vector leg."""
    return replace(cand(i, score_v, 0.0, path=path), start_line=start, end_line=end)


def test_overlap_penalty_pushes_a_repeating_chunk_below_a_new_one():
    # chunks 1 and 2 are consecutive chunks of one file sharing lines 8-10 (the chunker's overlap)
    pool = Pool("q", [span(1, 0.90, "sessions/a.jsonl", 1, 10), span(2, 0.88, "sessions/a.jsonl", 8, 17),
                      span(3, 0.85, "sessions/b.jsonl", 8, 17)], NOW, "vector")
    plain = rank(pool, SearchParams(overlap_penalty=0.0, min_score=0))
    assert [r.id for r in plain] == ["id1", "id2", "id3"]
    demoted = rank(pool, SearchParams(overlap_penalty=1.0, min_score=0))
    # chunk 2 repeats 3 of its 10 lines: 0.88 × (1 − 1.0 × 0.3) = 0.616 < 0.85; b.jsonl's same line numbers do not count
    assert [r.id for r in demoted] == ["id1", "id3", "id2"]
    assert [r.score for r in demoted] == [0.90, 0.85, 0.88]  # only the order changes, never a score
    half = rank(pool, SearchParams(overlap_penalty=0.05, min_score=0))  # 0.88 × 0.985 = 0.8668 still beats 0.85
    assert [r.id for r in half] == ["id1", "id2", "id3"]


def test_a_result_moved_by_the_overlap_step_says_so_apart_from_mmr():
    """The reviewer's case: a result pushed down for repeating lines showed "(MMR off)" in the score pane
    and a bare "was #N" in the CLI; and with MMR on its move was put down to MMR."""
    pool = Pool("q", [span(1, 0.90, "sessions/a.jsonl", 1, 10), span(2, 0.88, "sessions/a.jsonl", 8, 17),
                      span(3, 0.85, "sessions/b.jsonl", 8, 17)], NOW, "vector")
    demoted = {r.id: r for r in rank(pool, SearchParams(overlap_penalty=1.0, min_score=0))}
    assert (demoted["id2"].rank_by_score, demoted["id2"].rank_before_mmr, demoted["id2"].rank) == (2, 3, 3)
    assert rank_moves(demoted["id2"], mmr=False) == "#2 by score, ▼ repeats lines shown above"
    assert rank_moves(demoted["id3"], mmr=False) == "#3 by score, ▲ results repeating lines moved below it"
    assert rank_moves(demoted["id1"], mmr=False) == ""
    plain = rank(pool, SearchParams(overlap_penalty=0.0, min_score=0))
    assert all(r.rank_by_score == r.rank_before_mmr == r.rank and rank_moves(r, mmr=True) == "" for r in plain)
    # with MMR on, only the move MMR made is put down to it
    both = rank(pool, SearchParams(overlap_penalty=1.0, min_score=0, mmr=True, mmr_lambda=0.5))
    for r in both:
        assert r.rank_before_mmr == {"id1": 1, "id3": 2, "id2": 3}[r.id]
        assert ("before MMR" in rank_moves(r, mmr=True)) == (r.rank != r.rank_before_mmr)


def test_overlap_fraction_is_the_share_of_the_chunks_own_lines_shown_above():
    a, b = span(1, 0.5, "m.md", 1, 10), span(2, 0.5, "m.md", 8, 17)
    assert overlap_fraction(b, a) == pytest.approx(0.3) and overlap_fraction(a, b) == pytest.approx(0.3)
    assert overlap_fraction(span(3, 0.5, "m.md", 11, 12), a) == 0.0  # adjacent, not overlapping
    assert overlap_fraction(span(4, 0.5, "m.md", 3, 4), a) == 1.0  # inside
    assert overlap_fraction(span(5, 0.5, "n.md", 1, 10), a) == 0.0  # another file


def _greedy_reference(order, cands, scores, penalty):
    """The definition, placed one by one over every remaining item (no shortcut, no early stop)."""
    remaining, placed = list(order), []
    while remaining:
        def adjusted(i):
            return scores[i] * (1 - penalty * max((overlap_fraction(cands[i], cands[j]) for j in placed), default=0.0))
        best = max(remaining, key=adjusted)  # max() keeps the first of equals: the higher-ranked one
        placed.append(best)
        remaining.remove(best)
    return placed


def test_demote_overlaps_matches_the_greedy_definition_on_random_pools():
    rng = np.random.default_rng(11)
    for _ in range(200):
        n = int(rng.integers(1, 30))
        cands = []
        for i in range(n):
            start = int(rng.integers(1, 40))
            cands.append(span(i, 0.0, f"f{int(rng.integers(0, 3))}.md", start, start + int(rng.integers(0, 12))))
        scores = rng.random(n).round(2).tolist()  # rounded: ties happen and must break the same way
        order = sorted(range(n), key=lambda i: -scores[i])
        penalty = float(rng.choice([0.0, 0.3, 0.5, 1.0]))
        full, _ = demote_overlaps(order, cands, scores, penalty, [True] * n, n)
        assert full == _greedy_reference(order, cands, scores, penalty)
        limit = int(rng.integers(1, n + 1))
        early, _ = demote_overlaps(order, cands, scores, penalty, [True] * n, limit)
        assert early[:limit] == full[:limit] and sorted(early) == list(range(n))


def test_overlap_penalty_zero_ranks_exactly_in_score_order():
    rng = np.random.default_rng(5)
    cands = [span(i, round(float(rng.random()), 1), f"f{i % 2}.md", i, i + 5) for i in range(40)]  # heavy overlap, ties
    res = rank(Pool("q", cands, NOW, "vector"), SearchParams(overlap_penalty=0.0, min_score=0, max_results=40))
    assert [r.id for r in res] == [c.id for c in sorted(cands, key=lambda c: -c.vector_score)]


def test_mmr_order_stops_once_enough_kept_items_are_placed():
    rng = np.random.default_rng(7)
    for _ in range(50):
        n = int(rng.integers(2, 40))
        scores = sorted(rng.random(n).tolist(), reverse=True)
        sym = rng.random((n, n))
        jac = (sym + sym.T) / 2
        keep = (rng.random(n) < 0.6).tolist()
        limit = int(rng.integers(1, n + 1))
        full = mmr_order(scores, jac, 0.6)
        early = mmr_order(scores, jac, 0.6, keep=keep, limit=limit)
        assert sorted(early) == list(range(n))  # still a permutation of every item
        kept_full = [i for i in full if keep[i]][:limit]
        assert [i for i in early if keep[i]][:limit] == kept_full  # the kept prefix rank() shows is unchanged


def test_rank_with_mmr_shows_the_same_results_as_a_full_mmr_order():
    # a short maxResults stops MMR early; the first results must equal those of a ranking that orders every
    # candidate (maxResults above the pool size never stops early)
    rng = np.random.default_rng(11)
    words = ["heron", "kafka", "lag", "deploy", "tea", "oolong", "budget", "q3", "rust", "lisbon"]
    for trial in range(30):
        n = int(rng.integers(5, 60))
        cands = [cand(i, score_v=float(rng.random()), score_t=float(rng.random()) * (rng.random() < 0.7),
                      text=" ".join(rng.choice(words, size=6).tolist()), ts=NOW - float(rng.random()) * 90 * 86400000)
                 for i in range(n)]
        params = replace(SearchParams(), mmr=True, mmr_lambda=float(rng.choice([0.3, 0.5, 0.7])), keyword_rescue=False,
                         min_score=float(rng.choice([0.0, 0.2, 0.35])), max_results=int(rng.integers(1, 12)))
        short = rank(Pool("q", cands, NOW, "hybrid"), params)
        whole = rank(Pool("q", cands, NOW, "hybrid"), replace(params, max_results=1000))
        assert [(r.id, r.score) for r in short] == [(r.id, r.score) for r in whole[: params.max_results]], trial


def test_a_chunk_without_a_vector_is_ranked_on_its_keywords_not_as_a_zero():
    """While a first sync embeds, a strong keyword match without a vector yet must not sink below a
    weak one that happens to have a vector (the vector leg scored it 0, so the embedded few crowded the top)."""
    embedded_weak = cand(1, score_v=0.9, score_t=0.3, line=0.3)
    unembedded_strong = cand(2, score_v=None, score_t=0.8, line=0.8)
    pool = Pool(query="q", candidates=[embedded_weak, unembedded_strong], now_ms=NOW, mode="hybrid")
    results = rank(pool, SearchParams(min_score=0.0))
    assert [r.id for r in results] == ["id2", "id1"]
    by_id = {r.id: r for r in results}
    assert by_id["id2"].hybrid_score == pytest.approx(0.8)  # keyword-only's score: weights renormalised
    d = SearchParams()
    assert by_id["id1"].hybrid_score == pytest.approx(d.vector_weight * 0.9 + d.text_weight * 0.3)
    assert by_id["id2"].vector_missing and not by_id["id1"].vector_missing
    assert by_id["id2"].to_dict()["vector_missing"] is True


def test_a_keyword_only_search_does_not_flag_missing_vectors():
    pool = Pool(query="q", candidates=[cand(1, score_t=0.5, line=0.5)], now_ms=NOW, mode="keyword")
    (only,) = rank(pool, SearchParams(min_score=0.0))
    assert not only.vector_missing and only.hybrid_score == pytest.approx(0.5)

