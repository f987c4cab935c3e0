"""Issue 11, "Numbers" and openclaw.json types: one rule, one message, in the CLI, the config and the TUI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from openclaw_memtui.cli.main import main
from openclaw_memtui.engine.models import InvalidParams
from openclaw_memtui.engine.search.rank import SearchParams

from .helpers import write


@pytest.fixture
def ws(tmp_path) -> Path:
    write(tmp_path / "ws" / "memory" / "n.md", "ibis colony count\n")
    return tmp_path / "ws"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("memtui: error: ") and "Traceback" not in err, err
    return lines[0]


# flag, value, the shared message (what SearchParams.validate says)
BAD_FLAGS = [
    ("--vector-weight", "-3", "vector weight must be a number from 0 to 1, got -3.0"),
    ("--text-weight", "inf", "text weight must be a number from 0 to 1, got inf"),
    ("--mmr-lambda", "2", "MMR lambda must be a number from 0 to 1, got 2.0"),
    ("--line-weight", "-1", "line weight must be a number from 0 to 1, got -1.0"),
    ("--overlap-penalty", "1.5", "overlap penalty must be a number from 0 to 1, got 1.5"),
    ("--min-score", "1.5", "minScore must be a number from 0 to 1, got 1.5"),
    ("--min-score", "nan", "minScore must be a number from 0 to 1, got nan"),
    ("--half-life-days", "0", "half-life days must be a number greater than 0, got 0.0"),
    ("--half-life-days", "-5", "half-life days must be a number greater than 0, got -5.0"),
    ("--max-results", "0", "maxResults must be a whole number of at least 1, got 0"),
]


@pytest.mark.parametrize("command", ["search", "eval", "export-settings"])
@pytest.mark.parametrize("flag,value,message", BAD_FLAGS)
def test_out_of_range_ranking_flags_are_one_line_errors(ws, tmp_path, capsys, command, flag, value, message):
    extra = {"search": ["ibis"], "eval": ["--queries", str(write(tmp_path / "q.jsonl", '{"qid": "a", "question": "ibis"}\n'))],
             "export-settings": []}[command]
    code, out, err = run(capsys, command, *extra, "-w", str(ws), "--db", str(tmp_path / "i.sqlite"), "--provider", "none",
                         f"{flag}={value}")
    assert code == 2 and out == ""
    assert one_error_line(err) == f"memtui: error: {flag}: {message}"


def test_both_weights_zero_is_refused(ws, tmp_path, capsys):
    code, _, err = run(capsys, "search", "ibis", "-w", str(ws), "--provider", "none", "--vector-weight", "0",
                       "--text-weight", "0")
    assert code == 2 and "vector weight and text weight cannot both be 0" in one_error_line(err)


@pytest.mark.parametrize("toml,key,message", [
    ("[query.hybrid]\nvectorWeight = -2\n", "query.hybrid.vectorWeight", "vector weight must be a number from 0 to 1, got -2.0"),
    ("[query.keyword]\nlineWeight = 1.5\n", "query.keyword.lineWeight", "line weight must be a number from 0 to 1, got 1.5"),
    ("[query]\noverlapPenalty = -0.5\n", "query.overlapPenalty", "overlap penalty must be a number from 0 to 1, got -0.5"),
    ("[query.hybrid]\nvectorWeight = 0\ntextWeight = 0\n", "query.hybrid.vectorWeight",
     "vector weight and text weight cannot both be 0"),
    ("[query.hybrid.mmr]\nlambda = nan\n", "query.hybrid.mmr.lambda", "MMR lambda must be a number from 0 to 1, got nan"),
    ("[query]\nminScore = 1.5\n", "query.minScore", "minScore must be a number from 0 to 1, got 1.5"),
    ("[query.hybrid.temporalDecay]\nhalfLifeDays = 0\n", "query.hybrid.temporalDecay.halfLifeDays",
     "half-life days must be a number greater than 0, got 0.0"),
    ("[query]\nmaxResults = 0\n", "query.maxResults", "maxResults must be a whole number of at least 1, got 0"),
    ("[chunking]\ntokens = 0\n", "chunking.tokens", "chunking tokens must be a whole number of at least 16, got 0"),
    ("[chunking]\ntokens = 100\noverlap = 100\n", "chunking.overlap",
     "chunking overlap must be a whole number from 0 to tokens - 1 (99), got 100"),
    ("[chunking]\noverlap = -1\n", "chunking.overlap",
     "chunking overlap must be a whole number from 0 to tokens - 1 (399), got -1"),
    ("[query.time]\nfloor = 2.0\n", "query.time.floor", "time floor must be a number from 0 to 1, got 2.0"),
])
def test_out_of_range_config_numbers_name_the_key_with_the_same_message(ws, tmp_path, capsys, toml, key, message):
    cfg = write(tmp_path / "c.toml", toml)
    code, _, err = run(capsys, "index", "-w", str(ws), "--db", str(tmp_path / "i.sqlite"), "--provider", "none",
                       "--config", str(cfg))
    assert code == 2
    assert one_error_line(err) == f"memtui: error: {cfg}: '{key}': {message}"


@pytest.mark.parametrize("toml,key", [
    ("[store]\nmaxFileBytes = 0\n", "store.maxFileBytes"),
    ("[query.hybrid]\ncandidatePool = 0\n", "query.hybrid.candidatePool"),
    ("[remote]\ntimeoutSeconds = nan\n", "remote.timeoutSeconds"),
    ("[sync]\npollSeconds = -1.0\n", "sync.pollSeconds"),
])
def test_other_config_numbers_out_of_range(ws, tmp_path, capsys, toml, key):
    cfg = write(tmp_path / "c.toml", toml)
    code, _, err = run(capsys, "status", "-w", str(ws), "--db", str(tmp_path / "i.sqlite"), "--config", str(cfg))
    assert code == 2 and f"'{key}' must be a number" in one_error_line(err)


@pytest.mark.parametrize("toml,key,most", [
    ("[remote]\ntimeoutSeconds = 1e308\n", "remote.timeoutSeconds", "86400"),
    ("[sync]\npollSeconds = 1e10\n", "sync.pollSeconds", "86400"),
    ("[query.hybrid]\ncandidatePool = 99999999999999999999999\n", "query.hybrid.candidatePool", "100000"),
    ("[query.hybrid]\ncandidatePool = 9223372036854775807\n", "query.hybrid.candidatePool", "100000"),
    ("[remote]\nmaxRetries = 99999999999\n", "remote.maxRetries", "100"),
])
def test_config_numbers_past_a_clock_or_sql_limit_are_refused(ws, tmp_path, capsys, toml, key, most):
    """Before: a 1e308 s timeout ended every search using the provider with "timestamp out of range for
    platform time_t" (exit 1); a pool past 2^63 overflowed SQLite's LIMIT and every search printed
    "No matches."; 2^63-1 overflowed the line leg's LIMIT (pool x 10) and dropped its scores."""
    cfg = write(tmp_path / "c.toml", toml)
    code, _, err = run(capsys, "search", "ibis", "-w", str(ws), "--db", str(tmp_path / "i.sqlite"), "--config", str(cfg),
                       "--provider", "none")
    assert code == 2 and f"'{key}' must be at most {most}, got" in one_error_line(err)


