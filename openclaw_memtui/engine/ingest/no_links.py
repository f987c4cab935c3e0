"""Open a file by a path that no link takes anywhere else: Linux's openat2(2) with RESOLVE_NO_SYMLINKS.

The access rule (access.py) needs to know that a file it opens lies inside an allowed root. Opening by path
and then asking /proc where the descriptor really is answers that exactly, but the look-up builds the whole
path in the kernel again: a third of reading 10,000 notes in a first index. openat2 can answer it as part of
the open: resolving the path with RESOLVE_NO_SYMLINKS, the call fails (ELOOP) rather than follow a link in
any component, so the file it opens is the one whose real path is the path given, at the moment of the open;
a folder renamed or a link swapped in before it cannot send it elsewhere.

Python 3.11 has no `os.openat2`, so it is called through ctypes. Where it does not exist (another OS, a
kernel before 5.6, a container whose seccomp filter refuses it) `open_no_links` returns None from then on
and the caller judges each file by /proc, as before.
"""

from __future__ import annotations

import errno
import os
import sys
from typing import Any

# openat2's number is 437 on every architecture with the unified syscall table (x86 included); one that
# numbers it otherwise (mips, alpha, ia64) is left out rather than risk making another call
_SYS_OPENAT2 = 437
_UNIFIED_TABLE = {"x86_64", "i386", "i686", "aarch64", "arm64", "armv7l", "armv8l", "riscv64", "ppc64", "ppc64le",
                  "s390x", "loongarch64"}
_AT_FDCWD = -100
RESOLVE_NO_MAGICLINKS = 0x02
RESOLVE_NO_SYMLINKS = 0x04
# the call itself is missing or refused (not the path): no use trying again in this process
_UNAVAILABLE = {errno.ENOSYS, errno.EPERM, errno.E2BIG, errno.EINVAL}

_state: dict[str, Any] = {}  # the bound call and its argument once set up; "off": True once unavailable


def _setup() -> bool:
    if _state:
        return not _state.get("off")
    if not sys.platform.startswith("linux") or os.uname().machine not in _UNIFIED_TABLE:
        _state["off"] = True
        return False
    import ctypes

    class OpenHow(ctypes.Structure):  # struct open_how (linux/openat2.h)
        _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]

    try:
        syscall = ctypes.CDLL(None, use_errno=True).syscall
    except (OSError, AttributeError):
        _state["off"] = True
        return False
    syscall.restype = ctypes.c_long
    syscall.argtypes = [ctypes.c_long, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t]
    # read-only, never blocking on a FIFO (regular_file.py), and no link in any component, the last included
    how = OpenHow(os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOFOLLOW, 0,
                  RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)
    _state.update(call=syscall, how=how, ref=ctypes.byref(how), size=ctypes.sizeof(OpenHow),
                  get_errno=ctypes.get_errno)
    return True


def open_no_links(path: str) -> int | None:
    """A read-only, non-blocking descriptor of the file at the absolute `path`, resolved through no link
    at all; None when openat2 is unavailable or refused the path (a link in it, gone, ...): the caller
    then opens the file the ordinary way, which also gives the exact error."""
    if not _setup():
        return None
    fd = int(_state["call"](_SYS_OPENAT2, _AT_FDCWD, os.fsencode(path), _state["ref"], _state["size"]))
    if fd >= 0:
        return fd
    if _state["get_errno"]() in _UNAVAILABLE:
        _state["off"] = True
    return None


def available() -> bool:
    """Whether this process opens files with openat2 (the tests that depend on it skip elsewhere)."""
    if not _setup():
        return False
    fd = open_no_links("/")
    if fd is not None:
        os.close(fd)
    return not _state.get("off")
