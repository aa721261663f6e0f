"""Distances of feature vectors are scale-free: rows whose magnitudes would
under- or overflow the products in float32 (or float64) are scaled by a
power of two first (exact), so the cosine of features at 1e-25 or 1e19 is
the cosine of the same directions at 1, bit for bit when the scale is a
power of two; euclidean, squared euclidean and dot distances are the same
values scaled back, or an error naming what does not fit in a float32
matrix.  Zero and huge rows are judged by their real values.  What held
still holds: rows in the safe range keep their bits, any blocks give the
same bits, and the embeddings score as the matrix they produce."""

from __future__ import annotations

import numpy as np
import pytest
from shrec_eval import Assessment, EvalOptions, evaluate
from shrec_eval.errors import FormatError
from shrec_eval.kernels import distances as tiles
from shrec_eval.reading.formats import embeddings as emb
from shrec_eval.reading.readers import load_run

N, DIM, CLASSES = 90, 10, 5
METRICS = ("cosine", "euclidean", "sqeuclidean", "dot")


def _contest(seed=0):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, CLASSES, N)
    items = [str(i) for i in range(N)]
    a = Assessment.from_judgments(
        {q: {j: 1 for j in items if labels[int(j)] == labels[int(q)]} for q in items},
        items,
        leave_one_out=True,
    )
    f = rng.normal(size=(CLASSES, DIM))[labels] * 2 + rng.normal(size=(N, DIM))
    return a, f


def _matrix(tmp_path, a, f, metric, name="f.npy"):
    """The distances of features ``f`` as scored (every tile), float32."""
    np.save(tmp_path / name, f)
    run = load_run(tmp_path / name, a, metric=metric)
    return np.frombuffer(b"".join(emb.matrix_pieces(run.matrix)), "<f4").reshape(N, N), run


@pytest.fixture
def small_tiles(monkeypatch):
    monkeypatch.setattr(tiles, "TILE_ROWS", 16)
    monkeypatch.setattr(tiles, "TILE_COLS", 40)


@pytest.mark.parametrize(
    "dtype, exps",
    [("float32", (-100, -60, -25, 25, 60, 100)), ("float64", (-900, -400, -60, 60, 400, 900))],
)
def test_cosine_of_rows_scaled_by_powers_of_two_keeps_its_bits(tmp_path, dtype, exps):
    a, f = _contest()
    f = f.astype(dtype)
    want, _ = _matrix(tmp_path, a, f, "cosine")
    for k in exps:  # every row at 2**k: inner products that underflow / overflow unscaled
        got, _ = _matrix(tmp_path, a, np.ldexp(f, k), "cosine", f"s{k}.npy")
        assert np.array_equal(got, want), k
    rng = np.random.default_rng(5)  # each row its own power of two, out of range or not
    ks = rng.choice(exps + (0, 3, -3), N)
    got, _ = _matrix(tmp_path, a, np.ldexp(f, ks[:, None]), "cosine", "rows.npy")
    assert np.array_equal(got, want)


@pytest.mark.parametrize("scale", [1e-20, 1e-25, 1e-30, 1e-35, 1e19, 1e30])
def test_the_ranking_is_the_same_at_any_scale_float32_holds(tmp_path, scale):
    a, f = _contest(1)
    base, _ = _matrix(tmp_path, a, f.astype(np.float32), "cosine", "b.npy")
    got, run = _matrix(tmp_path, a, (f * scale).astype(np.float32), "cosine")
    assert np.allclose(got, base, atol=2e-6, rtol=0)
    o = EvalOptions(ranks=(1,))
    r0 = evaluate(a, load_run(tmp_path / "b.npy", a), o)
    r1 = evaluate(a, run, o)
    assert r1.mean("nn") == pytest.approx(r0.mean("nn"), abs=1 / N)
    assert r0.mean("nn") > 0.5


@pytest.mark.parametrize("metric", ["euclidean", "sqeuclidean", "dot"])
@pytest.mark.parametrize("k", [-90, -40, 30, 50])
def test_other_metrics_scale_back_exactly(tmp_path, metric, k):
    """Rows out of the safe range: all scaled by one power of two, the
    distances scaled back: the values of features at 1, times 2**k (or
    2**2k), bit for bit, when they fit in float32."""
    a, f = _contest(2)
    f = f.astype(np.float32)
    want, _ = _matrix(tmp_path, a, f, metric)
    p = k if metric == "euclidean" else 2 * k
    exact = np.abs(np.ldexp(want.astype(np.float64), p))
    f32 = np.finfo(np.float32)
    fits = (exact <= f32.max).all() and ((exact == 0) | (exact >= f32.tiny)).all()
    if fits:
        got, _ = _matrix(tmp_path, a, np.ldexp(f, k), metric, "s.npy")
        assert np.array_equal(got, np.ldexp(want, p))
    else:
        with pytest.raises(FormatError, match=f"the {metric} distance of query row .* float32"):
            _matrix(tmp_path, a, np.ldexp(f, k), metric, "s.npy")


