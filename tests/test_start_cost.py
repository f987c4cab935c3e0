"""A keyword-only search is the CLI's fast path: it must not pay for numpy or the MCP SDK (~1 s of
imports; only `memtui mcp` loads it). It does load the redactor's ~125 regexes: every answer, the
CLI's too, passes the answer gate (core/gate.py), which masks a note's secrets before a snippet is cut.
bench/search.py measures the time; this guards what is loaded."""

from __future__ import annotations

import json
import subprocess
import sys

from .helpers import env_for_subprocess

PROBE = """
import sys
from openclaw_memtui.cli.main import main
code = main(sys.argv[2:] + ["--db", sys.argv[1]])
loaded = {name: name in sys.modules for name in ("numpy", "openclaw_memtui.engine.redact", "textual", "mcp")}
print("\\n" + __import__("json").dumps({"code": code, "loaded": loaded}))
"""


KEYWORD_SEARCH = ["search", "database migration", "--demo", "--provider", "none", "--json"]


def probe(db, argv: list[str]) -> dict:
    out = subprocess.run([sys.executable, "-c", PROBE, str(db), *argv], capture_output=True, text=True,
                         env=env_for_subprocess(), timeout=120)
    report: dict = json.loads(out.stdout.strip().splitlines()[-1])
    return report


def test_status_with_the_local_model_loads_neither_numpy_nor_the_model(tmp_path):
    # `status` names the provider and model; it must not pay ~90 ms of numpy imports (README "Scale": status --json)
    from openclaw_memtui.cli.main import main

    assert main(["index", "--demo", "--provider", "none", "--db", str(tmp_path / "i.sqlite")]) == 0
    report = probe(tmp_path / "i.sqlite", ["status", "--demo", "--provider", "local", "--json"])
    assert report["code"] == 0 and report["loaded"]["numpy"] is False


def test_keyword_only_search_loads_no_numpy_textual_or_mcp(tmp_path):
    from openclaw_memtui.cli.main import main

    # the index exists (a first search would build it, which reads transcripts and so redacts)
    assert main(["index", "--demo", "--provider", "none", "--db", str(tmp_path / "i.sqlite")]) == 0
    report = probe(tmp_path / "i.sqlite", KEYWORD_SEARCH)
    assert report["code"] == 0
    # the redactor masks the answer (the gate), as every front end's: it is loaded
    assert report["loaded"] == {"numpy": False, "openclaw_memtui.engine.redact": True, "textual": False, "mcp": False}


def test_keyword_only_first_index_loads_no_numpy(tmp_path):
    # `memtui index --provider none` paid ~0.1 s of numpy imports after its sync, only to look for
    # a vector matrix file that a keyword-only index never has (bench/first_index.py measures the time)
    report = probe(tmp_path / "index.sqlite", ["index", "--demo", "--provider", "none", "--json"])
    assert report["code"] == 0 and report["loaded"]["numpy"] is False
