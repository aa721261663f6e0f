"""The first K of each row of a distance matrix made a tile at a time:
exact, at the speed of the matrix product.

Every distance is a key of the ranking (:func:`order_keys`: the float32
value's order bits above the column number), so the first K of a row are
its K smallest keys, ties broken by collection order, whatever the order
in which the tiles come.  The keys of a row's columns ``[c0, c1)`` are
selected by :func:`select_columns` a piece at a time, in column order:

* until a row has K keys, every key of a piece is kept (and the row's K
  smallest taken once it has more);
* then the row's K-th key gives a threshold value, and only the values of a
  piece *strictly* below it can enter (a later column of an equal value
  has a larger key): one comparison per distance, while the product that
  made it cost 2 x D operations.  On features of any spread the row's
  threshold falls fast, and the candidates of a piece are few.

Pieces of columns selected apart (by two threads, each dealt the next
piece when it is ready for one, or the gallery shards of a cluster's
workers, :mod:`shrec_eval.scoring.distributed`) merge exactly
(:func:`merge_keys`): the K smallest keys of the union are those of the
whole row.  This is faiss' way (its exact search keeps a heap per query
with its current threshold), kept exact: faiss orders ties as its heap
leaves them, this keeps the ranking's.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

__all__ = ["merge_keys", "order_bits", "order_keys", "select_columns", "select_tiles"]

#: the largest key: padding of rows that have fewer candidates than others
_PAD = np.uint64(2**64 - 1)
_LOW = np.uint64(0xFFFFFFFF)
_SHIFT = np.uint64(32)
#: rows with more than MANY x K candidates in a merge are merged apart
_MANY = 2


def order_bits(d: np.ndarray) -> np.ndarray:
    """uint32 of the same order as the float32 values (-0.0 as 0.0): the
    sign bit set for a positive value, every bit flipped for a negative one.
    The same mapping for every piece of a row, whatever its values."""
    u = np.add(d, np.float32(0)).view(np.int32)
    u ^= (u >> 31) | np.int32(-(2**31))
    return u.view(np.uint32)


def _values(keys: np.ndarray) -> np.ndarray:
    """The float32 values of keys (the inverse of :func:`order_bits`)."""
    u = (keys >> _SHIFT).astype(np.uint32).view(np.int32)
    # a set sign bit (a value >= 0): clear it; else flip every bit
    u = np.where(u < 0, u & np.int32(0x7FFFFFFF), ~u)
    return u.view(np.float32)


def order_keys(d: np.ndarray, col0: int) -> np.ndarray:
    """The ranking's keys of a piece of rows (columns from ``col0``)."""
    key = order_bits(d).astype(np.uint64)
    key <<= _SHIFT
    key |= np.arange(col0, col0 + d.shape[1], dtype=np.uint64)
    return key


def _smallest(keys: np.ndarray, k: int) -> np.ndarray:
    if keys.shape[1] > k:
        keys = np.partition(keys, k - 1, axis=1)[:, :k]
    return np.ascontiguousarray(keys)


