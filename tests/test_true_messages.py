"""Messages say what is true: one meaning of dirty in `memtui status`, `status --json` and the app's status
screen (chunks still waiting for a vector of this model count), and a search whose model differs from the
one the index's vectors were made with says so, not "no chunk has a vector yet (run a sync)"."""

from __future__ import annotations

import json

import pytest

from openclaw_memtui.cli.main import main
from openclaw_memtui.tui.screens.status_rows import dirty_text as app_dirty_text
from openclaw_memtui.tui.state import SyncState

from .fake_api import FakeAPI
from .helpers import write

SMALL, LARGE = "text-embedding-3-small", "text-embedding-3-large"


@pytest.fixture
def api(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret-key-123456")
    fake = FakeAPI("openai")
    yield fake
    fake.close()


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def argv(tmp_path, workspace, api, *extra: str) -> list[str]:
    cfg = write(tmp_path / "c.toml", f'provider = "openai"\n[remote]\nbaseUrl = "{api.url}"\n')
    return ["--workspace", str(workspace), "--db", str(tmp_path / "i.sqlite"), "--config", str(cfg), *extra]


def statuses(capsys, args: list[str]):
    """(the text's Dirty line, --json, the app's Dirty row for the same index)."""
    from openclaw_memtui.core.config import load_config
    from openclaw_memtui.core.session import SessionOptions, open_session

    code, out, _ = run(capsys, "status", *args)
    assert code == 0
    line = next(x for x in out.splitlines() if "Dirty:" in x)
    data = json.loads(run(capsys, "status", "--json", *args)[1])
    options = SessionOptions(workspace=args[1], db=args[3], provider="openai",
                             model=args[args.index("--model") + 1] if "--model" in args else None)
    with open_session(options, load_config(args[5], explicit=True), read_only=True) as session:
        app = app_dirty_text(session.index.status(check_dirty=False), SyncState(checking=False))
    return line, data, app


def test_unembedded_chunks_are_dirty_in_the_cli_json_and_app(tmp_path, workspace, api, capsys):
    assert run(capsys, "index", *argv(tmp_path, workspace, api, "--provider", "none"))[0] == 0  # keywords only
    line, data, app = statuses(capsys, argv(tmp_path, workspace, api, "--model", SMALL))
    chunks = data["chunks"]
    assert chunks > 0 and data["unembedded"] == chunks and data["dirty"] is True
    assert f"Dirty: yes ({chunks:,} of {chunks:,} chunks not embedded with {SMALL} yet" in line
    assert app.startswith(f"yes — {chunks:,} of {chunks:,} chunks not embedded yet")
    # embedded: every front end says no
    assert run(capsys, "index", *argv(tmp_path, workspace, api, "--model", SMALL))[0] == 0
    line, data, app = statuses(capsys, argv(tmp_path, workspace, api, "--model", SMALL))
    assert (data["dirty"], data["unembedded"], app) == (False, 0, "no") and "Dirty: no" in line


def test_another_models_vectors_are_named_not_missing(tmp_path, workspace, api, capsys):
    assert run(capsys, "index", *argv(tmp_path, workspace, api, "--model", SMALL))[0] == 0
    code, out, err = run(capsys, "search", "oolong", "--json", *argv(tmp_path, workspace, api, "--model", LARGE))
    assert code == 0
    (warning,) = [w for w in json.loads(out)["warnings"] if w.startswith("keyword-only")]
    assert "no chunk has a vector yet" not in warning
    assert f"embeds with model {LARGE}, but the index's vectors were made with {SMALL}" in warning
    # and status agrees that this model has work to do
    line, data, app = statuses(capsys, argv(tmp_path, workspace, api, "--model", LARGE))
    assert data["dirty"] is True and data["unembedded"] == data["chunks"] and app.startswith("yes")


def test_an_index_with_no_vector_at_all_still_asks_for_a_sync(tmp_path, workspace, api, capsys):
    assert run(capsys, "index", *argv(tmp_path, workspace, api, "--provider", "none"))[0] == 0
    code, out, _ = run(capsys, "search", "oolong", "--json", *argv(tmp_path, workspace, api, "--model", SMALL))
    assert "keyword-only: no chunk has a vector yet (run a sync)" in json.loads(out)["warnings"]
