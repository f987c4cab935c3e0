"""The quantised vector matrix saved beside the index (`<index>.matrix`), so a restart maps it in
in a fraction of the time rebuilding it from every vector in SQLite takes (docs/benchmarks.md, "Scale").

The file is a cache, never a source of truth: its header names the index state it was built from
(the index's random id, its generation counter, the model and the vector size), and it is used
only when that state is the index's state now, its size is exactly what the header implies and a
CRC32 of its body matches. Anything else (stale, another index's, truncated, corrupt, an older
format) reads as "no file" and the matrix is rebuilt from SQLite. Every row it returns is rescored
from the float32 vectors in SQLite anyway (`vector.rescore`), so even an undetected bad byte could
only cost recall, never a wrong score.

A file for an older generation of the same index (same id, model and size) is still useful: each
row carries the first 64 bits of its chunk's id (`fingerprints`), and a chunk's id fixes its vector
for a model, so `matrix_delta` finds the rows changed since by comparing (rowid, fingerprint) pairs
with the index, and only those are read from SQLite (`load_matrix(..., any_generation=True)`).

Layout: a 32-byte prefix (magic, format version, header length, header CRC32), the header as JSON,
then mean, scale, the sign bits' dimensions, rowids, labels, codes, sign bits and fingerprints at 64-byte
aligned offsets, each in native little-endian order. The file is written to a temp name, fsynced and
renamed (a crash leaves the old file or none), mode 0600; it is memory-mapped read-only on load, so loading copies nothing and
the body's pages are shared with the page cache. The body's CRC is read from the descriptor, not
through the mapping, so the mapping's pages become resident only as searches touch them; a merge
streams its rows from the old mapping into the new file (`write_matrix`), dropping the old pages as
it goes (`release_pages`).
"""

from __future__ import annotations

import contextlib
import glob
import json
import mmap
import os
import stat
import struct
import sys
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from ..store.files import fsync_path
from .matrix import QuantizedMatrix, code_bytes, sign_bits
from .matrix_names import SUFFIX as SUFFIX
from .matrix_names import matrix_path as matrix_path

MAGIC = b"MEMTUIQM"
FORMAT_VERSION = 4  # 2: a fingerprint per row; 4: 4-bit codes, sign bits of chosen dims. An older file is rebuilt
_PREFIX = struct.Struct("<8sIII12x")  # magic, version, header bytes, header crc32; 32 bytes
_ALIGN = 64
_CRC_SLICE = 16 << 20  # the CRC runs over 16 MB slices: zlib releases the GIL for each, the app's loop keeps its turns


@dataclass(frozen=True)
class MatrixStamp:
    """The index state a matrix was built from: a matrix file is used only for the same state."""

    index_id: str  # random, set once per index file: a rebuilt or replaced index has another one
    generation: int  # bumped by every write that changes chunks or vectors
    model: str
    dims: int


def _layout(dims: int, rows: int) -> list[tuple[str, np.dtype[Any], tuple[int, ...]]]:
    words = (sign_bits(dims) + 63) // 64
    return [("mean", np.dtype("<f4"), (dims,)), ("scale", np.dtype("<f4"), (dims,)),
            ("bitdims", np.dtype("<u2"), (sign_bits(dims),)),
            ("rowids", np.dtype("<i8"), (rows,)), ("labels", np.dtype("u1"), (rows,)),
            ("codes", np.dtype("u1"), (rows, code_bytes(dims))), ("bits", np.dtype("<u8"), (words, rows)),
            ("fingerprints", np.dtype("<u8"), (rows,))]


