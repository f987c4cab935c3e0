"""The quantised matrix saved beside the index: used only for the index state it was built from,
ignored (and rebuilt) when stale, foreign, truncated or damaged, private, written atomically, and
never written by a read command."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from openclaw_memtui.core.config import index_settings, validate
from openclaw_memtui.engine.index import MemoryIndex
from openclaw_memtui.engine.vectors import matrix_file, vector
from openclaw_memtui.engine.vectors.matrix_delta import PatchedMatrix
from openclaw_memtui.engine.vectors.matrix_file import (
    MatrixStamp,
    UnusableMatrixFile,
    load_matrix,
    matrix_path,
    save_matrix,
    saved_stamp,
)

from .helpers import env_for_subprocess, write
from .test_vector_matrix import Seeded, cone, matrix_of, seeded_index, vector_hits


def reopen(index: MemoryIndex) -> MemoryIndex:
    """A new process's view of the same index: nothing in memory, the same seeded provider."""
    index.close()
    again = MemoryIndex(index.settings, provider_name="none")
    again._provider, again._provider_ready = Seeded(), True
    again.vector_searcher.exact_up_to_bytes = 0  # quantise even this small a matrix
    return again


@pytest.fixture
def saved(tmp_path):
    """An index whose matrix a long-lived process (the app's warm-up) has saved beside it."""
    index = seeded_index(tmp_path)
    index.warm_up_vectors()
    assert index.vector_searcher.loaded_from == "sqlite"
    assert matrix_path(index.settings.db_path).exists()
    return reopen(index)


def loaded_from_after_warm_up(index: MemoryIndex) -> str:
    index.warm_up_vectors()
    return index.vector_searcher.loaded_from


def test_a_current_file_is_used_and_gives_the_same_results(saved, tmp_path):
    from_file = {q: vector_hits(saved, q) for q in ("subject 3 detail 10", "a transcript line", "Note 7")}
    assert saved.vector_searcher.loaded_from == "file" and saved.vector_searcher.last_path == "numpy-int8"
    (tmp_path / "elsewhere").mkdir()
    matrix_path(saved.settings.db_path).rename(tmp_path / "elsewhere" / "m")  # the same index without it
    rebuilt = reopen(saved)
    assert {q: vector_hits(rebuilt, q) for q in from_file} == from_file
    assert rebuilt.vector_searcher.loaded_from == "sqlite"


def test_a_search_limited_to_one_source_keeps_the_saved_labels(saved):
    saved.settings = type(saved.settings)(**{**saved.settings.__dict__, "search_sources": ("sessions",)})
    pool = saved.retrieve("a transcript line")
    assert saved.vector_searcher.loaded_from == "file"
    assert pool.mode == "hybrid" and {c.source for c in pool.candidates} == {"sessions"}


def test_a_sync_that_changes_many_vectors_makes_the_file_stale_and_it_is_rewritten(saved):
    path = matrix_path(saved.settings.db_path)
    for i in range(20):  # a sixth of the rows: more than a delta is allowed to patch
        write(saved.settings.workspace / "memory" / f"n{i:03d}.md", f"# Note {i}\nrewritten {i}\n")
    write(saved.settings.workspace / "memory" / "fresh.md", "brand new note")
    saved.sync()
    index = reopen(saved)
    assert loaded_from_after_warm_up(index) == "sqlite"
    assert index.vector_searcher.file_problem == "41 rows changed since the matrix was built: rebuilding"
    hits = vector_hits(index, "brand new note")
    assert max(hits, key=hits.get) == "memory/fresh.md"
    index = reopen(index)  # the warm-up saved the new state's matrix
    assert loaded_from_after_warm_up(index) == "file" and path.exists()
    assert not isinstance(index.vector_searcher._matrix, PatchedMatrix)  # current: nothing to patch
    hits = vector_hits(index, "brand new note")
    assert max(hits, key=hits.get) == "memory/fresh.md" and hits["memory/fresh.md"] == pytest.approx(1.0, abs=1e-5)