def test_the_largest_allowed_pool_still_finds_the_keyword_hit(ws, tmp_path, capsys):
    cfg = write(tmp_path / "c.toml", "[query.hybrid]\ncandidatePool = 100000\n")
    code, out, _ = run(capsys, "search", "ibis", "-w", str(ws), "--db", str(tmp_path / "i.sqlite"), "--config", str(cfg),
                       "--provider", "none", "--json")
    assert code == 0 and json.loads(out)["results"]


def test_the_rule_is_one_function_with_one_message():
    with pytest.raises(InvalidParams, match="^MMR lambda must be a number from 0 to 1, got 2$") as info:
        SearchParams(mmr_lambda=2).validate()
    assert info.value.field == "mmr_lambda"
    assert SearchParams().validate() == SearchParams()


# -- openclaw.json ------------------------------------------------------------------------------

def openclaw_config(tmp_path: Path, monkeypatch, text: str) -> Path:
    state = tmp_path / "openclaw"
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(state))
    (tmp_path / "agent-ws").mkdir(exist_ok=True)
    return write(state / "openclaw.json", text)


WRONG_TYPES = [
    ('{"agents": {"list": [{"id": "main", "workspace": 5}]}}', "agents.list[id='main'].workspace", "must be a string"),
    ('{"agents": {"defaults": {"workspace": 5}}}', "agents.defaults.workspace", "must be a string"),
    ('{"agents": {"defaults": {"memorySearch": {"extraPaths": 5}}}}', "agents.defaults.memorySearch.extraPaths",
     "must be a list of paths"),
    ('{"agents": {"defaults": {"memorySearch": {"query": {"hybrid": {"mmr": {"lambda": "abc"}}}}}}}',
     "agents.defaults.memorySearch.query.hybrid.mmr.lambda", "must be a finite number"),
    ('{"agents": {"list": [{"id": "main", "memorySearch": {"chunking": {"tokens": Infinity}}}]}}',
     "agents.list[id='main'].memorySearch.chunking.tokens", "must be a finite number"),
    ('{"agents": {"list": 5}}', "agents.list", "must be a list"),
    ('{"agents": []}', "agents", "must be an object"),
    ('{"memory": {"search": {"remote": {"headers": {"X": 1}}}}}', "memory.search.remote.headers", "must be an object of strings"),
]


