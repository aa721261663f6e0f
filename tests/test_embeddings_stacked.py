"""The top-K selection multiplies several query tiles with a gallery piece
by one BLAS call (Distances.key_pieces) only where that call gives every
tile the bits of its own call, which the matrix path makes: checked once
per shape of call; a BLAS that sums otherwise is multiplied tile by tile."""

from __future__ import annotations

import pickle
import threading

import numpy as np
import pytest
from shrec_eval import Assessment
from shrec_eval.choices import METRICS
from shrec_eval.kernels import distances as tiles
from shrec_eval.reading.readers import load_run


@pytest.fixture
def small(monkeypatch):
    """Tiles of 8 rows x 24 columns, stacks of 3: tail tiles, tail pieces
    and a tail stack."""
    monkeypatch.setattr(tiles, "TILE_ROWS", 8)
    monkeypatch.setattr(tiles, "TILE_COLS", 24)
    monkeypatch.setattr(tiles, "TOPK_TILES", 5)
    monkeypatch.setattr(tiles, "STACK_TILES", 3)


def _features(dtype, nq=37, n=83, dim=19, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((nq, dim)) * 3).astype(dtype), rng.standard_normal((n, dim)).astype(
        dtype
    )


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(np.uint8)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("metric", METRICS)
def test_stacked_pieces_are_each_tiles_own_bits(small, metric, dtype):
    q, g = _features(dtype)
    d = tiles.Distances(q, None, g, None, metric)
    for c in range(d.n_pieces):
        got = dict(d.key_pieces(range(d.n_tiles), c))
        assert sorted(got) == list(range(d.n_tiles))
        for t in range(d.n_tiles):
            piece, negated = got[t]
            own, own_negated = d.key_piece(t, c)
            assert negated == own_negated
            assert np.array_equal(_bits(piece), _bits(own)), (metric, t, c)
    # every shape of stacked call was checked once (whether this machine's
    # BLAS gives the tiles' bits for it or not: the pieces are the same)
    assert set(d._stacks) == {(24, 24), (24, 11), (13, 24), (13, 11)}


def test_tiles_given_out_of_order_or_alone_are_made_one_by_one(small):
    q, g = _features(np.float32)
    d = tiles.Distances(q, None, g, None, "dot")
    got = dict(d.key_pieces([3, 1], 0))
    for t in (3, 1):
        assert np.array_equal(got[t][0], d.key_piece(t, 0)[0])
    assert dict(d.key_pieces([2], 1))[2][0].shape == (8, 24)
    assert not d._stacks  # no stacked call was made


def _contest(n=83, nq=37):
    items = [f"g{i}" for i in range(n)]
    queries = {f"q{i}": {f"g{(7 * i + j) % n}": 1 for j in range(5)} for i in range(nq)}
    return Assessment.from_judgments(queries, items)


def _save(tmp_path, q, g, n=83, nq=37):
    path = tmp_path / "f.npz"
    np.savez(
        path,
        query_features=q,
        gallery_features=g,
        query_ids=np.array([f"q{i}" for i in range(nq)]),
        gallery_ids=np.array([f"g{i}" for i in range(n)]),
    )
    return path


def _first(run, k):
    lists, lengths = run.ranked_block(np.arange(len(run.query_ids)))
    return lists[:, :k]


@pytest.mark.parametrize("metric", ["dot", "cosine"])
def test_a_blas_that_sums_a_stacked_call_otherwise_is_multiplied_tile_by_tile(
    small, tmp_path, monkeypatch, metric
):
    """A stand-in BLAS whose calls of more than one tile's rows round the
    last bit otherwise: the check finds it, the tiles are multiplied one by
    one, and the top K are those of the matrix path."""
    q, g = _features(np.float32)
    path = _save(tmp_path, q, g)
    a = _contest()
    real = np.matmul

    def other_sums(x, y, *args, **kw):
        out = real(x, y, *args, **kw)
        # the stacked call, gallery-major: x the gallery piece (wider than a tile
        # in this fixture), where a tile's own call has x the tile's rows
        if x.shape[0] > tiles.TILE_ROWS:
            out = np.nextafter(out, np.float32(np.inf))
        return out

    monkeypatch.setattr(tiles.np, "matmul", other_sums)
    run = load_run(path, a, metric=metric, top_k=10)
    full = load_run(path, a, metric=metric)
    assert np.array_equal(_first(run, 10), _first(full, 10))
    assert run.distances._stacks and not any(run.distances._stacks.values())