def test_a_rebuilt_index_never_trusts_the_old_file(saved):
    """Deleted and built again from an edited workspace: the same generation count, model and
    vector size, other vectors. Only the index's own id tells the two apart."""
    db = saved.settings.db_path
    old_generation = saved.reads().generation()
    old_file = matrix_path(db).read_bytes()
    saved.close()
    for side in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
        side.unlink(missing_ok=True)
    write(saved.settings.workspace / "memory" / "n005.md", "entirely different words now")
    index = reopen(saved)
    index.sync()
    assert not matrix_path(db).exists()  # the sync removed the old index's file (see the tests below)
    matrix_path(db).write_bytes(old_file)  # put back, as by a restore: the load must still refuse it
    index.store.set_meta("generation", str(old_generation))  # even should the random generation repeat,
    assert index.reads().generation() == old_generation  # the index's own id keeps the old file out
    assert loaded_from_after_warm_up(index) == "sqlite"
    hits = vector_hits(index, "entirely different words now")
    assert max(hits, key=hits.get) == "memory/n005.md" and hits["memory/n005.md"] == pytest.approx(1.0, abs=1e-5)


def test_a_forced_rebuild_removes_the_old_indexs_file_and_a_sync_keeps_a_current_one(saved):
    path = matrix_path(saved.settings.db_path)
    temp = path.with_name(f"{path.name}.tmp-999999999")  # a dead writer's (no such pid)
    temp.write_bytes(b"half a matrix")
    saved.sync(force=True)  # `memtui index --force`: a new index file with a new id
    assert not path.exists() and not temp.exists()
    saved.warm_up_vectors()  # the app: a file for the new index
    assert saved_stamp(path).index_id == saved.reads().index_id()
    write(saved.settings.workspace / "memory" / "n005.md", "a small edit")
    saved.sync()
    assert path.exists()  # the same index, an older generation: patched later, never removed


@pytest.mark.parametrize("kind", ["symlink", "not-ours", "older-format"])
def test_only_our_own_regular_file_is_removed_for_another_index(saved, tmp_path, kind):
    path = matrix_path(saved.settings.db_path)
    if kind == "symlink":  # a file of another index, linked here
        target = tmp_path / "elsewhere.matrix"
        save_matrix(target, *matrix_and_stamp())
        path.unlink()
        path.symlink_to(target)
    elif kind == "not-ours":
        path.write_bytes(b"a user's own file that happens to have this name")
    else:  # our magic, format 1: can never be read again
        raw = bytearray(path.read_bytes())
        raw[8:12] = (1).to_bytes(4, "little")
        path.write_bytes(bytes(raw))
    assert matrix_file.remove_foreign(path, saved.reads().index_id()) is (kind == "older-format")
    assert path.exists() is (kind != "older-format")
    if kind == "symlink":
        assert target.exists()


def test_a_newer_memtuis_file_is_left_for_it(saved):
    path = matrix_path(saved.settings.db_path)
    raw = bytearray(path.read_bytes())
    raw[8:12] = (matrix_file.FORMAT_VERSION + 1).to_bytes(4, "little")  # a later release sharing the index
    path.write_bytes(bytes(raw))
    assert matrix_file.remove_foreign(path, "another index's id") is False and path.exists()


def test_a_directory_at_the_files_path_neither_fails_the_sync_nor_leaks_a_descriptor(saved):
    path = matrix_path(saved.settings.db_path)
    path.unlink()
    path.mkdir()
    open_fds = len(os.listdir("/proc/self/fd"))
    for _ in range(20):
        assert matrix_file.remove_foreign(path, "another index's id") is False
    assert len(os.listdir("/proc/self/fd")) == open_fds
    write(saved.settings.workspace / "memory" / "n005.md", "an edit after the directory appeared")
    report = saved.sync()
    assert report.files_indexed == 1 and path.is_dir()


