"""What `search`, `eval`, `tune`, `recalls` and `agents` share: the ranking parameters a command line
asks for, and whether the index is fresh enough to score."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..core.config import AppConfig, search_params
from ..errors import UserError

# ranking flags whose argparse dest is the SearchParams field they set
RANKING_FLAGS = ("vector_weight", "text_weight", "fusion", "line_weight", "overlap_penalty", "mmr", "mmr_lambda", "decay",
                 "half_life_days", "min_score", "max_results", "time_mode")


def params_from(args: argparse.Namespace, cfg: AppConfig):
    """The config's ranking parameters, with any ranking flag given on the command line on top. `eval`
    uses them as they are: it scores what `search` shows (`--min-score 0 --max-results 10` for every hit)."""
    from dataclasses import replace

    params = search_params(cfg)
    from ..engine.models import InvalidParams

    flags = {name: getattr(args, name) for name in RANKING_FLAGS if getattr(args, name, None) is not None}
    try:  # the rule the config and the TUI use too: `--mmr-lambda 2` or `nan` is an error, not a silent clamp
        return replace(params, **flags).validate()
    except InvalidParams as exc:
        flag = f"--{exc.field.replace('_', '-')}" if exc.field in flags else ""
        raise UserError(f"{flag}: {exc}" if flag else str(exc)) from None


STALE_WARNING = ("the index is out of date: files changed since its last sync are searched as they were, new ones "
                 "not at all (run `memtui index`)")


def sync_before_scoring(index: Any, waiting: dict[str, Any]) -> None:
    """`eval` and `tune` score the index as the files are now: synced first when it can be written; on a
    read-only mount (opened read-only, as search is) scored as it is, with a line saying so when stale."""
    from ..engine.dirty_check import STATUS_DIRTY_BUDGET_S

    if not index.read_only:
        if index.needs_sync():
            index.sync(**waiting)  # bounded, and said at once, when another process syncs
        return
    if index.is_empty():
        print(f"memtui: the index {index.settings.db_path} was never built and cannot be written here (a read-only "
              "folder or file system): nothing to score; build it where it can be written, or pass --db", file=sys.stderr)
    elif index.check_dirty(STATUS_DIRTY_BUDGET_S).dirty:
        print(f"memtui: {STALE_WARNING}", file=sys.stderr)