class _Rows:
    """The keys kept so far for a tile's rows (unsorted) and, once every
    row has K of them, each row's K-th value (the threshold).  Candidates
    are merged a few pieces at a time: the threshold of the last merge is
    only higher than the current one, so they still hold every key that
    can enter."""

    __slots__ = ("_keys", "limit", "_pending", "_n_pending", "_k")

    def __init__(self, k: int) -> None:
        self._keys: np.ndarray | None = None
        self.limit: np.ndarray | None = None
        self._pending: list = []
        self._n_pending = 0
        self._k = k

    @property
    def keys(self) -> np.ndarray | None:
        self._flush()
        return self._keys

    def add(self, d: np.ndarray, col0: int, negated: bool = False) -> None:
        """The keys of a piece's columns from ``col0``: ``d`` holds its
        distances, or (``negated``) the distances negated, compared with the
        negated threshold as they are (negation is exact, so the same
        entries enter; a zero's sign, which differs, is not kept by a key)."""
        k = self._k
        if self.limit is None:
            # (row-major: a column-major piece read row by row)
            self._fill(np.negative(d, order="C") if negated else np.ascontiguousarray(d), col0, k)
            return
        if _column_major(d):
            self.take(*_candidates(d, self.limit, col0, negated, self._k))
            return
        # (numpy 2's nonzero of a boolean array counts, then fills, a word
        # at a time: faster than any scan of ours, at every density)
        if negated:
            at = np.flatnonzero(d > np.negative(self.limit)[:, None])
            values = np.negative(d.reshape(-1)[at])
        else:
            at = np.flatnonzero(d < self.limit[:, None])
            values = d.reshape(-1)[at]
        r, c = np.divmod(at, d.shape[1])
        self.take(r, order_bits(values), c + col0)

    def take(self, r: np.ndarray, bits: np.ndarray, cols: np.ndarray) -> None:
        """Candidates below the threshold (rows ``r`` in ascending order,
        value bits, columns), merged with the others later."""
        if r.size:
            assert self._keys is not None  # made before the limit
            self._pending.append((r, bits, cols))
            self._n_pending += r.size
            # merged when they are as many as half the keys, or after 16 pieces
            if self._n_pending * 2 >= self._keys.size or len(self._pending) >= 16:
                self._flush()

    def _flush(self) -> None:
        if self._pending:
            parts = list(zip(*self._pending))
            self._pending, self._n_pending = [], 0
            r, bits, cols = (np.concatenate(p) for p in parts)
            self._merge(r, bits, cols, self._k)

    def _fill(self, d: np.ndarray, col0: int, k: int) -> None:
        """The first pieces, until each row has K keys: those at or below
        the row's K-th value of the piece (found by a partition of the
        values, cheaper than one of the keys), then the K smallest keys."""
        kk = min(k, d.shape[1])
        if d.shape[1] > kk:
            kth = np.partition(d, kk - 1, axis=1)[:, kk - 1]
            at = np.flatnonzero(d <= kth[:, None])
        else:
            at = np.arange(d.size)
        r, c = np.divmod(at, d.shape[1])
        if self._keys is None:
            self._keys = np.zeros((d.shape[0], 0), np.uint64)
        self._merge(r, order_bits(d.reshape(-1)[at]), c + col0, k)
        if self._keys.shape[1] == k:
            self.limit = _values(self._keys.max(axis=1))

    def _merge(self, r: np.ndarray, bits: np.ndarray, cols: np.ndarray, k: int) -> None:
        """The candidates (row ``r``, value bits, column) merged into the
        rows' keys: each row's kept keys and its candidates side by side
        (padded with the largest key), the K smallest kept."""
        assert self._keys is not None  # made by the first piece (_fill)
        cand = bits.astype(np.uint64) << _SHIFT
        cand |= cols.astype(np.uint64)
        order = np.argsort(r, kind="stable")
        r, cand = r[order], cand[order]
        count = np.bincount(r, minlength=self._keys.shape[0])
        rows = np.flatnonzero(count)
        count = count[rows]
        if self._keys.shape[1] < k:  # still filling: every row gets the same number of keys
            wide = self._wide(rows, count, cand, None)
            if wide.shape[1] > k:
                wide = np.partition(wide, k - 1, axis=1)
            self._keys = np.ascontiguousarray(wide[:, : min(k, wide.shape[1])])
            return
        # the rows of many candidates (a row that meets its class: a
        # thousand where most have tens) merged apart, not every row padded
        # to their width
        many = count > _MANY * k
        bands: list[tuple[np.ndarray | slice, np.ndarray | None]]  # (rows' mask, their first)
        if many.any() and not many.all():
            start = np.cumsum(count) - count
            bands = [(b, start[b]) for b in (~many, many)]
        else:
            bands = [(slice(None), None)]
        for band, first in bands:
            wide = self._wide(rows[band], count[band], cand, first)
            if wide.shape[1] > k:
                wide = np.partition(wide, k - 1, axis=1)
            assert self.limit is not None  # set once every row has K keys
            self._keys[rows[band]] = wide[:, :k]
            self.limit[rows[band]] = _values(wide[:, k - 1])

    def _wide(
        self, rows: np.ndarray, count: np.ndarray, cand: np.ndarray, first: np.ndarray | None
    ) -> np.ndarray:
        """Rows ``rows``' kept keys and their candidates side by side,
        padded with the largest key: ``count`` candidates a row, from
        ``first`` in ``cand`` (None: ``cand`` holds theirs only, row by row)."""
        assert self._keys is not None  # made by the first piece (_fill)
        w = self._keys.shape[1]
        wide = np.full((rows.size, w + int(count.max())), _PAD, dtype=np.uint64)
        wide[:, :w] = self._keys[rows]
        slot = np.repeat(np.arange(rows.size), count)
        place = np.arange(slot.size) - np.repeat(np.cumsum(count) - count, count)
        wide[slot, w + place] = cand if first is None else cand[np.repeat(first, count) + place]
        return wide


