"""Line vectors (`chunking.lineVectors`, on by default up to LINE_VECTORS_MAX_CHUNKS chunks): each non-empty line
of a chunk embedded on its own, so a chunk is scored by the best of its own cosine and its lines'.

A daily note is a list of unrelated bullets; its one vector is the average of four topics and sits far from a
question about one of them, above all in another language, where no keyword can help (docs/ranking.md "Line
vectors"). Vectors are kept once per distinct line text (sha256) and model in `line_vectors`, so overlapping
chunks and repeated lines cost one vector each, as float16: a 2 KB float32 row left SQLite's 4 KB pages half
empty (one row a page), a 1 KB row fits three, and a cosine moves by under 0.001. They only re-score chunks the
legs retrieved; no chunk enters the pool by a line alone. Filled by the sync's last phase
(`sync/embed_phase.py`), read here by retrieval.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ..textutil import sha256_hex

if TYPE_CHECKING:
    import numpy as np

# Above this many chunks an index goes without line vectors, whatever the setting: ~7 lines a chunk at ~1 KB a
# vector (512 float16 values) is ~350 MB here, gigabytes at a million chunks, and a first index embeds twice the text
LINE_VECTORS_MAX_CHUNKS = 50_000
LINE_VECTORS_KEY = "memtui_line_vectors"  # meta: the model whose line vectors are complete for every chunk
LINES_PENDING_KEY = "memtui_lines_pending"  # meta: chunk vectors were written whose lines may have none yet
_IN_BATCH = 500  # hashes per `IN (...)`: well under SQLite's variable limit


def vector_lines(text: str) -> list[str]:
    """The lines of a chunk that get a vector: each non-empty line, stripped; none for a one-line chunk,
    whose chunk vector already is its line's."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines if len(lines) > 1 else []


def line_hash(line: str) -> str:
    return sha256_hex(line)


def has_line_vectors(conn: Any, model: str) -> bool:
    """The index holds line vectors of `model` (the table exists in every index this memtui opened)."""
    try:
        return conn.execute("SELECT 1 FROM line_vectors WHERE model = ? LIMIT 1", (model,)).fetchone() is not None
    except Exception:  # an index opened read-only that an older memtui wrote has no such table
        return False


def stored_hashes(conn: Any, model: str, hashes: Sequence[str]) -> set[str]:
    found: set[str] = set()
    for i in range(0, len(hashes), _IN_BATCH):
        part = list(hashes[i:i + _IN_BATCH])
        marks = ",".join("?" * len(part))
        found |= {row[0] for row in conn.execute(
            f"SELECT hash FROM line_vectors WHERE model = ? AND hash IN ({marks})", (model, *part))}
    return found


def lookup(conn: Any, model: str, hashes: Sequence[str]) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    for i in range(0, len(hashes), _IN_BATCH):
        part = list(hashes[i:i + _IN_BATCH])
        marks = ",".join("?" * len(part))
        out.update((row[0], row[1]) for row in conn.execute(
            f"SELECT hash, embedding FROM line_vectors WHERE model = ? AND hash IN ({marks})", (model, *part)))
    return out


def put(conn: Any, model: str, rows: Iterable[tuple[str, np.ndarray]]) -> None:
    import numpy as np

    conn.executemany("INSERT OR REPLACE INTO line_vectors(model, hash, embedding) VALUES (?, ?, ?)",
                     [(model, h, np.asarray(v, dtype=np.float16).tobytes()) for h, v in rows])


def prune(conn: Any, model: str, keep: set[str]) -> int:
    """Delete the line vectors of other models and those of `model` no chunk's line has any more."""
    gone = conn.execute("DELETE FROM line_vectors WHERE model != ?", (model,)).rowcount or 0
    stale = [row[0] for row in conn.execute("SELECT hash FROM line_vectors WHERE model = ?", (model,))
             if row[0] not in keep]
    for i in range(0, len(stale), _IN_BATCH):
        part = stale[i:i + _IN_BATCH]
        conn.execute(f"DELETE FROM line_vectors WHERE model = ? AND hash IN ({','.join('?' * len(part))})",
                     (model, *part))
    return int(gone) + len(stale)


def best_line_cosines(conn: Any, model: str, texts: Sequence[str], qvec: np.ndarray) -> list[float | None]:
    """Per chunk text, the best cosine of one of its lines with the query (None: no line vector for it)."""
    import numpy as np

    per_text = [[line_hash(line) for line in vector_lines(text)] for text in texts]
    blobs = lookup(conn, model, list(dict.fromkeys(h for hashes in per_text for h in hashes)))
    if not blobs:
        return [None] * len(texts)
    width = 2 * len(qvec)  # float16
    keys = [h for h, blob in blobs.items() if len(blob) == width]  # a vector of another size is no evidence
    if not keys:
        return [None] * len(texts)
    matrix = np.frombuffer(b"".join(blobs[h] for h in keys), dtype=np.float16).reshape(len(keys), len(qvec))
    cos = dict(zip(keys, (matrix.astype(np.float32) @ qvec.astype(np.float32)).tolist(), strict=True))
    return [max((cos[h] for h in hashes if h in cos), default=None) for hashes in per_text]
