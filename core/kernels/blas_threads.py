"""One BLAS thread while distance tiles are computed (one_blas_thread): the
same bits whatever the blocks, with threadpoolctl, shared safely by the
threads that compute tiles at once."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache


@cache
def _controller():
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


_blas_lock = threading.Lock()
_blas_users = 0
_blas_saved: list[tuple] = []  # the process-wide pools' counts while tiles are made


def _blas_libs() -> tuple[list, list]:
    """The BLAS libraries threadpoolctl finds: those whose threads are set
    per calling thread (OpenMP) and those with one process-wide pool."""
    libs = [lib for lib in _controller().lib_controllers if lib.user_api == "blas"]
    per_thread = [lib for lib in libs if getattr(lib, "threading_layer", None) == "openmp"]
    return per_thread, [lib for lib in libs if lib not in per_thread]


def _set_threads(lib, n: int) -> None:
    # threadpoolctl >= 3.6 lets only its first "controlling" thread set a
    # process-wide OpenBLAS pool and silently ignores the others; the count
    # here is kept by us (below), so the setting is made directly
    getattr(lib, "_real_set_num_threads", lib.set_num_threads)(n)


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """BLAS on one thread while any tile is being computed (the values of a
    product depend on the number of BLAS threads; our own threads use the
    cores).  A per-thread setting (OpenMP) is made and restored in the
    calling thread; a process-wide one is counted: set by the first tile in
    progress, restored when the last is done."""
    global _blas_users, _blas_saved
    per_thread, shared = _blas_libs()
    mine = [(lib, lib.get_num_threads()) for lib in per_thread]
    for lib, _ in mine:
        _set_threads(lib, 1)
    with _blas_lock:
        if _blas_users == 0:
            _blas_saved = [(lib, lib.get_num_threads()) for lib in shared]
            for lib, _ in _blas_saved:
                _set_threads(lib, 1)
        _blas_users += 1
    try:
        yield
    finally:
        with _blas_lock:
            _blas_users -= 1
            if _blas_users == 0:
                for lib, n in _blas_saved:
                    if n is not None:
                        _set_threads(lib, n)
                _blas_saved = []
        for lib, n in mine:
            if n is not None:
                _set_threads(lib, n)
