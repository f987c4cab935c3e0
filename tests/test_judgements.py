"""Issue 14, engine and CLI: the judgement store, stale targets, the metric over judged pools, the
cross-validated suggestion, and `memtui judgements` / `eval` / `tune` over them."""

from __future__ import annotations

import json
import os
import stat

import pytest

from openclaw_memtui.cli.main import main
from openclaw_memtui.engine.index import MemoryIndex
from openclaw_memtui.engine.search.rank import Candidate, Pool, SearchParams
from openclaw_memtui.engine.tuning.judgement_import import merge
from openclaw_memtui.engine.tuning.judgement_targets import check_targets, scoring_targets
from openclaw_memtui.engine.tuning.judgements import Judgement, JudgementStore, Target, judgements_path, set_verdict
from openclaw_memtui.engine.tuning.tuner import (
    MIN_JUDGED,
    JudgedPool,
    NeedMore,
    Scorer,
    describe_suggestion,
    effective_key,
    folds_of,
    retrieve_judged,
    suggest,
)

from .helpers import write


def chunk_target(path="memory/a.md", start=1, end=4, text="alpha"):
    return Target.of_chunk(path, start, end, text)


# -- the store ------------------------------------------------------------------------------------------

def test_store_round_trip_keeps_ranges_hashes_not_relevant_and_imported_keys(tmp_path):
    store = JudgementStore(tmp_path / "new" / "idx.judgements.jsonl")
    judged = set_verdict([], "  deploy   plan ", chunk_target(), "relevant")
    judged = set_verdict(judged, "deploy plan", chunk_target("memory/b.md", 3, 9, "beta"), "not_relevant")
    imported = Judgement("t1", "auth?", [Target("memory/c.md", 4, 4, "", 4, "ev")], [], {"category": 2, "answer": "x"})
    store.save([*judged, imported])
    folder_mode = stat.S_IMODE(os.stat(store.path.parent).st_mode)
    assert stat.S_IMODE(os.stat(store.path).st_mode) == 0o600 and folder_mode == 0o700
    loaded = store.load()
    assert loaded.problem == "" and len(loaded.judgements) == 2
    j, imp = loaded.judgements
    assert j.question == "deploy plan" and j.targets == [chunk_target()]
    assert j.not_relevant == [chunk_target("memory/b.md", 3, 9, "beta")]
    assert j.targets[0].line == 2 and j.targets[0].hash  # the middle line, the text's hash
    assert imp.extra == {"category": 2, "answer": "x"} and imp.targets[0].evidence == "ev"
    # the eval format: `memtui eval --queries` reads the file as it is
    from openclaw_memtui.engine.tuning.evaluation import load_queries

    assert [q["qid"] for q in load_queries(store.path)] == [j.qid, "t1"]


def test_unreadable_lines_are_said_in_one_line_and_kept_on_save(tmp_path):
    path = tmp_path / "j.jsonl"
    good = json.dumps({"qid": "a", "question": "q", "targets": [{"path": "m.md", "line": 1}]})
    path.write_text(f"{good}\n{{not json\n{json.dumps({'qid': 'b', 'question': 'r', 'targets': [{'path': 'm.md'}]})}\n")
    store = JudgementStore(path)
    loaded = store.load()
    assert len(loaded.judgements) == 1 and "2 line(s) could not be read (line 2, 3)" in loaded.problem
    assert "\n" not in loaded.problem
    store.save(set_verdict(loaded.judgements, "q", chunk_target(), "relevant"), loaded.unreadable)
    assert "{not json" in path.read_text() and '"qid": "b"' in path.read_text()


def test_a_line_that_is_not_utf8_is_kept_byte_for_byte_and_the_others_are_used(tmp_path, workspace, capsys):
    """One bad byte used to make the whole file unreadable, and the next write kept only the new line."""
    db = tmp_path / "i.sqlite"
    lines = [json.dumps({"qid": f"q{i}", "question": f"oolong {i}", "targets": [{"path": "MEMORY.md", "line": 3}]})
             .encode() for i in range(16)]
    lines[6] = b'{"qid": "q6", "question": "caf\xe9 latin-1", "targets": []}'
    stored = judgements_path(db)
    stored.write_bytes(b"\n".join(lines) + b"\n")
    write(tmp_path / "n1.jsonl", json.dumps({"qid": "new", "question": "canary", "targets": [{"path": "MEMORY.md", "line": 4}]}))
    base = ["--workspace", str(workspace), "--db", str(db), "--provider", "none"]
    assert main(["judgements", "import", str(tmp_path / "n1.jsonl"), *base]) == 0
    out, err = capsys.readouterr()
    assert "1 line(s) could not be read (line 7)" in err and err.count("could not be read") == 1
    assert "16 judged question(s)" in out
    after = stored.read_bytes().split(b"\n")
    assert len(after) == 18 and lines[6] in after and after[-1] == b""  # 15 + the new one + the kept line
    assert main(["eval", "--json", *base]) == 0
    assert json.loads(capsys.readouterr().out)["scored"] == 16


