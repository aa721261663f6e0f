"""Ranking the rows of a dissimilarity matrix at the speed of a sort.

The ranked list of a row is its columns by ascending dissimilarity, ties
broken by column (what ``numpy.argsort(kind="stable")`` gives).  Instead of
an indirect sort, every value is turned into an unsigned integer of the same
order (the float's bits, with the sign bit flipped for positive numbers and
every bit flipped for negative ones; -0.0 counted as 0.0 and every NaN as
the one positive NaN, which sorts last as in numpy; readers refuse NaN) and
the column is packed
into its low bits; one ``sort`` of these uint64 keys per row then yields the
order directly.  A float32 keeps all its 32 bits (exact); a float64 gives up
its lowest mantissa bits to the column, so rows where that merges two
different values (told by a sorted row that goes down) are ranked again by
``argsort``.  Row blocks are split over the processor cores: numpy's sort
runs without the GIL.
"""

from __future__ import annotations

import functools
import os
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np

#: below this many values a block is ranked on one thread
PARALLEL_MIN = 1 << 18
_HIGH = 1 if sys.byteorder == "little" else 0  # the high uint32 of a uint64


def _monotone_bits(block: np.ndarray) -> np.ndarray:
    """Signed integers (same width as the floats) whose order as unsigned
    integers is the floats' order."""
    x = block + block.dtype.type(0)  # a copy, with -0.0 turned into 0.0
    nan = np.isnan(x)
    if nan.any():
        x[nan] = np.nan
    u = x.view(np.int32 if x.itemsize == 4 else np.int64)
    u ^= (u >> (8 * x.itemsize - 1)) | u.dtype.type(np.iinfo(u.dtype).min)
    return u


def _sorted_keys(block: np.ndarray) -> tuple[np.ndarray, int, bool]:
    """Every row's keys sorted, how many low bits hold the column, and
    whether the keys keep every bit of the values."""
    B, n = block.shape
    col_bits = max(int(n - 1).bit_length(), 1)
    u = _monotone_bits(block)
    if u.itemsize == 4 and col_bits <= 32:
        key = np.empty((B, n), dtype=np.uint64)
        words = key.view(np.uint32).reshape(B, n, 2)
        words[:, :, _HIGH] = u.view(np.uint32)
        words[:, :, 1 - _HIGH] = np.arange(n, dtype=np.uint32)
        col_bits, exact = 32, True
    else:
        exact = False
        key = u.view(np.uint32 if u.itemsize == 4 else np.uint64).astype(np.uint64, copy=False)
        if u.itemsize == 4:
            key <<= np.uint64(32)
        key &= np.uint64(~((1 << col_bits) - 1) & (2**64 - 1))
        key |= np.arange(n, dtype=np.uint64)
    key.sort(axis=1)
    return key, col_bits, exact


def tied_pairs(eq: np.ndarray) -> np.ndarray:
    """Per row, the pairs of equal values, from ``eq`` (B, n - 1): sorted
    value j + 1 equals value j.  A run of k equal values holds k (k - 1) / 2
    pairs; without runs longer than 2 that is the count of ``eq``."""
    pairs = np.count_nonzero(eq, axis=1).astype(np.int64)
    long_runs = np.flatnonzero((eq[:, 1:] & eq[:, :-1]).any(axis=1))
    if long_runs.size:
        r, c = np.nonzero(eq[long_runs])
        flat = r * (eq.shape[1] + 1) + c  # the pairs of one run are neighbours here
        pos = np.arange(flat.size)
        new_run = np.ones(flat.size, dtype=bool)
        new_run[1:] = flat[1:] != flat[:-1] + 1
        start = np.maximum.accumulate(np.where(new_run, pos, 0))
        pairs[long_runs] = np.bincount(r, weights=pos - start + 1, minlength=long_runs.size)
    return pairs


def rank_block(block: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Stable ascending order of every row of a 2-D float array (int32
    column indices) and the tied pairs of each row."""
    block = np.asarray(block)
    if block.dtype not in (np.float32, np.float64):
        block = block.astype(np.float64)
    key, col_bits, exact = _sorted_keys(block)
    order = (key & np.uint64((1 << col_bits) - 1)).astype(np.int32)
    if col_bits == 32:  # the high word (a view, no shift pass)
        high = key.view(np.uint32).reshape(*key.shape, 2)[:, :, _HIGH]
    else:
        high = key >> np.uint64(col_bits)
    eq = high[:, 1:] == high[:, :-1]  # equal values have equal keys above the column bits
    del key, high
    if not exact:  # equal keys above the column bits: compare the values themselves
        r, c = np.nonzero(eq)
        if r.size:
            first, second = block[r, order[r, c]], block[r, order[r, c + 1]]
            eq[r, c] = first == second
            down = np.unique(r[second < first])
            if down.size:  # values that differ only in the bits given to the column
                order[down] = np.argsort(block[down], axis=1, kind="stable")
                s = np.take_along_axis(block[down], order[down], axis=1)
                eq[down] = s[:, 1:] == s[:, :-1]
    return order, tied_pairs(eq)


def _workers() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


@functools.cache
def _pool() -> ThreadPoolExecutor:
    """Threads started once (starting two per block costs more than the
    sort of a small block on a busy machine); they only ever run
    :func:`rank_block`, so sharing them changes no result."""
    return ThreadPoolExecutor(_workers(), thread_name_prefix="rank_rows")


def rank_rows(get_rows, rows: np.ndarray, n_cols: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`rank_block` of ``get_rows(part)`` over parts of ``rows``, one
    part per core when the block is large enough."""
    parts = min(_workers(), max(1, rows.size * n_cols // PARALLEL_MIN), rows.size)
    if parts <= 1:
        return rank_block(get_rows(rows))
    pieces = np.array_split(rows, parts)
    done = list(_pool().map(lambda p: rank_block(get_rows(p)), pieces))
    return np.concatenate([d[0] for d in done]), np.concatenate([d[1] for d in done])
