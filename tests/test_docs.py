"""The documentation stays true to the tree: the module list, the Quick start, the links between pages."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Pages the docs index links that other branches add; drop a name here once its page is merged.
PENDING: set[str] = set()  # pages linked before they land (none now)


def _architecture_script():
    spec = importlib.util.spec_from_file_location("architecture", ROOT / "scripts" / "architecture.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_module_list_in_architecture_md_is_the_tree():
    script = _architecture_script()
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert doc == script.render(doc), "docs/architecture.md is out of date: run python3 scripts/architecture.py"
    listed = set(re.findall(r"^- `([^`]+\.py)` — ", doc, flags=re.M))
    on_disk = {rel for rel, _ in script.modules()}
    assert listed == on_disk
    assert all((ROOT / "openclaw_memtui" / rel).is_file() for rel in listed)


def test_readme_quick_start_is_the_two_commands_and_short():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "python3 -m pip install . && memtui" in readme
    assert "python3 -m pip install -e '.[test]' && python3 -m pytest" in readme
    assert len(readme.splitlines()) <= 400


def test_relative_links_in_readme_and_docs_resolve():
    pages = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md"))]
    broken = []
    for page in pages:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target):
                continue  # a URL
            path = (page.parent / target).resolve()
            rel = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)
            if not path.exists() and rel not in PENDING:
                broken.append(f"{page.relative_to(ROOT)} → {target}")
    assert not broken
