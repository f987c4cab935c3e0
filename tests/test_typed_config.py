"""The typed config (core/config_types.py) and the session as a context manager (core/session.py)."""

from __future__ import annotations

import argparse
import json
from dataclasses import FrozenInstanceError, replace
from pathlib import Path

import pytest

from openclaw_memtui.core.config import DEFAULTS, AppConfig, ConfigError, index_settings, load_config, search_params, validate
from openclaw_memtui.core.session import Session, SessionOptions, apply_agent, open_session
from openclaw_memtui.engine.settings import DEFAULT_SEARCH_PARAMS, IndexSettings
from openclaw_memtui.paths import data_dir

from .helpers import write


def test_the_config_is_frozen_all_the_way_down():
    config = validate({"tui": {"keys": {"quit": "ctrl+x"}}, "remote": {"headers": {"X-Team": "a"}}})
    with pytest.raises(FrozenInstanceError):
        config.provider = "none"  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        config.query.hybrid.mmr.lambda_ = 0.1  # type: ignore[misc]
    with pytest.raises(TypeError):  # a free map is read-only too: a front end cannot edit the keymap in place
        config.tui.keys["quit"] = "ctrl+c"  # type: ignore[index]
    with pytest.raises(TypeError):
        config.remote.headers["X-Team"] = "b"  # type: ignore[index]
    assert isinstance(config.sources, tuple) and isinstance(config.extra_paths, tuple)


def test_the_defaults_are_the_engines_and_the_toml_tree_is_unchanged(tmp_path):
    config = validate({})
    assert search_params(config) == DEFAULT_SEARCH_PARAMS
    ws = tmp_path.resolve()
    assert index_settings(config, ws, ws / "i.sqlite") == IndexSettings(
        workspace=ws, db_path=ws / "i.sqlite", sessions_dir=ws / "sessions",
        index_records=data_dir() / "index-records")  # memtui's own records of the indexes it made
    # every key, value and nesting of the TOML defaults, read back from the typed value
    assert json.dumps(config.to_tree()) == json.dumps(DEFAULTS)
    assert load_config(tmp_path / "absent.toml") == config  # no file: all defaults


def test_every_key_reaches_its_own_field():
    """Each TOML key given a value of its own: a field read from the wrong key (two floats swapped,
    `lambda` or `memoryBudgetMB` misnamed) shows here."""
    given = {"workspace": "/w", "sessionsDir": "/s", "sources": ["memory"], "extraPaths": ["/x"], "followSymlinks": True,
             "provider": "ollama", "model": "m", "fallback": "local",
             "remote": {"baseUrl": "http://h", "apiKey": "k", "headers": {"X-A": "b"}, "timeoutSeconds": 7.0,
                        "maxRetries": 5, "concurrency": 3},
             "store": {"path": "/db", "maxFileBytes": 1234, "vector": {"backend": "numpy", "memoryBudgetMB": 77, "exact": True}},
             "chunking": {"tokens": 300, "overlap": 30, "lineVectors": True},
             "query": {"maxResults": 9, "minScore": 0.11, "overlapPenalty": 0.22,
                       "keyword": {"orFallback": False, "cjk": "none", "stemming": "none", "lineWeight": 0.33},
                       "time": {"mode": "filter", "boost": 0.44, "floor": 0.55},
                       "hybrid": {"enabled": False, "fusion": "normalized", "vectorWeight": 0.66, "textWeight": 0.77,
                                  "candidatePool": 88, "mmr": {"enabled": True, "lambda": 0.12},
                                  "temporalDecay": {"enabled": True, "halfLifeDays": 13.0}}},
             "cache": {"enabled": False, "maxEntries": 99}, "sync": {"watch": False, "watchDebounceMs": 250,
                                                                    "intervalMinutes": 2.5, "pollSeconds": 1.5},
             "tui": {"theme": "phosphor", "keys": {"quit": "ctrl+x"}}}
    config = validate(given)
    assert config.to_tree() == given
    assert (config.store.vector.memory_budget_mb, config.query.hybrid.mmr.lambda_) == (77, 0.12)
    assert (config.query.hybrid.vector_weight, config.query.hybrid.text_weight) == (0.66, 0.77)
    assert config.remote.api_key == "k" and "k" not in repr(config.remote)  # a secret stays out of a repr
    settings = index_settings(config, Path("/w"))
    assert (settings.db_path, settings.sessions_dir, settings.sources, settings.extra_paths) == (
        Path("/db"), Path("/s"), ("memory",), ("/x",))
    assert (settings.chunk_tokens, settings.chunk_overlap, settings.max_file_bytes, settings.vector_memory_budget_mb,
            settings.cache_max_entries, settings.watch_debounce_ms, settings.poll_seconds) == (300, 30, 1234, 77, 99, 250, 1.5)
    assert (settings.follow_symlinks, settings.vector_exact, settings.cache_enabled, settings.vector_backend,
            settings.cjk_segmentation, settings.stemming, settings.line_vectors) == (True, True, False, "numpy", "none", "none",
                                                                     True)


def test_an_override_is_a_replace_and_leaves_the_loaded_value_alone():
    config = validate({})
    tuned = replace(config, query=replace(config.query, max_results=3))
    assert search_params(tuned).max_results == 3
    assert search_params(config).max_results == DEFAULT_SEARCH_PARAMS.max_results