@pytest.mark.parametrize("name", ["tmp-backup-before-upgrade", "tmp-999999999"])
def test_the_temp_sweep_removes_only_dead_writers_regular_files(saved, tmp_path, name):
    path = matrix_path(saved.settings.db_path)
    dead_writers = path.with_name(f"{path.name}.tmp-999999998")
    dead_writers.write_bytes(b"half a matrix")
    target = tmp_path / "a user's file"
    target.write_bytes(b"keep me")
    other = path.with_name(f"{path.name}.{name}")
    if name.endswith("999999999"):
        other.symlink_to(target)  # a pid-like name, but a symlink: not a file we wrote
    else:
        other.write_bytes(b"a user's copy")  # a regular file, but not a name we write
    matrix_file.remove_stale_temps(path)
    assert not dead_writers.exists()
    assert other.is_symlink() or other.read_bytes() == b"a user's copy"
    assert target.read_bytes() == b"keep me"


@pytest.mark.parametrize("damage", ["truncate", "flip-body", "flip-header", "garbage", "empty", "other-format"])
def test_a_damaged_file_is_ignored_without_a_traceback(saved, damage):
    path = matrix_path(saved.settings.db_path)
    data = bytearray(path.read_bytes())
    if damage == "truncate":
        data = data[: len(data) - 100]
    elif damage == "flip-body":
        data[-5] ^= 0x40  # a sign bit of the last row
    elif damage == "flip-header":
        data[40] ^= 0x01
    elif damage == "garbage":
        data = bytearray(os.urandom(len(data)))
    elif damage == "empty":
        data = bytearray()
    else:
        data[8] = 99  # a future format version
    path.write_bytes(bytes(data))
    hits = vector_hits(saved, "subject 3 detail 10")
    assert loaded_from_after_warm_up(saved) == "sqlite" and saved.vector_searcher.file_problem
    assert hits == vector_hits(saved, "subject 3 detail 10")
    assert load_matrix_ok(path, saved) is True  # the warm-up wrote a good one in its place


def load_matrix_ok(path: Path, index: MemoryIndex) -> bool:
    reads = index.reads()
    stamp = MatrixStamp(reads.index_id(), reads.generation(), index.provider.model, reads.vector_dims() or 0)
    try:
        load_matrix(path, stamp)
    except UnusableMatrixFile:
        return False
    return True


def test_the_file_is_private_whatever_the_umask(tmp_path):
    old = os.umask(0o022)
    try:
        index = seeded_index(tmp_path)
        index.warm_up_vectors()
    finally:
        os.umask(old)
    assert stat.S_IMODE(matrix_path(index.settings.db_path).stat().st_mode) == 0o600


def matrix_and_stamp(n: int = 600) -> tuple:
    floats = cone(n, seed=4)
    labels = np.where(np.arange(n) % 2 == 0, 1, 2).astype(np.uint8)
    return matrix_of(floats, labels), {"memory": 1, "sessions": 2}, MatrixStamp("id-1", 7, "m", floats.shape[1])


def test_a_save_that_fails_midway_leaves_the_old_file_and_no_temp(tmp_path, monkeypatch):
    path = tmp_path / "index.sqlite.matrix"
    matrix, labels, stamp = matrix_and_stamp()
    save_matrix(path, matrix, labels, stamp)
    before = path.read_bytes()
    calls = []

    def fail_on_third(fh, array):
        calls.append(1)
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        fh.write(memoryview(array.reshape(-1).view(np.uint8)))

    monkeypatch.setattr(matrix_file, "_write_array", fail_on_third)
    with pytest.raises(OSError):
        save_matrix(path, matrix, labels, MatrixStamp("id-1", 8, "m", stamp.dims))
    assert path.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == [path.name]
    loaded, got_labels, _ = load_matrix(path, stamp)
    assert got_labels == labels and loaded.size == matrix.size
    q = cone(1, seed=9)[0]
    assert loaded.search(q, 20)[0].tolist() == matrix.search(q, 20)[0].tolist()


