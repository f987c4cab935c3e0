"""A keyword-only search is the CLI's fast path: it must not pay for numpy, the redactor's ~125
regexes or the MCP SDK (~1 s of imports; only `memtui mcp` loads it). bench/search.py measures the
time; this guards what is loaded."""

from __future__ import annotations

import json
import subprocess
import sys

from .helpers import env_for_subprocess

PROBE = """
import sys
from openclaw_memtui.cli import main
code = main(["search", "database migration", "--demo", "--provider", "none", "--db", sys.argv[1], "--json"])
loaded = {name: name in sys.modules for name in ("numpy", "openclaw_memtui.engine.redact", "textual", "mcp")}
print("\\n" + __import__("json").dumps({"code": code, "loaded": loaded}))
"""


def test_keyword_only_search_loads_no_numpy_redactor_textual_or_mcp(tmp_path):
    from openclaw_memtui.cli import main

    # the index exists (a first search would build it, which reads transcripts and so redacts)
    assert main(["index", "--demo", "--provider", "none", "--db", str(tmp_path / "i.sqlite")]) == 0
    out = subprocess.run([sys.executable, "-c", PROBE, str(tmp_path / "i.sqlite")], capture_output=True, text=True,
                         env=env_for_subprocess(), timeout=120)
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report["code"] == 0
    assert report["loaded"] == {"numpy": False, "openclaw_memtui.engine.redact": False, "textual": False, "mcp": False}
