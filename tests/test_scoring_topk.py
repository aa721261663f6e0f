"""The top-K kernel (shrec_eval.kernels.topk): the first K of every row of
any float32 matrix, whatever its tiles, pieces and shards of columns, are
the first K of a stable ascending sort of the row (ties by column, -0.0 as
0.0); merging the shards' keys gives the same bits as one pass."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from shrec_eval.kernels import topk
from tiers import examples


class _Matrix:
    """A matrix cut into tiles of ``rows`` x ``cols`` (as Distances is)."""

    def __init__(self, m: np.ndarray, rows: int, cols: int) -> None:
        self.m, self.rows, self.cols = m, rows, cols
        self.n_tiles = -(-m.shape[0] // rows)
        self.n_pieces = -(-m.shape[1] // cols)
        self.asked: list[tuple[int, int]] = []

    def piece(self, t: int, c: int) -> np.ndarray:
        self.asked.append((t, c))
        r, c0 = t * self.rows, c * self.cols
        return np.ascontiguousarray(self.m[r : r + self.rows, c0 : c0 + self.cols])


def _want(m: np.ndarray, k: int) -> np.ndarray:
    order = np.argsort(m + np.float32(0), axis=1, kind="stable")
    return order[:, :k]


def _items(keys: list[np.ndarray]) -> np.ndarray:
    return np.concatenate([(k & np.uint64(0xFFFFFFFF)).astype(np.int64) for k in keys])


def _check(m: np.ndarray, k: int, rows: int, cols: int, shards: int) -> None:
    src = _Matrix(m, rows, cols)
    k = min(k, m.shape[1])
    tiles = list(range(src.n_tiles))
    parts = [
        topk.select_columns(src, tiles, a, b, k, cols)
        for a, b in topk.column_shards(src.n_pieces, shards)
    ]
    got = [topk.merge_keys([p[i] for p in parts], k) for i in range(len(tiles))]
    assert np.array_equal(_items(got), _want(m, k))
    # every piece read once, in column order within a shard
    assert sorted(src.asked) == sorted({(t, c) for t in tiles for c in range(src.n_pieces)})
    # the values ride in the keys: their order bits are the float32 values'
    vals = topk._values(np.concatenate(got))
    assert np.array_equal(vals, np.take_along_axis(m + np.float32(0), _want(m, k), axis=1))
    # two or three threads give the same keys as one
    for threads in (2, 3):
        threaded = topk.select_tiles(src, tiles, k, cols, threads=threads)
        assert all(np.array_equal(a, b) for a, b in zip(threaded, got))


@pytest.mark.parametrize("k", [1, 3, 10, 64, 200])
def test_random_values_any_tiles(k):
    rng = np.random.default_rng(k)
    m = rng.standard_normal((37, 150)).astype(np.float32)
    for rows, cols, shards in ((8, 16, 1), (5, 7, 3), (37, 150, 1), (1, 1, 4), (16, 40, 2)):
        _check(m, k, rows, cols, shards)


class _HeldBack(_Matrix):
    """A matrix whose first piece read is held until the other threads have
    read every other piece (or a timeout): a thread that the machine's other
    work holds back."""

    def __init__(self, m: np.ndarray, rows: int, cols: int) -> None:
        super().__init__(m, rows, cols)
        self.first: int | None = None
        self.others = threading.Event()
        self.released = False
        self.threads: dict[int, int] = {}
        self.lock = threading.Lock()

    def piece(self, t: int, c: int) -> np.ndarray:
        me = threading.get_ident()
        with self.lock:
            held = self.first is None
            if held:
                self.first = me
            self.threads[me] = self.threads.get(me, 0) + 1
            if me != self.first and sum(n for i, n in self.threads.items() if i != self.first) >= (
                self.n_pieces - 1
            ):
                self.others.set()
        if held:
            self.released = self.others.wait(timeout=3)
        return super().piece(t, c)


def test_threads_take_the_next_piece_when_ready():
    """The pieces are dealt one at a time: while one thread is held on its
    first piece, the other selects all the rest (split into halves, it
    would wait for the held thread's half); the keys are those of one pass."""
    rng = np.random.default_rng(5)
    m = rng.standard_normal((9, 400)).astype(np.float32)
    src = _HeldBack(m, 9, 20)
    got = topk.select_tiles(src, [0], 7, 20, threads=2)
    assert src.released
    assert sorted(src.threads.values()) == [1, src.n_pieces - 1]
    assert np.array_equal(_items(got), _want(m, 7))
    assert sorted(src.asked) == [(0, c) for c in range(src.n_pieces)]


def test_ties_signed_zeros_and_both_signs():
    rng = np.random.default_rng(1)
    m = rng.integers(-3, 4, (20, 90)).astype(np.float32)
    m[m == 0] = np.float32(-0.0)
    m[::3, ::2] = 0.0
    for k in (1, 5, 30, 90):
        for rows, cols, shards in ((4, 8, 1), (3, 10, 3), (20, 90, 2)):
            _check(m, k, rows, cols, shards)


def test_descending_rows_merge_often():
    """Every piece better than the last (the threshold falls each time):
    the candidates are merged many times over."""
    m = -np.tile(np.arange(2000, dtype=np.float32), (6, 1))
    _check(m, 50, 6, 25, 1)
    _check(m, 50, 4, 100, 3)


def test_a_row_of_many_candidates_is_merged_apart(monkeypatch):
    """A row that meets the items near its query in one piece (all 120 of
    its columns there beat its threshold; the others bring a few) is merged
    apart: the other rows are not padded to its width.  Ties at the K-th
    value in that piece and across the pieces keep the ranking's order."""
    rng = np.random.default_rng(3)
    m = rng.integers(0, 50, (7, 1200)).astype(np.float32)
    m[2, 600:720] = -5.0  # row 2's class: equal values, the first K by column
    m[2, 700:705] = -6.0
    m[4, 610:615] = -1.0  # row 4: a few, tied with the same value elsewhere
    m[4, 100] = -1.0
    widths: list[tuple[list[int], int]] = []
    real = topk._Rows._wide

    def spy(self, rows, count, cand, first):
        wide = real(self, rows, count, cand, first)
        widths.append((rows.tolist(), wide.shape[1]))
        return wide

    monkeypatch.setattr(topk._Rows, "_wide", spy)
    k = 10
    _check(m, k, 7, 120, 1)
    heavy = [w for rows, w in widths if rows == [2]]
    assert heavy and max(heavy) >= k + 120
    # the merge that took row 2's 120 candidates: its other rows' band is narrower
    assert any(2 not in rows and len(rows) > 1 and w < k + 120 for rows, w in widths)


@pytest.mark.slow
def test_any_matrix_tiles_and_shards():
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    @settings(max_examples=examples(200), deadline=None, suppress_health_check=list(HealthCheck))
    @given(
        n_rows=st.integers(1, 30),
        n_cols=st.integers(1, 120),
        rows=st.integers(1, 12),
        cols=st.integers(1, 40),
        shards=st.integers(1, 5),
        k=st.integers(1, 130),
        spread=st.sampled_from([1, 3, 1000]),
        seed=st.integers(0, 2**32 - 1),
    )
    def check(n_rows, n_cols, rows, cols, shards, k, spread, seed):
        rng = np.random.default_rng(seed)
        m = rng.integers(-spread, spread + 1, (n_rows, n_cols)).astype(np.float32)
        m[rng.random(m.shape) < 0.1] = np.float32(-0.0)
        _check(m, k, rows, cols, shards)

    check()


def test_feature_ids_are_normalised_with_their_fast_path(tmp_path):
    """Ids that start with neither a zero nor m / model_ skip the
    normaliser; the others are normalised (m0042 = model_42 = 042 = 42)."""
    from shrec_eval import Assessment
    from shrec_eval.reading.formats.embeddings import read_embeddings

    items = ["1", "2", "42", "x7", "m"]
    a = Assessment.from_judgments({"q": {"42": 1}}, items)
    rng = np.random.default_rng(0)
    np.savez(
        tmp_path / "f.npz",
        query_features=rng.standard_normal((1, 4)).astype(np.float32),
        query_ids=np.array(["q"]),
        gallery_features=rng.standard_normal((5, 4)).astype(np.float32),
        gallery_ids=np.array(["x7", "model_2", "m0042", "01", "m"]),
    )
    run = read_embeddings(tmp_path / "f.npz", a, top_k=5, normalize_ids=True)
    d = run.distances
    assert d.gidx.tolist() == [3, 1, 2, 0, 4]
