"""The C allocator's treatment of the large temporary arrays of chunked
work, for the command line.

Readers and the engine make and drop arrays of a few MB per chunk (1 MiB of
text becomes token offsets, packed ids, byte rows).  glibc's ``malloc``
serves blocks that large with ``mmap`` and gives them back to the kernel when
they are freed, so every chunk faults its pages in again, each one zeroed by
the kernel: on a 280 MB run that was a fifth of the reading time, in the
kernel.  :func:`keep_freed_blocks` asks ``malloc`` (``mallopt``) to serve
blocks up to 256 MiB from its heap and to keep up to 1 GiB of freed heap
for reuse (on a ShapeNet-size contest: 40,000 page faults instead of
220,000, and a lower peak, 380 MB instead of 400).  The command line and
the desktop app set it at start; the app gives the freed memory back to the
system after each job (:func:`release_freed_blocks`).

Nothing changes on other C libraries (musl, macOS, Windows): the results
never depend on it, only the time.
"""

from __future__ import annotations

import ctypes
import sys

#: mallopt parameters (glibc's malloc.h)
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3


def keep_freed_blocks(mmap_threshold: int = 256 << 20, trim_threshold: int = 1 << 30) -> bool:
    """Whether glibc's ``malloc`` now keeps blocks below ``mmap_threshold``
    bytes in its heap and up to ``trim_threshold`` bytes of freed heap (False
    where there is no glibc)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, mmap_threshold)) & bool(
        mallopt(M_TRIM_THRESHOLD, trim_threshold)
    )


def release_freed_blocks() -> bool:
    """Give the freed heap back to the system (``malloc_trim``), e.g. once
    a job is done in a long-lived process; False where there is no glibc."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        trim = ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return False
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    trim(0)
    return True
