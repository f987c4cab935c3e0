"""A saved (or in-memory) quantised matrix of an older index state is patched with the rows changed
since, instead of rebuilt: the results equal a matrix rebuilt from scratch, a rowid SQLite reused
is caught by its id's fingerprint, the app saves the merged matrix for the next start, a read
command never writes, and a large change still rebuilds."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

from openclaw_memtui.engine.index import MemoryIndex
from openclaw_memtui.engine.store import connection
from openclaw_memtui.engine.store.reader import IndexReader
from openclaw_memtui.engine.vectors import matrix_cache, matrix_delta, matrix_file, vector
from openclaw_memtui.engine.vectors.matrix import FloatMatrix, QuantizedMatrix
from openclaw_memtui.engine.vectors.matrix_delta import PatchedMatrix, diff, fingerprints, fingerprints_of_scan
from openclaw_memtui.engine.vectors.matrix_file import (
    MatrixStamp,
    load_matrix,
    matrix_path,
    save_matrix,
    saved_stamp,
    write_matrix,
)

from .helpers import write
from .test_matrix_file import matrix_and_stamp as _matrix_and_stamp
from .test_matrix_file import reopen
from .test_vector_matrix import Seeded, cone, matrix_of, seeded_index, vector_hits

QUERIES = ("subject 3 detail 10", "a transcript line", "Note 7", "brand new note", "edited words", "subject 5")


def rebuilt_hits(index: MemoryIndex, tmp_path) -> dict[str, dict[str, float]]:
    """What a matrix rebuilt from SQLite finds for each query (the file moved away, then put back)."""
    path = matrix_path(index.settings.db_path)
    aside = tmp_path / "aside.matrix"
    path.rename(aside)
    try:
        fresh = reopen(index)
        fresh.vector_searcher._persist = False
        hits = {q: vector_hits(fresh, q) for q in QUERIES}
        assert fresh.vector_searcher.loaded_from == "sqlite" and fresh.vector_searcher.last_path == "numpy-int8"
        fresh.close()
    finally:
        aside.rename(path)
    return hits


def edit_notes(index: MemoryIndex) -> None:
    """Four changed rows of 121: one added, one edited (dropped + added), one deleted."""
    memory = index.settings.workspace / "memory"
    write(memory / "fresh.md", "brand new note")
    write(memory / "n010.md", "edited words")
    (memory / "n020.md").unlink()
    index.sync()


def found_changes_by(index: MemoryIndex, via: str, monkeypatch) -> None:
    """Make the next patch find the changed rows `via` the writes' log only (a scan of every id fails
    the test) or by the scan (the log emptied, as after another memtui's writes)."""
    if via == "log":
        def no_scan(self):
            raise AssertionError("scanned every chunk id although the writes logged their rows")

        monkeypatch.setattr(IndexReader, "chunk_id_heads", no_scan)
        monkeypatch.setattr(IndexReader, "chunk_ids", no_scan)
    else:
        index.store.conn.execute("DELETE FROM chunk_changes")


@pytest.fixture
def saved(tmp_path):
    index = seeded_index(tmp_path)
    index.warm_up_vectors()  # the app's warm-up: builds and saves the matrix
    assert matrix_path(index.settings.db_path).exists()
    return index


@pytest.mark.parametrize("via", ["log", "scan"])
def test_a_saved_file_of_an_older_state_is_patched_and_finds_what_a_rebuild_finds(saved, tmp_path, monkeypatch, via):
    edit_notes(saved)
    found_changes_by(saved, via, monkeypatch)
    index = reopen(saved)
    patched = {q: vector_hits(index, q) for q in QUERIES}
    monkeypatch.undo()  # the rebuild below may scan
    searcher = index.vector_searcher
    assert searcher.loaded_from == "file" and isinstance(searcher._matrix, PatchedMatrix)
    assert searcher.patched_from == via
    assert searcher._matrix.delta_rows == 4
    assert patched == rebuilt_hits(index, tmp_path)
    assert "memory/n020.md" not in {p for hits in patched.values() for p in hits}
    assert max(patched["brand new note"], key=patched["brand new note"].get) == "memory/fresh.md"
    assert max(patched["edited words"], key=patched["edited words"].get) == "memory/n010.md"


@pytest.mark.parametrize("via", ["log", "scan"])
def test_the_matrix_in_memory_is_patched_after_a_sync(saved, tmp_path, monkeypatch, via):
    """The running app: a watcher's sync moves the generation; the next search patches the matrix
    it holds (no reload of the file, no rebuild) from the rows the sync logged, or by scanning every
    chunk id when the log does not reach back to the matrix's generation."""
    saved.retrieve("subject 1")
    base = saved.vector_searcher._base
    edit_notes(saved)
    found_changes_by(saved, via, monkeypatch)
    patched = {q: vector_hits(saved, q) for q in QUERIES}
    monkeypatch.undo()
    matrix = saved.vector_searcher._matrix
    assert isinstance(matrix, PatchedMatrix) and base is not None and matrix.base is base.matrix
    assert saved.vector_searcher.patched_from == via and matrix.delta_rows == 4
    assert patched == rebuilt_hits(saved, tmp_path)


def rewrite_n030_unlogged(saved, vector_from: str) -> None:
    """Another writer (an older memtui, a tool) gives memory/n030.md's first chunk another id and the
    vector of `vector_from`'s first chunk, and a new generation without logging the rows it changed."""
    conn = saved.store.conn
    rowid, = conn.execute("SELECT rowid FROM chunks WHERE path = 'memory/n030.md' LIMIT 1").fetchone()
    vector_of = conn.execute("SELECT embedding FROM chunks WHERE path = ? LIMIT 1", (vector_from,)).fetchone()[0]
    conn.execute("BEGIN")
    conn.execute("UPDATE chunks SET id = 'rewritten-elsewhere', embedding = ? WHERE rowid = ?", (vector_of, rowid))
    saved.store.bump_generation()  # no rows given: the step is not logged
    conn.execute("COMMIT")


def test_a_write_the_log_misses_between_two_logged_syncs_makes_the_patch_scan(saved, tmp_path):
    """Another writer (an older memtui, a tool) changed a chunk between two logged syncs: the log no
    longer chains from the matrix's generation, so the patch scans every id and still sees that change."""
    saved.retrieve("subject 1")
    memory = saved.settings.workspace / "memory"
    write(memory / "fresh.md", "brand new note")
    saved.sync()
    rewrite_n030_unlogged(saved, vector_from="memory/fresh.md")
    write(memory / "n010.md", "edited words")
    saved.sync()
    patched = {q: vector_hits(saved, q) for q in QUERIES}
    assert saved.vector_searcher.patched_from == "scan"
    assert "memory/n030.md" in patched["brand new note"]  # the unlogged row, found with its new vector
    assert patched == rebuilt_hits(saved, tmp_path)


def test_each_write_logs_the_rows_it_touched_and_the_log_is_pruned(saved, monkeypatch):
    conn = saved.store.conn
    before = saved.reads().generation()
    rowids = [r for (r,) in conn.execute("SELECT rowid FROM chunks WHERE path = 'memory/n010.md'")]
    write(saved.settings.workspace / "memory" / "n010.md", "edited words")
    saved.sync()
    now = saved.reads().generation()
    touched = np.frombuffer(saved.reads().changed_rowids(before, now), dtype="<i8").tolist()
    new_rowids = [r for (r,) in conn.execute("SELECT rowid FROM chunks WHERE path = 'memory/n010.md'")]
    assert set(touched) == set(rowids) | set(new_rowids)  # the deleted rows, the inserted ones (vectors: the same)
    assert saved.reads().changed_rowids(now, now) == b""
    assert saved.reads().changed_rowids(before - 1, now) is None  # not a generation the log reaches
    monkeypatch.setattr(connection, "CHANGE_LOG_STEPS", 2)
    for i in range(3):
        write(saved.settings.workspace / "memory" / f"more{i}.md", f"note {i}")
        saved.sync()
    assert conn.execute("SELECT count(*) FROM chunk_changes").fetchone()[0] == 2
    assert saved.reads().changed_rowids(now, saved.reads().generation()) is None  # pruned: a reader scans


@pytest.mark.parametrize("via", ["log", "scan"])
def test_a_rowid_reused_after_deleting_the_top_rows_is_not_taken_for_the_old_row(saved, tmp_path, monkeypatch, via):
    top = saved.reads().conn.execute("SELECT rowid, path FROM chunks ORDER BY rowid DESC LIMIT 2").fetchall()
    for _, path in top:
        (saved.settings.workspace / path).unlink()
    saved.sync()
    memory = saved.settings.workspace / "memory"
    write(memory / "reuse-a.md", "brand new note")
    write(memory / "reuse-b.md", "edited words")
    saved.sync()
    now = dict(saved.reads().conn.execute("SELECT path, rowid FROM chunks WHERE path LIKE 'memory/reuse-%'"))
    assert set(now.values()) == {rowid for rowid, _ in top}  # SQLite handed the deleted rowids out again
    found_changes_by(saved, via, monkeypatch)
    index = reopen(saved)
    patched = {q: vector_hits(index, q) for q in QUERIES}
    monkeypatch.undo()
    assert index.vector_searcher.patched_from == via
    assert isinstance(index.vector_searcher._matrix, PatchedMatrix) and index.vector_searcher._matrix.delta_rows == 4
    assert patched == rebuilt_hits(index, tmp_path)
    assert max(patched["brand new note"], key=patched["brand new note"].get) == "memory/reuse-a.md"
    assert patched["brand new note"]["memory/reuse-a.md"] == pytest.approx(1.0, abs=1e-5)
    assert not {p for _, p in top} & {p for hits in patched.values() for p in hits}


def test_the_app_saves_the_merged_matrix_and_the_next_start_maps_it_as_current(saved, tmp_path, monkeypatch):
    monkeypatch.setattr(matrix_cache, "MERGE_SAVE_ROWS", 3)
    path = matrix_path(saved.settings.db_path)
    edit_notes(saved)
    saved.warm_up_vectors()  # the app after a sync: patched, then merged and saved on a thread
    saved.vector_searcher.join_merge()
    in_memory = saved.vector_searcher._matrix
    assert isinstance(in_memory, QuantizedMatrix) and isinstance(in_memory.codes, np.memmap)  # the saved file, mapped
    reads = saved.reads()
    stamp = saved_stamp(path)
    assert stamp is not None and stamp.generation == reads.generation()
    merged, _, _ = load_matrix(path, stamp)
    rowids = [r for (r,) in reads.conn.execute(
        "SELECT rowid FROM chunks WHERE length(embedding) > 0 ORDER BY rowid")]
    assert merged.rowids.tolist() == rowids
    assert merged.fingerprints is not None
    assert merged.fingerprints.tolist() == fingerprints(i for (i,) in reads.conn.execute(
        "SELECT id FROM chunks WHERE length(embedding) > 0 ORDER BY rowid")).tolist()
    index = reopen(saved)
    hits = {q: vector_hits(index, q) for q in QUERIES}
    searcher = index.vector_searcher
    assert searcher.loaded_from == "file" and not isinstance(searcher._matrix, PatchedMatrix)
    assert hits == rebuilt_hits(index, tmp_path)


def test_a_small_delta_is_not_saved_and_a_read_command_never_writes(saved, monkeypatch):
    path = matrix_path(saved.settings.db_path)
    before = (path.stat().st_mtime_ns, path.read_bytes())
    edit_notes(saved)
    saved.warm_up_vectors()  # 4 rows: below MERGE_SAVE_ROWS, the file stays as it was
    saved.vector_searcher.join_merge()
    assert (path.stat().st_mtime_ns, path.read_bytes()) == before
    monkeypatch.setattr(matrix_cache, "MERGE_SAVE_ROWS", 1)
    monkeypatch.setattr(vector, "LOAD_INLINE_ROWS", 10)  # large: only a file can serve a one-shot search
    index = reopen(saved)  # a one-shot search (`memtui search`): patches in memory, writes nothing
    hits = vector_hits(index, "brand new note")
    index.vector_searcher.join_merge()
    assert index.vector_searcher.last_path == "numpy-int8" and isinstance(index.vector_searcher._matrix, PatchedMatrix)
    assert max(hits, key=hits.get) == "memory/fresh.md"
    assert (path.stat().st_mtime_ns, path.read_bytes()) == before


def test_a_large_delta_rebuilds(saved, monkeypatch):
    monkeypatch.setattr(matrix_delta, "REBUILD_ROWS", 3)  # 4 changed rows are now too many
    edit_notes(saved)
    index = reopen(saved)
    index.warm_up_vectors()
    assert index.vector_searcher.loaded_from == "sqlite"
    assert index.vector_searcher.file_problem == "4 rows changed since the matrix was built: rebuilding"
    assert saved_stamp(matrix_path(index.settings.db_path)).generation == index.reads().generation()


@pytest.mark.parametrize("damage", ["flip-fingerprint", "truncate"])
def test_a_damaged_stale_file_is_rebuilt_without_a_traceback(saved, damage):
    path = matrix_path(saved.settings.db_path)
    edit_notes(saved)
    data = bytearray(path.read_bytes())
    if damage == "flip-fingerprint":
        data[-3] ^= 0x10  # a byte of the last row's fingerprint: the checksum catches it
    else:
        data = data[:-8]
    path.write_bytes(bytes(data))
    index = reopen(saved)
    hits = vector_hits(index, "brand new note")
    index.warm_up_vectors()
    assert index.vector_searcher.loaded_from == "sqlite" and index.vector_searcher.file_problem
    assert max(hits, key=hits.get) == "memory/fresh.md"


def test_diff_finds_dropped_changed_and_new_rows():
    base_rowids = np.array([1, 2, 3, 5], dtype=np.int64)
    base_prints = np.array([10, 20, 30, 50], dtype=np.uint64)
    # row 2 deleted, row 3 kept, row 5 reused by another chunk, row 1 kept, row 7 new (any order)
    changes = diff(base_rowids, base_prints, np.array([7, 5, 3, 1], dtype=np.int64),
                   np.array([70, 55, 30, 10], dtype=np.uint64))
    assert changes.alive.tolist() == [True, False, True, False]
    assert changes.fresh.tolist() == [5, 7] and changes.rows == 4


def test_fingerprints_are_a_hex_ids_first_64_bits_and_a_hash_of_any_other_id():
    hexes = ["0123456789abcdef" + "0" * 48, "ffffffffffffffff" + "1" * 48]
    assert fingerprints(hexes).tolist() == [0x0123456789ABCDEF, 0xFFFFFFFFFFFFFFFF]
    others = ["id1", "id2", "z" * 64]
    mixed = fingerprints([hexes[0], *others]).tolist()
    assert mixed[0] == 0x0123456789ABCDEF  # an id is fingerprinted alike whatever ids share its batch
    assert mixed[1:] == fingerprints(others).tolist() and len(set(mixed)) == 4


def test_dropped_rows_never_take_a_place_in_the_candidates_and_the_merge_keeps_the_same_rows(tmp_path):
    floats = cone(600, seed=4)
    base = matrix_of(floats, np.ones(600, dtype=np.uint8))
    base.fingerprints = np.arange(600, dtype=np.uint64)
    q = cone(1, seed=9)[0]
    nearest = np.argsort(-(floats @ q))[:5]
    alive = np.ones(600, dtype=bool)
    alive[nearest] = False  # the five best rows were deleted from the index
    added = cone(3, seed=11)
    fresh = FloatMatrix(floats.shape[1])
    fresh.add(np.array([600, 601, 602]), added, np.ones(3, dtype=np.uint8))
    patched = PatchedMatrix(base, alive, fresh, np.array([7000, 7001, 7002], dtype=np.uint64))
    found = patched.candidates(q, 5, shortlist=600, labels=None).tolist()
    assert not set(found) & set(nearest.tolist()) and {600, 601, 602} <= set(found)
    path = tmp_path / "merged.matrix"
    stamp = MatrixStamp("id-1", 2, "m", floats.shape[1])
    rows = patched.merged()
    write_matrix(path, stamp, {"memory": 1}, rows.rows, rows.unfitted_rows, rows.arrays())
    merged, _, _ = load_matrix(path, stamp)
    assert merged.unfitted_rows == 3
    assert merged.rowids.tolist() == sorted([*np.flatnonzero(alive).tolist(), 600, 601, 602])
    assert merged.fingerprints is not None and merged.fingerprints[-3:].tolist() == [7000, 7001, 7002]
    # the merged rows score as the base's and the delta's did: the same top rows, found in one matrix
    every = np.concatenate([floats, added])
    rowids = np.concatenate([np.arange(600), [600, 601, 602]])
    live = np.concatenate([alive, [True] * 3])
    best = rowids[live][np.argsort(-(every[live] @ q))[:3]].tolist()
    assert set(best) <= set(merged.search(q, 10, shortlist=603)[0].tolist())


def test_the_aggregated_scan_gives_each_rows_fingerprint_or_defers_to_the_per_id_rule(saved):
    reads = saved.reads()
    scanned = fingerprints_of_scan(*reads.chunk_id_heads())
    assert scanned is not None
    rows = sorted(reads.chunk_ids())
    order = np.argsort(scanned[0])
    assert scanned[0][order].tolist() == [r for r, _ in rows]
    assert scanned[1][order].tolist() == fingerprints(i for _, i in rows).tolist()
    heads = [(r, "id7" if r == rows[0][0] else i) for r, i in rows]  # one id not written by sync
    short = (len(heads), len(heads) - 1, ",".join(str(r) for r, _ in heads), "".join(i[:16] for _, i in heads))
    assert fingerprints_of_scan(*short) is None
    assert fingerprints_of_scan(0, 0, "", "")[0].tolist() == []


def test_an_index_whose_ids_are_not_hex_digests_is_patched_too(tmp_path):
    index = seeded_index(tmp_path)
    index.store.conn.execute("UPDATE chunks SET id = 'old-' || rowid")  # ids of another writer
    index.warm_up_vectors()
    edit_notes(index)
    again = reopen(index)
    hits = {q: vector_hits(again, q) for q in QUERIES}
    matrix = again.vector_searcher._matrix
    assert isinstance(matrix, PatchedMatrix) and matrix.delta_rows == 4
    assert hits == rebuilt_hits(again, tmp_path)


class _Offline(Seeded):
    """The seeded provider, down: every embedding call fails, so new chunks stay without a vector."""

    def embed_batch(self, texts):
        raise RuntimeError("provider offline")


def test_chunks_left_without_a_vector_do_not_count_as_changed_rows(saved, monkeypatch):
    """A reviewer's case: an embedding pass that failed left chunks pending, and each later sync took
    them for changed rows against every base, rebuilt and rewrote the file."""
    monkeypatch.setattr(matrix_delta, "REBUILD_ROWS", 5)
    saved._provider = _Offline()
    memory = saved.settings.workspace / "memory"
    for i in range(8):
        write(memory / f"offline{i}.md", f"written while the provider was down {i}")
    with contextlib.suppress(Exception):  # the embedding pass fails; the chunks are kept without vectors
        saved.sync()
    write(memory / "n010.md", "edited words")  # one row dropped; its new chunk waits for a vector too
    with contextlib.suppress(Exception):
        saved.sync()
    reads = saved.reads()
    assert reads.count_chunks() - reads.count_embedded(saved.provider.model) == 9
    saved.warm_up_vectors()
    searcher = saved.vector_searcher
    assert isinstance(searcher._matrix, PatchedMatrix) and "rebuilding" not in searcher.file_problem
    assert searcher._matrix.delta_rows == 1 and searcher._matrix.fresh.size == 0


def test_merges_that_add_up_past_the_limit_refit_the_quantisation(saved, monkeypatch):
    """Merged rows are quantised with the first fit's mean and scales; once they add up past the
    rebuild limit the matrix is rebuilt (fitted again) even though each sync's change was small."""
    monkeypatch.setattr(matrix_cache, "MERGE_SAVE_ROWS", 1)
    monkeypatch.setattr(matrix_delta, "REBUILD_ROWS", 5)
    path, memory = matrix_path(saved.settings.db_path), saved.settings.workspace / "memory"
    unfitted = []
    for round_ in range(3):
        for i in range(2):
            write(memory / f"round{round_}-{i}.md", f"new note {round_} {i}")
        saved.sync()
        saved.warm_up_vectors()
        saved.vector_searcher.join_merge()
        unfitted.append(load_matrix(path, saved_stamp(path))[0].unfitted_rows)
        if round_ < 2:  # patched: the reason an earlier load gave ("no matrix file") is not kept
            assert saved.vector_searcher.file_problem == ""
    assert unfitted == [2, 4, 0]  # 2 changed + 4 merged before > 5: rebuilt, nothing unfitted
    assert saved.vector_searcher.file_problem == (
        "2 rows changed since the matrix was built (and 4 merged in since its fit): rebuilding")


@pytest.mark.parametrize("mapped", [True, False])
def test_a_merge_streams_the_same_arrays_block_by_block_from_a_mapped_or_in_memory_base(tmp_path, monkeypatch, mapped):
    """Each merged array, written in blocks of 7 rows (the last one partial; delta rows at the start,
    inside and past the end), equals the base's kept rows and the delta's put together and sorted by
    rowid. A mapped base gives up its copied pages on the way (`release_pages`) and still reads the
    same afterwards; a base in memory is never touched."""
    monkeypatch.setattr(matrix_delta, "_MERGE_BLOCK", 7)
    floats = cone(60, seed=5)
    base = matrix_of(floats, np.where(np.arange(60) % 3 == 0, 1, 2).astype(np.uint8))
    base.rowids = (np.arange(60, dtype=np.int64) + 1) * 10  # 10, 20, … 600
    base.fingerprints = np.arange(60, dtype=np.uint64) + 100
    stamp = MatrixStamp("id-1", 1, "m", floats.shape[1])
    if mapped:
        save_matrix(tmp_path / "base.matrix", base, {"memory": 1, "sessions": 2}, stamp)
        base = load_matrix(tmp_path / "base.matrix", stamp)[0]
    n = base.size
    before = {"rowids": np.array(base.rowids[:n]), "labels": np.array(base.labels[:n]), "codes": np.array(base.codes[:n]),
              "bits": np.array(base.bits[:, :n])}
    rng = np.random.default_rng(6)
    alive = rng.random(60) < 0.7
    fresh_rowids = np.array([605, 5, 333, 41, 990])  # unsorted, as the reads may return them
    added = cone(5, seed=12)
    fresh = FloatMatrix(floats.shape[1])
    fresh.add(fresh_rowids, added, np.array([2, 1, 2, 1, 2], dtype=np.uint8))
    patched = PatchedMatrix(base, alive, fresh, fresh_rowids.astype(np.uint64) + 7000)
    rows = patched.merged()
    blocks = rows.arrays()
    got = {name: np.concatenate(list(blocks[name])) for name in ("rowids", "labels", "codes", "fingerprints")}
    got["bits"] = np.concatenate(list(blocks["bits"])).reshape(base.words, rows.rows)
    quantised = QuantizedMatrix(base.dims, base.mean, base.scale)
    quantised.add(fresh_rowids, added, fresh.labels[:5])
    order = np.argsort(np.concatenate([before["rowids"][alive], fresh_rowids]))
    assert got["rowids"].tolist() == sorted([*before["rowids"][alive].tolist(), *fresh_rowids.tolist()])
    assert np.array_equal(got["labels"], np.concatenate([before["labels"][alive], quantised.labels[:5]])[order])
    assert np.array_equal(got["codes"], np.concatenate([before["codes"][alive], quantised.codes[:5]])[order])
    assert np.array_equal(got["bits"], np.concatenate([before["bits"][:, alive], quantised.bits[:, :5]], axis=1)[:, order])
    assert np.array_equal(got["fingerprints"], np.concatenate([base.fingerprints[alive], fresh_rowids + 7000])[order])
    # the released pages map in again unchanged; memory of our own is kept
    assert np.array_equal(base.codes[:n], before["codes"]) and np.array_equal(base.bits[:, :n], before["bits"])
    assert np.array_equal(base.rowids[:n], before["rowids"]) and np.array_equal(base.labels[:n], before["labels"])


def test_release_pages_leaves_memory_of_our_own_alone_and_a_mapping_readable(tmp_path):
    own = np.arange(200_000, dtype=np.int64)
    matrix_file.release_pages(own[1000:150_000])  # MADV_DONTNEED here would zero these rows
    assert np.array_equal(own, np.arange(200_000, dtype=np.int64))
    path = tmp_path / "m.matrix"
    matrix, labels, stamp = _matrix_and_stamp()
    save_matrix(path, matrix, labels, stamp)
    loaded = load_matrix(path, stamp)[0]
    matrix_file.release_pages(loaded.codes)
    assert np.array_equal(loaded.codes, matrix.codes[: matrix.size])


def test_after_a_patch_by_scan_the_next_logged_sync_patches_from_the_log(saved, tmp_path, monkeypatch):
    """The app once had to scan (another writer's change the log lacks); the matrix in memory is its
    base patched. The next watcher sync logs its rows, and the log reaches back to that patched
    state: the rows it dropped and added plus the newly logged ones are compared, no second scan."""
    saved.retrieve("subject 1")
    rewrite_n030_unlogged(saved, vector_from="memory/n040.md")
    saved.retrieve("subject 1")
    assert saved.vector_searcher.patched_from == "scan"
    edit_notes(saved)  # logged
    found_changes_by(saved, "log", monkeypatch)
    patched = {q: vector_hits(saved, q) for q in QUERIES}
    monkeypatch.undo()
    matrix = saved.vector_searcher._matrix
    assert saved.vector_searcher.patched_from == "log" and isinstance(matrix, PatchedMatrix)
    assert matrix.delta_rows == 6  # the scan's row (dropped + added) and the sync's four
    assert patched == rebuilt_hits(saved, tmp_path)