@pytest.mark.parametrize("name", ["index.sqlite", "notes [2026]*.sqlite"])
def test_a_temp_file_left_by_a_killed_writer_is_removed_by_the_next_save(tmp_path, name):
    path = tmp_path / f"{name}.matrix"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True)
    leftover = tmp_path / f"{name}.matrix.tmp-{int(dead.stdout)}"
    leftover.write_bytes(b"half a matrix")
    live = tmp_path / f"{name}.matrix.tmp-{os.getppid()}"  # a writer that is still running: left alone
    live.write_bytes(b"being written")
    save_matrix(path, *matrix_and_stamp())
    assert not leftover.exists() and path.exists() and live.exists()


def test_a_stamp_that_differs_in_any_part_is_refused(tmp_path):
    path = tmp_path / "m.matrix"
    matrix, labels, stamp = matrix_and_stamp()
    save_matrix(path, matrix, labels, stamp)
    load_matrix(path, stamp)
    for other in (MatrixStamp("id-2", 7, "m", stamp.dims), MatrixStamp("id-1", 6, "m", stamp.dims),
                  MatrixStamp("id-1", 7, "other-model", stamp.dims), MatrixStamp("id-1", 7, "m", stamp.dims + 1)):
        with pytest.raises(UnusableMatrixFile, match="another index state"):
            load_matrix(path, other)


def test_searches_use_a_current_file_but_never_write_one(saved, monkeypatch):
    """`memtui search` (a one-shot MemoryIndex.retrieve) maps a current file in, even for a matrix
    too large to build inline; it never creates or rewrites one."""
    monkeypatch.setattr(vector, "LOAD_INLINE_ROWS", 10)  # "large" from 10 vectors on: never built inline
    path = matrix_path(saved.settings.db_path)
    before = (path.stat().st_mtime_ns, path.read_bytes())
    vector_hits(saved, "subject 2")
    assert saved.vector_searcher.last_path == "numpy-int8" and saved.vector_searcher.loaded_from == "file"
    assert (path.stat().st_mtime_ns, path.read_bytes()) == before
    path.unlink()
    index = reopen(saved)
    vector_hits(index, "subject 2")
    assert index.vector_searcher.last_path == "sqlite-vec" and not path.exists()
    monkeypatch.setattr(vector, "LOAD_INLINE_ROWS", 50_000)  # built inline from SQLite: still nothing written
    index = reopen(index)
    vector_hits(index, "subject 2")
    assert index.vector_searcher.loaded_from == "sqlite" and not path.exists()


def test_search_and_status_commands_create_no_matrix_file(tmp_path):
    index = seeded_index(tmp_path)  # vectors in the index; no matrix file yet
    index.close()
    base = [sys.executable, "-m", "openclaw_memtui", "--db", str(index.settings.db_path),
            "--workspace", str(index.settings.workspace), "--provider", "none"]
    for args in (["search", "subject 3"], ["status", "--json"]):
        done = subprocess.run(base[:3] + [args[0]] + base[3:] + args[1:], capture_output=True, text=True,
                              env=env_for_subprocess(), timeout=60)
        assert done.returncode == 0, done.stderr
        assert not list(tmp_path.glob("*.matrix*"))


def test_an_index_from_an_older_memtui_gets_an_id_and_then_a_file(tmp_path):
    index = seeded_index(tmp_path)
    index.store.conn.execute("DELETE FROM meta WHERE key = 'memtui_index_id'")
    assert index.reads().index_id() == ""
    index.warm_up_vectors()
    assert index.reads().index_id() and matrix_path(index.settings.db_path).exists()
    assert loaded_from_after_warm_up(reopen(index)) == "file"


