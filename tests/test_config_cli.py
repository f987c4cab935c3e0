"""Config validation and the headless CLI as a user runs it (real subprocesses)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from openclaw_memtui.core.config import ConfigError, load_config, validate

from .helpers import env_for_subprocess, write


def run(*args, env=None):
    return subprocess.run([sys.executable, "-m", "openclaw_memtui", *args], capture_output=True, text=True,
                          env=env or env_for_subprocess(), timeout=120)


def test_defaults_follow_openclaw_names():
    cfg = validate({}).to_tree()
    assert cfg["chunking"] == {"tokens": 400, "overlap": 80, "lineVectors": True}
    assert cfg["query"]["maxResults"] == 6 and cfg["query"]["minScore"] == 0.35
    assert cfg["sync"]["watchDebounceMs"] == 1500


def test_unknown_key_and_wrong_type_name_the_key(tmp_path):
    with pytest.raises(ConfigError, match=r"unknown key 'query.hybrid.vectorWieght'"):
        validate({"query": {"hybrid": {"vectorWieght": 0.5}}})
    with pytest.raises(ConfigError, match=r"'chunking.tokens' must be a whole number"):
        validate({"chunking": {"tokens": "many"}})
    with pytest.raises(ConfigError, match=r"'provider' must be one of"):
        validate({"provider": "magic"})
    bad = write(tmp_path / "bad.toml", "provider = [unclosed\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(bad)
    cfg = load_config(write(tmp_path / "ok.toml", "[query.hybrid]\nvectorWeight = 1\n")).to_tree()
    assert cfg["query"]["hybrid"]["vectorWeight"] == 1.0


def test_index_then_status_json(workspace, tmp_path):
    db = tmp_path / "cli.sqlite"
    out = run("index", "--workspace", str(workspace), "--db", str(db), "--provider", "none", "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)["report"]
    assert report["files_indexed"] == 5
    out = run("status", "--workspace", str(workspace), "--db", str(db), "--provider", "none", "--json")
    status = json.loads(out.stdout)
    for key in ("workspace", "db_path", "sqlite_version", "vector_backend", "fts", "provider", "model", "dims",
                "files", "chunks", "sources", "dirty", "last_sync", "skipped"):
        assert key in status
    assert status["vector_backend"] in ("sqlite-vec", "numpy") and status["files"] == 5 and status["dirty"] is False
    write(workspace / "memory" / "new.md", "# New\nfresh note\n")
    status = run("status", "--workspace", str(workspace), "--db", str(db), "--provider", "none", "--json")
    assert json.loads(status.stdout)["dirty"]


def test_numpy_fallback_reported(workspace, tmp_path):
    env = env_for_subprocess() | {"MEMTUI_DISABLE_SQLITE_VEC": "1"}
    out = run("index", "--workspace", str(workspace), "--db", str(tmp_path / "np.sqlite"), "--provider", "none", env=env)
    assert out.returncode == 0
    status = json.loads(run("status", "--workspace", str(workspace), "--db", str(tmp_path / "np.sqlite"),
                            "--provider", "none", "--json", env=env).stdout)
    assert status["vector_backend"] == "numpy" and status["sqlite_vec_version"] is None


def test_errors_are_one_line_without_traceback(tmp_path):
    out = run("index", "--workspace", str(tmp_path / "missing"))
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.strip().count("\n") == 0 and "not a directory" in out.stderr
    cfg = write(tmp_path / "c.toml", "[chunking]\ntokens = 'x'\n")
    out = run("status", "--config", str(cfg), "--demo")
    assert out.returncode == 2 and "chunking.tokens" in out.stderr and "Traceback" not in out.stderr
    blocker = write(tmp_path / "a-file", "not a folder")
    out = run("index", "--demo", "--db", str(blocker / "x.sqlite"), "--provider", "none")
    assert out.returncode != 0 and "Traceback" not in out.stderr and out.stderr.strip().count("\n") == 0


def test_engine_never_imports_textual():
    code = (
        "import sys, openclaw_memtui.engine.index, openclaw_memtui.engine.search.retrieval, openclaw_memtui.cli.search;"
        "print('textual' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env_for_subprocess())
    assert out.stdout.strip() == "False", out.stderr


def test_save_settings_keeps_other_keys_and_backs_up(tmp_path):
    from openclaw_memtui.core.settings_io import save_to_config
    from openclaw_memtui.engine.search.rank import SearchParams

    cfg = write(tmp_path / "config.toml", 'workspace = "/notes"\n[tui]\ntheme = "phosphor"\n')
    backup = save_to_config(SearchParams(vector_weight=0.4, text_weight=0.6, mmr=True, max_results=9, time_mode="filter",
                                         overlap_penalty=0.25), cfg)
    config = load_config(cfg)
    loaded = config.to_tree()
    assert loaded["workspace"] == "/notes" and loaded["tui"]["theme"] == "phosphor"
    assert loaded["query"]["maxResults"] == 9 and loaded["query"]["hybrid"]["mmr"]["enabled"] is True
    assert loaded["query"]["hybrid"]["vectorWeight"] == 0.4
    assert loaded["query"]["time"]["mode"] == "filter"  # the tuning panel's time mode is saved too
    from openclaw_memtui.core.config import search_params

    assert search_params(config).mmr is True and search_params(config).max_results == 9  # round trip
    assert search_params(config).overlap_penalty == 0.25
    assert backup.read_text() == 'workspace = "/notes"\n[tui]\ntheme = "phosphor"\n'


def test_argparse_errors_are_one_line_with_a_hint(capsys):
    from openclaw_memtui.cli.main import main

    for argv, hint in ((["search"], "memtui search --help"), (["--bogus"], "memtui --help")):
        with pytest.raises(SystemExit) as exit_info:
            main(argv)
        assert exit_info.value.code == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "error:" in err and hint in err and "usage:" not in err


def test_a_command_builds_only_its_own_parser_and_parses_as_the_full_one():
    from openclaw_memtui.cli.parser import COMMANDS, build_parser

    def commands(parser):
        return set(parser._subparsers._group_actions[0].choices)

    assert commands(build_parser()) == set(COMMANDS)  # every command in `memtui --help` has its parser
    samples = {"status": ["--json", "--db", "x.sqlite"], "search": ["alpha", "--max-results", "3", "--no-mmr"],
               "index": ["--force"], "judgements": ["list", "--json"], "tune": ["--folds", "3"]}
    for name in COMMANDS:
        assert commands(build_parser(name)) == {name}
        argv = [name, *samples.get(name, [])]
        assert vars(build_parser(name).parse_args(argv)) == vars(build_parser().parse_args(argv))
    with pytest.raises(SystemExit):
        build_parser("status").parse_args(["status", "--folds", "3"])  # another command's flag is still refused


def test_a_mistyped_command_is_named_not_taken_for_a_workspace(tmp_path, monkeypatch, capsys):
    """`memtui serch foo` used to say "unrecognized arguments: foo", and `memtui statsu` "workspace
    statsu is not a directory": the first word is read as the workspace. A near miss of a command
    that is no folder now says which command was meant; a real folder of that name still opens."""
    from openclaw_memtui.cli.main import main

    monkeypatch.chdir(tmp_path)
    for argv, meant in ((["serch", "auth"], "memtui search"), (["statsu"], "memtui status"), (["Index"], "memtui index")):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"unknown command '{argv[0]}'" in err and meant in err
    assert main(["nosuchthing"]) == 2  # no command is near: still the workspace's message
    assert "workspace nosuchthing is not a directory" in capsys.readouterr().err
    (tmp_path / "serch").mkdir()  # a workspace folder named like a typo is a workspace
    from openclaw_memtui.cli.main import _mistyped_command

    assert _mistyped_command("serch") is None and _mistyped_command("--serch") is None


def test_help_names_where_a_default_comes_from_not_a_value_the_config_may_change(capsys):
    """`--provider … (default from config: auto)` read as the config's value even with provider = "none"."""
    from openclaw_memtui.cli.main import main

    for command in ("search", "eval", "tune", "index"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert "default from config" not in text
        assert "embedding provider (default: the config's `provider`, else the agent's openclaw.json, else local" in text
        if command != "index":
            assert "(default: the config's query.time.mode, boost when unset)" in text


def test_search_of_an_empty_workspace_says_there_are_no_notes_not_to_run_a_sync(tmp_path, capsys):
    """It said "keyword-only: no chunk has a vector yet (run a sync)" and "No matches.": a sync changes nothing."""
    import json

    from openclaw_memtui.cli.main import main

    empty = tmp_path / "empty"
    empty.mkdir()
    argv = ["search", "tea", "--workspace", str(empty), "--db", str(tmp_path / "i.sqlite"), "--provider", "local"]
    for _ in range(2):  # built by the first search, found empty by the second
        assert main(argv) == 0
        out, err = capsys.readouterr()
        assert out == "No matches.\n" and "run a sync" not in err
        assert err == (f"memtui: no memory files in {empty}: memtui indexes MEMORY.md, memory/**/*.md, {empty}/sessions/*.jsonl "
                       "(pass another folder with --workspace DIR or --agent ID, or try --demo)\n")
    assert main([*argv, "--json"]) == 0
    warnings = json.loads(capsys.readouterr().out)["warnings"]
    assert len(warnings) == 1 and warnings[0].startswith(f"no memory files in {empty}")
    (empty / "MEMORY.md").write_text("Oolong tea.\n", encoding="utf-8")  # a note now: that warning is gone
    assert main(argv) == 0
    assert "no memory files" not in capsys.readouterr().err


def test_options_before_the_command_say_they_go_after_it(tmp_path, capsys, monkeypatch):
    """`memtui --db x status` said "workspace status is not a directory"; `memtui --demo search tea` said
    "unrecognized arguments: tea". Neither told a newcomer that options go after the command."""
    from openclaw_memtui.cli.main import main

    monkeypatch.chdir(tmp_path)
    cases = {("--db", "x.sqlite", "status"): "memtui status --db x.sqlite",
             ("--demo", "search", "tea", "--json"): "memtui search --demo tea --json",
             ("-w", "ws", "index", "--force"): "memtui index -w ws --force",
             ("--provider=none", "status"): "memtui status --provider=none"}
    for argv, fixed in cases.items():
        assert main(list(argv)) == 2
        out, err = capsys.readouterr()
        assert out == "" and err == f"memtui: error: options go after the command: `{fixed}` (see: memtui --help)\n"
    assert not (tmp_path / "x.sqlite").exists()
    # an option's value that happens to be a command's name, or a folder of that name, is left alone
    assert main(["--agent", "status", "--demo"]) == 2
    assert "options go after" not in capsys.readouterr().err
    (tmp_path / "index").mkdir()
    from openclaw_memtui.cli.main import _command_after_options

    assert _command_after_options(["--demo", "index"]) is None