def _offsets(start: int, dims: int, rows: int) -> tuple[list[int], int]:
    """Where each array starts, and where the file ends."""
    offsets, at = [], start
    for _, dtype, shape in _layout(dims, rows):
        at = -(-at // _ALIGN) * _ALIGN
        offsets.append(at)
        at += dtype.itemsize * int(np.prod(shape))
    return offsets, at


# -- writing -----------------------------------------------------------------------------------------
def save_matrix(path: Path, matrix: QuantizedMatrix, labels: dict[str, int], stamp: MatrixStamp) -> None:
    """Write `matrix` for `stamp` atomically (see `write_matrix`)."""
    n = matrix.size
    # without fingerprints (a matrix not built from an index) every row reads as changed: no delta, a rebuild
    fingerprints = matrix.fingerprints[:n] if matrix.fingerprints is not None else np.zeros(n, dtype=np.uint64)
    arrays: dict[str, np.ndarray] = {
        "mean": matrix.mean, "scale": matrix.scale, "bitdims": matrix.bit_dims,
        "rowids": matrix.rowids[:n], "labels": matrix.labels[:n],
        "codes": matrix.codes[:n], "bits": matrix.bits[:, :n], "fingerprints": fingerprints}
    write_matrix(path, stamp, labels, n, matrix.unfitted_rows, {name: [array] for name, array in arrays.items()})


def write_matrix(path: Path, stamp: MatrixStamp, labels: dict[str, int], rows: int, unfitted: int,
                 arrays: Mapping[str, Iterable[np.ndarray]]) -> None:
    """Write a matrix of `rows` rows for `stamp` atomically: a temp file in the same folder (0600),
    fsynced, renamed over `path`. On any error the temp file is removed and the old file, if any, is
    left as it was.

    `arrays` gives each array of the layout by name as blocks whose bytes, one after the other, are
    the array's (row-major; the sign bits word by word): a merge streams its rows from the old
    mapping into the file and never holds the merged matrix in memory (`matrix_delta.MergedRows`).
    The CRC is taken as the blocks are written; the header, written last, has room for any CRC."""
    if sys.byteorder != "little":  # the layout is little-endian; a big-endian machine rebuilds from SQLite
        return
    header: dict[str, Any] = {**asdict(stamp), "rows": rows, "labels": labels, "unfitted": unfitted, "crc32": 0xFFFFFFFF}
    room = len(json.dumps(header, sort_keys=True).encode())  # the widest CRC; JSON allows the trailing blanks
    offsets, end = _offsets(_PREFIX.size + room, stamp.dims, rows)
    remove_stale_temps(path)
    temp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    # O_EXCL | O_NOFOLLOW: a link (or any file) planted at this predictable name is never written through
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        os.fchmod(fd, 0o600)  # the mode given to open is filtered by the umask
        with os.fdopen(fd, "wb", closefd=True) as fh:
            crc = 0
            for (name, dtype, shape), offset in zip(_layout(stamp.dims, rows), offsets, strict=True):
                fh.write(b"\0" * (offset - fh.tell()))  # the header's room, then each array's alignment
                written = 0
                for block in arrays[name]:
                    block = np.ascontiguousarray(block, dtype=dtype)
                    crc = _crc(block, crc)
                    _write_array(fh, block)
                    written += block.nbytes
                if written != dtype.itemsize * int(np.prod(shape)):  # a programming error: never rename it
                    raise ValueError(f"matrix file: {name} has {written} bytes, expected {dtype.itemsize * int(np.prod(shape))}")
            if fh.tell() != end:
                raise OSError(f"matrix file size {fh.tell()} != {end}")
            raw = json.dumps({**header, "crc32": crc}, sort_keys=True).encode().ljust(room)
            fh.seek(0)
            fh.write(_PREFIX.pack(MAGIC, FORMAT_VERSION, room, zlib.crc32(raw)) + raw)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise
    _fsync_folder(path.parent)


def _write_array(fh: BinaryIO, array: np.ndarray) -> None:
    view = array.reshape(-1).view(np.uint8).data
    for start in range(0, len(view), _CRC_SLICE):  # each write releases the GIL
        fh.write(view[start : start + _CRC_SLICE])


def _crc(array: np.ndarray, crc: int) -> int:
    view = array.reshape(-1).view(np.uint8).data
    for start in range(0, len(view), _CRC_SLICE):
        crc = zlib.crc32(view[start : start + _CRC_SLICE], crc)
    return crc


def _fsync_folder(folder: Path) -> None:
    with contextlib.suppress(OSError):  # not every platform or file system can sync a folder
        fsync_path(folder)


def remove_stale_temps(path: Path) -> None:
    """Delete the temp files of writers that died mid-write: at 1M rows each is ~440 MB. Only names we
    write (`<matrix>.tmp-<pid>`, the pid a process that is gone) that are regular files: a user's
    `….tmp-backup`, a symlink or a FIFO there is not ours to delete."""
    for leftover in path.parent.glob(glob.escape(path.name) + ".tmp-*"):
        pid = leftover.name.rsplit("-", 1)[1]
        if not (pid.isascii() and pid.isdigit()) or _writer_alive(int(pid)):
            continue
        with contextlib.suppress(OSError):
            if stat.S_ISREG(os.lstat(leftover).st_mode):
                leftover.unlink()


def remove_foreign(path: Path, index_id: str) -> bool:
    """Delete the matrix file at `path` if it is ours and can never be used again: saved for another
    index than `index_id` (the index at that path was rebuilt, replaced or deleted and built anew) or
    in an older format. ~440 MB at 1M rows. Only a regular file (a symlink is not followed) that starts
    with our magic is removed, and only while it is still the file read; temp files of dead writers go
    too. True when the file was removed. A sync calls it; read commands never do."""
    if not index_id:
        return False  # an index an older memtui built has no id yet: nothing to compare with
    remove_stale_temps(path)
    try:
        fh = _open_regular(path, follow_symlinks=False)
    except (UnusableMatrixFile, OSError):
        return False  # none, a symlink, unreadable, a directory or a FIFO: not ours to delete
    with fh:
        prefix = fh.read(_PREFIX.size)
        if len(prefix) != _PREFIX.size or _PREFIX.unpack(prefix)[0] != MAGIC:
            return False  # not a file we wrote
        if _PREFIX.unpack(prefix)[1] > FORMAT_VERSION:
            return False  # a newer memtui's, sharing this index: it can still use it
        if _PREFIX.unpack(prefix)[1] == FORMAT_VERSION:
            fh.seek(0)
            try:
                header, _ = _read_header(fh)
            except (UnusableMatrixFile, OSError):
                return False  # damaged: the next save replaces it
            if header["index_id"] == index_id:
                return False
        try:
            if os.stat(path, follow_symlinks=False).st_ino != os.fstat(fh.fileno()).st_ino:
                return False  # replaced meanwhile (a save for the new index): keep that one
            path.unlink()
        except OSError:
            return False
    return True


def _writer_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True  # ours: a save in progress (saves are serialised by the caller)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):
        return True  # alive and another user's, or no pid at all: keep the file
    return True


# -- reading -----------------------------------------------------------------------------------------
class UnusableMatrixFile(Exception):
    """The file is absent, stale, another index's or damaged: rebuild from SQLite."""


def _open_regular(path: Path, follow_symlinks: bool = True) -> BinaryIO:
    """`path` opened for reading if it is a regular file (after symlinks, unless `follow_symlinks` is
    False: then a symlink fails to open, OSError); UnusableMatrixFile otherwise.

    Opened without blocking and checked on the open descriptor: a FIFO put at the path would
    otherwise hang every search waiting for a writer, and a check by name could be raced."""
    no_follow = 0 if follow_symlinks else getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | no_follow | getattr(os, "O_CLOEXEC", 0))
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise UnusableMatrixFile("not a regular file")
    return os.fdopen(fd, "rb")