def test_a_question_holding_a_line_separator_survives_a_round_trip(tmp_path):
    store = JudgementStore(tmp_path / "j.jsonl")
    store.save([Judgement("x", "one\u2028two", [chunk_target()])])  # written raw (ensure_ascii=False)
    loaded = store.load()
    assert loaded.problem == "" and [j.question for j in loaded.judgements] == ["one\u2028two"]


def test_eval_when_no_stored_line_reads_says_so_not_that_none_are_stored(tmp_path, workspace, capsys):
    db = tmp_path / "i.sqlite"
    judgements_path(db).write_bytes(b"\xff\xfe\n")
    assert main(["eval", "--workspace", str(workspace), "--db", str(db), "--provider", "none"]) == 2
    err = capsys.readouterr().err
    assert "none of the 1 stored judgement line(s) could be read" in err and "no judgements stored" not in err
    assert judgements_path(db).read_bytes() == b"\xff\xfe\n"


def test_a_failed_write_leaves_the_old_file_and_no_temp_file(tmp_path, monkeypatch):
    store = JudgementStore(tmp_path / "j.jsonl")
    store.save(set_verdict([], "q", chunk_target(), "relevant"))
    before = store.path.read_bytes()

    def full_disk(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(OSError):
        store.save(set_verdict([], "other", chunk_target(), "relevant"))
    assert store.path.read_bytes() == before and os.listdir(tmp_path) == ["j.jsonl"]


def test_an_older_snapshot_never_overwrites_a_newer_one(tmp_path):
    store = JudgementStore(tmp_path / "j.jsonl")
    newer = set_verdict([], "newer", chunk_target(), "relevant")
    store.save(newer, snapshot=2)
    store.save(set_verdict([], "older", chunk_target(), "relevant"), snapshot=1)
    assert [j.question for j in store.load().judgements] == ["newer"]


def test_marks_move_between_verdicts_and_clearing_the_last_drops_the_question():
    t = chunk_target()
    judged = set_verdict([], "q", t, "relevant")
    judged = set_verdict(judged, "q", t, "not_relevant")
    assert judged[0].targets == [] and judged[0].not_relevant == [t] and judged[0].mark_of(t) == "not_relevant"
    assert set_verdict(judged, "q", t, None) == []


def test_the_demo_seed_is_read_until_the_first_save(tmp_path):
    seed = write(tmp_path / "seed.jsonl", json.dumps({"qid": "s", "question": "q", "targets": [{"path": "a", "line": 1}]}))
    store = JudgementStore(tmp_path / "mine.jsonl", seed=seed)
    assert [j.qid for j in store.load().judgements] == ["s"] and store.source() == seed
    store.save(set_verdict([], "other", chunk_target(), "relevant"))
    assert [j.question for j in store.load().judgements] == ["other"] and seed.read_text().count("\n") == 0


def test_import_merges_by_question_without_doubling_a_target():
    mine = set_verdict([], "q", chunk_target(), "relevant")
    incoming = [Judgement("x", "q", [chunk_target(), Target("m.md", 5, 5, "", 5)]), Judgement("y", "new", [])]
    merged, questions, targets = merge(mine, incoming)
    assert questions == 1 and targets == 1 and len(merged[0].targets) == 2 and len(mine[0].targets) == 1


# -- stale targets ----------------------------------------------------------------------------------------

def test_an_edited_note_makes_its_target_stale_and_moved_text_is_followed(tmp_path, make_settings):
    ws = tmp_path / "ws"
    write(ws / "memory" / "a.md", "# A\nThe canary build shipped.\n")
    write(ws / "memory" / "b.md", "# B\nPostgres failover runbook.\n")
    index = MemoryIndex(make_settings(ws), provider_name="none")
    index.sync()
    pool = index.retrieve("canary failover", pool_size=10)
    by_path = {c.path: c for c in pool.candidates}
    targets = [Target.of_chunk(p, c.start_line, c.end_line, c.text) for p, c in sorted(by_path.items())]
    judged = [Judgement("q1", "canary", [targets[0]]), Judgement("q2", "failover", [targets[1]])]
    checked = check_targets(judged, index.reads().chunk_spans)
    assert [checked[(j.qid, j.targets[0])].state for j in judged] == ["ok", "ok"]

    write(ws / "memory" / "a.md", "# A\nThe canary build was rolled back.\n")  # edited: the judged text is gone
    write(ws / "memory" / "b.md", "# B\nPostgres failover runbook.\n")
    index.sync()
    checked = check_targets(judged, index.reads().chunk_spans)
    assert checked[("q1", targets[0])].state == "stale" and checked[("q2", targets[1])].state == "ok"
    assert scoring_targets(judged[0], checked) == []  # a stale target is never scored

    # the same text at other lines (a line added above): scored at its new place, not stale
    index.close()
    ws2 = tmp_path / "ws2"
    write(ws2 / "memory" / "c.md", "one\ntwo\n")
    index2 = MemoryIndex(make_settings(ws2, db=tmp_path / "two.sqlite"), provider_name="none")
    index2.sync()
    chunk = index2.retrieve("one two", pool_size=5).candidates[0]
    target = Target.of_chunk(chunk.path, chunk.start_line, chunk.end_line, chunk.text)
    moved = Judgement("q3", "one", [Target(target.path, 7, 8, target.hash, 7)])
    checked = check_targets([moved], index2.reads().chunk_spans)
    assert checked[("q3", moved.targets[0])].state == "moved"
    assert scoring_targets(moved, checked) == [{"path": "memory/c.md", "line": (chunk.start_line + chunk.end_line) // 2}]
    index2.close()


# -- the metric and the suggestion ---------------------------------------------------------------------------

def synthetic_pools(n: int) -> list[JudgedPool]:
    """Each question's answer is the best by meaning and weak by keywords; a distractor the reverse.
    Text-heavy weights (the default 0.4/0.6) put the distractor first; vector-heavy ones the answer."""
    pools = []
    for q in range(n):
        # each chunk's best line scores as the chunk does, so the line weight leaves the keyword scores as they are
        answer = Candidate(1, f"a{q}", f"memory/answer-{q}.md", "memory", 1, 5, f"answer q{q}", 0.9, 0.30, None, None,
                           "evergreen", line_score=0.30)
        distractor = Candidate(2, f"d{q}", f"memory/noise-{q}.md", "memory", 1, 5, f"noise q{q}", 0.2, 0.85, None, None,
                               "evergreen", line_score=0.85)
        pool = Pool(f"q{q}", [distractor, answer], 0.0, "hybrid")
        pools.append(JudgedPool(f"q{q}", f"q{q}", [{"path": f"memory/answer-{q}.md", "line": 2}], pool))
    return pools


def test_the_metric_follows_the_weights_and_ignores_what_cannot_change_the_ranking():
    scorer = Scorer(synthetic_pools(3))
    text_heavy, vector_heavy = SearchParams(min_score=0.0), SearchParams(vector_weight=0.9, text_weight=0.1, min_score=0.0)
    assert scorer.scores(text_heavy).mrr == 0.5 and scorer.scores(vector_heavy).mrr == 1.0
    calls = scorer.ranked
    scorer.scores(SearchParams(min_score=0.0, mmr_lambda=0.2))  # λ without MMR: the same
    scorer.scores(SearchParams(min_score=0.0, time_mode="filter"))  # no question here has time words
    assert scorer.ranked == calls
    assert effective_key(SearchParams(max_results=10)) == effective_key(SearchParams(max_results=30))  # past the depth
    # the metric scores what the user is shown: one result shown, and the answer is second
    assert scorer.scores(SearchParams(min_score=0.0, max_results=1)).mrr == 0.0 and scorer.ranked == calls + 3
    calls = scorer.ranked
    scorer.scores(SearchParams(min_score=0.0, keyword_rescue=False))  # any other field counts
    assert scorer.ranked == calls + 3


def test_folds_partition_the_questions():
    folds = folds_of(11, 5)
    assert sorted(i for f in folds for i in f) == list(range(11))
    assert {len(f) for f in folds} == {2, 3}


def test_too_few_judgements_say_how_many_more():
    found = suggest(synthetic_pools(MIN_JUDGED - 3), SearchParams())
    assert isinstance(found, NeedMore) and found.have == MIN_JUDGED - 3
    assert "judge 3 more" in found.message


def test_suggest_finds_better_weights_under_cross_validation():
    steps = []
    found = suggest(synthetic_pools(12), SearchParams(), progress=lambda done, total: steps.append((done, total)))
    assert not isinstance(found, NeedMore)
    assert found.better and found.best.weights()[0] >= 0.5  # the answer's leg weighs at least as much
    assert found.cv_best[0] == 1.0 and found.cv_current[0] == pytest.approx(0.6309, abs=1e-4) and found.folds == 5
    assert steps and steps[-1][0] == steps[-1][1]
    text = describe_suggestion(found)
    assert "current    0.631 ± 0.000" in text and "suggested  1.000 ± 0.000" in text
    assert f"vector weight   {SearchParams().vector_weight:.2f} → " in text and "keep yours" not in text


def test_suggest_keeps_the_current_setting_when_nothing_beats_it():
    current = SearchParams(vector_weight=0.9, text_weight=0.1)
    found = suggest(synthetic_pools(12), current)
    assert not isinstance(found, NeedMore) and not found.better and found.best == current
    assert "keep yours" in describe_suggestion(found) and "Changes" not in describe_suggestion(found)


# -- the CLI --------------------------------------------------------------------------------------------------

DEMO = ["--demo", "--provider", "none"]


def test_cli_import_list_eval_export_round_trip(tmp_path, capsys):
    from openclaw_memtui.paths import demo_judgements

    source = demo_judgements()
    assert main(["judgements", "import", str(source), "--replace", *DEMO]) == 0
    assert "24 judged question(s)" in capsys.readouterr().out
    assert main(["judgements", "list", "--json", *DEMO]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert len(listed["questions"]) == 24 and listed["seeded_from"] is None
    assert main(["eval", "--json", "--now", "2026-11-30T12:00:00Z", *DEMO]) == 0
    from_store = json.loads(capsys.readouterr().out)
    assert main(["eval", "--json", "--now", "2026-11-30T12:00:00Z", "--queries", str(source), *DEMO]) == 0
    from_file = json.loads(capsys.readouterr().out)
    assert from_store["summary"] == from_file["summary"] and from_store["scored"] == 24
    out = tmp_path / "out.jsonl"
    assert main(["judgements", "export", "--out", str(out), *DEMO]) == 0
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o600
    assert [json.loads(line)["qid"] for line in out.read_text().splitlines()] == \
        [json.loads(line)["qid"] for line in source.read_text().splitlines()]


def test_cli_eval_out_is_private_like_the_judgements_export(tmp_path, capsys):
    """`eval --out` was written with the umask's mode (0644 here) while `judgements export --out`,
    the judgements and the index are 0600: its hits name the memory's files."""
    from openclaw_memtui.paths import demo_judgements

    out = tmp_path / "hits.jsonl"
    old = os.umask(0o022)
    try:
        assert main(["eval", "--queries", str(demo_judgements()), "--out", str(out), *DEMO]) == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o600
    assert len(out.read_text().splitlines()) == 24 and "hits" in json.loads(out.read_text().splitlines()[0])


def test_cli_eval_without_judgements_says_what_to_do(tmp_path, workspace, capsys):
    code = main(["eval", "--workspace", str(workspace), "--db", str(tmp_path / "i.sqlite"), "--provider", "none"])
    err = capsys.readouterr().err
    assert code == 2 and "no judgements stored" in err and "memtui judgements import" in err and err.count("\n") == 1


def with_vectors(monkeypatch):
    """`memtui tune` in process with the seeded provider: hybrid pools, as with a real provider."""
    from openclaw_memtui.cli import tune as cli_tune

    from .app_helpers import SeededProvider, use_provider

    real = cli_tune.open_session

    def opened(*a, **kw):
        session = real(*a, **kw)
        use_provider(session.index, SeededProvider())
        return session

    monkeypatch.setattr(cli_tune, "open_session", opened)
    from openclaw_memtui.cli import search as cli_search

    monkeypatch.setattr(cli_search, "open_session", opened)  # `memtui eval` too


def test_cli_tune_reports_and_saves_only_when_asked(tmp_path, capsys, monkeypatch):
    with_vectors(monkeypatch)
    config = write(tmp_path / "memtui.toml", "# mine")  # no newline at the end: the saved file gets one
    argv = ["tune", "--json", "--now", "2026-11-30T12:00:00Z", "--config", str(config), "--demo"]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["judged"] == 24 and report["saved"] is None and config.read_text() == "# mine"
    assert report["vectors"] is True and report["note"] == ""
    assert report["suggested"]["cv"]["mean"] >= report["current"]["cv"]["mean"]
    assert set(report["current"]["cv"]) == {"mean", "spread"}
    assert all(c["from"] != c["to"] for c in report["changes"].values())
    assert main([*argv, "--save"]) == 0
    out, err = capsys.readouterr()
    saved = json.loads(out)
    assert saved["better"] and saved["saved"] == str(config)
    assert f"saved the suggested settings to {config}: they apply to every workspace that uses this config" in err
    assert config.read_text().startswith("# mine") and config.read_text().endswith("\n")
    from openclaw_memtui.core.config import load_config, search_params

    cfg = load_config(config, explicit=True)
    assert search_params(cfg).min_score == saved["suggested"]["params"]["min_score"]


def test_cli_tune_without_vectors_says_so_and_refuses_to_save(tmp_path, capsys):
    config = write(tmp_path / "memtui.toml", "# mine\n")
    argv = ["tune", "--json", "--now", "2026-11-30T12:00:00Z", "--config", str(config), *DEMO]
    assert main([*argv, "--save"]) == 2
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert report["vectors"] is False and "tuned with keywords only" in report["note"] and report["saved"] is None
    assert "vector_weight" not in report["changes"]
    assert report["suggested"]["params"]["vector_weight"] == SearchParams().vector_weight
    assert "not saved: tuned without vectors" in err and err.count("\n") == 1
    assert config.read_text() == "# mine\n" and list(tmp_path.glob("memtui.toml.bak*")) == []
    assert main(["tune", "--now", "2026-11-30T12:00:00Z", "--config", str(config), *DEMO]) == 0
    assert "Note: vectors were unavailable" in capsys.readouterr().out


def test_cli_tune_refuses_too_few_folds_and_says_when_it_uses_fewer(tmp_path, capsys):
    argv = ["tune", "--now", "2026-11-30T12:00:00Z", "--config", str(write(tmp_path / "m.toml", "# mine\n")), *DEMO]
    assert main([*argv, "--folds", "1"]) == 2
    assert "needs 2 folds or more" in capsys.readouterr().err
    assert main([*argv, "--folds", "100"]) == 0
    out, err = capsys.readouterr()
    assert "12 folds used, not 100" in err and "12-fold" in out  # 24 judged questions: 12 pairs


def test_changes_never_list_a_value_that_stays_the_same():
    from openclaw_memtui.engine.tuning.tuner import changed_fields

    on = changed_fields(SearchParams(), SearchParams(decay=True, mmr=True))  # on at the same half-life and λ
    assert on == {"decay": (False, True), "mmr": (False, True)}


def test_cli_tune_with_too_few_judgements(tmp_path, workspace, capsys):
    db = tmp_path / "i.sqlite"
    write(tmp_path / "few.jsonl", json.dumps({"qid": "a", "question": "oolong", "targets": [{"path": "MEMORY.md", "line": 3}]}))
    base = ["--workspace", str(workspace), "--db", str(db), "--provider", "none"]
    assert main(["judgements", "import", str(tmp_path / "few.jsonl"), *base]) == 0
    assert judgements_path(db).exists()
    capsys.readouterr()
    assert main(["tune", *base]) == 2
    assert f"needs {MIN_JUDGED} — judge {MIN_JUDGED - 1} more" in capsys.readouterr().err


def test_cli_list_says_when_the_index_is_out_of_date(tmp_path, workspace, capsys):
    db = tmp_path / "i.sqlite"
    base = ["--workspace", str(workspace), "--db", str(db), "--provider", "none"]
    write(tmp_path / "q.jsonl", json.dumps({"qid": "a", "question": "oolong", "targets": [{"path": "MEMORY.md", "line": 3}]}))
    assert main(["judgements", "import", str(tmp_path / "q.jsonl"), *base]) == 0
    assert main(["index", *base]) == 0
    capsys.readouterr()
    assert main(["judgements", "list", *base]) == 0
    assert "out of date" not in capsys.readouterr().out
    assert main(["judgements", "list", "--json", *base]) == 0
    assert json.loads(capsys.readouterr().out)["index_out_of_date"] is False
    write(workspace / "MEMORY.md", "# Memory\n\nThe user now prefers green tea.\n")
    before = db.read_bytes()
    assert main(["judgements", "list", *base]) == 0
    assert "index out of date: stale counts are as of the last sync; run memtui index" in capsys.readouterr().out
    assert main(["judgements", "list", "--json", *base]) == 0
    assert json.loads(capsys.readouterr().out)["index_out_of_date"] is True
    assert db.read_bytes() == before  # a read command: the index is not synced


def test_cli_import_skips_and_refuses_with_a_reason_per_line(tmp_path, workspace, capsys):
    db = tmp_path / "i.sqlite"
    base = ["--workspace", str(workspace), "--db", str(db), "--provider", "none"]
    assert main(["index", *base]) == 0

    def q(qid, question, *targets):
        return json.dumps({"qid": qid, "question": question, "targets": [{"path": p, "line": n} for p, n in targets]})

    lines = [q("a", "oolong", ("MEMORY.md", 3)),
             q("empty", "nothing", ),
             q("a", "a different question", ("MEMORY.md", 4)),
             q("b", "canary", ("memory/2026-11-02-deploy.md", 2), ("../outside/secret.md", 1), ("/etc/passwd", 1)),
             q("c", "nope", ("memory/nope.md", 1), ("MEMORY.md\u0000x", 1)),
             q("d", "far", ("MEMORY.md", 10**26), ("MEMORY.md", 99))]
    write(tmp_path / "in.jsonl", "\n".join(lines) + "\n")
    capsys.readouterr()
    assert main(["judgements", "import", str(tmp_path / "in.jsonl"), *base]) == 0
    out, err = capsys.readouterr()
    name = str(tmp_path / "in.jsonl")
    assert f"{name}:2: question empty skipped: it has no targets" in err
    assert f"{name}:3: qid a repeats line 1; skipped (the first is kept)" in err
    assert f"{name}:4: target ../outside/secret.md:1 refused: not a file in the index" in err
    assert f"{name}:4: target /etc/passwd:1 refused" in err
    assert f"{name}:5: target memory/nope.md:1 refused" in err
    assert "… and 5 more" in err and err.count("\n") == 6  # 5 shown, then one summary line
    assert "Imported 2 new question(s) and 2 target(s)" in out and "skipped 4 question(s) and refused 6 target(s)" in out
    stored = JudgementStore(judgements_path(db)).load().judgements
    assert [(j.qid, [(t.path, t.line) for t in j.targets]) for j in stored] == \
        [("a", [("MEMORY.md", 3)]), ("b", [("memory/2026-11-02-deploy.md", 2)])]

    write(tmp_path / "again.jsonl", q("a", "not oolong", ("MEMORY.md", 4)))
    assert main(["judgements", "import", str(tmp_path / "again.jsonl"), *base]) != 0  # it stored nothing (issue 31)
    assert "qid a is already stored for another question; skipped" in capsys.readouterr().err
    assert JudgementStore(judgements_path(db)).load().judgements[0].question == "oolong"


def test_cli_import_of_a_device_or_too_many_questions_changes_nothing(tmp_path, workspace, capsys, monkeypatch):
    db = tmp_path / "i.sqlite"
    base = ["--workspace", str(workspace), "--db", str(db), "--provider", "none"]
    assert main(["judgements", "import", "/dev/zero", *base]) == 2
    err = capsys.readouterr().err
    assert "/dev/zero is not a regular file" in err and "not found" not in err
    assert main(["eval", "--queries", str(tmp_path), *base]) == 2
    assert "is not a regular file" in capsys.readouterr().err
    from openclaw_memtui.engine.tuning import judgement_import as module

    monkeypatch.setattr(module, "MAX_STORED", 2)
    three = [json.dumps({"qid": f"q{i}", "question": f"q {i}", "targets": [{"path": "MEMORY.md", "line": 3}]}) for i in range(3)]
    write(tmp_path / "three.jsonl", "\n".join(three))
    assert main(["judgements", "import", str(tmp_path / "three.jsonl"), *base]) == 2
    assert "would make 3 judged questions for this index; the limit is 2" in capsys.readouterr().err
    assert not judgements_path(db).exists()


def test_retrieve_judged_retrieves_each_question_once(tmp_path, workspace, make_settings):
    index = MemoryIndex(make_settings(workspace), provider_name="none")
    index.sync()
    asked = []
    real = index.retrieve
    index.retrieve = lambda q, **kw: asked.append(q) or real(q, **kw)  # type: ignore[method-assign]
    judged = [Judgement("a", "oolong tea", [Target("MEMORY.md", 3, 3, "", 3)]), Judgement("b", "canary", [])]
    got = retrieve_judged(index, judged)
    assert got is not None and asked == ["oolong tea", "canary"] and got.scored == 1
    index.close()


def test_suggest_searches_the_line_weight():
    # the answer holds the question in one line, the distractor spreads more keyword matches over its chunk:
    # only a line weight above the default 0.5 puts the answer first (vector scores are equal)
    pools = []
    for q in range(12):
        answer = Candidate(1, f"a{q}", f"memory/answer-{q}.md", "memory", 1, 5, f"answer q{q}", 0.5, 0.2, None, None, "evergreen",
                           line_score=0.6)
        distractor = Candidate(2, f"d{q}", f"memory/noise-{q}.md", "memory", 1, 5, f"noise q{q}", 0.5, 0.7, None, None,
                               "evergreen", line_score=0.2)
        pool = Pool(f"q{q}", [distractor, answer], 0.0, "hybrid")
        pools.append(JudgedPool(f"q{q}", f"q{q}", [{"path": f"memory/answer-{q}.md", "line": 2}], pool))
    found = suggest(pools, SearchParams())
    assert not isinstance(found, NeedMore) and found.better
    assert found.best.line_weight > 0.5 and found.cv_best[0] == 1.0
    assert "line weight     0.50 → 0.75" in describe_suggestion(found)


def test_suggest_searches_the_overlap_penalty():
    # two chunks of one file over the same lines score above the answer, in another file: at the default
    # penalty 0.5 the repeat (0.85 × 0.5) still beats the answer (0.40); only a full penalty lifts it to #2.
    # Vector and keyword scores are equal, so no weight or line weight can move it
    def cand(i, path, text, score):
        return Candidate(i, f"h{i}{path}", path, "memory", 1, 5, text, score, score, None, None, "evergreen",
                         line_score=score)

    pools = []
    for q in range(12):
        first, repeat = cand(1, f"memory/log-{q}.md", f"alpha q{q}", 0.9), cand(2, f"memory/log-{q}.md", f"beta q{q}", 0.85)
        answer = cand(3, f"memory/answer-{q}.md", f"gamma q{q}", 0.4)
        pool = Pool(f"q{q}", [first, repeat, answer], 0.0, "hybrid")
        pools.append(JudgedPool(f"q{q}", f"q{q}", [{"path": f"memory/answer-{q}.md", "line": 2}], pool))
    found = suggest(pools, SearchParams())
    assert not isinstance(found, NeedMore) and found.better
    assert found.best.overlap_penalty == 1.0 and found.changes()["overlap_penalty"] == (0.5, 1.0)
    assert "overlap penalty 0.50 → 1.00" in describe_suggestion(found)


def test_cli_list_and_export_with_no_judgements_or_hostile_text(tmp_path, workspace, capsys):
    """With no judgements file and no seed, `seeded_from` was the string "None"; and export printed
    a question's bidi override (U+202E) raw to the terminal, where it reversed the rest of the line."""
    argv = ["-w", str(workspace), "--db", str(tmp_path / "i.sqlite"), "--provider", "none"]
    assert main(["index", *argv]) == 0
    capsys.readouterr()
    assert main(["judgements", "list", "--json", *argv]) == 0
    assert json.loads(capsys.readouterr().out)["seeded_from"] is None
    question = "oolong\u202e\u0085 tea\x1b[2J"
    queries = write(tmp_path / "q.jsonl", json.dumps({"qid": "q\u202e1", "question": question,
                                                      "targets": [{"path": "MEMORY.md", "line": 3}]}) + "\n")
    assert main(["judgements", "import", str(queries), *argv]) == 0
    capsys.readouterr()
    assert main(["judgements", "export", *argv]) == 0
    out = capsys.readouterr().out
    assert "\u202e" not in out and "\x85" not in out and "\x1b" not in out and "\\u202e" in out
    assert json.loads(out)["question"] == question and json.loads(out)["qid"] == "q\u202e1"  # the same value


def test_a_store_tells_when_another_process_rewrote_its_file(tmp_path):
    path = tmp_path / "j.jsonl"
    mine, theirs = JudgementStore(path), JudgementStore(path)
    assert mine.load().judgements == [] and not mine.changed_on_disk()
    mine.save([Judgement("q1", "one", [chunk_target()])])
    assert not mine.changed_on_disk()  # its own write is not a change
    theirs.load()
    theirs.save([Judgement("q1", "one", [chunk_target()]), Judgement("q2", "two", [chunk_target()])])
    assert mine.changed_on_disk() and not theirs.changed_on_disk()
    assert len(mine.load().judgements) == 2 and not mine.changed_on_disk()


def test_cli_tune_save_for_an_agent_says_which_saved_values_openclaw_replaces(tmp_path, capsys, monkeypatch):
    """Saved for every workspace, but the agent's own openclaw.json minScore wins when memtui opens it:
    `tune --save --agent` said only "saved", and the next `tune` started again from OpenClaw's value."""
    import os
    import shutil
    from pathlib import Path

    from openclaw_memtui.paths import demo_judgements, demo_workspace

    with_vectors(monkeypatch)
    ws = tmp_path / "ws"
    shutil.copytree(demo_workspace(), ws)
    state = Path(os.environ["OPENCLAW_STATE_DIR"])
    write(state / "openclaw.json", json.dumps({
        "meta": {"lastTouchedVersion": "2026.9.6"},
        "agents": {"entries": {"main": {"default": True, "workspace": str(ws)}}},
        "memory": {"search": {"query": {"minScore": 0.99}}}}))  # a floor that drops every answer: tune lowers it
    config = write(tmp_path / "memtui.toml", "# mine\n")
    agent = ["--agent", "main", "--config", str(config)]
    assert main(["judgements", "import", str(demo_judgements()), *agent, "--provider", "none"]) == 0
    capsys.readouterr()
    assert main(["tune", "--json", "--save", "--now", "2026-11-30T12:00:00Z", *agent]) == 0
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert report["saved"] == str(config) and report["suggested"]["params"]["min_score"] < 0.99
    assert "memtui: agent main's OpenClaw settings set minScore 0.99, which win when memtui opens that agent" in err
    assert f"--min-score {report['suggested']['params']['min_score']:g}" in err


def test_a_symlinked_judgements_file_is_written_through_and_stays_a_link(tmp_path):
    real = tmp_path / "dotfiles" / "judgements.jsonl"
    real.parent.mkdir()
    real.write_text("")
    link = tmp_path / "data" / "judgements.jsonl"
    link.parent.mkdir()
    link.symlink_to(real)
    JudgementStore(link).save([Judgement("q1", "one", [chunk_target()])])
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert [j.qid for j in JudgementStore(real).load().judgements] == ["q1"]
    assert list(link.parent.iterdir()) == [link]  # no temp file left beside the link


def test_cli_eval_of_an_empty_queries_file_says_so_and_builds_nothing(tmp_path, workspace, capsys):
    empty = write(tmp_path / "none.jsonl", "\n\n")
    db = tmp_path / "i.sqlite"
    code = main(["eval", "--queries", str(empty), "--workspace", str(workspace), "--db", str(db), "--provider", "none"])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1
    assert f"{empty} holds no queries: give one JSON object per line, with qid, question and targets" in err
    assert not db.exists()  # refused before the index is opened


def test_eval_and_tune_measure_the_same_list_the_user_is_shown(tmp_path, capsys, monkeypatch):
    """`memtui eval` ranked to depth 10 with no minScore while `tune` (and the app's panel) kept minScore:
    the same settings read 0.781 in one and 0.660 in the other. Both now score what `search` shows."""
    with_vectors(monkeypatch)
    config = write(tmp_path / "memtui.toml", "")
    argv = ["--json", "--now", "2026-11-30T12:00:00Z", "--config", str(config), "--demo"]
    assert main(["tune", *argv]) == 0
    tuned = json.loads(capsys.readouterr().out)
    assert main(["eval", *argv]) == 0
    evaluated = json.loads(capsys.readouterr().out)
    assert evaluated["summary"]["all"]["ndcg@10"] == pytest.approx(tuned["current"]["all"]["ndcg@10"], abs=1e-4)
    assert evaluated["summary"]["all"]["recall@5"] == pytest.approx(tuned["current"]["all"]["recall@5"], abs=1e-4)
    assert evaluated["measured"] == tuned["measured"] == "ranked as shown (maxResults 6, minScore 0.35), scored to depth 10"
    # every hit to depth 10 is still one flag away, and says so
    assert main(["eval", *argv, "--min-score", "0", "--max-results", "10"]) == 0
    deep = json.loads(capsys.readouterr().out)
    assert deep["measured"] == "ranked as shown (maxResults 10, minScore 0), scored to depth 10"
    assert deep["summary"]["all"]["recall@10"] >= evaluated["summary"]["all"]["recall@10"]