def test_a_read_only_index_never_writes_the_file_or_the_id(tmp_path):
    index = seeded_index(tmp_path)
    index.store.conn.execute("DELETE FROM meta WHERE key = 'memtui_index_id'")
    index.close()
    ro = MemoryIndex(index.settings, provider_name="none", read_only=True)
    ro._provider, ro._provider_ready = Seeded(), True
    ro.vector_searcher.exact_up_to_bytes = 0
    ro.warm_up_vectors()
    assert ro.vector_searcher.loaded_from == "sqlite"
    assert ro.reads().index_id() == "" and not matrix_path(index.settings.db_path).exists()


def test_every_change_of_the_index_keeps_one_id_and_a_new_file_gets_another(tmp_path):
    index = seeded_index(tmp_path)
    first = index.reads().index_id()
    write(index.settings.workspace / "memory" / "fresh.md", "brand new note")
    index.sync()
    assert first and index.reads().index_id() == first
    other = MemoryIndex(index_settings(validate({}), index.settings.workspace, tmp_path / "other.sqlite"), provider_name="none")
    other._provider, other._provider_ready = Seeded(), True
    other.sync()
    assert other.reads().index_id() not in ("", first)


def test_vectors_are_pending_only_while_no_matrix_is_in_memory_or_saved_for_this_state(tmp_path, monkeypatch):
    monkeypatch.setattr(vector, "LOAD_INLINE_ROWS", 10)  # 121 vectors count as large
    index = seeded_index(tmp_path)
    assert index.vectors_pending()  # nothing in memory, no file: a search would wait for sqlite-vec
    index.warm_up_vectors()
    assert not index.vectors_pending()
    index = reopen(index)
    assert not index.vectors_pending()  # not in memory, but the file is current: mapping it is quick
    assert index.map_saved_vectors() and index.vector_searcher.loaded_from == "file"
    write(index.settings.workspace / "memory" / "fresh.md", "brand new note")
    index.sync()
    # the matrix in memory is for the state before this sync, but the sync logged its rows: a patch in ms
    assert not index.vectors_pending()
    index.store.conn.execute("DELETE FROM chunk_changes")  # as after another memtui's writes: a scan is due
    assert index.vectors_pending()
    assert index.map_saved_vectors() and isinstance(index.vector_searcher._matrix, PatchedMatrix)
    assert not index.vectors_pending()  # patched with the sync's rows: in memory for this state
    for i in range(20):
        write(index.settings.workspace / "memory" / f"n{i:03d}.md", f"# Note {i}\nrewritten {i}\n")
    index.sync()
    assert not index.map_saved_vectors()  # too many rows changed to patch: a rebuild is due
    assert index.vectors_pending()


@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_something_other_than_a_file_at_the_path_is_refused_at_once(saved, kind):
    """A FIFO at `<index>.matrix` hung every search (open() waits for a writer); a directory errs."""
    path = matrix_path(saved.settings.db_path)
    stamp = saved_stamp(path)
    assert stamp is not None
    path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.mkdir()
    outcome: list[object] = []

    def read_it() -> None:
        try:
            load_matrix(path, stamp)
        except UnusableMatrixFile as exc:
            outcome.append(str(exc))
        outcome.append(saved_stamp(path))

    reader = threading.Thread(target=read_it, daemon=True)
    reader.start()
    reader.join(timeout=30)  # a bound on a hang, not a wait for time to pass: it ends at once when fixed
    assert not reader.is_alive(), "reading a FIFO at the matrix path blocked"
    assert outcome == ["not a regular file", None]


def test_a_row_a_sync_logged_twice_inserted_then_embedded_counts_once(tmp_path, monkeypatch):
    """Three new chunks, each logged by its insert and again by its vector: three changed rows, within
    the patch limit of 121 rows (6), so a search after the sync is not pending (six would be over it)."""
    monkeypatch.setattr(vector, "LOAD_INLINE_ROWS", 10)
    index = seeded_index(tmp_path)
    index.warm_up_vectors()
    for name in ("fresh.md", "other.md", "third.md"):
        write(index.settings.workspace / "memory" / name, f"brand new note {name}")
    index.sync()
    assert not index.vectors_pending()
    hits = vector_hits(index, "brand new note third.md")
    assert index.vector_searcher.patched_from == "log" and max(hits, key=hits.get) == "memory/third.md"


