"""Issue 31: `memtui search ""` is a usage error; `judgements import` that stored nothing fails."""

from __future__ import annotations

import pytest

from openclaw_memtui.cli.main import main


def test_an_empty_search_is_a_usage_error(tmp_path, workspace, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["search", "  ", "--workspace", str(workspace), "--db", str(tmp_path / "i.sqlite"), "--provider", "none"])
    assert exit_info.value.code == 2 and "the query is empty" in capsys.readouterr().err
    assert not (tmp_path / "i.sqlite").exists()


def test_an_import_that_stores_nothing_fails_and_changes_nothing(tmp_path, workspace, capsys):
    empty = tmp_path / "none.txt"
    empty.write_text("")
    code = main(["judgements", "import", str(empty), "--workspace", str(workspace), "--db", str(tmp_path / "i.sqlite"),
                 "--provider", "none"])
    assert code != 0 and "no question stored" in capsys.readouterr().err