def test_distances_that_do_not_fit_in_float32_are_errors(tmp_path):
    a, f = _contest(3)
    with pytest.raises(FormatError, match="below float32's smallest normal number"):
        _matrix(tmp_path, a, (f * 1e-25).astype(np.float32), "sqeuclidean")
    with pytest.raises(FormatError, match="beyond float32's range"):
        _matrix(tmp_path, a, (f * 1e25).astype(np.float32), "dot")
    # the same features fit as euclidean distances (1e-25 and 1e25: in range)
    small, _ = _matrix(tmp_path, a, (f * 1e-25).astype(np.float32), "euclidean", "s.npy")
    base, _ = _matrix(tmp_path, a, f.astype(np.float32), "euclidean", "b.npy")
    # (|q|^2 + |g|^2 - 2 q.g: the error is in the square, as at any scale)
    scaled = small.astype(np.float64) * 1e25
    assert np.allclose(scaled**2, base.astype(np.float64) ** 2, atol=1e-5 * base.max() ** 2)


def test_zero_and_huge_rows_are_judged_by_their_real_values(tmp_path):
    a, f = _contest(4)
    base, _ = _matrix(tmp_path, a, f, "cosine", "b.npy")
    tiny = f * 1e-200  # its squares underflow float64: not zero
    got, _ = _matrix(tmp_path, a, tiny, "cosine")
    assert np.allclose(got, base, atol=1e-6)
    huge = f * 1e300  # its squares overflow float64: finite, not "too large"
    got, _ = _matrix(tmp_path, a, huge, "cosine", "h.npy")
    assert np.allclose(got, base, atol=1e-6)
    sub = f.astype(np.float32)
    sub[7] = np.float32(1e-40) * np.sign(sub[7])  # subnormal float32: a direction
    got, _ = _matrix(tmp_path, a, sub, "cosine", "sub.npy")
    assert np.isfinite(got).all() and got[7, 7] == pytest.approx(0, abs=1e-6)
    zero = f.copy()
    zero[11] = 0.0
    with pytest.raises(FormatError, match="row 12 of the array is all zeros"):
        _matrix(tmp_path, a, zero, "cosine", "z.npy")
    with pytest.raises(FormatError, match="row 12 of the array is all zeros"):
        _matrix(tmp_path, a, zero * 1e-300, "cosine", "z2.npy")


@pytest.mark.parametrize("metric", METRICS)
def test_scaled_rows_give_the_same_bits_whatever_the_blocks(tmp_path, small_tiles, metric):
    a, f = _contest(5)
    f = f.astype(np.float32)
    if metric == "cosine":
        f[::3] *= np.float32(2.0**-40)  # some rows out of the safe range
    else:
        f *= np.float32(2.0**-30)  # every row: one scale for all
    np.save(tmp_path / "f.npy", f)
    d = load_run(tmp_path / "f.npy", a, metric=metric).matrix
    assert d.qshift is not None and d.gshift is not None
    whole = np.concatenate([d.tile(t) for t in range(d.n_tiles)])
    fresh = load_run(tmp_path / "f.npy", a, metric=metric).matrix
    for rows in (slice(3, 70), np.array([89, 2, 40, 41, 15, 16, 0]), slice(17, 18)):
        assert np.array_equal(fresh[rows], whole[rows])


@pytest.mark.parametrize("metric", METRICS)
def test_scaled_embeddings_score_as_the_matrix_they_produce(tmp_path, metric):
    from shrec_eval.cli.parser import main

    a, f = _contest(6)
    f = (f * (1e-22 if metric in ("cosine", "euclidean") else 1e-8)).astype(np.float32)
    np.save(tmp_path / "f.npy", f)
    out = tmp_path / "d.matrix"
    assert main(["distances", str(tmp_path / "f.npy"), "--metric", metric, "-o", str(out)]) == 0
    run = load_run(tmp_path / "f.npy", a, metric=metric)
    matrix = load_run(out, a)
    for budget in (2 * 7 * (64 * N + N + 2), EvalOptions().memory_budget):
        o = EvalOptions(memory_budget=budget)
        r1, r2 = evaluate(a, run, o), evaluate(a, matrix, o)
        assert r1.keys == r2.keys and np.array_equal(r1.values, r2.values, equal_nan=True)
