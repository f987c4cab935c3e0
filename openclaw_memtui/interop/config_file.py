"""Read openclaw.json as OpenClaw 2026.9 does: JSON5, then its `$include` directives, read-only.

Every reader of the config goes through `load_config_tree`, so what holds for one holds for all
(`memtui agents`, `--agent`, `status`, the app, `export-settings`).

`$include` (OpenClaw's `src/config/includes.ts`, followed here rule for rule):
* any object may hold `"$include": "file"` or `"$include": ["a", "b"]`, at any depth, inside arrays too;
* a relative path is resolved against the folder of the file that names it; the result must stay
  inside the main config's folder or a folder of `OPENCLAW_INCLUDE_ROOTS` (os.pathsep-separated),
  lexically and after resolving symlinks;
* several files are deep-merged in order; keys beside `$include` are merged over the included content,
  which must then be an object; the merge concatenates arrays, merges objects key by key and lets
  the later value win otherwise (`__proto__`, `constructor`, `prototype` are dropped);
* included files may include others, up to 10 deep; a file that includes itself, directly or not,
  is an error; each is a regular file of at most 2 MiB, parsed as JSON5.
Included files are only read, never written (see `interop.export.write_export`).

Strings: JSON5 and JSON both accept `"\\ud800"`, a lone UTF-16 surrogate, which is no text: it
cannot be printed, encoded or written back. It is refused once here, with the key that holds it.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import Any

from ..engine.errors import MemtuiError

INCLUDE_KEY = "$include"
MAX_INCLUDE_DEPTH = 10
MAX_INCLUDE_BYTES = 2 * 1024 * 1024
MAX_INCLUDE_PATH = 4096
_BLOCKED_KEYS = {"__proto__", "constructor", "prototype"}


class ConfigFileError(MemtuiError, ValueError):
    """openclaw.json (or a file it includes) cannot be read as OpenClaw would; one line for the user."""


def parse_json5(text: str, where: Path) -> Any:
    import json5

    try:
        return json5.loads(text)
    except ValueError as exc:
        raise ConfigFileError(f"OpenClaw config {where} is not valid JSON5: {exc}") from None
    except RecursionError:  # json5 parses recursively: 100k nested brackets exhaust the stack
        raise ConfigFileError(f"OpenClaw config {where} is nested too deeply to read") from None


def lone_surrogate_at(value: Any, at: str = "") -> str | None:
    """The dotted key of the first string (or key) holding a lone surrogate, else None."""
    stack: list[tuple[Any, str]] = [(value, at)]
    while stack:
        node, where = stack.pop()
        if isinstance(node, str):
            if _has_surrogate(node):
                return where or "(the whole file)"
        elif isinstance(node, dict):
            for key, child in node.items():
                name = f"{where}.{key}" if where else str(key)
                if isinstance(key, str) and _has_surrogate(key):
                    return (f"{where}." if where else "") + key.encode("utf-8", "backslashreplace").decode("ascii")
                stack.append((child, name))
        elif isinstance(node, list):
            stack.extend((child, f"{where}[{i}]") for i, child in enumerate(node))
    return None


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def refuse_lone_surrogates(data: Any, where: Path) -> None:
    key = lone_surrogate_at(data)
    if key is not None:
        shown = key.encode("utf-8", "backslashreplace").decode("utf-8")
        raise ConfigFileError(f"OpenClaw config {where}: '{shown}' holds a lone UTF-16 surrogate escape (like \\ud800), "
                              "which is not text; fix that string (OpenClaw's own writer never makes one)")


def _read_text(path: Path, limit: int | None = None) -> str:
    flags = os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK  # a FIFO by that name must not hang the read
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        if limit is not None and st.st_size > limit:
            raise ConfigFileError(f"included config {path} is larger than {limit} bytes (OpenClaw's limit)")
        with os.fdopen(os.dup(fd), "rb") as fh:
            data = fh.read()
    finally:
        os.close(fd)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigFileError(f"OpenClaw config {path} is not UTF-8 text (byte {exc.start})") from None


def merge_concat(base: Any, override: Any) -> Any:
    """OpenClaw's include merge (`mergeDeep` with arrays concatenated)."""
    if isinstance(base, list) and isinstance(override, list):
        return [*base, *override]
    if not isinstance(base, dict) or not isinstance(override, dict):
        return override
    merged = {k: v for k, v in base.items() if k not in _BLOCKED_KEYS}
    for key, value in override.items():
        if key in _BLOCKED_KEYS:
            continue
        current = merged.get(key)
        if isinstance(value, dict):
            merged[key] = merge_concat(current, value) if isinstance(current, dict) else dict(value)
        elif isinstance(current, list) and isinstance(value, list):
            merged[key] = [*current, *value]
        else:
            merged[key] = value
    return merged


