"""Issue 11 neighbours: the nesting, encoding and type classes in the eval queries file and the TOML config."""

from __future__ import annotations

from pathlib import Path

import pytest

from openclaw_memtui.cli.main import main

from .helpers import write


def one_error_line(capsys, argv: list[str]) -> str:
    code = main(argv)
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert code != 0 and len(lines) == 1 and lines[0].startswith("memtui: error: ") and "Error;" not in err, err
    return lines[0]


@pytest.fixture
def ws(tmp_path) -> Path:
    return write(tmp_path / "ws" / "memory" / "n.md", "heron\n").parent.parent


@pytest.mark.parametrize("line,expected", [
    ("[" * 100_000, "q.jsonl:1 is not valid JSON"),
    ('{"qid": "a", "question": ' + "[" * 5000 + "]" * 5000 + "}", "q.jsonl:1 is not valid JSON"),
    ('{"qid": "a", "question": null}', "q.jsonl:1: 'question' must be a string"),
    ('{"qid": "a", "question": "heron", "targets": 5}', "q.jsonl:1: 'targets' must be a list"),
    ('{"qid": "a", "question": "heron", "targets": [{"path": "memory/n.md", "line": "abc"}]}',
     "q.jsonl:1: targets[0] must be"),
    ('{"qid": "a", "question": "heron", "targets": [{"line": 1}]}', "q.jsonl:1: targets[0] must be"),
], ids=["100k-deep", "5000-deep-question", "null-question", "targets-5", "line-abc", "no-path"])
def test_hostile_eval_queries_are_one_line_naming_the_line(ws, tmp_path, capsys, line, expected):
    queries = write(tmp_path / "q.jsonl", line + "\n")
    err = one_error_line(capsys, ["eval", "--queries", str(queries), "-w", str(ws), "--db", str(tmp_path / "i.sqlite"),
                                  "--provider", "none"])
    assert expected in err


def test_eval_queries_file_that_is_not_utf8(ws, tmp_path, capsys):
    queries = tmp_path / "q.jsonl"
    queries.write_bytes(b'{"qid": "a", "question": "\xff"}\n')
    err = one_error_line(capsys, ["eval", "--queries", str(queries), "-w", str(ws), "--db", str(tmp_path / "i.sqlite"),
                                  "--provider", "none"])
    assert f"{queries} is not valid UTF-8" in err


@pytest.mark.parametrize("text", ["a = " + "[" * 100_000 + "]" * 100_000, "a = " + "{b = " * 100_000 + "1" + "}" * 100_000],
                         ids=["arrays", "inline-tables"])
def test_config_nested_100k_deep_is_one_line(ws, tmp_path, capsys, text):
    cfg = write(tmp_path / "c.toml", text + "\n")
    err = one_error_line(capsys, ["status", "-w", str(ws), "--db", str(tmp_path / "i.sqlite"), "--config", str(cfg)])
    assert err == f"memtui: error: config {cfg} is nested too deeply to read"


def test_eval_groups_any_category_instead_of_failing_on_it(ws, tmp_path, capsys):
    """`category` is optional and free: "multi-hop" or a list stopped every eval with
    "invalid literal for int()"; LoCoMo's numbers (also as "2" or 2.0) keep their names."""
    import json

    target = '"targets": [{"path": "memory/n.md", "line": 1}]'
    lines = [f'{{"qid": "{i}", "question": "heron", "category": {cat}, {target}}}'
             for i, cat in enumerate(['"multi-hop"', '["x", "y"]', '"2"', "2.0", "true", '"\\u001b[31mred"'])]
    queries = write(tmp_path / "q.jsonl", "\n".join(lines) + "\n")
    argv = ["eval", "--queries", str(queries), "-w", str(ws), "--db", str(tmp_path / "i.sqlite"), "--provider", "none"]
    assert main([*argv, "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)["summary"]
    assert set(summary) == {"all", "multi-hop", "['x', 'y']", "2 temporal", "2.0 temporal", "True", "\x1b[31mred"}
    assert summary["all"]["n"] == 6
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "| \\x1b[31mred | 1 |" in out and "\x1b" not in out  # the table is escaped


def test_eval_out_on_a_full_disk_is_one_line_without_empty_parentheses(ws, tmp_path, capsys):
    """/dev/full fails every write with ENOSPC and no file name: the line read "No space left on device ()"."""
    queries = write(tmp_path / "q.jsonl", '{"qid": "a", "question": "heron", "targets": [{"path": "memory/n.md", "line": 1}]}\n')
    err = one_error_line(capsys, ["eval", "--queries", str(queries), "--out", "/dev/full", "-w", str(ws),
                                  "--db", str(tmp_path / "i.sqlite"), "--provider", "none"])
    assert err == "memtui: error: No space left on device"


def test_config_saved_with_a_byte_order_mark_says_so(ws, tmp_path, capsys):
    """Notepad's "UTF-8 with BOM": tomllib said "Invalid statement (at line 1, column 1)" about a file that
    looks perfectly valid in any editor."""
    cfg = tmp_path / "c.toml"
    cfg.write_bytes(b'\xef\xbb\xbfprovider = "none"\n')
    err = one_error_line(capsys, ["status", "-w", str(ws), "--db", str(tmp_path / "i.sqlite"), "--config", str(cfg)])
    assert err == (f"memtui: error: config {cfg} starts with a byte order mark (U+FEFF), which TOML does not allow; "
                   "save it as UTF-8 without BOM")
    assert cfg.read_bytes().startswith(b"\xef\xbb\xbf")  # left as it is
