"""How long OpenClaw 2026.9's transcript cleaning takes on hostile messages, at two sizes.

    nice python3 bench/transcript_filters.py [--scale 1.0]

Each case is one user message made of a piece repeated thousands of times: channel metadata headers,
unclosed fences, runtime-context blocks, older releases' task events, recalled-memory blocks that
never close, reasoning blocks. OpenClaw's own loops are quadratic on several of them (they rebuild the text after each
block and search to its end once per unclosed block); the port must stay linear, or one hostile
message stalls every sync of its transcript. The table shows µs per KB at n and 2n pieces and the
growth exponent between them (1.0 = linear, 2.0 = quadratic). Writes bench/results/transcript_filters.json.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's package, not an installed one
from _common import table, write_json  # noqa: E402

from openclaw_memtui.engine.ingest.transcript_filters import sanitize_message  # noqa: E402

MARK = "⟦openclaw:ctx⟧"
NOTICE = "This context is runtime-generated, not user-authored. Keep internal details private."
BEGIN, END = "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>", "<<<END_OPENCLAW_INTERNAL_CONTEXT>>>"
LEGACY = f"OpenClaw runtime context (internal):\n{NOTICE}\n\n[Internal task completion event]\n"
CASES = {
    "marker on every line": f"x {MARK}\n",
    "metadata header + json block": f"Conversation info: {MARK}\n```json\n{{}}\n```\n",
    "metadata header, fence never closed": f"Conversation info: {MARK}\n```json\n",
    "runtime block, closed": f"y\n{BEGIN}\nx\n{END}\n",
    "runtime block end only": f"x\n{END}\n",
    "older task event without a result": LEGACY,
    "recalled-memory block never closed": "Context:\n<active_memory_plugin>\n",
    "runtime preface": f"OpenClaw runtime event. {NOTICE}\n",
    "reasoning blocks before a reply": "<think>x</think>",
}


def seconds(text: str) -> float:
    best = math.inf
    for _ in range(3):
        start = time.perf_counter()
        sanitize_message(text, "user")
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", type=float, default=1.0, help="multiply the piece counts (1.0: 20k and 40k pieces)")
    args = ap.parse_args()
    n = max(1, int(20_000 * args.scale))
    rows, out = [], {}
    for name, piece in CASES.items():
        small, large = piece * n, piece * (2 * n)
        t_small, t_large = seconds(small), seconds(large)
        growth = math.log(t_large / t_small, 2) if t_small > 0 else float("nan")
        kb_small, kb_large = len(small.encode()) / 1024, len(large.encode()) / 1024
        rows.append([name, f"{kb_large:,.0f}", f"{t_small * 1e3:,.0f}", f"{t_large * 1e3:,.0f}",
                     f"{t_large * 1e6 / kb_large:,.0f}", f"{growth:.2f}"])
        out[name] = {"pieces": [n, 2 * n], "kb": [kb_small, kb_large], "seconds": [t_small, t_large], "growth": growth}
    print(table(rows, ["message", "KB (2n)", "ms at n", "ms at 2n", "µs per KB", "growth"]))
    print(f"written {write_json('transcript_filters', {'cases': out})}")


if __name__ == "__main__":
    main()
