"""BLAS threads from the start: a memtui process tells OpenBLAS to start on one thread, before numpy loads it.

memtui embeds on one BLAS thread (a second never made a query faster, and under load it made a batch slower:
docs/benchmarks.md "Nothing waits for the model"). Left to itself, OpenBLAS starts a thread per core when
numpy is imported, and then threadpoolctl has to find the library and park them: together about 30 ms of
CPU of a `memtui search` that needs a query vector, a fifth of the whole process. Told by its environment
variable, OpenBLAS starts on one thread and there is nothing to limit; a caller that asks a batch for more
threads still gets them (threadpoolctl raises the count for that call).

The variable is set only when the user has not set it, and only before numpy is imported (after, OpenBLAS
has read it already). Processes memtui starts inherit it, as they would a thread limit.
"""

from __future__ import annotations

import os
import sys

ENV = "OPENBLAS_NUM_THREADS"
_one_from_start = False


def one_thread_at_load() -> None:
    """Ask OpenBLAS for one thread when numpy loads it (a memtui process calls this at its start)."""
    global _one_from_start
    if "numpy" in sys.modules:  # OpenBLAS read its environment when numpy loaded it: too late
        return
    os.environ.setdefault(ENV, "1")
    _one_from_start = os.environ[ENV].strip() == "1"


def started_on_one_thread() -> bool:
    """True when numpy's BLAS is OpenBLAS and was loaded on one thread (one_thread_at_load was in time and
    nobody asked for more): a query then needs no thread limit, and threadpoolctl need not be loaded."""
    if not _one_from_start:
        return False
    import numpy as np

    try:
        blas = np.__config__.CONFIG["Build Dependencies"]["blas"]["name"]
    except (AttributeError, KeyError, TypeError):
        return False
    return isinstance(blas, str) and "openblas" in blas.lower()
