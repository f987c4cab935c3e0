"""Carry tuned search settings out: as OpenClaw's `memorySearch.query` block or into our config."""

from __future__ import annotations

import json
import math
import os
import stat
import tempfile
import time
from pathlib import Path
from typing import Any

from .engine.search.rank import SearchParams


def openclaw_query_block(params: SearchParams, pool_size: int = 100) -> dict[str, Any]:
    """The `memorySearch.query` object of an openclaw.json with these settings."""
    vw, tw = params.weights()
    multiplier = min(20, max(1, math.ceil(pool_size / max(1, params.max_results))))
    return {
        "maxResults": int(params.max_results),
        "minScore": round(params.min_score, 4),
        "hybrid": {
            "vectorWeight": round(vw, 4),
            "textWeight": round(tw, 4),
            "candidateMultiplier": multiplier,
            "mmr": {"enabled": params.mmr, "lambda": round(params.mmr_lambda, 4)},
            "temporalDecay": {"enabled": params.decay, "halfLifeDays": int(max(1, math.floor(params.half_life_days)))},
        },
    }


def openclaw_json(params: SearchParams, pool_size: int = 100) -> str:
    return json.dumps({"memorySearch": {"query": openclaw_query_block(params, pool_size)}}, indent=2)


class RewriteError(Exception):
    """A config file could not be rewritten; the original is unchanged. One line for the user."""


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _fsync_dir(folder: Path) -> None:
    """Make the rename itself durable: without it a crash can bring back the old name's content."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _backup(target: Path, mode: int) -> Path:
    """Copy `target` to `<name>.bak-<time>` (then `-2`, `-3`…): O_EXCL, so a backup is never replaced."""
    data = target.read_bytes()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    n = 1
    while True:
        backup = target.with_name(f"{target.name}.bak-{stamp}" + (f"-{n}" if n > 1 else ""))
        try:
            fd = os.open(backup, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
            break
        except FileExistsError:
            n += 1
    try:
        os.fchmod(fd, mode)  # the original's mode, not the umask's: a 0600 config keeps a 0600 backup
        _write_all(fd, data)
        os.fsync(fd)
    except OSError:
        os.close(fd)
        backup.unlink(missing_ok=True)  # never leave a truncated backup that looks like a good one
        raise
    os.close(fd)
    return backup


def rewrite_file(path: Path, text: str) -> Path | None:
    """Replace a config file's content safely; return the backup of the original (None if new).

    - a symlink is written through: its target changes and the link stays a link;
    - the original's mode and owner are kept (0600 stays 0600); a new file is created 0600;
    - the original is copied to a backup that never overwrites an earlier one;
    - the new text goes to a temp file in the same folder, is fsynced and renamed over the
      original in one step, so a reader sees the old file or the new one, never half of one;
    - on any write failure (a full disk) the temp file and the backup are removed and the original
      is left as it was; RewriteError says so in one line.
    """
    from .engine.store import make_private_dirs

    target = Path(os.path.realpath(path))
    data = text.encode("utf-8")
    try:
        st: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise RewriteError(f"cannot write {path}: {exc.strerror}") from None
    mode = stat.S_IMODE(st.st_mode) if st is not None else 0o600
    backup: Path | None = None
    tmp: Path | None = None
    try:
        if st is None:
            make_private_dirs(target.parent)
        else:
            backup = _backup(target, mode)
        fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        tmp = Path(name)
        try:
            os.fchmod(fd, mode)
            if st is not None and (st.st_uid, st.st_gid) != (os.getuid(), os.getgid()):
                try:
                    os.fchown(fd, st.st_uid, st.st_gid)  # possible as root (sudo memtui); else keep ours
                except PermissionError:
                    pass
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
        tmp = None
        _fsync_dir(target.parent)
    except OSError as exc:
        if tmp is not None:
            tmp.unlink(missing_ok=True)
        if backup is not None:
            backup.unlink(missing_ok=True)  # the original is intact, so this copy of it is not needed
        state = "the original is unchanged" if st is not None else "nothing was written"
        raise RewriteError(f"cannot write {path}: {exc.strerror or exc}; {state}") from None
    return backup


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
    _set_all(query, "time", {"mode": params.time_mode, "boost": float(params.time_boost), "floor": float(params.time_floor)})
    hybrid = _table(query, "hybrid")
    hybrid["vectorWeight"] = float(params.vector_weight)
    hybrid["textWeight"] = float(params.text_weight)
    hybrid["fusion"] = params.fusion
    _set_all(hybrid, "mmr", {"enabled": params.mmr, "lambda": float(params.mmr_lambda)})
    _set_all(hybrid, "temporalDecay", {"enabled": params.decay, "halfLifeDays": float(params.half_life_days)})
    return rewrite_file(path, tomlkit.dumps(doc))


def write_openclaw_query(config_file: Path, params: SearchParams, pool_size: int = 100,
                         agent_id: str | None = None) -> Path:
    """Set `memorySearch.query` in openclaw.json (the defaults, or one agent's), nothing else.

    Only plain JSON is rewritten: a JSON5 file with comments would lose them, so it is refused with
    a message saying to paste the printed block instead. The original is copied to `*.bak-<time>`.
    """
    from .interop.agents import OpenClawError, deep_merge

    try:
        text = config_file.read_text(encoding="utf-8")
    except OSError as exc:
        raise OpenClawError(f"cannot read {config_file}: {exc.strerror}") from None
    try:
        data = json.loads(text)
    except ValueError:
        raise OpenClawError(f"{config_file} uses JSON5 (comments, trailing commas); memtui only rewrites plain JSON "
                            "so nothing else changes — paste the printed block into it instead") from None
    agents = data.setdefault("agents", {})
    if agent_id is None:
        holder = agents.setdefault("defaults", {})
    else:
        matches = [a for a in agents.get("list") or [] if isinstance(a, dict) and a.get("id") == agent_id]
        if not matches:
            raise OpenClawError(f"no agent '{agent_id}' in {config_file}")
        holder = matches[0]
    ms = holder.setdefault("memorySearch", {})
    ms["query"] = deep_merge(ms.get("query") or {}, openclaw_query_block(params, pool_size))
    try:
        backup = rewrite_file(config_file, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    except RewriteError as exc:
        raise OpenClawError(str(exc)) from None
    assert backup is not None  # the file was read above, so it existed
    return backup
