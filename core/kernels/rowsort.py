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

The engine needs only where the judged items landed: :func:`rank_pairs`
finds their keys in the sorted rows by binary search, so a scored matrix
never has its order made at all (one pass less over every entry).
"""

from __future__ import annotations

import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

#: below this many values a block is ranked on one thread
PARALLEL_MIN = 1 << 18
_HIGH = 1 if sys.byteorder == "little" else 0  # the high uint32 of a uint64


def _monotone_bits(block: np.ndarray, finite: bool = False, out=None) -> np.ndarray:
    """Signed integers (same width as the floats, in ``out`` when given)
    whose order as unsigned integers is the floats' order; ``finite``: the
    caller knows there is no NaN (one pass less).  Where no value is
    negative (dissimilarities, as a rule) the bits are that order already."""
    x = np.add(block, block.dtype.type(0), out=out)  # a copy, with -0.0 turned into 0.0
    if not finite and x.size and np.isnan(x.max()):  # max() is NaN where any value is
        x[np.isnan(x)] = np.nan
    u = x.view(np.int32 if x.itemsize == 4 else np.int64)
    if x.size and x.min() >= 0:  # (False where a NaN is left)
        return u
    flip = u >> (8 * x.itemsize - 1)
    flip |= u.dtype.type(np.iinfo(u.dtype).min)
    u ^= flip
    return u


def _sorted_keys(
    block: np.ndarray, pick: tuple[np.ndarray, np.ndarray] | None = None, finite: bool = False
) -> tuple[np.ndarray, int, bool, np.ndarray | None]:
    """Every row's keys sorted, how many low bits hold the column, whether
    the keys keep every bit of the values, and the keys of the entries
    ``pick`` = (rows, columns) (taken before the sort)."""
    B, n = block.shape
    col_bits = max(int(n - 1).bit_length(), 1)
    if block.dtype == np.float32 and col_bits <= 32:
        u = _monotone_bits(block, finite)
        key = np.empty((B, n), dtype=np.uint64)
        words = key.view(np.uint32).reshape(B, n, 2)
        words[:, :, _HIGH] = u.view(np.uint32)
        del u
        words[:, :, 1 - _HIGH] = np.arange(n, dtype=np.uint32)
        col_bits, exact = 32, True
    else:
        exact = False
        low = ~((1 << col_bits) - 1)
        bits = block.view(np.int64) if block.dtype == np.float64 else None
        if bits is not None and finite and bits.size and bits.min() >= 0:
            # no sign bit anywhere (no negative value, no -0.0): the bits are
            # in order as they are, masked straight into the keys
            key = np.bitwise_and(bits, low).view(np.uint64)
        else:
            if bits is not None:  # made in place in the keys' own memory
                key = np.empty((B, n), dtype=np.uint64)
                _monotone_bits(block, finite, out=key.view(np.float64))
            else:
                key = _monotone_bits(block, finite).view(np.uint32).astype(np.uint64)
                key <<= np.uint64(32)
            key &= np.uint64(low & (2**64 - 1))
        key |= np.arange(n, dtype=np.uint64)
    picked = key[pick] if pick is not None else None
    key.sort(axis=1)
    return key, col_bits, exact, picked


def tied_pairs(eq: np.ndarray, pairs: np.ndarray | None = None) -> np.ndarray:
    """Per row, the pairs of equal values, from ``eq`` (B, n - 1): sorted
    value j + 1 equals value j.  A run of k equal values holds k (k - 1) / 2
    pairs; without runs longer than 2 that is the count of ``eq`` (``pairs``
    when the caller has counted it)."""
    if pairs is None:
        pairs = np.count_nonzero(eq, axis=1).astype(np.int64)
    maybe = np.flatnonzero(pairs >= 2)  # only there can a run be longer than 2
    long_runs = maybe[(eq[maybe, 1:] & eq[maybe, :-1]).any(axis=1)] if maybe.size else maybe
    if long_runs.size:
        r, c = np.nonzero(eq[long_runs])
        flat = r * (eq.shape[1] + 1) + c  # the pairs of one run are neighbours here
        pos = np.arange(flat.size)
        new_run = np.ones(flat.size, dtype=bool)
        new_run[1:] = flat[1:] != flat[:-1] + 1
        start = np.maximum.accumulate(np.where(new_run, pos, 0))
        pairs = pairs.copy()
        pairs[long_runs] = np.bincount(r, weights=pos - start + 1, minlength=long_runs.size)
    return pairs


def _ranked(block: np.ndarray, pick=None, finite: bool = False):
    """The rows' sorted keys, the column mask, the tied pairs of each row,
    the rows whose keys could not order them (float64 values that differ
    only in the bits given to the column) with their stable argsort order,
    and the keys of the entries ``pick`` (see :func:`_sorted_keys`)."""
    block = np.asarray(block)
    if block.dtype not in (np.float32, np.float64):
        block = block.astype(np.float64)
    key, col_bits, exact, picked = _sorted_keys(block, pick, finite)
    mask = np.uint64((1 << col_bits) - 1)
    high = key >> np.uint64(col_bits)  # (a strided view of the high words compares slower)
    eq = high[:, 1:] == high[:, :-1]  # equal values have equal keys above the column bits
    del high
    pairs = np.count_nonzero(eq, axis=1).astype(np.int64)
    down = np.zeros(0, dtype=np.int64)
    down_order = np.zeros((0, block.shape[1]), dtype=np.int64)
    tied = np.flatnonzero(pairs)
    if not exact and tied.size:  # equal keys above the column bits: compare the values
        r, c = np.nonzero(eq[tied])
        r = tied[r]
        first = block[r, (key[r, c] & mask).astype(np.int64)]
        second = block[r, (key[r, c + 1] & mask).astype(np.int64)]
        eq[r, c] = first == second
        down = np.unique(r[second < first])
        if down.size:  # values that differ only in the bits given to the column
            down_order = np.argsort(block[down], axis=1, kind="stable")
            s = np.take_along_axis(block[down], down_order, axis=1)
            eq[down] = s[:, 1:] == s[:, :-1]
        pairs[tied] = np.count_nonzero(eq[tied], axis=1)
    return key, mask, tied_pairs(eq, pairs), down, down_order, picked


def rank_block(block: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Stable ascending order of every row of a 2-D float array (int32
    column indices) and the tied pairs of each row."""
    key, mask, ties, down, down_order, _ = _ranked(block)
    order = (key & mask).astype(np.int32)
    del key
    if down.size:
        order[down] = down_order
    return order, ties


