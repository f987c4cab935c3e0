"""Issue 31: `--help` gave no text or default for any ranking flag."""

from __future__ import annotations

import pytest

from openclaw_memtui.cli.parser import build_parser, build_tui_parser
from openclaw_memtui.engine.settings import DEFAULT_SEARCH_PARAMS

RANKING_FLAGS = {"--max-results": "max_results", "--min-score": "min_score", "--vector-weight": "vector_weight",
                 "--text-weight": "text_weight", "--mmr-lambda": "mmr_lambda", "--half-life-days": "half_life_days",
                 "--fusion": "fusion", "--line-weight": "line_weight", "--overlap-penalty": "overlap_penalty"}


@pytest.mark.parametrize("command", ["search", "eval", "tune", "export-settings"])
def test_every_ranking_flag_says_what_it_does_and_its_shipped_default(command):
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    actions = {opt: a for a in sub.choices[command]._actions for opt in a.option_strings}
    for flag, field in RANKING_FLAGS.items():
        text = actions[flag].help or ""
        value = getattr(DEFAULT_SEARCH_PARAMS, field)
        shown = f"{value:g}" if isinstance(value, float) else str(value)
        assert text.endswith(f"(default: the config's, else {shown})") and len(text) > 40, (flag, text)
    for flag in ("--mmr", "--no-mmr", "--decay", "--no-decay", "--time"):
        assert actions[flag].help, flag


def test_version_is_the_installed_packages(capsys):
    """One lookup (openclaw_memtui/version.py) for `--version`, the servers and the plugin stamp."""
    from importlib.metadata import version

    from openclaw_memtui.version import package_version

    assert package_version() == version("openclaw-memtui")
    with pytest.raises(SystemExit) as done:
        build_tui_parser().parse_args(["--version"])
    assert done.value.code == 0 and capsys.readouterr().out.strip() == f"memtui {package_version()}"
