"""The worked example of the SHREC 2006 evaluation page and contest report
(docs/measures.md, "SHREC 2006: per-query measures"): every number to 1e-6."""

import numpy as np
import pytest
from helpers import gains_contest
from shrec_eval import EvalOptions, evaluate
from worked_example import (  # noqa: E402  (the numbers, written once)
    CG,
    DCG,
    DS,
    EXPECTED,
    ICG,
    IDCG,
    JUDGED,
    NCG,
    NDCG,
    PRINTED,
    G,
)


@pytest.fixture(scope="module")
def result():
    a, run = gains_contest({"q": (G, JUDGED)}, DS)
    return evaluate(a, run, EvalOptions(curve_length=100))


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_exact_values(result, key):
    assert result.mean(key) == pytest.approx(EXPECTED[key], abs=1e-12)


@pytest.mark.parametrize("key", sorted(PRINTED))
def test_printed_decimals(result, key):
    assert result.mean(key) == pytest.approx(PRINTED[key], abs=1e-6)


def test_adr_table(result):
    # the seed's table of r_i, i = 1..11, with its exact fractions
    r = [1, 1, 2 / 3, 3 / 4, 4 / 5, 4 / 6, 6 / 7, 7 / 8, 7 / 9, 8 / 10, 9 / 11]
    assert result.mean("adr") == pytest.approx(sum(r) / 11, abs=1e-12)


def test_accuracy(result):
    assert result.mean("acc_hr") == pytest.approx((5 + 1799) / 1814, abs=1e-12)
    assert result.mean("acc_r") == pytest.approx((9 + 1798) / 1814, abs=1e-12)


@pytest.mark.parametrize("curve,expected", [("cg", CG), ("dcg", DCG), ("ncg", NCG), ("ndcg", NDCG)])
def test_vectors(result, curve, expected):
    got = result.curves[curve].per_query[0, : len(expected)]
    np.testing.assert_allclose(got, expected, atol=1e-6, rtol=0)
    # past the end of the list nothing more is gained
    full = result.curves[curve].per_query[0]
    if curve in ("cg", "dcg"):
        assert np.all(full[len(G) :] == full[len(G) - 1])


def test_ideal_vectors(result):
    ncg = result.curves["ncg"].per_query[0]
    ndcg = result.curves["ndcg"].per_query[0]
    cg = result.curves["cg"].per_query[0]
    dcg = result.curves["dcg"].per_query[0]
    np.testing.assert_allclose(cg[:11] / ncg[:11], ICG, atol=1e-6)
    np.testing.assert_allclose(dcg[:11] / ndcg[:11], IDCG, atol=1e-6)
    # ICG reaches Cr * mean grade = 17 and stays there
    np.testing.assert_allclose(cg[20:] / ncg[20:], 17, atol=1e-9)


def test_at_rank_measures(result):
    assert result.mean("cg@5") == 9
    assert result.mean("cg@10") == 12
    assert result.mean("dcg@5") == pytest.approx(6.492283, abs=1e-6)
    assert result.mean("dcg@10") == pytest.approx(7.5134993, abs=1e-6)
    assert result.mean("ncg@10") == pytest.approx(12 / 16, abs=1e-12)
    assert result.mean("ndcg@5") == pytest.approx(0.9114262, abs=1e-6)
    # past the list (Va = 14): CG stays 14, the ideal goes on to 17
    assert result.mean("cg@25") == 14
    assert result.mean("ncg@100") == pytest.approx(14 / 17, abs=1e-12)
    assert result.mean("ndcg@100") == pytest.approx(8.091629 / 9.492018, abs=1e-6)
    assert result.mean("p@10") == pytest.approx(8 / 10)
    assert result.mean("p@25") == pytest.approx(9 / 25)  # divides by K past the list
    assert result.mean("r@5") == pytest.approx(5 / 11)


def test_psb_family(result):
    # binary view: relevant = grade >= 1, R = Cr = 11
    assert result.mean("nn") == 1
    assert result.mean("ft_psb") == pytest.approx(9 / 11)
    assert result.mean("st_psb") == pytest.approx(9 / 11)
    # E: k = 32, 9 hits in the first 32: P = 9/32, R = 9/11
    p, r = 9 / 32, 9 / 11
    assert result.mean("e_measure") == pytest.approx(2 / (1 / p + 1 / r), abs=1e-12)
    rel = [1 if g else 0 for g in G]
    dcg = rel[0] + sum(rel[i - 1] / np.log2(i) for i in range(2, len(rel) + 1))
    ideal = 1 + sum(1 / np.log2(j) for j in range(2, 12))
    assert result.mean("dcg_psb") == pytest.approx(dcg / ideal, abs=1e-12)


def test_reference_oracle_agrees(result):
    from reference import reference_query

    ref = reference_query(G, JUDGED, DS, 2)
    for key, val in ref.items():
        assert result.mean(key) == pytest.approx(val, abs=1e-9), key