def saved_stamp(path: Path) -> MatrixStamp | None:
    """The index state the file says it was built for (its header only; the body is not checked), or None."""
    try:
        with _open_regular(path) as fh:
            header, _ = _read_header(fh)
    except (UnusableMatrixFile, OSError):
        return None
    return MatrixStamp(header["index_id"], header["generation"], header["model"], header["dims"])


def _read_header(fh: BinaryIO) -> tuple[dict[str, Any], int]:
    """The header and its length, checked against its own CRC; raises UnusableMatrixFile."""
    size = os.fstat(fh.fileno()).st_size
    prefix = fh.read(_PREFIX.size)
    if len(prefix) != _PREFIX.size:
        raise UnusableMatrixFile("truncated header")
    magic, version, header_len, header_crc = _PREFIX.unpack(prefix)
    if magic != MAGIC:
        raise UnusableMatrixFile("not a memtui matrix file")
    if version != FORMAT_VERSION:
        raise UnusableMatrixFile(f"format {version}, expected {FORMAT_VERSION}")
    if header_len > min(size, 1 << 20):
        raise UnusableMatrixFile("truncated header")
    raw = fh.read(header_len)
    if len(raw) != header_len or zlib.crc32(raw) != header_crc:
        raise UnusableMatrixFile("damaged header")
    return _parse_header(raw), header_len


def load_matrix(path: Path, stamp: MatrixStamp, *, any_generation: bool = False) -> tuple[QuantizedMatrix, dict[str, int], int]:
    """The matrix saved for `stamp`, memory-mapped read-only, its source labels and the generation it
    was saved at. With `any_generation`, a file of an older generation of the same index, model and
    size is accepted too (the caller brings it up to date with `matrix_delta`).

    Raises UnusableMatrixFile (with the reason) for a missing, stale, foreign, truncated or
    corrupt file; never anything else for bad bytes."""
    try:
        fh = _open_regular(path)
    except FileNotFoundError:
        raise UnusableMatrixFile("no matrix file") from None
    except OSError as exc:
        raise UnusableMatrixFile(f"unreadable: {exc.strerror or exc}") from None
    with fh:
        return _load_open(fh, stamp, any_generation)


