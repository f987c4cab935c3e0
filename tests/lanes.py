"""Test lanes: every test gets exactly one of the markers `unit`, `app` or `e2e`, assigned here.

Lanes are assigned centrally, by what a test does, so test files never need moving or renaming and a new
test lands in the right lane without a decorator:

* `e2e`  - a whole path, seconds a test: starts another process (`subprocess`, `sys.executable`, an MCP server
  over stdio, OpenClaw/node), embeds with the real local model, runs `memtui tune`'s cross-validated search,
  or is in one of the modules of `MODULE_LANES` (hostile whole-command runs, OpenClaw's real files, matrix
  files of 50,000+ vectors);
* `app`  - drives the Textual app (`App.run_test`, Pilot, SVG snapshots), in process;
* `unit` - everything else: the engine, the CLI and MCP tools called in process on small real SQLite files.

What a test does is read from its source, the source of the helper functions of this test package that it
calls (followed transitively, whether it names them from its module or imports them in its own body) and the
source of the fixtures it requests. A new test module whose unit
tests take seconds each belongs in `MODULE_LANES` (`python3 -m pytest -m unit --durations=20` shows them).
`python3 -m pytest -m unit` is the fast lane (docs/development.md). A test can also name its lane itself
(`@pytest.mark.e2e`): an explicit lane marker wins.
"""

from __future__ import annotations

import importlib
import inspect
import re
import types
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest

LANES = ("unit", "app", "e2e")

# Words in a test's (or its helpers') source that put it in a lane; e2e is checked first.
_E2E = re.compile(r"\bsubprocess\b|sys\.executable|\bPopen\b|stdio_client|StdioServerParameters|"
                  r"\bos\.fork\b|multiprocessing|which\(\s*[\"'](?:openclaw|node)[\"']")
# The real local model (loading and embedding with it takes seconds) and tune's cross-validated search (`memtui tune`,
# `tuning.suggest`: thousands of rankings).
_SLOW = re.compile(r"provider(?:_name)?\s*=\s*[\"']local[\"']|[\"']--provider[\"'],\s*[\"']local[\"']|\b(?:USE|E5)_MODEL\b|"
                   r"\[\s*[\"']tune[\"']|\bsuggest\(")
_APP = re.compile(r"\brun_test\b|\bpilot\b|\bPilot\b|snap_compare")
# Modules whose in-process tests are whole paths over large or real inputs: lane e2e unless they drive the app.
MODULE_LANES = {
    "test_hostile_sync": "e2e",  # every case runs a whole memtui command on a hostile workspace
    "test_openclaw_2026": "e2e",  # states written by the real OpenClaw 2026.9.6, read end to end
    "test_matrix_file": "e2e",  # matrix files of large indexes, saved, damaged and mapped again
    "test_matrix_delta": "e2e",  # patching matrices of 50,000+ rows after syncs
    "test_local_model": "e2e",  # the real embedding model
    "test_local_use": "e2e",  # both real embedding models, indexing and searching with them
    "test_use_prepared": "e2e",  # the default model's prepared form, built from the wheel and rebuilt
}


@cache
def _source(func: Callable[..., object]) -> str:
    try:
        return inspect.getsource(func)
    except (OSError, TypeError):
        return ""


def _names(code: types.CodeType) -> set[str]:
    """Global names a function uses, including those of the functions, lambdas and classes defined in it."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names(const)
    return names


def _is_ours(obj: object) -> bool:
    return getattr(obj, "__module__", "").split(".")[0] == "tests"


# `from .test_mcp import call, server` inside a test's body: the helpers it names are reached as well
_LOCAL_IMPORT = re.compile(r"^[ \t]+from[ \t]+(\.[\w.]*|tests(?:\.\w+)+)[ \t]+import[ \t]+\(?([\w \t,]+)\)?", re.M)


def _imported_inside(func: Callable[..., object]) -> dict[str, object]:
    """The helpers of this test package a function imports in its own body (a test importing another
    module's helper where it uses it): they are not in its module's globals, but what they do counts."""
    found: dict[str, object] = {}
    package = getattr(func, "__module__", "").rpartition(".")[0] or "tests"
    for module_name, names in _LOCAL_IMPORT.findall(_source(func)):
        try:
            module = importlib.import_module(module_name, package)
        except ImportError:
            continue
        for piece in names.split(","):
            words = piece.split()
            if words:  # `name` or `name as alias`
                found[words[-1]] = getattr(module, words[0], None)
    return found


def _reached_source(func: Callable[..., object], seen: set[int] | None = None) -> str:
    """The source of `func` and of every function (or class) of the test package it reaches by name."""
    seen = set() if seen is None else seen
    func = inspect.unwrap(func)
    if id(func) in seen:
        return ""
    seen.add(id(func))
    parts = [_source(func)]
    code = getattr(func, "__code__", None)
    if code is not None:
        namespace = {**getattr(func, "__globals__", {}), **_imported_inside(func)}
        for name in _names(code):
            obj = namespace.get(name)
            if obj is None or not _is_ours(obj):
                continue
            if inspect.isfunction(obj):
                parts.append(_reached_source(obj, seen))
            elif inspect.isclass(obj):
                for member in vars(obj).values():
                    if inspect.isfunction(member):
                        parts.append(_reached_source(member, seen))
    return "\n".join(parts)


def lane_of(item: pytest.Item) -> str:
    """The lane of one collected test."""
    for lane in LANES:
        if item.get_closest_marker(lane) is not None:
            return lane
    sources = []
    function = getattr(item, "function", None)
    if function is not None:
        sources.append(_reached_source(function))
    fixture_info = getattr(item, "_fixtureinfo", None)
    for name in getattr(item, "fixturenames", ()):
        if name == "snap_compare":
            return "app"
        for fixturedef in (fixture_info.name2fixturedefs.get(name, ()) if fixture_info else ()):
            if _is_ours(fixturedef.func) or getattr(fixturedef, "baseid", "").startswith("tests"):
                sources.append(_reached_source(fixturedef.func))
    text = "\n".join(sources)
    if _E2E.search(text):
        return "e2e"
    if _APP.search(text):
        return "app"
    if _SLOW.search(text):
        return "e2e"
    module = getattr(item, "module", None)
    return MODULE_LANES.get(module.__name__.rsplit(".", 1)[-1], "unit") if module is not None else "unit"


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """The fast lane (`-m unit`) does not import the modules of `MODULE_LANES`, none of whose tests is
    in it: importing them (and rewriting their asserts) cost every worker collection time for nothing.
    A module that names a test's lane `unit` itself is collected as any other."""
    if config.getoption("markexpr", "") != "unit" or collection_path.suffix != ".py":
        return None
    if MODULE_LANES.get(collection_path.stem, "unit") == "unit" or "mark.unit" in collection_path.read_text("utf-8"):
        return None
    return True


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        lane = lane_of(item)
        if item.get_closest_marker(lane) is None:
            item.add_marker(getattr(pytest.mark, lane))
