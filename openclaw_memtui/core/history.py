"""The queries a person searched, kept between runs: a private (0600) file in memtui's data dir, newest last,
each query once, at most HISTORY_MAX of them.

A front end adds a query the user committed to (Enter, or leaving the box for the results) and walks back
through them; a file it cannot read is an empty history, and one it cannot write is said once, not raised.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..engine.store import write_private_atomic

HISTORY_MAX = 200
HISTORY_FILE = "query-history.jsonl"
MAX_QUERY_CHARS = 1000  # a paste of a whole note is not a query to keep


def history_path(data_dir: Path) -> Path:
    return data_dir / HISTORY_FILE


class QueryHistory:
    def __init__(self, path: Path, limit: int = HISTORY_MAX) -> None:
        self.path = path
        self.limit = limit
        self.entries: list[str] = self._read()
        self.error = ""  # why the last add could not be kept, "" when it was

    def _read(self) -> list[str]:
        try:
            lines = self.path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return []
        entries: list[str] = []
        for line in lines:
            try:
                query = json.loads(line)
            except ValueError:
                continue
            if isinstance(query, str) and query.strip():
                entries.append(query)
        return entries[-self.limit:]

    def add(self, query: str) -> bool:
        """Keep `query` as the newest (moved there if it was older); False when the file could not be written
        (`error` says why)."""
        from ..engine.scrub import mask_output

        query = mask_output(" ".join(query.split()))  # a key pasted into the box is never stored
        if not query or len(query) > MAX_QUERY_CHARS:
            return True
        if self.entries and self.entries[-1] == query:
            return True
        self.entries = [q for q in self.entries if q != query][-(self.limit - 1):] + [query]
        try:
            write_private_atomic(self.path, "".join(json.dumps(q, ensure_ascii=False) + "\n" for q in self.entries))
        except OSError as exc:
            self.error = f"query history not saved to {self.path}: {exc.strerror or exc}"
            return False
        self.error = ""
        return True