def test_the_checks_stay_behind_when_the_distances_go_to_another_machine(small):
    q, g = _features(np.float32)
    d = tiles.Distances(q, None, g, None, "dot")
    list(d.key_pieces(range(d.n_tiles), 0))
    assert d._stacks
    again = pickle.loads(pickle.dumps(d))
    assert again._stacks == {}
    assert [
        np.array_equal(x[1][0], y[1][0])
        for x, y in zip(again.key_pieces(range(d.n_tiles), 0), d.key_pieces(range(d.n_tiles), 0))
    ] == [True] * d.n_tiles


@pytest.mark.parametrize("metric", ["dot", "euclidean"])
def test_a_shape_is_checked_once_while_another_thread_asks_for_it(small, metric):
    """The top K's two threads ask for the first pieces' shape together:
    one checks it, the other multiplies its tiles one by one meanwhile (the
    check multiplies them twice), and both get each tile's own bits."""
    q, g = _features(np.float32)
    d = tiles.Distances(q, None, g, None, metric)
    checks: list[tuple[int, int]] = []
    checking, other_done = threading.Event(), threading.Event()
    real = d._stack_gives_tiles

    def held(s, group, c):  # the first check waits for the other thread's piece
        checks.append(s.shape)
        checking.set()
        if len(checks) == 1:
            assert other_done.wait(timeout=5)
        return real(s, group, c)

    d._stack_gives_tiles = held
    got: dict[int, dict] = {}

    def first() -> None:
        got[0] = dict(d.key_pieces([0, 1, 2], 0))

    def second() -> None:
        assert checking.wait(timeout=5)
        got[1] = dict(d.key_pieces([0, 1, 2], 1))  # the same shape as piece 0's
        other_done.set()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=10)
    assert checks == [(24, 24)]
    assert d._stacks == {(24, 24): d._stacks[(24, 24)]} and d._stacks[(24, 24)] is not None
    for c in (0, 1):
        assert sorted(got[c]) == [0, 1, 2]
        for t in (0, 1, 2):
            piece, negated = got[c][t]
            own, own_negated = d.key_piece(t, c)
            assert negated == own_negated
            assert np.array_equal(_bits(piece), _bits(own)), (metric, t, c)


def test_a_check_that_fails_is_made_again_by_the_next_call(small):
    """A shape's check that ends in an error (a read error, no memory) leaves
    no claim behind: the next call checks the shape again and stacks it,
    where a shape left claimed was multiplied tile by tile for good."""
    q, g = _features(np.float32)
    d = tiles.Distances(q, None, g, None, "dot")
    real = d._stack_gives_tiles
    checks: list[tuple[int, int]] = []

    def failing_once(s, group, c):
        checks.append(s.shape)
        if len(checks) == 1:
            raise OSError("a transient read error")
        return real(s, group, c)

    d._stack_gives_tiles = failing_once
    with pytest.raises(OSError, match="transient"):
        dict(d.key_pieces([0, 1, 2], 0))
    assert (24, 24) not in d._stacks
    got = dict(d.key_pieces([0, 1, 2], 0))
    assert checks == [(24, 24), (24, 24)]
    assert d._stacks == {(24, 24): True}
    for t in (0, 1, 2):
        assert np.array_equal(_bits(got[t][0]), _bits(d.key_piece(t, 0)[0]))


def test_a_first_piece_whose_values_hide_the_order_of_sums_does_not_pass_the_check():
    """A gallery whose first piece is one-hot vectors: every order of sums
    gives its products the same bits, so a check on that piece alone let the
    stacked call through for a shape that sums otherwise (1,025 queries: a
    last tile of one row), and the later pieces' top K differed from the
    matrix path's (a review found it).  Every piece of every tile is its own
    call's bits."""
    rng = np.random.default_rng(0)
    dims, nq = 64, 1025
    q = rng.standard_normal((nq, dims)).astype(np.float32)
    one = np.zeros((tiles.TILE_COLS, dims), np.float32)
    one[np.arange(tiles.TILE_COLS), np.arange(tiles.TILE_COLS) % dims] = 1
    g = np.concatenate([one, rng.standard_normal((3 * tiles.TILE_COLS, dims)).astype(np.float32)])
    for metric in ("dot", "cosine"):
        d = tiles.Distances(q, None, g, None, metric)
        group = list(range(d.n_tiles))
        for c in range(d.n_pieces):
            got = dict(d.key_pieces(group, c))
            for t in group:
                own = np.ascontiguousarray(d.key_piece(t, c)[0]).view(np.uint32)
                assert np.array_equal(np.ascontiguousarray(got[t][0]).view(np.uint32), own), (
                    metric,
                    c,
                    t,
                )
