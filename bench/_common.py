"""Shared helpers for the benchmarks: output folder, JSON writing, table printing."""

from __future__ import annotations

import json
import platform
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


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