# -- `memtui index` leaves the file the app maps at launch -------------------------------------------

def test_a_large_index_without_its_own_file_gets_one_and_then_needs_none(tmp_path, monkeypatch):
    """What `memtui index` asks after its sync: a large index with no file of its own lacks one and
    saving it makes the next process map it; a later change leaves a file the app patches, and a
    small index (built inline in ~0.3 s) or a read-only one never lacks one."""
    index = seeded_index(tmp_path)
    assert not index.lacks_vector_file()  # 121 vectors: built inline, no file needed
    monkeypatch.setattr(vector, "LOAD_INLINE_ROWS", 10)  # 121 vectors count as large
    assert index.lacks_vector_file()
    assert index.save_vector_file() and matrix_path(index.settings.db_path).exists()
    again = reopen(index)
    assert not again.lacks_vector_file()
    assert loaded_from_after_warm_up(again) == "file"
    write(again.settings.workspace / "memory" / "fresh.md", "brand new note")
    again.sync()  # an older state of this index's file: patched at launch, not rebuilt
    assert not again.lacks_vector_file()
    again.close()
    ro = MemoryIndex(again.settings, provider_name="none", read_only=True)
    ro._provider, ro._provider_ready = Seeded(), True
    ro.vector_searcher.exact_up_to_bytes = 0
    matrix_path(again.settings.db_path).unlink()
    assert not ro.lacks_vector_file()  # it may not write one


def test_a_file_of_another_index_counts_as_none(saved, tmp_path, monkeypatch):
    monkeypatch.setattr(vector, "LOAD_INLINE_ROWS", 10)
    assert not saved.lacks_vector_file()
    other = seeded_index(tmp_path / "other")
    path = matrix_path(saved.settings.db_path)
    other.warm_up_vectors()
    path.write_bytes(matrix_path(other.settings.db_path).read_bytes())  # the other index's id
    assert saved.lacks_vector_file()


def test_the_index_command_saves_the_file_of_a_large_index_once(tmp_path, monkeypatch, capsys):
    """Over real HTTP (OpenAI's wire format on 127.0.0.1): the first `memtui index` of a large index
    saves the matrix file and says so; the next, with nothing to do, leaves it as it is."""
    import json

    from openclaw_memtui.cli.main import main

    from .fake_api import FakeAPI

    api = FakeAPI("openai")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-matrix-file-0123456789")
    monkeypatch.setenv("OPENAI_BASE_URL", api.url)
    monkeypatch.setattr(vector, "LOAD_INLINE_ROWS", 10)
    monkeypatch.setattr(vector.VectorSearcher, "keeps_floats", lambda self, count, dims: self.exact)  # quantise small
    ws, db = tmp_path / "ws", tmp_path / "i.sqlite"
    for i in range(40):
        write(ws / "memory" / f"n{i:02d}.md", f"# Note {i}\nsubject {i % 5} detail {i}\n")
    argv = ["index", "--workspace", str(ws), "--db", str(db), "--provider", "openai", "--json"]
    try:
        assert main(argv) == 0
        first = json.loads(capsys.readouterr().out)
        path = matrix_path(db)
        assert first["vector_file"]["saved"] is True and first["status"]["embedded"] == 40 and path.exists()
        before = path.stat().st_mtime_ns
        assert main(argv) == 0
        assert json.loads(capsys.readouterr().out)["vector_file"]["saved"] is False
        assert path.stat().st_mtime_ns == before
        assert main(argv[:-1]) == 0  # the text report says nothing of a file it did not write
        assert "vector matrix" not in capsys.readouterr().out
        path.unlink()
        assert main(argv[:-1]) == 0
        assert "vector matrix: saved beside the index" in capsys.readouterr().out and path.exists()
    finally:
        api.close()


