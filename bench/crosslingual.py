"""Chinese and cross-lingual retrieval: queries in one language for notes in the other (EN→ZH, ZH→EN) and
same-language controls (ZH→ZH, EN→EN), ranked as the user sees them and as the eval's depth-10 ranking does.

    python3 bench/crosslingual.py [--models use] [--seeds ../shared/seeds] [--db-dir /tmp/memtui-crosslingual]

The workspace is the demo's (openclaw_memtui/demo/workspace: English notes with Chinese lines and a
Chinese transcript), the two Chinese articles of the seeds folder as memory/seeds/*.md, and a journal
written for this check: bench/crosslingual_facts.jsonl holds 96 facts (12 everyday and work topics, half
written in English, half in Chinese), each with questions in the other language and one in its own. The
facts become 24 dated daily notes under memory/journal/, four facts of four topics per note and one
language per note, so the right chunk must be told from notes on the same topics in the query's own
language. Queries: bench/crosslingual.jsonl (46 about the demo and the seeds) plus three per fact
(two across languages, one in the note's language) — 334 in all. Each names its relevant passages by file
and a phrase of the line (`anchor`); targets with the same `evidence` are alternatives, as in the LoCoMo eval.

Prints recall@1/5, MRR@10 and nDCG@10 per model, direction and variant:
    keyword only / vector only / hybrid   ranked to depth 10, no minScore (what the eval's ranking sees)
    as shown                               the shipped settings as a user gets them: minScore 0.35, maxResults 6
and writes bench/results/crosslingual.json. Indexes live in --db-dir and are reused (the embedding cache:
a re-run embeds only the queries).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _models  # noqa: E402
from _common import table, write_json  # noqa: E402

from openclaw_memtui.core.config import index_settings, validate  # noqa: E402
from openclaw_memtui.engine.index import MemoryIndex  # noqa: E402
from openclaw_memtui.engine.search.rank import SearchParams  # noqa: E402
from openclaw_memtui.engine.tuning.evaluation import score_pool, summarize  # noqa: E402

HERE = Path(__file__).resolve().parent
DEMO = HERE.parent / "openclaw_memtui" / "demo" / "workspace"
FACTS = HERE / "crosslingual_facts.jsonl"
NOW_MS = 1_796_040_000_000.0  # 2026-11-30T12:00:00Z: the demo's clock, so its notes are not in the future
SHIPPED = SearchParams()  # as the app, the CLI and MCP rank by default
DEPTH10 = replace(SHIPPED, min_score=0.0, max_results=10)
VARIANTS = {
    "keyword only": (False, replace(DEPTH10, vector_weight=0.0, text_weight=1.0)),
    "vector only": (True, replace(DEPTH10, vector_weight=1.0, text_weight=0.0)),
    "hybrid, depth 10, no minScore": (True, DEPTH10),
    "as shown (minScore 0.35, maxResults 6)": (True, SHIPPED),
    "as shown, OpenClaw fusion (the default before coverage fusion)": (True, replace(SHIPPED, fusion="openclaw")),
    "depth 10, OpenClaw fusion": (True, replace(DEPTH10, fusion="openclaw")),
}
SHOWN = ("recall@1", "recall@5", "mrr@10", "ndcg@10")
JOURNAL_NOTES = 12  # per language; four facts of four topics each


def load_facts(path: Path = FACTS) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def journal(facts: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Daily note path → its facts: note k of a language holds that language's facts k, k+12, k+24, k+36
    (the facts are listed topic by topic, four per topic, so one note mixes four topics)."""
    notes: dict[str, list[dict[str, Any]]] = {}
    for lang, first_day in (("en", 1), ("zh", 13)):
        mine = [f for f in facts if f["lang"] == lang]
        for k in range(JOURNAL_NOTES):
            path = f"memory/journal/2026-09-{first_day + k:02d}.md"
            notes[path] = [mine[j] for j in range(k, len(mine), JOURNAL_NOTES)]
    return notes


def build_workspace(dest: Path, seeds: Path, facts: list[dict[str, Any]]) -> Path:
    ws = dest / "workspace"
    if ws.exists():
        shutil.rmtree(ws)
    shutil.copytree(DEMO, ws)
    (ws / "memory" / "seeds").mkdir(parents=True)
    for seed in sorted(seeds.glob("*.zh.txt")):
        shutil.copyfile(seed, ws / "memory" / "seeds" / f"{seed.stem}.md")
    (ws / "memory" / "journal").mkdir(parents=True)
    for path, items in journal(facts).items():
        title = path.rsplit("/", 1)[1].removesuffix(".md")
        (ws / path).write_text(f"# {title}\n\n" + "".join(f"- {f['note']}\n" for f in items), encoding="utf-8")
    return ws


