"""One query through every front end gets the same search: the TUI, `memtui search`, the MCP tool,
`memtui eval` and the tuner's judged pools all build it from the config in one place
(core.search.search_request), so the live metric and `memtui eval` score the same pool."""

from __future__ import annotations

import json

from openclaw_memtui.cli.main import build_parser, main
from openclaw_memtui.core.config import load_config, search_params
from openclaw_memtui.core.search import search_request
from openclaw_memtui.engine.tuning.judgements import Judgement, Target
from openclaw_memtui.engine.tuning.tuner import Scorer, retrieve_judged

from .app_helpers import NOW_MS, copy_demo, make_app, wait_for

QUERY = "deploy last week"  # "last week" is a time expression; with time words off it is searched as words
NOW = "2025-12-01T00:00:00Z"  # NOW_MS, the app's clock in tests


def _hits(results) -> list[tuple[str, int]]:
    return [(r["path"], r["start_line"]) for r in results]


async def test_one_query_gets_the_same_results_through_tui_cli_mcp_eval_and_tuner(tmp_path, capsys):
    ws = copy_demo(tmp_path)
    db = tmp_path / "i.sqlite"
    config = tmp_path / "config.toml"
    config.write_text('[query]\nminScore = 0\nmaxResults = 10\n[query.time]\nmode = "off"\n', encoding="utf-8")
    common = ["--workspace", str(ws), "--db", str(db), "--provider", "none", "--config", str(config)]

    assert main(["index", *common]) == 0
    capsys.readouterr()
    assert main(["search", QUERY, *common, "--now", NOW, "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert cli["time_window"] is None and cli["results"]  # time words off: the words are searched
    cli_hits = _hits(cli["results"])

    # memtui eval, with the CLI's top hit as the question's target
    top = cli["results"][0]
    queries, out = tmp_path / "q.jsonl", tmp_path / "hits.jsonl"
    queries.write_text(json.dumps({"qid": "q1", "question": QUERY,
                                   "targets": [{"path": top["path"], "line": top["start_line"]}]}) + "\n", encoding="utf-8")
    assert main(["eval", *common, "--queries", str(queries), "--out", str(out), "--now", NOW, "--json"]) == 0
    evaluated = json.loads(capsys.readouterr().out)
    eval_hits = [(h["path"], h["start_line"]) for h in json.loads(out.read_text(encoding="utf-8"))["hits"]]
    assert eval_hits == cli_hits

    # the MCP tool, in process, over a session opened as `memtui mcp` opens it
    from openclaw_memtui.core.session import SessionOptions, open_session
    from openclaw_memtui.core.tools import MemoryTools

    args = build_parser().parse_args(["mcp", *common])
    cfg = load_config(config, explicit=True)
    session = open_session(SessionOptions.from_args(args), cfg, read_only_if_unwritable=True)
    try:
        tools = MemoryTools(args, session, sync_wait=5.0, embed_wait=5.0)
        answer = tools.call("memory_search", {"query": QUERY})
        assert answer["timeWindow"] is None  # the MCP clock is the wall clock: compare the words searched
        assert {(r["path"], r["startLine"]) for r in answer["results"]} >= set(cli_hits[:1])

        # the tuner's judged pool (the TUI's live metric) scores what `memtui eval` scores
        params = search_params(session.cfg)
        target = Target(top["path"], top["start_line"], top["end_line"], line=top["start_line"])
        judged = retrieve_judged(session.index, [Judgement("q1", QUERY, [target])],
                                 search_request(session.cfg, "", params, now_ms=NOW_MS))
        assert judged is not None
        live = Scorer(judged.pools).scores(params)
        assert live is not None
        assert round(live.ndcg, 6) == round(evaluated["summary"]["all"]["ndcg@10"], 6)
        assert round(live.mrr, 6) == round(evaluated["summary"]["all"]["mrr@10"], 6)
    finally:
        session.index.close()

    # the TUI, with the same config
    cfg = load_config(config, explicit=True)
    app = make_app(ws, tmp_path, cfg=cfg)
    app.search_screen.params = search_params(app.cfg)
    async with app.run_test(size=(120, 36)) as pilot:
        assert await wait_for(pilot, lambda: not app.sync_running)
        await pilot.click("#query")
        await pilot.press(*list(QUERY))
        assert await wait_for(pilot, lambda: app.search_screen.pool is not None and app.search_screen.pool.query == QUERY
                              and bool(app.search_screen.results))
        assert app.search_screen.pool.time_window is None
        assert [(r.path, r.start_line) for r in app.search_screen.results] == cli_hits

