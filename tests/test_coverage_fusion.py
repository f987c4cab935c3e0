"""Coverage fusion: the vector leg leads where the keyword leg holds little of the query (a note in another
script, a paraphrase), and the weighted sum is untouched where the chunk holds the query's words."""

from __future__ import annotations

from dataclasses import replace

import pytest

from openclaw_memtui.engine.search.query import coverage_terms, term_coverage
from openclaw_memtui.engine.search.rank import KEYWORD_DAMP, Candidate, Pool, SearchParams, rank, vector_led

NOW = 1_796_040_000_000.0


def cand(i: int, text: str, vector: float | None, keyword: float = 0.0) -> Candidate:
    return Candidate(rowid=i, id=f"id{i}", path=f"memory/{i}.md", source="memory", start_line=1, end_line=3, text=text,
                     vector_score=vector, text_score=keyword, bm25_rank=None, ts_ms=None, date_source="evergreen",
                     line_score=keyword)


def test_coverage_terms_and_coverage_in_both_scripts():
    assert coverage_terms("How much log data per day?") == ["much", "log", "data", "per", "day"]
    assert coverage_terms("猫 看兽医") == ["猫", "兽医"] or coverage_terms("猫 看兽医") == ["猫", "看兽", "兽医"]
    terms = coverage_terms("planning the deployment")
    assert term_coverage(terms, "We planned it: deploys go out on Tuesdays") == 1.0  # first five letters, as stemming
    assert term_coverage(terms, "nothing here") == 0.0
    assert term_coverage(coverage_terms("数据库连接池"), "把数据库连接池调到 120") == 1.0
    assert term_coverage(coverage_terms("数据库连接池"), "The connection pool went to 120") == 0.0
    assert term_coverage(coverage_terms("pool 50"), "pool of 500") == 0.5  # a number matches only itself


def test_vector_led_places_the_cosine_in_its_pool():
    cands = [cand(1, "a", 0.10), cand(2, "b", 0.20), cand(3, "c", 0.30), cand(4, "d", None)]
    # median 0.20 → 0, best 0.30 → lead; below the median is 0, no vector is 0
    assert vector_led(cands, 0.9) == pytest.approx([0.0, 0.0, 0.9, 0.0])
    assert vector_led([cand(1, "a", 0.2), cand(2, "b", 0.2)], 0.9) == [0.0, 0.0]  # no spread: nothing leads


def test_a_cosine_too_low_to_be_evidence_leads_nothing_whatever_its_place_in_the_pool():
    """A query the memory does not answer: its best cosine (0.061, USE on an unrelated note) is still the
    pool's best, but it must not come out as a 0.9 hit; the lead fades in between the floor and sure."""
    from openclaw_memtui.engine.search.rank import VECTOR_FLOOR, VECTOR_SURE

    junk = [cand(1, "a", 0.0), cand(2, "b", 0.02), cand(3, "c", 0.04), cand(4, "d", VECTOR_FLOOR)]
    assert vector_led(junk, 0.9) == [0.0, 0.0, 0.0, 0.0]
    halfway = (VECTOR_FLOOR + VECTOR_SURE) / 2
    assert vector_led([cand(1, "a", 0.0), cand(2, "b", 0.01), cand(3, "c", halfway)], 0.9) == pytest.approx(
        [0.0, 0.0, 0.45])
    assert vector_led([cand(1, "a", 0.0), cand(2, "b", 0.01), cand(3, "c", VECTOR_SURE)], 0.9)[2] == pytest.approx(0.9)


def cross_script_pool() -> Pool:
    """An English question; English notes share one of its words (the keyword leg's partial matches), the
    Chinese note that answers shares none but is the vector leg's clear best."""
    return Pool("connection pool size checkout", [
        cand(1, "The checkout page got a new button", 0.05, keyword=0.83),
        cand(2, "Pool party on Saturday", 0.06, keyword=0.80),
        cand(3, "结账服务超时后，数据库连接池从 50 调到 120", 0.28),
        cand(4, "周末去爬山", 0.02),
        cand(5, "Groceries: milk and eggs", 0.03),
    ], NOW, "hybrid")


