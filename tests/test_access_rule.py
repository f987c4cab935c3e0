"""One rule for what is memory (engine/access.py): the sync indexes only what memory_get would read."""

from __future__ import annotations

import json
import os

from .helpers import write


def test_followed_links_outside_every_root_are_never_indexed_nor_read(tmp_path, workspace, capsys):
    from openclaw_memtui.cli.main import main

    outside = tmp_path / "outside"
    write(outside / "secret.md", "kestrel outside text\n")
    write(outside / "deeper" / "more.md", "kestrel deeper text\n")
    write(workspace / "memory" / "inner.md", "kestrel inner text\n")
    os.symlink(outside / "secret.md", workspace / "memory" / "file-link.md")  # a file outside
    os.symlink(outside, workspace / "memory" / "dir-link")  # a folder outside
    os.symlink(workspace / "memory" / "file-link.md", workspace / "memory" / "chain.md")  # a chain ending outside
    os.symlink(workspace / "memory" / "inner.md", workspace / "memory" / "inside-link.md")  # stays inside: kept
    write(workspace / "extra" / "x.md", "kestrel extra text\n")
    os.symlink(outside / "deeper" / "more.md", workspace / "extra" / "out.md")  # inside an extra path, pointing out
    config = tmp_path / "config.toml"
    config.write_text('followSymlinks = true\nextraPaths = ["extra/../extra"]\n', encoding="utf-8")
    argv = ["--workspace", str(workspace), "--db", str(tmp_path / "i.sqlite"), "--provider", "none",
            "--config", str(config)]
    assert main(["index", *argv]) == 0
    capsys.readouterr()
    assert main(["search", "kestrel", "--json", *argv]) == 0
    out = capsys.readouterr().out
    paths = {r["path"] for r in json.loads(out)["results"]}
    assert "outside" not in out and "deeper" not in out
    assert paths == {"memory/inner.md", "extra/x.md"}  # the inside link is the same file as inner.md
