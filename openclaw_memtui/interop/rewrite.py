"""Read openclaw.json to rewrite it (`export-settings --write`, `connect`, `disconnect`): plain JSON
only, since a JSON5 file (comments, trailing commas) could not be written back without changing
what the user wrote. One reader, so the commands refuse the same files in the same words."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .agents import OpenClawError


def read_plain_json(config_file: Path, instead: str = "nothing was written") -> tuple[str, dict[str, Any]]:
    """The config's text (with any byte order mark as found) and its parsed object. `instead` ends the
    JSON5 refusal: what the user can do rather than have memtui rewrite it."""
    try:
        with open(config_file, encoding="utf-8", newline="") as fh:  # as on disk: compared before the rename
            text = fh.read()
    except OSError as exc:
        raise OpenClawError(f"cannot read {config_file}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise OpenClawError(f"{config_file} is not UTF-8 text; memtui will not rewrite it") from None
    try:
        # a byte order mark (Windows editors add one) is kept as found: OpenClaw's JSON5 reads it as space
        data = json.loads(text.removeprefix("\ufeff"))
    except ValueError:
        raise OpenClawError(f"{config_file} uses JSON5 (comments, trailing commas); memtui only rewrites plain JSON, so "
                            f"nothing else changes — {instead}") from None
    except RecursionError:
        raise OpenClawError(f"{config_file} is nested too deeply to rewrite") from None
    if not isinstance(data, dict):
        raise OpenClawError(f"{config_file} must hold a JSON object")
    return text, data