def test_a_strong_vector_hit_in_another_script_gets_through_the_default_min_score():
    pool = cross_script_pool()
    shown = rank(pool, SearchParams())
    assert shown[0].path == "memory/3.md" and shown[0].score >= SearchParams().min_score
    top = shown[0]
    # the breakdown says why: nothing of the query in the chunk, so the vector-led score is all of it
    assert top.keyword_coverage == 0.0 and top.keyword_say == 0.0
    damp = 1 - KEYWORD_DAMP * min(1.0, 0.25 / 0.5)  # the best English note holds 1 of the 4 terms
    assert top.vector_led == pytest.approx(0.9 * damp) and top.hybrid_score == pytest.approx(top.vector_led)
    # OpenClaw's weighted sum at the same weights: 0.1 × 0.28 = 0.028, under minScore, and not first
    plain = rank(pool, replace(SearchParams(), fusion="openclaw"))
    assert "memory/3.md" not in [r.path for r in plain]


def test_a_chunk_holding_the_query_is_scored_by_the_weighted_sum_alone():
    pool = Pool("connection pool", [cand(1, "the connection pool went from 50 to 120", 0.30, keyword=0.9),
                                    cand(2, "数据库连接池", 0.35), cand(3, "unrelated", 0.0)], NOW, "hybrid")
    res = {r.path: r for r in rank(pool, replace(SearchParams(), min_score=0.0))}
    full = res["memory/1.md"]
    assert full.keyword_coverage == 1.0 and full.keyword_say == 1.0
    assert full.hybrid_score == pytest.approx(0.1 * 0.30 + 0.9 * 0.9)
    # the keyword leg covers the query here, so the other script's best cosine is held back by KEYWORD_DAMP
    assert res["memory/2.md"].vector_led == pytest.approx(0.9 * (1 - KEYWORD_DAMP))
    assert res["memory/2.md"].score < full.score


def test_half_coverage_is_full_say_and_less_is_a_blend():
    pool = Pool("alpha beta gamma delta", [cand(1, "alpha beta", 0.2, keyword=0.8), cand(2, "alpha", 0.3, keyword=0.7),
                                           cand(3, "none", 0.1)], NOW, "hybrid")
    res = {r.path: r for r in rank(pool, replace(SearchParams(), min_score=0.0))}
    assert res["memory/1.md"].keyword_say == 1.0 and res["memory/1.md"].hybrid_score == pytest.approx(0.1 * 0.2 + 0.9 * 0.8)
    second = res["memory/2.md"]
    assert second.keyword_say == pytest.approx(0.5)
    led = 0.9 * (1 - KEYWORD_DAMP)  # the pool's best cosine; the best chunk holds half the query
    assert second.hybrid_score == pytest.approx(0.5 * (0.1 * 0.3 + 0.9 * 0.7) + 0.5 * led)


def test_other_fusions_and_one_legged_searches_are_unchanged():
    pool = cross_script_pool()
    for params in (replace(SearchParams(), fusion="openclaw"), replace(SearchParams(), vector_weight=0.0, text_weight=1.0)):
        for r in rank(pool, replace(params, min_score=0.0, max_results=10)):
            assert r.keyword_say == 1.0 and r.vector_led == 0.0
    keyword_only = Pool(pool.query, pool.candidates, NOW, "keyword")
    assert [r.path for r in rank(keyword_only, SearchParams())] == ["memory/1.md", "memory/2.md"]


def test_json_breakdown_keeps_the_old_fields_and_adds_the_new():
    (top, *_) = rank(cross_script_pool(), SearchParams())
    d = top.to_dict()
    for key in ("vector_score", "text_score", "hybrid_score", "decay", "score", "keyword_coverage", "keyword_say",
                "vector_led"):
        assert key in d


def test_a_chunk_without_a_vector_yet_keeps_its_keyword_score():
    """While a sync embeds, a chunk with no vector is ranked on its keywords alone (the vector leg cannot
    judge it), however little of the query it holds."""
    pool = Pool("alpha beta gamma delta", [cand(1, "alpha", None, keyword=0.8), cand(2, "none", 0.3),
                                           cand(3, "other", 0.1)], NOW, "hybrid")
    res = {r.path: r for r in rank(pool, replace(SearchParams(), min_score=0.0))}
    assert res["memory/1.md"].keyword_say == 1.0 and res["memory/1.md"].hybrid_score == pytest.approx(0.8)
