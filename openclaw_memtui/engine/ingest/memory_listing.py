"""Which files are memory: MEMORY.md, memory.md, memory/**/*.md and configured extra paths.

Extra paths are folders (optionally limited by globs) or .md files. Symlinks are skipped unless the
config allows them; dependency and VCS folders are never walked (OpenClaw walked them and ran out
of file descriptors, spec §11).
"""

from __future__ import annotations

import operator
import os
import re
from collections.abc import Callable
from pathlib import Path

from .sources import (
    DEFAULT_ROOT_FILES,
    IGNORED_DIRS,
    ListingBudget,
    SourceFile,
    Unreadable,
    _note_unreadable,
    display_path,
    rel_path,
)


def _is_md(name: str) -> bool:
    return name.endswith(".md")


def _walk_markdown(root: str, follow_symlinks: bool, workspace: str, budget: ListingBudget | None = None,
                   known: dict[str, tuple[float, int]] | None = None, unchanged: list[str] | None = None,
                   unreadable: list[Unreadable] | None = None, roots: list[str] | None = None,
                   stamped: bool = True) -> list[SourceFile]:
    """Every .md file below the normalised folder `root`, sorted by path, each with its stat (without
    `stamped`, none: a rebuild reads every file and stamps it from the descriptor it reads through).

    The stat is taken here, from the folder entry, so a re-sync lists and stats in one pass, and
    the workspace-relative path is the folder's (computed once per folder) plus the name. This runs
    once per file on every sync: no call it can do without (a re-sync of 100,000 files is mostly this).
    Without followed links, `is_file`/`is_dir(follow_symlinks=False)` are already false for a link,
    so a link is skipped without asking `is_symlink` of every entry. With a `budget`, the walk stops
    once it is spent (the list is then partial: `budget.exhausted`). With `known` (a re-sync: the
    index's stamps by path), a file whose stamp is the known one is not listed: only its path goes to
    `unchanged`, so 100,000 unchanged files cost no SourceFile and no sorting. A folder that cannot
    be read (permission denied) goes to `unreadable`, so the sync can say why its notes are missing.
    With `roots` (followed links), a linked folder that resolves outside them is not walked.
    """
    from .access import may_read

    known_get = known.get if known is not None else None
    unchanged_append = unchanged.append if unchanged is not None else None
    found: list[SourceFile] = []
    append = found.append
    new = tuple.__new__  # SourceFile._make without its Python-level call and length check
    stack = [root]
    # Followed links can point back up the tree (`a -> .`): a folder already walked, known by
    # (device, inode), is never walked again, so the walk always ends.
    visited: set[tuple[int, int]] = set()
    if follow_symlinks:
        try:
            st = os.stat(root)
            visited.add((st.st_dev, st.st_ino))
        except OSError:
            pass
    while stack:
        if budget is not None and budget.spent():
            break
        folder = stack.pop()
        rel = rel_path(workspace, folder)
        prefix = "" if rel == "." else rel + "/"
        # a bounded walk (status) pushes a folder's subfolders oldest first, so the most recently changed
        # is walked next: where a note was just created or renamed, one was most likely just written
        subfolders: list[tuple[int, str]] | None = [] if budget is not None else None
        try:
            with os.scandir(folder) as it:  # read as walked: a spent budget stops reading a large folder too
                for i, entry in enumerate(it):
                    if budget is not None and budget.spent_at(i):
                        stack.clear()
                        subfolders = None
                        break
                    name = entry.name
                    try:
                        if name.endswith(".md") and entry.is_file(follow_symlinks=follow_symlinks):
                            stamp: tuple[float, int] | None = None  # None: whoever needs it stats the file again
                            if stamped:
                                try:
                                    st = entry.stat()  # follows a link, as reading the file does
                                    stamp = (st.st_mtime_ns / 1e6, st.st_size)
                                except OSError:
                                    pass
                            path = prefix + name
                            if not path.isascii():
                                path = display_path(path)
                            if known_get is not None and unchanged_append is not None and known_get(path, 0) == stamp:
                                unchanged_append(path)  # `0`: a path the index does not hold never equals
                            else:
                                append(new(SourceFile, (entry.path, path, "memory", stamp)))
                        elif name not in IGNORED_DIRS and entry.is_dir(follow_symlinks=follow_symlinks):
                            if follow_symlinks:
                                st = entry.stat(follow_symlinks=True)
                                if (st.st_dev, st.st_ino) in visited:
                                    continue
                                visited.add((st.st_dev, st.st_ino))
                                if roots is not None and entry.is_symlink() and not may_read(entry.path, roots):
                                    continue  # a linked folder outside every root: nothing in it may be read
                            if subfolders is not None:
                                subfolders.append((_folder_mtime(entry), entry.path))
                            else:
                                stack.append(entry.path)
                    except OSError:
                        continue
        except OSError as exc:
            _note_unreadable(unreadable, exc, prefix or "./", "memory")
            continue
        if subfolders:
            subfolders.sort()
            stack.extend(path for _, path in subfolders)
    found.sort(key=_by_abs_path)  # plain strings compare several times faster than the tuples
    return found


_by_abs_path = operator.itemgetter(0)


def _folder_mtime(entry: os.DirEntry[str]) -> int:
    try:
        return entry.stat().st_mtime_ns
    except OSError:
        return 0


