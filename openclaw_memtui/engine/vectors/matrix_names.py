"""Where the vector matrix file of an index lives: names only, so asking costs no numpy import."""

from __future__ import annotations

import glob
from pathlib import Path

SUFFIX = ".matrix"


def matrix_path(db_path: Path) -> Path:
    return Path(f"{db_path}{SUFFIX}")


def any_matrix_file(db_path: Path) -> bool:
    """Is there a matrix file, or a writer's temp file of one, beside the index? (a directory listing)"""
    path = matrix_path(db_path)
    return any(path.parent.glob(glob.escape(path.name) + "*"))