def _column_major(d: np.ndarray) -> bool:
    return d.ndim == 2 and d.strides[1] > d.strides[0]


def _candidates(
    d: np.ndarray, limit: np.ndarray, col0: int, negated: bool, k: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The entries of a column-major piece (Distances.key_stacks'
    gallery-major products) below its rows' thresholds ``limit``, compared
    as the piece lies (its columns as rows, in one call: faster than row by
    row there), as (rows in ascending order, value bits, columns).  A row
    with more than K of them (a query meeting its class: a thousand where
    most rows have a few) keeps only those at or better than its K-th best
    value in the piece (ties kept): each one left out has K better ones in
    its row, so it is in no row's first K (at R = 1,000 the candidates to
    merge fell from 2.6 to 2.8 million to 1.8 to 2 million, the merges'
    CPU from 0.15 to 0.09 s)."""
    dt = d.T
    flat = dt.reshape(-1) if dt.flags.c_contiguous else None
    if negated:
        at = np.flatnonzero(dt > np.negative(limit))
    else:
        at = np.flatnonzero(dt < limit)
    c, r = np.divmod(at, dt.shape[1])
    values = flat[at] if flat is not None else dt[c, r]
    many = np.flatnonzero(np.bincount(r, minlength=dt.shape[1]) > k)
    if many.size:  # those rows' K-th best value in the piece (products: the K-th largest)
        kth = np.partition(dt[:, many], -k if negated else k - 1, axis=0)[-k if negated else k - 1]
        cut = np.full(dt.shape[1], -np.inf if negated else np.inf, dtype=dt.dtype)
        cut[many] = kth
        keep = np.flatnonzero(values >= cut[r] if negated else values <= cut[r])
        r, c, values = r[keep], c[keep], values[keep]
    if negated:
        values = np.negative(values)
    if r.size > 1:  # by row (numpy sorts 16-bit integers by radix)
        order = np.argsort(r.astype(np.int16) if d.shape[0] <= 2**15 else r, kind="stable")
        r, c, values = r[order], c[order], values[order]
    return r, order_bits(values), c + col0


def _add_stacked(states: list, parts: list, d: np.ndarray, col0: int, negated: bool) -> None:
    """A stacked piece ``d`` given to the states of its tiles (``parts``:
    each tile's rows ``[a, b)``): once every tile has its threshold, a
    column-major piece is compared whole, its candidates dealt by row."""
    if len(states) < 2 or not _column_major(d) or any(s.limit is None for s in states):
        for s, (_, a, b) in zip(states, parts):
            s.add(d[a:b], col0, negated=negated)
        return
    limits = np.concatenate([s.limit for s in states])
    r, bits, cols = _candidates(d, limits, col0, negated, states[0]._k)
    cut = np.searchsorted(r, [a for _, a, _ in parts[1:]])
    for s, (_, a, _), rs, bs, cs in zip(
        states, parts, np.split(r, cut), np.split(bits, cut), np.split(cols, cut)
    ):
        s.take(rs - a, bs, cs)


def select_columns(
    src, tiles: Sequence[int], c0: int, c1: int, k: int, cols: int
) -> list[np.ndarray]:
    """For each query tile of ``tiles``: each row's K smallest keys among
    the columns of pieces ``[c0, c1)`` of ``src`` (``src.piece(t, c)``:
    tile t's rows x piece c's ``cols`` columns, float32; or ``src.key_piece(t,
    c)``: the piece and whether it holds the distances negated), unsorted; the
    pieces are read in column order, each once for all the tiles."""
    return _select(src, tiles, range(c0, c1), k, cols)


def _select(src, tiles: Sequence[int], pieces: Iterable[int], k: int, cols: int) -> list:
    """:func:`select_columns` of the pieces ``pieces`` (ascending)."""
    state = {t: _Rows(k) for t in tiles}
    # a source may give a piece's distances negated (the dot product's
    # products as they come: one pass less over each piece), and several
    # tiles' pieces at once (``key_stacks``: one product for them)
    key_piece = getattr(src, "key_piece", None)
    key_stacks = getattr(src, "key_stacks", None)
    for c in pieces:
        if key_stacks is not None:
            for parts, d, negated in key_stacks(tiles, c):
                _add_stacked([state[p[0]] for p in parts], parts, d, c * cols, negated)
            continue
        for t in tiles:
            if key_piece is None:
                state[t].add(src.piece(t, c), c * cols)
            else:
                d, negated = key_piece(t, c)
                state[t].add(d, c * cols, negated=negated)

    return [
        keys if (keys := state[t].keys) is not None else np.zeros((0, 0), np.uint64) for t in tiles
    ]


class _Dealer:
    """Piece numbers dealt one at a time, in ascending order, to whichever
    thread asks first: each thread's pieces still come in column order (its
    selection's threshold needs them so), and a thread that the machine's
    other work holds back takes fewer pieces instead of keeping the other
    waiting for its half at the end."""

    def __init__(self, n: int) -> None:
        self._next, self._n = 0, n
        self._lock = threading.Lock()

    def pieces(self) -> Iterator[int]:
        while True:
            with self._lock:
                c = self._next
                self._next += 1
            if c >= self._n:
                return
            yield c


def merge_keys(parts: Sequence[np.ndarray], k: int) -> np.ndarray:
    """The K smallest keys of each row of the union of ``parts`` (the keys
    of disjoint columns of the same rows), sorted: the first K of the
    ranking of the whole row."""
    parts = [p for p in parts if p.size]
    if not parts:
        return np.zeros((0, 0), np.uint64)
    keys = _smallest(parts[0] if len(parts) == 1 else np.concatenate(parts, axis=1), k)
    keys.sort(axis=1)
    return keys


def column_shards(n_pieces: int, n: int) -> list[tuple[int, int]]:
    """``n`` ranges of pieces of (nearly) equal length that cover
    ``[0, n_pieces)`` in order (empty ones left out)."""
    bounds = np.linspace(0, n_pieces, max(1, n) + 1).round().astype(int)
    return [(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]


def select_tiles(
    src, tiles: Sequence[int], k: int, cols: int, *, threads: int = 2
) -> list[np.ndarray]:
    """Every row's K smallest keys, sorted, for each tile of ``tiles``:
    the pieces dealt one at a time to ``threads`` threads (one per core),
    each selecting among its own, then their keys merged."""
    if getattr(src, "rows_first", False):  # the tiles split between the threads
        tiles = list(tiles)
        with ThreadPoolExecutor(max(1, threads), thread_name_prefix="shrec-topk") as pool:
            parts: Iterable[list[np.ndarray]] = pool.map(
                lambda t: select_columns(src, [t], 0, src.n_pieces, k, cols), tiles
            )
            return [merge_keys(p, k) for p in parts]
    if threads <= 1 or src.n_pieces <= 1:
        parts = [select_columns(src, tiles, 0, src.n_pieces, k, cols)]
    else:
        dealer = _Dealer(src.n_pieces)
        with ThreadPoolExecutor(threads, thread_name_prefix="shrec-topk") as pool:
            parts = list(
                pool.map(lambda _: _select(src, tiles, dealer.pieces(), k, cols), range(threads))
            )
    return [merge_keys([p[i] for p in parts], k) for i in range(len(tiles))]
