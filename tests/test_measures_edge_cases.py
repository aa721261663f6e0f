"""Hand-computed cases for the edge cases of docs/measures.md
(truncated and empty lists, missing queries, undefined values, leave-one-out
self-match removal, unknown and repeated ids, the PSB cutoff, both
precision-recall interpolations, (D)CG vs recall) and for the engine's
progress, cancel and chunking."""

import math

import numpy as np
import pytest
from helpers import gains_contest
from shrec_eval import (
    Assessment,
    Cancelled,
    EvalOptions,
    OptionsError,
    RankedRun,
    evaluate,
    evaluate_runs,
    query_detail,
)

RATES = [
    "rec_hr",
    "rec_r",
    "ft_hr",
    "ft_r",
    "st_hr",
    "st_r",
    "ap_hr",
    "ap_r",
    "ap_trec_hr",
    "ap_trec_r",
    "adr",
    "nn",
    "ft_psb",
    "st_psb",
    "e_measure",
    "dcg_psb",
    "ndcg@10",
    "ncg@10",
    "r@10",
]


def test_empty_list_scores_zero_not_undefined():
    a, run = gains_contest({"q": ([], [2, 2, 1])}, ds=20)
    res = evaluate(a, run)
    for key in RATES + ["prec_hr", "prec_r", "p@5", "cg@5", "dcg@5", "tp_r", "fp_r"]:
        assert res.mean(key) == 0.0, key
    assert res.mean("fn_r") == 3
    assert res.mean("tn_r") == 20 - 3
    assert res.mean("acc_r") == pytest.approx(17 / 20)


def test_missing_query_is_an_empty_list_and_warned():
    a = Assessment.from_judgments({"q1": {"a": 1}, "q2": {"b": 1}}, ["a", "b", "c"])
    run = RankedRun.from_lists("r", {"q1": ["a", "b", "c"], "zz": ["c"]}, a)
    res = evaluate(a, run)
    assert res.value("q2", "ap_r") == 0.0
    assert res.value("q1", "ap_r") == 1.0
    assert res.mean("ap_r") == 0.5
    codes = {w.code: w for w in res.warnings}
    assert codes["missing_queries"].count == 1 and codes["missing_queries"].examples == ("q2",)
    assert codes["extra_queries"].examples == ("zz",)


def test_no_relevant_item_is_undefined_and_left_out_of_the_mean():
    a = Assessment.from_judgments(
        {"q1": {"a": 2, "b": 1}, "q2": {"b": 1}, "q3": {}}, ["a", "b", "c"], top_grade=2
    )
    run = RankedRun.from_lists("r", {"q1": ["a", "b"], "q2": ["b"], "q3": ["c", "a"]}, a)
    res = evaluate(a, run)
    # q3: nothing to find -> every rate undefined, counts and prec still defined
    for key in RATES:
        assert res.value("q3", key) is None, key
    assert res.value("q3", "prec_r") == 0.0
    assert res.value("q3", "tp_r") == 0 and res.value("q3", "fp_r") == 2
    assert res.value("q3", "cg@5") == 0 and res.value("q3", "p@5") == 0
    # q2: relevant but nothing highly relevant -> the _hr rates undefined only
    assert res.value("q2", "ap_hr") is None and res.value("q2", "rec_hr") is None
    assert res.value("q2", "ap_r") == 1.0 and res.value("q2", "adr") == 1.0
    assert res.mean("ap_r") == 1.0 and res.n_undefined("ap_r") == 1
    assert res.mean("ap_hr") == 1.0 and res.n_undefined("ap_hr") == 2
    assert res.means["nn"] == 1.0
    assert res.per_query("ndcg@5")["q3"] is None
    codes = {w.code: w for w in res.warnings}
    assert codes["no_relevant"].examples == ("q3",)
    assert codes["no_highly_relevant"].examples == ("q2",)


def test_all_undefined_mean_is_none():
    a = Assessment.from_judgments({"q": {}}, ["a"], top_grade=1)
    res = evaluate(a, RankedRun.from_lists("r", {"q": ["a"]}, a))
    assert res.mean("ap_r") is None and res.means["ap_r"] is None


