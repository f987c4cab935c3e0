"""Shared helpers for the benchmarks: output folder, JSON writing, table printing, memory figures."""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"

# Benchmarks time memtui as installed, and a pip install compiles the package's .pyc files: write them
# here too where the environment says not to (PYTHONDONTWRITEBYTECODE), so a bench script's own
# imports of the checkout compile once, not at every run (~25 ms of a process start).
sys.dont_write_bytecode = False


def as_installed_env() -> dict[str, str]:
    """The environment for timing a memtui process as a user runs it: a pip install compiles the
    package's .pyc files, so bytecode is written (and then read) even where this environment turns
    it off with PYTHONDONTWRITEBYTECODE, which would make every start compile ~25 ms of source."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def write_json(name: str, data: dict) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    data = {"machine": {"python": platform.python_version(), "cpu": platform.processor() or platform.machine()},
            "when": time.strftime("%Y-%m-%dT%H:%M:%S"), **data}
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    return path


def table(rows: list[list], header: list[str]) -> str:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=False)]

    def fmt(r: list) -> str:
        return "| " + " | ".join(str(x).ljust(w) for x, w in zip(r, widths, strict=False)) + " |"

    return "\n".join([fmt(header), "|" + "|".join("-" * (w + 2) for w in widths) + "|"] + [fmt(r) for r in rows])


def memory_mb() -> dict[str, float]:
    """This process's VmRSS, its anonymous and file-backed parts (RssAnon, RssFile: a read-only file
    mapping's pages are page cache the kernel may reclaim, but they count in the RSS a user sees) and
    its peak VmHWM, MB, from /proc/self/status (Linux)."""
    fields = {}
    with open("/proc/self/status") as fh:
        for line in fh:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "RssAnon", "RssFile", "VmHWM"):
                fields[key] = int(value.split()[0]) / 1024
    return fields


# LoCoMo's question categories, in the column order of every ablation table
CATEGORIES = ("multi-hop", "temporal", "open-domain", "single-hop")


def category_cells(summary: dict[str, dict[str, float]]) -> list[str]:
    """An ablation table's cells: nDCG@10 (recall@5) for all questions, then each category."""
    out = [f"{summary['all']['ndcg@10']:.3f} ({summary['all']['recall@5']:.3f})"]
    for cat in CATEGORIES:
        group = next((g for g in summary if cat in g), None)  # --convs may leave a category without questions
        out.append(f"{summary[group]['ndcg@10']:.3f} ({summary[group]['recall@5']:.3f})" if group else "—")
    return out