def glob_regex(pattern: str) -> re.Pattern[str]:
    """A POSIX glob as Node's `path.posix.matchesGlob` reads it: `**` any depth, `*` and `?` within
    one path segment, `[...]` classes, `{a,b}` alternatives."""

    def translate(p: str) -> str:
        out, i = [], 0
        while i < len(p):
            c = p[i]
            if p.startswith("**/", i):
                out.append("(?:.*/)?")
                i += 3
                continue
            if p.startswith("**", i):
                out.append(".*")
                i += 2
                continue
            if c == "*":
                out.append("[^/]*")
            elif c == "?":
                out.append("[^/]")
            elif c == "[" and "]" in p[i + 2:]:
                end = p.index("]", i + 2)
                body = p[i + 1:end]
                out.append("[" + ("^" + body[1:] if body.startswith("!") else body).replace("\\", "\\\\") + "]")
                i = end
            elif c == "{" and "}" in p[i:]:
                end = p.index("}", i)
                out.append("(?:" + "|".join(translate(alt) for alt in p[i + 1:end].split(",")) + ")")
                i = end
            else:
                out.append(re.escape(c))
            i += 1
        return "".join(out)

    return re.compile(translate(pattern) + r"\Z")


def _pattern_filter(root: Path, patterns: list[str]) -> Callable[[str], bool]:
    regexes = [glob_regex(p.replace("\\", "/")) for p in patterns]

    def keep(file_path: str) -> bool:
        rel = rel_path(root, file_path)
        return not rel.startswith("../") and any(r.match(rel) for r in regexes)

    return keep


def _may_read(path: str, roots: list[str]) -> bool:
    from .access import may_read

    return may_read(path, roots)


def list_memory_files(workspace: Path, extra_paths: list[str] | tuple[str, ...] = (),
                      follow_symlinks: bool = False, root_files: tuple[str, ...] = DEFAULT_ROOT_FILES,
                      patterns: tuple[tuple[str, str], ...] = (),
                      budget: ListingBudget | None = None, known: dict[str, tuple[float, int]] | None = None,
                      unchanged: list[str] | None = None, unreadable: list[Unreadable] | None = None,
                      stamped: bool = True) -> list[SourceFile]:
    """The memory files of `workspace`. `patterns` limits a folder of `extra_paths` to the files
    matching one of its globs (OpenClaw 2026.9's `{path, pattern}` entries). With a `budget` the list
    may be partial (see ListingBudget). `known` and `unchanged` (see _walk_markdown) apply to memory/
    when no extra paths or followed links need the files compared by real path first: a file it
    leaves out is only named in `unchanged`; every other file is listed. Without `stamped`, the files
    under folders carry no stamp (a rebuild's listing: see _walk_markdown)."""
    globs: dict[str, list[str]] = {}
    for path, pattern in patterns:
        globs.setdefault(path.strip(), []).append(pattern)
    ws = str(workspace)
    roots = None
    if follow_symlinks:
        from .access import allowed_roots

        roots = allowed_roots(workspace, extra_paths)
    candidates: list[SourceFile] = []
    for name in root_files:
        p = workspace / name
        if p.is_file() and (follow_symlinks or not p.is_symlink()):
            candidates.append(_listed_file(ws, str(p)))
    extra = [raw.strip() for raw in extra_paths if raw.strip()]
    mem_dir = os.path.normpath(workspace / "memory")
    linked_out = os.path.islink(mem_dir) and (not follow_symlinks or roots is None or not _may_read(mem_dir, roots))
    if os.path.isdir(mem_dir) and not linked_out:
        if extra or follow_symlinks:
            known = unchanged = None  # every file listed: the same file may be found twice, by real path below
        candidates.extend(_walk_markdown(mem_dir, follow_symlinks, ws, budget, known, unchanged, unreadable, roots,
                                        stamped))
    if not extra and not follow_symlinks:
        return candidates  # root files and memory/ cannot name one file twice
    for raw in extra:
        if budget is not None and budget.spent():
            break
        p = Path(os.path.expanduser(raw))
        p = p if p.is_absolute() else workspace / p
        if p.is_symlink() and not follow_symlinks:
            continue
        if p.is_dir():
            root = os.path.normpath(p)  # walked from its normalised path: every path found below is normalised
            found = _walk_markdown(root, follow_symlinks, ws, budget, unreadable=unreadable, roots=roots,
                                   stamped=stamped)
            if raw in globs:
                keep = _pattern_filter(Path(root), globs[raw])
                found = [f for f in found if keep(f.abs_path)]
            candidates.extend(found)
        elif p.is_file() and _is_md(p.name):
            candidates.append(_listed_file(ws, str(p)))
    # Without followed symlinks a normalised path is already unique; realpath (an lstat per path
    # component) is only needed when links are followed.
    seen: set[str] = set()
    out: list[SourceFile] = []
    for sf in candidates:
        k = os.path.realpath(sf.abs_path) if follow_symlinks else sf.abs_path
        if k not in seen:
            seen.add(k)
            out.append(sf)
    return out


def _listed_file(workspace: str, path: str) -> SourceFile:
    norm = os.path.normpath(path)
    try:
        st = os.stat(norm)
        stamp: tuple[float, int] | None = (st.st_mtime_ns / 1e6, st.st_size)
    except OSError:
        stamp = None
    return SourceFile(norm, display_path(rel_path(workspace, norm)), "memory", stamp)
