"""Scrubbed logging on stderr for the servers (`memtui mcp`, `memtui serve`)."""

from __future__ import annotations

import logging
import sys

log = logging.getLogger("memtui.mcp")


class ScrubbedFormatter(logging.Formatter):
    """Every log line, and the traceback `log.exception` adds, with keys scrubbed and control
    characters shown as escapes: a tool's exception may quote a request with its key or a file name
    with terminal sequences, and the SDK logs its own exceptions through the same handler."""

    def format(self, record: logging.LogRecord) -> str:
        from ..engine.scrub import scrub
        from ..render import safe

        return safe(scrub(super().format(record)))


def log_to_stderr() -> None:
    """Warnings from anyone (the SDK included) and memtui's own info lines, scrubbed, on stderr."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(ScrubbedFormatter("memtui mcp: %(levelname)s %(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[handler])
    log.setLevel(logging.INFO)