def _find_in_rows(key: np.ndarray, rows: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Position of each ``target[i]``, which is in the sorted row
    ``key[rows[i]]``, within that row: one branchless binary search per
    target, all of them a step at a time (every row has the same length,
    so every search halves the same span)."""
    n = key.shape[1]
    flat = key.reshape(-1)
    start = rows.astype(np.int64) * n
    base = start.copy()
    probe = np.empty_like(base)
    below = np.empty(base.shape, dtype=bool)
    span = n
    while span > 1:
        half = span // 2
        np.add(base, half, out=probe)
        np.less(flat[probe], target, out=below)
        base += below * half
        span -= half
    base += flat[base] < target
    return base - start


def rank_pairs(
    block: np.ndarray, rows: np.ndarray, cols: np.ndarray, *, finite: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """The 0-based rank of column ``cols[i]`` in the stable ascending order
    of row ``rows[i]`` of a 2-D float array (what :func:`rank_block` would
    place there, found without making the order), and the tied pairs of
    each row; ``finite``: the caller knows the block holds no NaN."""
    rows = np.asarray(rows, dtype=np.int64)
    cols = np.asarray(cols, dtype=np.int64)
    key, _, ties, down, down_order, picked = _ranked(block, (rows, cols), finite)
    ranks = _find_in_rows(key, rows, picked) if rows.size else np.zeros(0, np.int64)
    del key
    if down.size and rows.size:
        where = np.full(ties.size, -1, dtype=np.int64)
        where[down] = np.arange(down.size)
        again = np.flatnonzero(where[rows] >= 0)
        if again.size:
            inverse = np.empty_like(down_order)
            np.put_along_axis(inverse, down_order, np.arange(down_order.shape[1])[None, :], axis=1)
            ranks[again] = inverse[where[rows[again]], cols[again]]
    return ranks, ties


def _workers() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


_POOL: list[ThreadPoolExecutor] = []
_POOL_LOCK = threading.Lock()


def _pool() -> ThreadPoolExecutor:
    """Threads started once (starting two per block costs more than the
    sort of a small block on a busy machine), under a lock (two threads
    ranking at once each started a pool with ``functools.cache``); they only
    ever run :func:`rank_block`, so sharing them changes no result."""
    with _POOL_LOCK:
        if not _POOL:
            _POOL.append(ThreadPoolExecutor(_workers(), thread_name_prefix="rank_rows"))
        return _POOL[0]


def rank_rows(get_rows, rows: np.ndarray, n_cols: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`rank_block` of ``get_rows(part)`` over parts of ``rows``, one
    part per core when the block is large enough."""
    parts = min(_workers(), max(1, rows.size * n_cols // PARALLEL_MIN), rows.size)
    if parts <= 1:
        return rank_block(get_rows(rows))
    pieces = np.array_split(rows, parts)
    done = list(_pool().map(lambda p: rank_block(get_rows(p)), pieces))
    return np.concatenate([d[0] for d in done]), np.concatenate([d[1] for d in done])