def fact_queries(facts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    where = {f["fid"]: path for path, items in journal(facts).items() for f in items}
    out = []
    for f in facts:
        target = {"path": where[f["fid"]], "anchor": f["note"][:24], "evidence": "e0"}
        for lang, questions in f["questions"].items():
            for n, question in enumerate(questions, 1):
                out.append({"qid": f"{f['fid']}-{lang}{n}", "kind": f"{lang}-{f['lang']}", "question": question,
                            "targets": [target]})
    return out


def resolve(queries: list[dict[str, Any]], ws: Path) -> list[dict[str, Any]]:
    """Each query with its anchors turned into the 1-based line of the file that holds them."""
    out = []
    for q in queries:
        targets = []
        for t in q["targets"]:
            lines = (ws / t["path"]).read_text(encoding="utf-8").splitlines()
            hit = next((i for i, text in enumerate(lines, 1) if t["anchor"] in text), None)
            if hit is None:
                raise SystemExit(f"{q['qid']}: '{t['anchor']}' is not in {t['path']}")
            targets.append({"path": t["path"], "line": hit, "evidence": t["evidence"]})
        out.append({**q, "category": q["kind"], "targets": targets})
    return out


def all_queries(queries_path: Path, ws: Path, facts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    written = [json.loads(line) for line in queries_path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return resolve(written + fact_queries(facts), ws)


def pools(name: str, ws: Path, db_dir: Path, queries: list[dict[str, Any]],
          line_vectors: bool = False) -> list[tuple[Any, Any]]:
    """(hybrid pool, keyword-only pool) per query, time words read against NOW_MS as a user's search does."""
    _models.install(name)
    cfg = validate({"chunking": {"lineVectors": line_vectors}})
    db = db_dir / f"{name}{'-lines' if line_vectors else ''}.sqlite"
    index = MemoryIndex(index_settings(cfg, ws, db), provider_name="local")
    try:
        index.sync()
        return [(index.retrieve(q["question"], now_ms=NOW_MS),
                 index.retrieve(q["question"], use_vectors=False, now_ms=NOW_MS)) for q in queries]
    finally:
        index.close()


def score(queries: list[dict[str, Any]], pooled: list[tuple[Any, Any]], params: SearchParams,
          vectors: bool = True) -> dict[str, dict[str, float]]:
    items = []
    for q, (hybrid, keyword) in zip(queries, pooled, strict=True):
        _, metrics = score_pool(hybrid if vectors else keyword, params, q["targets"])
        assert metrics is not None
        items.append((q, metrics))
    return with_directions(summarize(items), items)


def with_directions(summary: dict[str, dict[str, float]], items: list[Any]) -> dict[str, dict[str, float]]:
    """Adds 'across languages' (EN→ZH and ZH→EN together) and 'same language' rows."""
    for group, kinds in (("across languages", ("en-zh", "zh-en")), ("same language", ("zh-zh", "en-en"))):
        part = [(q, m) for q, m in items if q["kind"] in kinds]
        if part:
            summary[group] = summarize(part)["all"]
    return summary


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default="use")
    ap.add_argument("--seeds", type=Path, default=HERE.parent.parent.parent / "shared" / "seeds")
    ap.add_argument("--queries", type=Path, default=HERE / "crosslingual.jsonl")
    ap.add_argument("--db-dir", type=Path, default=Path("/tmp/memtui-crosslingual"))
    ap.add_argument("--name", default="crosslingual")
    ap.add_argument("--line-vectors", action=argparse.BooleanOptionalAction, default=True,
                    help="index with chunking.lineVectors, as memtui does by default (--no-line-vectors: chunk vectors only)")
    args = ap.parse_args()
    if not sorted(args.seeds.glob("*.zh.txt")):
        raise SystemExit(f"no *.zh.txt seeds in {args.seeds} (pass --seeds)")
    args.db_dir.mkdir(parents=True, exist_ok=True)
    facts = load_facts()
    ws = build_workspace(args.db_dir, args.seeds, facts)
    queries = all_queries(args.queries, ws, facts)
    results: dict[str, Any] = {}
    for name in args.models.split(","):
        pooled = pools(name, ws, args.db_dir, queries, args.line_vectors)
        results[name] = {variant: score(queries, pooled, params, vectors)
                         for variant, (vectors, params) in VARIANTS.items()}
        print(f"{name}: done", file=sys.stderr)
    rows = []
    for name, variants in results.items():
        for variant, summary in variants.items():
            for group, row in summary.items():
                rows.append([name, variant, group, int(row["n"])] + [f"{row[k]:.3f}" for k in SHOWN])
    print(table(rows, ["model", "variant", "queries", "n", *SHOWN]))
    path = write_json(args.name + ("_lines" if args.line_vectors else ""),
                      {"line_vectors": args.line_vectors, "queries": len(queries), "now": "2026-11-30T12:00:00Z",
                       "results": results})
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