def _load_open(fh: BinaryIO, stamp: MatrixStamp, any_generation: bool) -> tuple[QuantizedMatrix, dict[str, int], int]:
    try:
        size = os.fstat(fh.fileno()).st_size
        header, header_len = _read_header(fh)
    except OSError as exc:
        raise UnusableMatrixFile(f"unreadable: {exc.strerror or exc}") from None
    found = MatrixStamp(header["index_id"], header["generation"], header["model"], header["dims"])
    same_index = (found.index_id, found.model, found.dims) == (stamp.index_id, stamp.model, stamp.dims)
    if found != stamp and not (any_generation and same_index and found.generation <= stamp.generation):
        raise UnusableMatrixFile("built for another index state")
    rows, dims = header["rows"], header["dims"]
    offsets, end = _offsets(_PREFIX.size + header_len, dims, rows)
    if size != end:
        raise UnusableMatrixFile(f"{size} bytes, expected {end}")
    if rows == 0:
        raise UnusableMatrixFile("empty")
    try:
        mapped = np.memmap(fh, dtype=np.uint8, mode="r")  # the descriptor checked above, not the name again
    except (OSError, ValueError) as exc:
        raise UnusableMatrixFile(f"cannot be mapped: {exc}") from None
    if len(mapped) != end:  # replaced between the checks and the mapping
        raise UnusableMatrixFile("changed while being read")
    arrays, spans = [], []
    for (_, dtype, shape), offset in zip(_layout(dims, rows), offsets, strict=True):
        count = int(np.prod(shape))
        arrays.append(mapped[offset : offset + count * dtype.itemsize].view(dtype).reshape(shape))
        spans.append((offset, count * dtype.itemsize))
    if _file_crc(fh, spans) != header["crc32"]:
        raise UnusableMatrixFile("damaged body (checksum)")
    mean, scale, bit_dims, rowids, labels, codes, bits, fingerprints = arrays
    if len(bit_dims) and (int(bit_dims[-1]) >= dims or not bool(np.all(bit_dims[1:] > bit_dims[:-1]))):
        raise UnusableMatrixFile("sign-bit dimensions out of range")
    if rows > 1 and not bool(np.all(rowids[1:] > rowids[:-1])):
        raise UnusableMatrixFile("row ids out of order")
    sources: dict[str, int] = header["labels"]
    if int(labels.max()) > max(sources.values(), default=0):
        raise UnusableMatrixFile("unknown source label")
    matrix = QuantizedMatrix.from_arrays(mean, scale, bit_dims, rowids, labels, codes, bits, fingerprints)
    matrix.unfitted_rows = header["unfitted"]
    return matrix, sources, found.generation


def _file_crc(fh: BinaryIO, spans: list[tuple[int, int]]) -> int:
    """CRC32 of the file's bytes in `spans` (offset, length), read from the descriptor rather than
    through the mapping: reading through it would make every page of the file resident in this
    process (321 MB at 1M rows of 512 dims) at once; read, they stay in the page cache and the mapping's pages
    come in as searches touch them. Each read and CRC of a 16 MB slice releases the GIL."""
    buffer = memoryview(bytearray(_CRC_SLICE))
    crc = 0
    for offset, length in spans:
        fh.seek(offset)
        while length:
            got = fh.readinto(buffer[: min(length, _CRC_SLICE)])  # type: ignore[attr-defined]
            if not got:
                raise UnusableMatrixFile("changed while being read")
            crc = zlib.crc32(buffer[:got], crc)
            length -= got
    return crc


def release_pages(view: np.ndarray) -> None:
    """Drop the pages under `view` from this process's resident memory when `view` lies in a
    read-only file mapping (a loaded matrix file): the bytes stay in the file and the page cache, and
    a later access maps them in again unchanged. Anything else (memory of our own) is left alone:
    MADV_DONTNEED would zero it. A merge calls it on the rows it has copied out of the old file."""
    root = view
    while isinstance(root.base, np.ndarray):
        root = root.base
    mapping = root.base
    if not isinstance(mapping, mmap.mmap) or view.size == 0 or not hasattr(mapping, "madvise"):
        return
    start = view.ctypes.data - root.ctypes.data
    first = start - start % mmap.PAGESIZE
    last = min(start + view.nbytes, len(mapping))
    with contextlib.suppress(OSError, ValueError):  # advice only
        mapping.madvise(mmap.MADV_DONTNEED, first, last - first)


def _parse_header(raw: bytes) -> dict[str, Any]:
    try:
        header = json.loads(raw)
    except ValueError:
        raise UnusableMatrixFile("damaged header") from None
    kinds = {"index_id": str, "generation": int, "model": str, "dims": int, "rows": int, "labels": dict, "crc32": int}
    if not isinstance(header, dict) or any(not isinstance(header.get(k), t) for k, t in kinds.items()):
        raise UnusableMatrixFile("damaged header")
    header.setdefault("unfitted", 0)  # a file saved before it was recorded: counted from now on
    if not isinstance(header["unfitted"], int) or header["unfitted"] < 0:
        raise UnusableMatrixFile("damaged header")
    if not 0 < header["dims"] <= 65536 or header["rows"] < 0:
        raise UnusableMatrixFile("damaged header")
    labels = header["labels"]
    if any(not isinstance(v, int) or not 0 < v < 256 for v in labels.values()):
        raise UnusableMatrixFile("damaged header")
    return header