@pytest.mark.parametrize(("given", "error"), [
    ({"query": {"hybrid": {"mmr": {"lambda": 2}}}},
     "memtui.toml: 'query.hybrid.mmr.lambda': MMR lambda must be a number from 0 to 1, got 2.0"),
    ({"remote": {"timeoutSeconds": 0}}, "memtui.toml: 'remote.timeoutSeconds' must be a number greater than 0, got 0.0"),
    ({"sync": {"pollSeconds": 1e9}}, "memtui.toml: 'sync.pollSeconds' must be at most 86400, got 1000000000.0"),
    ({"tui": {"keys": {"quit": 1}}}, "memtui.toml: 'tui.keys' must be a table of strings"),
    ({"store": {"vector": {"backend": "faiss"}}},
     "memtui.toml: 'store.vector.backend' must be one of auto, numpy, sqlite-vec, got 'faiss'"),
    ({"chunking": {"tokens": 100, "overlap": 100}},
     "memtui.toml: 'chunking.overlap': chunking overlap must be a whole number from 0 to tokens - 1 (99), got 100"),
    ({"query": {"hybrid": {"vectorWeight": 0, "textWeight": 0}}},
     "memtui.toml: 'query.hybrid.vectorWeight': vector weight and text weight cannot both be 0"),
    ({"sources": ["memory", 3]}, "memtui.toml: 'sources' must be a list, got ['memory', 3]"),
    ({"query": {"maxResults": True}}, "memtui.toml: 'query.maxResults' must be a whole number, got True"),
])
def test_a_bad_value_is_the_same_one_line_error(given, error):
    """The messages the dict config gave, word for word."""
    with pytest.raises(ConfigError) as caught:
        validate(given, "memtui.toml")
    assert str(caught.value) == error


def test_a_bad_file_value_names_the_file(tmp_path):
    path = write(tmp_path / "memtui.toml", "[query]\nminScore = 2\n")
    with pytest.raises(ConfigError, match=rf"^{tmp_path}/memtui.toml: 'query.minScore': minScore must be a number from 0 to 1"):
        load_config(path)


# -- the session --------------------------------------------------------------------------------------------

def _closed(index) -> bool:
    try:
        index.store.conn.execute("select 1")
    except Exception as exc:  # sqlite3's or sqlean's ProgrammingError, whichever binding runs
        return "closed database" in str(exc)
    return False


def _status_args(ws: Path, db: Path) -> argparse.Namespace:
    from openclaw_memtui.cli.parser import build_parser

    return build_parser("status").parse_args(["status", "--workspace", str(ws), "--provider", "none", "--db", str(db)])


def test_a_session_closes_its_index_after_the_with_block_and_leaves_the_arguments_alone(workspace, tmp_path):
    args = _status_args(workspace, tmp_path / "i.sqlite")
    before = dict(vars(args))
    with open_session(SessionOptions.from_args(args), validate({})) as session:
        assert isinstance(session, Session) and isinstance(session.cfg, AppConfig)
        session.index.sync()
        assert not _closed(session.index)
    assert _closed(session.index)
    assert vars(args) == before
    assert session.origin == "argument" and session.options.workspace == str(workspace)


def test_a_session_is_closed_when_the_block_raises(workspace, tmp_path):
    args = _status_args(workspace, tmp_path / "i.sqlite")
    with pytest.raises(RuntimeError, match="the command's own error"), \
            open_session(SessionOptions.from_args(args), validate({})) as session:
        raise RuntimeError("the command's own error")
    assert _closed(session.index)


def _openclaw_default_agent(ws: Path) -> None:
    import os

    state = Path(os.environ["OPENCLAW_STATE_DIR"])
    state.mkdir(parents=True, exist_ok=True)
    (state / "openclaw.json").write_text(json.dumps({
        "meta": {"lastTouchedVersion": "2026.9.6"},
        "agents": {"entries": {"main": {"default": True, "workspace": str(ws),
                                        "memory": {"search": {"query": {"maxResults": 4}}}}}}}), encoding="utf-8")


def test_opening_openclaws_default_agent_records_it_in_the_session_not_in_the_arguments(workspace, tmp_path):
    """With no workspace named, the installed OpenClaw's default agent is opened: the old code wrote it
    (and its workspace) into the caller's namespace, which `memtui mcp` then re-read on a config change."""
    from openclaw_memtui.cli.parser import build_parser

    _openclaw_default_agent(workspace)
    args = build_parser("status").parse_args(["status", "--provider", "none", "--db", str(tmp_path / "i.sqlite")])
    before = dict(vars(args))
    config = validate({})
    with open_session(SessionOptions.from_args(args), config, read_only=True) as session:
        assert session.origin == "agent main" and session.agent is not None
        assert session.options.agent == "main"  # what a reload of the config applies again (core/tools.py)
        assert session.cfg.query.max_results == 4 and session.cfg.workspace == str(workspace)
    assert vars(args) == before and args.agent is None and args.workspace is None
    assert config.query.max_results == DEFAULT_SEARCH_PARAMS.max_results  # the caller's config is not the agent's
    assert apply_agent(session.options.agent, config)[0] == session.cfg