@pytest.fixture
def large_index_command(tmp_path, monkeypatch):
    """`memtui index` argv over loopback HTTP (OpenAI's wire format) for 40 notes that count as a large,
    quantised index; yields (argv, index path)."""
    from .fake_api import FakeAPI

    api = FakeAPI("openai")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-matrix-file-0123456789")
    monkeypatch.setenv("OPENAI_BASE_URL", api.url)
    monkeypatch.setattr(vector, "LOAD_INLINE_ROWS", 10)
    monkeypatch.setattr(vector.VectorSearcher, "keeps_floats", lambda self, count, dims: self.exact)
    ws, db = tmp_path / "ws", tmp_path / "i.sqlite"
    for i in range(40):
        write(ws / "memory" / f"n{i:02d}.md", f"# Note {i}\nsubject {i % 5} detail {i}\n")
    try:
        yield ["index", "--workspace", str(ws), "--db", str(db), "--provider", "openai"], db
    finally:
        api.close()


def test_a_save_that_fails_is_said_in_one_line_and_leaves_no_temp(large_index_command, monkeypatch, capsys):
    """A full disk while saving: the index is complete, the report says the file was not saved and
    why (text and --json), and no half-written temp file is left beside the index."""
    import json

    from openclaw_memtui.cli.main import main

    argv, db = large_index_command

    def disk_full(fh, array):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(matrix_file, "_write_array", disk_full)
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "vector matrix: not saved: No space left on device — the app builds it at launch" in out
    assert main([*argv, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["vector_file"]["saved"] is False and report["vector_file"]["problem"] == "No space left on device"
    assert report["status"]["embedded"] == 40
    assert sorted(p.name for p in db.parent.iterdir() if p.name.startswith(db.name)) == ["i.sqlite", "i.sqlite.lock"]


def test_a_folder_at_the_files_path_is_said_before_any_matrix_is_built(large_index_command, monkeypatch, capsys):
    """os.replace cannot put a file over a folder: the report says so, without first building a
    matrix that cannot be saved (~20 s at 1M chunks at every `memtui index`)."""
    import json

    from openclaw_memtui.cli.main import main

    argv, db = large_index_command
    matrix_path(db).mkdir()
    builds = []
    real_load = vector.VectorSearcher._load
    monkeypatch.setattr(vector.VectorSearcher, "_load", lambda self, *a: builds.append(1) or real_load(self, *a))
    assert main([*argv, "--json"]) == 0
    vector_file = json.loads(capsys.readouterr().out)["vector_file"]
    assert vector_file["saved"] is False and vector_file["problem"] == "a folder is in its place (i.sqlite.matrix): move it away"
    assert builds == [] and matrix_path(db).is_dir()
    matrix_path(db).rmdir()
    assert main([*argv, "--json"]) == 0
    vector_file = json.loads(capsys.readouterr().out)["vector_file"]
    assert vector_file == {**vector_file, "saved": True, "problem": ""} and builds == [1]


def test_ctrl_c_while_saving_says_the_index_is_complete(large_index_command, monkeypatch, capsys):
    from openclaw_memtui.cli.main import main

    argv, db = large_index_command

    def interrupted(fh, array):
        raise KeyboardInterrupt

    monkeypatch.setattr(matrix_file, "_write_array", interrupted)
    assert main(argv) == 130
    captured = capsys.readouterr()
    assert captured.err.strip().splitlines() == [
        "memtui: interrupted while saving the vector matrix; the index is complete and the app builds the matrix "
        "at launch (or run `memtui index` again)"]
    assert sorted(p.name for p in db.parent.iterdir() if p.name.startswith(db.name)) == ["i.sqlite", "i.sqlite.lock"]
    monkeypatch.undo()
    index = MemoryIndex(index_settings(validate({}), Path(argv[2]), db), provider_name="none", read_only=True)
    try:
        assert index.status(check_dirty=False).chunks == 40 and index.reads().count_embedded("text-embedding-3-small") == 40
    finally:
        index.close()
