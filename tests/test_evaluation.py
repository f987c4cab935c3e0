"""The eval scorer: targets match hits by path and line, and score_pool is the one rank → score step."""

from __future__ import annotations

from openclaw_memtui.engine.search.rank import Candidate, Pool, SearchParams, rank
from openclaw_memtui.engine.tuning.evaluation import hits_of, score_hits, score_pool


def hit(path: str, start: int = 1, end: int = 10) -> dict[str, object]:
    return {"path": path, "start_line": start, "end_line": end}


def test_a_leading_dot_slash_is_a_prefix_not_a_set_of_characters() -> None:
    # an extra path outside the workspace is indexed as ../team/x.md: it must keep its "../"
    assert score_hits([{"path": "../team/x.md", "line": 3}], [hit("../team/x.md")])["recall@1"] == 1.0
    assert score_hits([{"path": "../team/x.md", "line": 3}], [hit("team/x.md")])["recall@1"] == 0.0
    assert score_hits([{"path": "./memory/a.md", "line": 3}], [hit("memory/a.md")])["recall@1"] == 1.0


def test_score_pool_ranks_then_scores() -> None:
    cands = [Candidate(rowid=i, id=f"id{i}", path=f"memory/{i}.md", source="memory", start_line=1, end_line=5,
                       text=f"text {i}", vector_score=None, text_score=1.0 - i / 10, bm25_rank=None, ts_ms=None,
                       date_source="evergreen") for i in (1, 2, 3)]
    pool = Pool("q", cands, 0.0, "keyword")
    params = SearchParams(min_score=0.0, max_results=10)
    hits, metrics = score_pool(pool, params, [{"path": "memory/2.md", "line": 2}])
    assert hits == hits_of(rank(pool, params)) and [h["path"] for h in hits][:1] == ["memory/1.md"]
    assert metrics is not None and metrics["recall@1"] == 0.0 and metrics["mrr@10"] == 0.5
    assert score_pool(pool, params, None)[1] is None
