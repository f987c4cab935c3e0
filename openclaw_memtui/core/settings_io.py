"""Write memtui's own config: the tuning panel's Save and the theme, through interop/safe_rewrite.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..engine.search.rank import SearchParams
from ..interop.safe_rewrite import RewriteError, rewrite_file

__all__ = ["RewriteError", "rewrite_file", "save_theme_to_config", "save_to_config"]


def _table(container: Any, key: str) -> Any:
    """The sub-table `key` of a tomlkit container, created (as a [table]) when absent."""
    import tomlkit

    existing = container.get(key)
    if not isinstance(existing, dict):
        container[key] = tomlkit.table()
    return container[key]


def _set_all(container: Any, key: str, values: dict[str, Any]) -> None:
    """Update `key`'s keys in place (an inline table stays inline, its comments stay); new → inline."""
    import tomlkit

    existing = container.get(key)
    if isinstance(existing, dict):
        for k, v in values.items():
            existing[k] = v
    else:
        table = tomlkit.inline_table()
        table.update(values)
        container[key] = table


def save_to_config(params: SearchParams, path: Path) -> Path | None:
    """Write the query settings into our TOML config, keeping every other key and every comment.

    tomlkit edits the parsed document in place, so the user's comments, key order and formatting
    survive a Save; only the values memtui owns change. The original is backed up.
    """
    import tomlkit

    doc = tomlkit.parse(path.read_text(encoding="utf-8")) if path.exists() else tomlkit.document()
    query = _table(doc, "query")
    query["maxResults"] = int(params.max_results)
    query["minScore"] = float(params.min_score)
    query["overlapPenalty"] = float(params.overlap_penalty)
    _set_all(query, "time", {"mode": params.time_mode, "boost": float(params.time_boost), "floor": float(params.time_floor)})
    _table(query, "keyword")["lineWeight"] = float(params.line_weight)
    hybrid = _table(query, "hybrid")
    hybrid["vectorWeight"] = float(params.vector_weight)
    hybrid["textWeight"] = float(params.text_weight)
    hybrid["fusion"] = params.fusion
    _set_all(hybrid, "mmr", {"enabled": params.mmr, "lambda": float(params.mmr_lambda)})
    _set_all(hybrid, "temporalDecay", {"enabled": params.decay, "halfLifeDays": float(params.half_life_days)})
    return rewrite_file(path, _ending_in_newline(tomlkit.dumps(doc)))


def _ending_in_newline(text: str) -> str:
    """tomlkit ends a document on its last value without a newline when the file had none (or was new)."""
    return text if text.endswith("\n") or not text else text + "\n"


def save_theme_to_config(theme: str, path: Path) -> Path | None:
    """Write `tui.theme` into our TOML config (comments and other keys kept, the original backed up)."""
    import tomlkit

    doc = tomlkit.parse(path.read_text(encoding="utf-8")) if path.exists() else tomlkit.document()
    _table(doc, "tui")["theme"] = theme
    return rewrite_file(path, _ending_in_newline(tomlkit.dumps(doc)))