def test_truncated_list_counts_later_items_as_not_retrieved():
    # 4 relevant, list of 3 holds 2 of them; Ds = 10
    a, run = gains_contest({"q": ([1, 0, 1], [1, 1, 1, 1])}, ds=10, top=1)
    res = evaluate(a, run)
    assert res.mean("ft_r") == pytest.approx(2 / 3)  # d1 = min(Va, C) = 3
    assert res.mean("st_r") == pytest.approx(2 / 3)  # d2 = min(3, 8) = 3
    assert res.mean("ft_psb") == pytest.approx(2 / 4)  # first R = 4 ranks, past the end
    assert res.mean("st_psb") == pytest.approx(2 / 4)
    assert res.mean("ap_r") == pytest.approx((1 + 2 / 3) / 2)
    assert res.mean("ap_trec_r") == pytest.approx((1 + 2 / 3) / 4)
    assert res.mean("e_measure") == pytest.approx(2 * 2 / (10 + 4))  # k = min(32, Ds) = 10
    assert res.mean("tn_r") == 10 + 2 - 3 - 4
    assert res.mean("p@5") == pytest.approx(2 / 5)
    w = {w.code: w for w in res.warnings}["truncated_lists"]
    assert w.count == 1 and w.examples == ("q (3 of 10)",)


def test_adr_switches_from_highly_to_all_relevant_after_ch():
    # Ch = 1, Cm = 2, G = [1, 2, 1]: q = 3; f1 = hr in first 1 = 0,
    # f2 = rel in first 2 = 2, f3 = 3 -> (0 + 1 + 1) / 3
    a, run = gains_contest({"q": ([1, 2, 1], [2, 1, 1])}, ds=5)
    assert evaluate(a, run).mean("adr") == pytest.approx(2 / 3)


def _loo():
    cls = {"a": "X", "b": "X", "c": "X", "d": "Y", "e": "Y"}
    judg = {q: {t: 1 for t in cls if cls[t] == cls[q]} for q in cls}
    a = Assessment.from_judgments(judg, list(cls), leave_one_out=True, query_classes=cls)
    lists = {
        "a": ["b", "a", "d", "c", "e"],
        "b": ["b", "a", "c", "d", "e"],
        "c": ["d", "e", "c", "a", "b"],
        "d": ["d", "e", "a", "b", "c"],
        "e": ["a", "b", "c", "d", "e"],
    }
    return a, RankedRun.from_lists("r", lists, a)


def test_leave_one_out_removes_the_query_itself():
    a, run = _loo()
    res = evaluate(a, run)
    # query a: list without a = [b, d, c, e], R = |C| - 1 = 2, Ds = 4
    assert res.value("a", "nn") == 1
    assert res.value("a", "ft_psb") == 0.5
    assert res.value("a", "st_psb") == 1.0
    assert res.value("a", "tn_r") == 4 + 2 - 4 - 2
    # query c: [d, e, a, b]: hits at ranks 3 and 4
    assert res.value("c", "nn") == 0
    assert res.value("c", "ap_trec_r") == pytest.approx((1 / 3 + 2 / 4) / 2)
    # query e: [a, b, c, d]: its one class mate d at rank 4
    assert res.value("e", "ft_psb") == 0 and res.value("e", "st_psb") == 0
    assert res.value("e", "dcg_psb") == pytest.approx(1 / 2)  # 1/log2(4) over ideal 1


def test_keep_self_counts_the_query_as_a_hit():
    a, run = _loo()
    res = evaluate(a, run, EvalOptions(remove_self=False))
    # query a: [b, a, d, c, e], R = 3, Ds = 5
    assert res.value("a", "ft_psb") == pytest.approx(2 / 3)
    assert res.value("a", "tn_r") == 5 + 3 - 5 - 3
    assert res.value("d", "nn") == 1


def test_psb_class_cutoff_and_class_means():
    a, run = _loo()
    res = evaluate(a, run)
    cut = evaluate(a, run, EvalOptions(psb_class_cutoff=True))
    nn = res.column("nn")
    assert res.mean("nn") == pytest.approx(nn.mean())
    # class Y has 2 members: its queries d and e leave the means
    assert cut.mean("nn") == pytest.approx(nn[:3].mean())
    w = {w.code: w for w in cut.warnings}["psb_class_cutoff"]
    assert w.count == 2 and w.examples == ("d", "e")
    assert res.class_means("nn") == {
        "X": pytest.approx(nn[:3].mean()),
        "Y": pytest.approx(nn[3:].mean()),
    }
    assert res.class_averaged_mean("nn") == pytest.approx((nn[:3].mean() + nn[3:].mean()) / 2)


