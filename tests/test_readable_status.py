"""Issue 31: the status lines read clearly ("Chunk dates … name 12", "embed 48/2953 … embedding 48/2953")."""

from __future__ import annotations

from openclaw_memtui.engine.models import SyncProgress, describe_chunk_dates
from openclaw_memtui.tui.screens.sync import progress_label
from openclaw_memtui.tui.state import SyncState


def test_chunk_dates_say_what_dates_each_chunk():
    said = describe_chunk_dates({"evergreen": 3, "messages": 3, "name": 12})
    assert said == "dated by file name 12, by message time 3, undated (evergreen) 3"


def test_the_embedding_progress_gives_its_counts_once():
    state = SyncState(checking=False, running=True, progress=SyncProgress("embed", 48, 2953, "", "embedding 48/2953 chunks"))
    line = progress_label(state, now=0.0).plain
    assert line == "Syncing — embedding chunks 48/2953" and line.count("48/2953") == 1
