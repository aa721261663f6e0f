"""Whether one BLAS call over stacked query tiles sums as each tile's own
call does, for a shape of call, asked of the BLAS library on random values.

A BLAS library's order of sums depends on the shape of a call, not on its
values, but the values may hide it: where the products come out the same
whatever the order (one-hot vectors, small integers), a stacked call and
the tiles' own calls give the same bits although they sum otherwise, and
every later piece of that shape, whose values do not hide it, would get
other bits than the matrix path.  Random values of the same shape and type
show a different order of sums in the bits (a review found a gallery whose
first piece was one-hot: the check on that piece passed, and the top K of
later pieces differed from the full matrix's)."""

from __future__ import annotations

import numpy as np

from .blas_threads import one_blas_thread

#: the random values' seed: the same probe on every run
_SEED = 20261129


def stacked_sums_alike(rows: list[int], cols: int, dims: int, dtype) -> bool:
    """Whether ``np.matmul(g, q.T).T`` (the gallery-major stacked call of
    :meth:`.distances.Distances.key_stacks`: ``g`` of ``cols`` rows, ``q`` of
    the tiles' ``rows`` stacked, ``dims`` columns, C-contiguous, ``dtype``)
    gives each tile, bit for bit, ``np.matmul(q_tile, g.T)`` (its own call),
    on random values; one BLAS thread, as the top K's calls."""
    rng = np.random.default_rng(_SEED)
    q = rng.standard_normal((sum(rows), dims)).astype(dtype)
    g = rng.standard_normal((cols, dims)).astype(dtype)
    bits = np.dtype(f"u{q.itemsize}")
    with one_blas_thread():
        s = np.matmul(g, q.T).T
        a = 0
        for n in rows:
            own = np.matmul(np.ascontiguousarray(q[a : a + n]), g.T)
            if not np.array_equal(s[a : a + n].view(bits), own.view(bits)):
                return False
            a += n
    return True