def test_unknown_and_repeated_ids():
    a = Assessment.from_judgments({"q": {"a": 1, "b": 1}}, ["a", "b", "c"])
    run = RankedRun.from_lists("r", {"q": ["x", "a", "a", "b"]}, a)
    res = evaluate(a, run)
    # x is retrieved (Va counts it) but not relevant; the second a is dropped
    assert res.value("q", "fp_r") == 1 and res.value("q", "tp_r") == 2
    assert res.value("q", "nn") == 0
    assert res.value("q", "ap_r") == pytest.approx((1 / 2 + 2 / 3) / 2)
    codes = {w.code: w for w in res.warnings}
    assert codes["unknown_ids"].examples == ("x in query q (rank 1)",)
    assert codes["duplicate_ids"].examples == ("a in query q (rank 3)",)


HITS = [1, 0, 1, 1, 0, 0, 0, 0, 0, 1]  # hits at ranks 1, 3, 4, 10; R = 4


def test_pr_max_interpolation_21_levels():
    a, run = gains_contest({"q": (HITS, [1] * 4)}, ds=12, top=1)
    res = evaluate(a, run)
    pr = res.curves["pr"]
    np.testing.assert_allclose(pr.x, np.arange(21) / 20)
    # precision at the hits 1, 2/3, 3/4, 4/10; max over recall >= r
    want = [1.0] * 6 + [0.75] * 10 + [0.4] * 5
    np.testing.assert_allclose(pr.per_query[0], want, atol=1e-12)
    res11 = evaluate(a, run, EvalOptions(pr_levels=11))
    np.testing.assert_allclose(
        res11.curves["pr"].per_query[0],
        [1, 1, 1, 0.75, 0.75, 0.75, 0.75, 0.75, 0.4, 0.4, 0.4],
        atol=1e-12,
    )


def test_pr_psb_interpolation():
    a, run = gains_contest({"q": (HITS, [1] * 4)}, ds=12, top=1)
    pr = evaluate(a, run, EvalOptions(pr_interpolation="psb")).curves["pr"]
    np.testing.assert_allclose(pr.x, np.arange(1, 21) / 20)
    got = pr.per_query[0]
    assert np.isnan(got[:4]).all()  # below recall 1/C = 0.25: left out
    assert got[4] == pytest.approx(1.0)  # r = 0.25: first hit
    assert got[5] == pytest.approx(0.8 * 1 + 0.2 * 2 / 3)
    assert got[9] == pytest.approx(2 / 3)  # r = 0.5
    assert got[12] == pytest.approx(0.4 * 2 / 3 + 0.6 * 0.75)
    assert got[14] == pytest.approx(0.75)
    assert got[19] == pytest.approx(0.4)
    assert pr.count[0] == 0 and pr.count[19] == 1
    assert math.isnan(pr.mean[0])


def test_pr_psb_unretrieved_hit_has_precision_zero():
    a, run = gains_contest({"q": ([1, 0], [1, 1])}, ds=5, top=1)
    pr = evaluate(a, run, EvalOptions(pr_interpolation="psb")).curves["pr"].per_query[0]
    assert pr[9] == 1.0 and pr[19] == 0.0
    assert pr[14] == pytest.approx(0.5)


def test_cg_vs_recall():
    a, run = gains_contest({"q": (HITS, [1] * 4)}, ds=12, top=1)
    res = evaluate(a, run)
    cg = res.curves["cg_recall"]
    np.testing.assert_allclose(cg.x, np.arange(10, 101, 10))
    np.testing.assert_allclose(cg.per_query[0], [1, 1, 2, 2, 2, 3, 3, 4, 4, 4])
    dcg = res.curves["dcg_recall"].per_query[0]
    d4 = 1 + 1 / np.log2(3) + 1 / np.log2(4)
    assert dcg[2] == pytest.approx(1 + 1 / np.log2(3)) and dcg[5] == pytest.approx(d4)
    # a truncated list that never reaches 100% leaves the query out there
    a2, run2 = gains_contest({"q": ([1, 1], [1] * 4), "p": (HITS, [1] * 4)}, ds=12, top=1)
    c2 = evaluate(a2, run2).curves["cg_recall"]
    assert math.isnan(c2.per_query[0, 9]) and c2.count[9] == 1 and c2.mean[9] == 4
    assert c2.count[4] == 2 and c2.mean[4] == pytest.approx((2 + 2) / 2)


