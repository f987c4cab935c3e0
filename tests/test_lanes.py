"""tests/lanes.py: a test's lane follows what its helpers do, however the test reaches them."""

from __future__ import annotations

import pytest

from .lanes import _E2E, _reached_source


def _starts_a_server_through_a_helper_imported_in_its_body():
    from .test_mcp import server  # the MCP server helper: `python -m openclaw_memtui mcp` over stdio

    return server


def _only_writes_files():
    from .helpers import write

    return write


@pytest.mark.unit  # named: the helper above would put this test in e2e, though it starts nothing
def test_a_helper_imported_inside_a_test_counts_for_its_lane():
    """Three MCP tests ran in the fast lane, each starting a server process: they imported `server` in
    their body, where the lane rules did not look."""
    assert _E2E.search(_reached_source(_starts_a_server_through_a_helper_imported_in_its_body))
    assert not _E2E.search(_reached_source(_only_writes_files))