def include_roots(config: Path) -> list[Path]:
    roots = [Path(os.path.normpath(os.path.abspath(config.parent)))]
    for entry in (os.environ.get("OPENCLAW_INCLUDE_ROOTS") or "").split(os.pathsep):
        entry = entry.strip()
        if entry:
            root = Path(os.path.normpath(os.path.abspath(os.path.expanduser(entry))))
            if root.is_absolute() and root not in roots:
                roots.append(root)
    return roots


def _inside(root: str, candidate: str) -> bool:
    return candidate == root or candidate.startswith(root.rstrip(os.sep) + os.sep)


class _Includes:
    def __init__(self, config: Path) -> None:
        self.config = config
        self.roots = [(str(r), os.path.realpath(r)) for r in include_roots(config)]
        self.files: list[Path] = []  # every included file read, in order (for export-settings)

    def process(self, obj: Any, base: Path, visited: tuple[str, ...], depth: int) -> Any:
        if isinstance(obj, list):
            return [self.process(item, base, visited, depth) for item in obj]
        if not isinstance(obj, dict):
            return obj
        if INCLUDE_KEY not in obj:
            return {key: self.process(value, base, visited, depth) for key, value in obj.items()}
        spec = obj[INCLUDE_KEY]
        if isinstance(spec, str):
            included = self.load(spec, base, visited, depth)
        elif isinstance(spec, list):
            included = {}
            for item in spec:
                if not isinstance(item, str):
                    raise ConfigFileError(f"{base}: $include lists {item!r}, not a file name")
                included = merge_concat(included, self.load(item, base, visited, depth))
        else:
            raise ConfigFileError(f"{base}: $include must be a file name or a list of them, not {type(spec).__name__}")
        rest = {key: self.process(value, base, visited, depth) for key, value in obj.items() if key != INCLUDE_KEY}
        if not rest:
            return included
        if not isinstance(included, dict):
            raise ConfigFileError(f"{base}: keys beside $include need the included file to hold an object")
        return merge_concat(included, rest)

    def load(self, name: str, base: Path, visited: tuple[str, ...], depth: int) -> Any:
        if "\0" in name or len(name) >= MAX_INCLUDE_PATH:
            raise ConfigFileError(f"{base}: $include names an invalid path")
        target = os.path.normpath(name if os.path.isabs(name) else os.path.join(base.parent, os.path.expanduser(name)))
        if not any(_inside(root, target) for root, _ in self.roots):
            raise ConfigFileError(f"{base}: $include {name!r} is outside the config folder {self.roots[0][0]} "
                                  "(OpenClaw refuses it too; OPENCLAW_INCLUDE_ROOTS allows more folders)")
        real = os.path.realpath(target)
        if os.path.exists(target) and not any(_inside(real_root, real) for _, real_root in self.roots):
            raise ConfigFileError(f"{base}: $include {name!r} resolves outside the config folder through a symlink")
        if target in visited:
            raise ConfigFileError(f"circular $include: {' -> '.join([*visited, target])}")
        if depth >= MAX_INCLUDE_DEPTH:
            raise ConfigFileError(f"{base}: $include nested more than {MAX_INCLUDE_DEPTH} deep at {name!r}")
        try:
            text = _read_text(Path(target), MAX_INCLUDE_BYTES)
        except OSError as exc:
            raise ConfigFileError(f"cannot read {target}, included by {base}: {exc.strerror}") from None
        self.files.append(Path(target))
        parsed = parse_json5(text.removeprefix("\ufeff"), Path(target))
        return self.process(parsed, Path(target), (*visited, target), depth + 1)


def resolve_includes(data: Any, config: Path) -> tuple[Any, list[Path]]:
    """`data` (the parsed main config) with every `$include` resolved, and the files read for it."""
    walker = _Includes(config)
    main = os.path.normpath(os.path.abspath(config))
    return walker.process(data, Path(main), (main,), 0), walker.files


def has_include(data: Any) -> bool:
    stack = [data]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if INCLUDE_KEY in node:
                return True
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


def load_config_tree(path: Path) -> Any:
    """The config at `path` as OpenClaw reads it: JSON5, includes resolved, no lone surrogates."""
    try:
        text = _read_text(path)
    except OSError as exc:
        raise ConfigFileError(f"cannot read OpenClaw config {path}: {exc.strerror} (make it OpenClaw's JSON file, "
                              "or point OPENCLAW_CONFIG_PATH at the right one)") from None
    data = parse_json5(text.removeprefix("\ufeff"), path)
    if has_include(data):
        data, _ = resolve_includes(data, path)
    refuse_lone_surrogates(data, path)
    return data


def json_object(value: Any) -> dict[str, Any]:
    """`value` when it is a JSON object, else an empty one: openclaw.json is hand-edited."""
    return value if isinstance(value, dict) else {}