def test_f_curve_with_beta():
    a, run = gains_contest({"q": (HITS, [1] * 4)}, ds=12, top=1)
    f = evaluate(a, run, EvalOptions(f_beta=2.0, curve_length=10)).curves["f"].per_query[0]
    # k = 4: P = 3/4, R = 3/4 -> F = P
    assert f[3] == pytest.approx(0.75)
    p, r = 1 / 2, 1 / 4  # k = 2
    assert f[1] == pytest.approx(5 * p * r / (4 * p + r))


def _big(n_q=40, n_items=60):
    rng = np.random.default_rng(3)
    items = [str(j) for j in range(n_items)]
    judg = {
        f"q{i}": {str(j): int(rng.integers(1, 3)) for j in rng.choice(n_items, 7, False)}
        for i in range(n_q)
    }
    a = Assessment.from_judgments(judg, items, top_grade=2)
    lists = {
        q: [str(j) for j in rng.permutation(n_items)[: int(rng.integers(0, n_items))]] for q in judg
    }
    return a, RankedRun.from_lists("r", lists, a)


def test_chunking_gives_identical_numbers_and_reports_progress():
    a, run = _big()
    whole = evaluate(a, run)
    calls = []
    small = evaluate(
        a, run, EvalOptions(memory_budget=1), progress=lambda d, t: calls.append((d, t))
    )
    # the same up to the last bit of a BLAS sum (block widths differ)
    np.testing.assert_allclose(whole.values, small.values, rtol=1e-13, atol=0)
    for key in whole.curves:
        np.testing.assert_allclose(
            whole.curves[key].per_query, small.curves[key].per_query, rtol=1e-13, atol=0
        )
    assert calls == [(i, 40) for i in range(1, 41)]


def test_cancel_between_chunks():
    a, run = _big()
    asked = []

    def stop():
        asked.append(1)
        return len(asked) > 3

    with pytest.raises(Cancelled):
        evaluate(a, run, EvalOptions(memory_budget=1), should_stop=stop)
    assert len(asked) == 4


def test_evaluate_runs_progress_spans_all_runs():
    a, run = _big()
    calls = []
    out = evaluate_runs(
        a, [run, run], EvalOptions(memory_budget=10**9), progress=lambda d, t: calls.append((d, t))
    )
    assert len(out) == 2 and calls == [(40, 80), (80, 80)]


def test_query_detail():
    a, run = _loo()
    d = query_detail(a, run, "c")
    assert list(d.gains) == [0, 0, 1, 1]
    assert [a.item_ids[i] for i in d.item_indices] == ["d", "e", "a", "b"]
    np.testing.assert_allclose(d.recall, [0, 0, 0.5, 1])
    np.testing.assert_allclose(d.precision, [0, 0, 1 / 3, 0.5])
    with pytest.raises(KeyError):
        query_detail(a, run, "nope")


def test_collection_size_option_changes_tn_only():
    a, run = gains_contest({"q": ([1, 0, 1], [1, 1])}, ds=10, top=1)
    base = evaluate(a, run)
    big = evaluate(a, run, EvalOptions(collection_size=1000))
    assert big.mean("tn_r") == base.mean("tn_r") + 990
    assert big.mean("ap_r") == base.mean("ap_r")
    with pytest.raises(Exception, match="smaller than"):
        evaluate(a, run, EvalOptions(collection_size=5))


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"ranks": ()}, "ranks"),
        ({"ranks": (0, 5)}, "ranks"),
        ({"curve_length": 0}, "curve"),
        ({"pr_levels": 1}, "levels"),
        ({"pr_interpolation": "linear"}, "interpolation"),
        ({"collection_size": 0}, "collection size"),
        ({"f_beta": 0}, "beta"),
    ],
)
def test_bad_options(kwargs, match):
    with pytest.raises(OptionsError, match=match):
        EvalOptions(**kwargs)


def test_run_for_another_collection_is_refused():
    a = Assessment.from_judgments({"q": {"a": 1}}, ["a", "b"])
    other = Assessment.from_judgments({"q": {"a": 1}}, ["a", "b", "c"])
    run = RankedRun.from_lists("r", {"q": ["a"]}, other)
    with pytest.raises(ValueError, match="collection of 3 items"):
        evaluate(a, run)
