"""`memtui judgements` (import, export, list) and `memtui tune`: the headless side of tuning against
judgements (`engine/tuning/judgements.py`, `engine/tuning/tuner.py`). `memtui eval` with no `--queries` reads the
stored judgements through `stored_queries`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.session import Session, SessionOptions, open_session
from ..errors import UserError

if TYPE_CHECKING:
    from ..core.config_types import AppConfig
    from ..engine.tuning.judgements import Loaded

NO_JUDGEMENTS = ("no judgements stored for this index: mark results in the app (+ relevant, - not relevant) "
                 "or load a queries file with `memtui judgements import FILE`")


def _warn(text: str) -> None:
    from ..render import safe

    print(f"memtui: {safe(text, one_line=True)}", file=sys.stderr)


def no_judgements(loaded: Loaded) -> UserError:
    """Nothing to score: none stored, or (said apart, it is not the same fix) none of the lines read."""
    if loaded.unreadable:
        return UserError(f"none of the {len(loaded.unreadable)} stored judgement line(s) could be read "
                         "(see the line above): fix or delete them, or import a queries file")
    return UserError(NO_JUDGEMENTS)


def load_judgements(session: Session) -> Loaded:
    loaded = session.judgements().load()
    if loaded.problem:
        _warn(loaded.problem)
    return loaded


def stored_queries(session: Session) -> list[dict[str, Any]]:
    """The stored judgements as `memtui eval` queries, stale targets left out (and said)."""
    from ..engine.tuning.judgement_targets import as_queries, check_targets, stale_count

    loaded = load_judgements(session)
    if not loaded.judgements:
        raise no_judgements(loaded)
    checked = check_targets(loaded.judgements, session.index.chunk_spans)
    stale = stale_count(checked)
    if stale:
        _warn(f"{stale} judged result(s) are stale (their note changed since it was judged) and left out; "
              "mark them again in the app")
    return as_queries(loaded.judgements, checked)


def cmd_judgements(args: argparse.Namespace, cfg: AppConfig) -> int:
    path = queries_file(args.file) if args.action == "import" else None  # a bad file is said before any index is opened
    # read-only: the index only says which judgements file; nothing is synced
    with open_session(SessionOptions.from_args(args), cfg, read_only=True) as session:
        if path is not None:
            return _import(args, session, path)
        if args.action == "export":
            return _export(args, session)
        return _list(args, session)


def queries_file(name: str) -> Path:
    """A queries file given on the command line, or one line saying why it cannot be read."""
    import os
    import stat

    from ..render import safe

    path = Path(name)
    shown = safe(str(path), one_line=True)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise UserError(f"queries file {shown} not found") from None
    except OSError as exc:
        raise UserError(f"cannot read queries file {shown}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(mode):
        raise UserError(f"{shown} is not a regular file (a folder, device or pipe): give a JSON lines file")
    return path


def _import(args: argparse.Namespace, session: Session, path: Path) -> int:
    from ..engine.tuning.evaluation import load_numbered_queries
    from ..engine.tuning.judgement_import import MAX_STORED, merge, vet_import
    from ..render import safe

    shown = safe(str(path), one_line=True)
    store = session.judgements()
    loaded = load_judgements(session)
    existing = [] if args.replace else loaded.judgements
    built = session.index.built
    try:
        vetted = vet_import(load_numbered_queries(path), str(path), existing,
                            session.index.chunk_spans if built else None)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    for note in vetted.notes[:5]:
        _warn(note)
    if len(vetted.notes) > 5:
        _warn(f"… and {len(vetted.notes) - 5} more skipped question(s) or refused target(s) like these")
    if not built:
        _warn("the index is not built, so target paths were not checked against it (memtui index first to check them)")
    if not vetted.accepted:  # an empty or wholly refused file: a script must not read "stored" in exit 0
        raise UserError(f"{shown}: no question stored (the reasons are said above, if any); nothing was changed")
    merged, questions, targets = merge(existing, vetted.accepted)
    if len(merged) > MAX_STORED:
        raise UserError(f"{shown} would make {len(merged)} judged questions for this index; the limit is {MAX_STORED} "
                        "(each is retrieved by every eval, tune and app launch): score a larger file with "
                        "memtui eval --queries FILE instead; nothing was changed")
    try:
        store.save(merged, loaded.unreadable)
    except OSError as exc:
        raise UserError(f"cannot write {store.path}: {exc.strerror or exc}; nothing was changed") from None
    skipped = (f"; skipped {vetted.skipped} question(s) and refused {vetted.refused} target(s) (said above)"
               if vetted.skipped or vetted.refused else "")
    print(f"Imported {questions} new question(s) and {targets} target(s) from {shown}{skipped}; "
          f"{len(merged)} judged question(s) in {safe(str(store.path), one_line=True)}")
    return 0


def _export(args: argparse.Namespace, session: Session) -> int:
    from ..engine.store import write_private_atomic
    from ..render import dumps_json, safe

    loaded = load_judgements(session)
    # dumps_json: a question or target quoting a bidi override or C1 control reaches the terminal as
    # its \u escape (the same JSON value), not as the raw character that reorders or hijacks the line
    text = "".join(dumps_json(j.to_json()) + "\n" for j in loaded.judgements)
    if args.out:
        out = Path(args.out)
        try:
            write_private_atomic(out, text)
        except OSError as exc:
            raise UserError(f"cannot write {safe(str(out), one_line=True)}: {exc.strerror or exc}") from None
        print(f"Exported {len(loaded.judgements)} judged question(s) to {safe(str(out), one_line=True)}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def _list(args: argparse.Namespace, session: Session) -> int:
    from ..engine.tuning.judgement_targets import check_targets
    from ..render import dumps_json, safe

    loaded = load_judgements(session)
    built = session.index.built
    checked = check_targets(loaded.judgements, session.index.chunk_spans) if built else {}
    # read-only: the index is not synced here, so stale counts are as of the last sync — said, not hidden
    out_of_date = not built or session.index.is_dirty()
    rows: list[dict[str, Any]] = []
    for j in loaded.judgements:
        states = [checked[(j.qid, t)].state if (j.qid, t) in checked else "unchecked" for t in j.targets]
        rows.append({"qid": j.qid, "question": j.question, "relevant": len(j.targets), "not_relevant": len(j.not_relevant),
                     "stale": states.count("stale"), "moved": states.count("moved")})
    store = session.judgements()
    if args.json:
        seed = store.source()
        print(dumps_json({"file": str(store.path), "seeded_from": None if seed in (None, store.path) else str(seed),
                          "index_out_of_date": out_of_date, "questions": rows}, indent=2))
        return 0
    print(f"{len(rows)} judged question(s) in {safe(str(store.path), one_line=True)}"
          + ("" if store.source() in (None, store.path) else " (not written yet: the demo's shipped judgements)"))
    if out_of_date and rows:
        print("index not built: stale counts unknown; run memtui index" if not built else
              "index out of date: stale counts are as of the last sync; run memtui index")
    for r in rows:
        flag = f"  {r['stale']} stale" if r["stale"] else ""
        print(f"  {safe(r['qid'], one_line=True):12} +{r['relevant']} -{r['not_relevant']}{flag}  "
              f"{safe(r['question'], one_line=True)[:80]}")
    return 0


class _Progress:
    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        if self.enabled:
            sys.stderr.write(f"\rsearching settings {done}/{total}")
            sys.stderr.flush()
            self.shown = True

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\r" + " " * 40 + "\r")


def cmd_tune(args: argparse.Namespace, cfg: AppConfig) -> int:
    from .wait import lock_wait

    waiting = lock_wait(args)
    with open_session(SessionOptions.from_args(args), cfg, read_only_if_unwritable=True) as session:
        return _tune(args, session, waiting)


def _tune(args: argparse.Namespace, session: Session, waiting: dict[str, Any]) -> int:
    from ..core.search import parse_now, search_request
    from ..engine.tuning.tuner import NeedMore, retrieve_judged, suggest
    from ..render import dumps_json, safe
    from .request import params_from, sync_before_scoring

    index, cfg = session.index, session.cfg
    loaded = load_judgements(session)
    if not loaded.judgements:
        raise no_judgements(loaded)
    sync_before_scoring(index, waiting)
    current = params_from(args, cfg)
    judged = retrieve_judged(index, loaded.judgements, search_request(cfg, "", current, now_ms=parse_now(args.now)))
    assert judged is not None  # no cancel event given
    if judged.stale:
        _warn(f"{judged.stale} judged result(s) are stale (their note changed) and left out; mark them again in the app")
    if args.folds < 2:
        raise UserError(f"--folds {args.folds}: cross-validation needs 2 folds or more (default 5)")
    bar = _Progress(sys.stderr.isatty() and not args.json)
    try:
        found = suggest(judged.pools, current, folds=args.folds, progress=bar)
    finally:
        bar.close()
    if isinstance(found, NeedMore):
        if args.json:
            print(dumps_json({"judged": found.have, "need": found.need, "message": found.message}, indent=2))
            return 1
        raise UserError(found.message)
    if found.folds != args.folds:  # more folds than pairs of judged questions
        _warn(f"{found.folds} folds used, not {args.folds}: each fold needs 2 or more of the {found.n} judged questions")
    saved = _save(found.best, args) if args.save and found.better and found.vectors else None
    if args.json:
        print(dumps_json(found.to_dict() | {"stale": judged.stale, "saved": str(saved) if saved else None}, indent=2))
    else:
        _print_suggestion(found)
    if args.save and found.better and not found.vectors:
        raise UserError("not saved: tuned without vectors (provider none or failing); run memtui tune --save "
                        "with a provider (e.g. --provider local) to save settings that fit hybrid search")
    if args.save and not found.better:
        _warn("not saved: no setting beat the current one on held-out questions")
    if saved:
        _warn(f"saved the suggested settings to {safe(str(saved), one_line=True)}: they apply to every workspace "
              "that uses this config")
        from ..core.session import agent_overrides_note

        replaced = agent_overrides_note(session.agent, found.best)
        if replaced:
            _warn(replaced)
    return 0


def _save(params: Any, args: argparse.Namespace) -> Path:
    from ..core.settings_io import RewriteError, save_to_config
    from ..paths import default_config_path

    path = Path(args.config) if args.config else default_config_path()
    try:
        save_to_config(params, path)
    except RewriteError as exc:
        raise UserError(str(exc)) from None
    return path


def _print_suggestion(s: Any) -> None:
    from ..engine.tuning.tuner import describe_suggestion

    print(describe_suggestion(s))