@pytest.mark.parametrize("text,key,kind", WRONG_TYPES)
@pytest.mark.parametrize("command", [["agents"], ["index", "--agent", "main", "--provider", "none"]])
def test_openclaw_config_with_wrong_types_is_one_line_naming_file_and_key(tmp_path, monkeypatch, capsys, text, key,
                                                                           kind, command):
    path = openclaw_config(tmp_path, monkeypatch, text)
    argv = command + (["--db", str(tmp_path / "i.sqlite")] if command[0] == "index" else [])
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    line = one_error_line(err)
    assert str(path) in line and f"'{key}' {kind}" in line


@pytest.mark.parametrize("text", ["[" * 100_000 + "]" * 100_000, '{"a":' * 100_000 + "1" + "}" * 100_000])
def test_openclaw_config_nested_100k_deep(tmp_path, monkeypatch, capsys, text):
    path = openclaw_config(tmp_path, monkeypatch, text)
    code, _, err = run(capsys, "agents")
    assert code == 2 and f"OpenClaw config {path} is nested too deeply" in one_error_line(err)


def test_openclaw_out_of_range_numbers_meet_the_same_rule(tmp_path, monkeypatch, capsys):
    openclaw_config(tmp_path, monkeypatch, json.dumps(
        {"agents": {"defaults": {"workspace": str(tmp_path / "agent-ws"),
                                 "memorySearch": {"query": {"minScore": 5}}}}}))
    code, _, err = run(capsys, "index", "--agent", "main", "--provider", "none", "--db", str(tmp_path / "i.sqlite"))
    assert code == 2
    assert one_error_line(err) == "memtui: error: agent main: 'query.minScore': minScore must be a number from 0 to 1, got 5.0"


def test_well_typed_openclaw_config_still_works(tmp_path, monkeypatch, capsys):
    openclaw_config(tmp_path, monkeypatch, json.dumps(
        {"agents": {"defaults": {"workspace": str(tmp_path / "agent-ws"), "memorySearch": {
            "extraPaths": ["notes", {"path": "more", "pattern": "*.md"}], "unknownNewKey": {"deep": [1, "x"]},
            "query": {"hybrid": {"mmr": {"enabled": True, "lambda": 0.5}}}}},
            "list": [{"id": "main", "default": True}]}}))
    code, out, err = run(capsys, "agents", "--json")
    assert code == 0, err
    assert json.loads(out)["agents"][0]["memory_search"]["query"]["hybrid"]["mmr"]["lambda"] == 0.5


# -- the TUI's numeric inputs ---------------------------------------------------------------------

REFUSED_INPUTS = [
    ("vector_weight", "-3", "vector weight must be a number from 0 to 1, got -3.0"),
    ("mmr_lambda", "2", "MMR lambda must be a number from 0 to 1, got 2.0"),
    ("min_score", "nan", "minScore must be a number from 0 to 1, got nan"),
    ("half_life_days", "0", "half-life days must be a number greater than 0, got 0.0"),
    ("max_results", "0", "maxResults must be a whole number of at least 1, got 0"),
]


async def test_tui_numeric_input_refuses_out_of_range_with_the_same_message(tmp_path):
    from textual.widgets import Input

    from openclaw_memtui.tui.widgets.slider import Slider

    from .app_helpers import copy_demo, make_app, wait_for

    app = make_app(copy_demo(tmp_path), tmp_path)  # one app for every field: each refusal leaves it as it was
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.press("ctrl+t")
        before = app.search_screen.params
        for field, value, message in REFUSED_INPUTS:
            box = app.query_one(f"#in-{field}", Input)
            box.value = value
            await pilot.click(f"#in-{field}")
            await pilot.press("enter")
            assert await wait_for(pilot, lambda message=message: ("warning", message) in app.toasts), field
            assert app.search_screen.params == before, field  # the old value stays
            assert box.value == app.query_one("#tuning")._fmt(field, float(getattr(before, field))), field
            assert app.query_one(f"#sl-{field}", Slider).value == float(getattr(before, field)), field
        assert [t for t in app.toasts if t[0] == "warning"] == [("warning", m) for _, _, m in REFUSED_INPUTS]


async def test_tui_sliders_cannot_put_both_weights_at_zero(tmp_path):
    from openclaw_memtui.tui.widgets.slider import Slider

    from .app_helpers import copy_demo, make_app, wait_for

    app = make_app(copy_demo(tmp_path), tmp_path)
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.press("ctrl+t")
        app.query_one("#sl-vector_weight", Slider).focus()
        await pilot.press("home")
        app.query_one("#sl-text_weight", Slider).focus()
        await pilot.press("home")
        refused = ("warning", "vector weight and text weight cannot both be 0")
        assert await wait_for(pilot, lambda: refused in app.toasts)
        assert app.search_screen.params.vector_weight == 0.0 and app.search_screen.params.text_weight > 0
        assert app.query_one("#sl-text_weight", Slider).value == app.search_screen.params.text_weight
