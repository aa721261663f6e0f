"""Ranking matrix rows by packed (value, column) keys: the same order and
tie counts as numpy's stable argsort, for float32 and float64 rows with
negative values, -0.0, infinities, NaN and values that differ in their last
bits only; the same result on one thread and split over threads."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from shrec_eval.kernels.rowsort import rank_block, rank_pairs, rank_rows
from tiers import examples


def reference(block):
    order = np.argsort(block, axis=1, kind="stable")
    s = np.take_along_axis(block, order, axis=1)
    ties = []
    for row in s:  # pairs of equal values, counted one pair at a time
        _, counts = np.unique(row[~np.isnan(row)], return_counts=True)
        ties.append(int((counts * (counts - 1) // 2).sum()))
    return order, np.array(ties)


SPECIAL = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, 1e-30, -1e-30, 5e-324, 1 + 2**-52, 1 + 2**-51]


def blocks(dtype):
    values = st.one_of(st.sampled_from(SPECIAL), st.floats(-1e6, 1e6, width=32)).map(dtype)
    shape = st.tuples(st.integers(1, 4), st.integers(1, 70))
    return hnp.arrays(dtype, shape, elements=values)


@pytest.mark.slow
@settings(max_examples=examples(300), deadline=None)
@given(st.one_of(blocks(np.float32), blocks(np.float64)))
def test_same_order_and_ties_as_a_stable_argsort(block):
    order, ties = rank_block(block)
    want_order, want_ties = reference(block)
    assert order.dtype == np.int32
    np.testing.assert_array_equal(order, want_order)
    np.testing.assert_array_equal(ties, want_ties)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nan_sorts_last_in_column_order(dtype):
    block = np.array([[np.nan, 1, -np.nan, 0, np.inf, -0.0]], dtype=dtype)
    order, _ = rank_block(block)
    assert order[0].tolist() == [3, 5, 1, 4, 0, 2]


def test_float64_values_that_differ_in_the_column_bits_are_ranked_exactly():
    # 1 + k * eps differ in the lowest bits, where the column index is packed
    block = 1 + np.array([[3, 2, 1, 0, 3, 1, 2, 0]], dtype=np.float64) * 2**-52
    order, ties = rank_block(block)
    assert order[0].tolist() == [3, 7, 2, 5, 1, 6, 0, 4]
    assert ties.tolist() == [4]


def test_runs_of_ties_count_every_pair():
    block = np.array([[2, 2, 2, 1, 2, 3, 3], [5, 4, 3, 2, 1, 0, -1]], dtype=np.float32)
    _, ties = rank_block(block)
    assert ties.tolist() == [6 + 1, 0]  # four 2s: 6 pairs; two 3s: 1 pair


def test_threads_give_the_same_result_as_one_block():
    rng = np.random.default_rng(3)
    m = rng.integers(0, 50, (300, 2000)).astype(np.float32)
    rows = np.arange(300)
    order, ties = rank_rows(lambda r: m[r], rows, m.shape[1])
    want_order, want_ties = reference(m)
    np.testing.assert_array_equal(order, want_order)
    np.testing.assert_array_equal(ties, want_ties)


def reference_ranks(block, rows, cols):
    order = np.argsort(block, axis=1, kind="stable")
    inverse = np.empty_like(order)
    np.put_along_axis(inverse, order, np.arange(block.shape[1])[None, :], axis=1)
    return inverse[rows, cols]


@pytest.mark.slow
@settings(max_examples=examples(300), deadline=None)
@given(st.one_of(blocks(np.float32), blocks(np.float64)), st.randoms(use_true_random=False))
def test_rank_pairs_finds_where_a_stable_argsort_puts_each_entry(block, rnd):
    B, n = block.shape
    cells = [(r, c) for r in range(B) for c in range(n)]
    picked = rnd.sample(cells, rnd.randint(0, len(cells)))
    rows = np.array([r for r, _ in picked], dtype=np.int64)
    cols = np.array([c for _, c in picked], dtype=np.int64)
    ranks, ties = rank_pairs(block, rows, cols)
    np.testing.assert_array_equal(ranks, reference_ranks(block, rows, cols))
    np.testing.assert_array_equal(ties, reference(block)[1])
    if np.isfinite(block).all():  # what the readers promise: the NaN check skipped
        finite_ranks, finite_ties = rank_pairs(block, rows, cols, finite=True)
        np.testing.assert_array_equal(finite_ranks, ranks)
        np.testing.assert_array_equal(finite_ties, ties)


@pytest.mark.parametrize("finite", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rank_pairs_of_nonnegative_values_with_zeros_of_both_signs(dtype, finite):
    # no sign bit but -0.0's: the bits are used as they are (no flip), and
    # -0.0 must still tie with 0.0, ranked by column
    rng = np.random.default_rng(9)
    block = rng.integers(0, 6, (20, 300)).astype(dtype) / 4
    block[:, ::5] = 0.0
    block[::2, ::10] = -0.0
    block[3] += 2.0**-45  # float64 values apart in the bits given to the column
    rows, cols = np.divmod(np.arange(block.size), block.shape[1])
    ranks, ties = rank_pairs(block, rows, cols, finite=finite)
    np.testing.assert_array_equal(ranks, reference_ranks(block, rows, cols))
    np.testing.assert_array_equal(ties, reference(block)[1])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rank_pairs_on_every_entry_of_a_tied_wide_block(dtype):
    rng = np.random.default_rng(5)
    block = rng.integers(0, 40, (30, 3000)).astype(dtype)  # many ties, runs of them
    block[3, ::7] = -0.0
    block[4, 5] = np.inf
    rows, cols = np.divmod(np.arange(block.size), block.shape[1])
    ranks, ties = rank_pairs(block, rows, cols)
    np.testing.assert_array_equal(ranks, reference_ranks(block, rows, cols))
    np.testing.assert_array_equal(ties, reference(block)[1])


def test_rank_pairs_where_float64_values_differ_only_in_the_column_bits():
    block = 1 + np.array([[3, 2, 1, 0, 3, 1, 2, 0], [0, 1, 2, 3, 4, 5, 6, 7]]) * 2.0**-52
    rows = np.array([0, 0, 0, 1, 1], dtype=np.int64)
    cols = np.array([0, 3, 7, 0, 7], dtype=np.int64)
    ranks, ties = rank_pairs(block, rows, cols)
    assert ranks.tolist() == [6, 0, 1, 0, 7]
    assert ties.tolist() == [4, 0]


def test_rank_pairs_of_no_entry():
    ranks, ties = rank_pairs(np.ones((2, 3), dtype=np.float32), np.zeros(0), np.zeros(0))
    assert ranks.size == 0 and ties.tolist() == [3, 3]


def test_threads_ranking_at_once_share_one_pool(monkeypatch):
    """Eight threads asking for the ranking threads at once get one pool (with
    ``functools.cache`` each thread that came while the first was starting
    it started one of its own); a slow start widens that window."""
    import threading
    import time

    from shrec_eval.kernels import rowsort

    made = []

    class SlowPool(rowsort.ThreadPoolExecutor):
        def __init__(self, *args, **kwargs):
            time.sleep(0.05)
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(rowsort, "ThreadPoolExecutor", SlowPool)
    monkeypatch.setattr(rowsort, "_POOL", [])
    start = threading.Barrier(8)
    got = []

    def ask():
        start.wait()
        got.append(rowsort._pool())

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for pool in made:
        pool.shutdown()
    assert len(made) == 1 and all(p is made[0] for p in got)
