"""Significance tests, confidence intervals and corrections (shrec_eval.scoring.stats),
checked against scipy.stats called directly on the same vectors and on
hand-computed p-values."""

import numpy as np
import pytest
from scipy import stats
from shrec_eval import Assessment, EvalOptions, RankedRun, evaluate
from shrec_eval.scoring.stats import StatsError, bootstrap_ci, compare, correct, paired_p


def contest(n_queries=40, seed=0, runs=None):
    """Runs with controllable per-query quality: run r puts the relevant
    item of query q at rank ranks[r][q]."""
    rng = np.random.default_rng(seed)
    items = [f"i{j}" for j in range(60)]
    judg = {f"q{q}": {items[q % 60]: 1} for q in range(n_queries)}
    a = Assessment.from_judgments(judg, items)
    out = []
    for name, ranks in (runs or {}).items():
        lists = {}
        for q in range(n_queries):
            others = [it for it in items if it != items[q % 60]]
            rng.shuffle(others)
            pos = int(ranks[q]) - 1
            lists[f"q{q}"] = others[:pos] + [items[q % 60]] + others[pos:]
        out.append(evaluate(a, RankedRun.from_lists(name, lists, a), EvalOptions()))
    return out


def test_tests_equal_scipy_called_directly():
    rng = np.random.default_rng(1)
    ra = rng.integers(1, 10, 40)
    rb = rng.integers(1, 14, 40)
    A, B = contest(runs={"A": ra, "B": rb})
    a, b = A.column("ap_trec_r"), B.column("ap_trec_r")
    c = compare([A, B], "ap_trec_r", resamples=2000, seed=7, correction="none")
    p = c.pairs[0]
    assert p.p["t"] == pytest.approx(stats.ttest_rel(a, b).pvalue, rel=1e-12)
    assert p.p["wilcoxon"] == pytest.approx(stats.wilcoxon(a, b).pvalue, rel=1e-12)
    perm = stats.permutation_test(
        (a, b),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        vectorized=True,
        permutation_type="samples",
        n_resamples=2000,
        rng=np.random.default_rng(7),
    )
    assert p.p["randomization"] == pytest.approx(perm.pvalue, rel=1e-12)
    boot = stats.bootstrap((a,), np.mean, n_resamples=2000, rng=np.random.default_rng(7))
    assert c.runs[0].ci == pytest.approx(tuple(boot.confidence_interval), rel=1e-12)
    assert p.mean_difference == pytest.approx(np.mean(a - b))
    assert p.wins == int((a > b).sum()) and p.losses == int((a < b).sum())
    assert p.wins + p.ties + p.losses == 40


def test_identical_runs_give_p_one_and_zero_difference():
    ranks = np.arange(40) % 7 + 1
    A, B = contest(runs={"A": ranks, "B": ranks})
    c = compare([A, B], "ap_trec_r", resamples=500)
    p = c.pairs[0]
    assert p.mean_difference == 0 and p.ties == 40
    assert p.p == {"t": 1.0, "wilcoxon": 1.0, "randomization": 1.0}
    assert p.p_corrected == p.p
    assert c.runs[0].ci == c.runs[1].ci


def test_a_dominating_run_is_significant():
    rng = np.random.default_rng(2)
    good = rng.integers(1, 3, 40)
    bad = good + rng.integers(3, 9, 40)  # worse on every query
    A, B = contest(runs={"good": good, "bad": bad})
    c = compare([A, B], "ap_trec_r", resamples=5000)
    for t in ("t", "wilcoxon", "randomization"):
        assert c.pairs[0].p_corrected[t] < 0.001, t
    assert c.pairs[0].wins == 40 and c.significant("good", "bad", "wilcoxon")
    assert [r.name for r in c.ranking()] == ["good", "bad"]
    lo, hi = c.runs[0].ci
    assert lo <= c.runs[0].mean <= hi


def test_seed_makes_the_randomization_test_reproducible():
    rng = np.random.default_rng(3)
    A, B = contest(runs={"A": rng.integers(1, 8, 30), "B": rng.integers(1, 9, 30)}, n_queries=30)
    one = compare([A, B], "ap_trec_r", tests=["randomization"], resamples=999, seed=11)
    two = compare([A, B], "ap_trec_r", tests=["randomization"], resamples=999, seed=11)
    other = compare([A, B], "ap_trec_r", tests=["randomization"], resamples=999, seed=12)
    assert one.pairs[0].p == two.pairs[0].p
    assert one.runs[0].ci == two.runs[0].ci
    assert one.pairs[0].p != other.pairs[0].p


def test_corrections_on_hand_computed_p_values():
    p = [0.01, 0.04, 0.03, 0.20]
    # Bonferroni: p * m
    np.testing.assert_allclose(correct(p, "bonferroni"), [0.04, 0.16, 0.12, 0.80])
    # Holm: sorted 0.01, 0.03, 0.04, 0.20 times 4, 3, 2, 1 -> 0.04, 0.09, 0.08 -> 0.09, 0.20
    np.testing.assert_allclose(correct(p, "holm"), [0.04, 0.09, 0.09, 0.20])
    # Benjamini-Hochberg: p * m / rank, then the running minimum from the top
    # ranks 1..4: 0.01*4/1=0.04, 0.03*4/2=0.06, 0.04*4/3=0.0533, 0.2*4/4=0.2
    np.testing.assert_allclose(correct(p, "bh"), [0.04, 0.05333333, 0.05333333, 0.20])
    np.testing.assert_allclose(correct([0.5, 0.9], "bonferroni"), [1.0, 1.0])
    got = correct([0.01, np.nan, 0.02], "holm")
    assert np.isnan(got[1]) and list(got[[0, 2]]) == [0.02, 0.02]
    with pytest.raises(StatsError):
        correct(p, "sidak")


def test_undefined_queries_are_left_out_pairwise():
    ranks = np.arange(20) % 5 + 1
    A, B = contest(runs={"A": ranks, "B": ranks[::-1]}, n_queries=20)
    A.values[:3, A.keys.index("ap_trec_r")] = np.nan
    c = compare([A, B], "ap_trec_r", resamples=200)
    p = c.pairs[0]
    assert p.n == 17 and p.n_left_out == 3
    assert c.runs[0].n == 17 and c.runs[0].n_undefined == 3
    a = A.column("ap_trec_r")[3:]
    b = B.column("ap_trec_r")[3:]
    assert p.p["t"] == pytest.approx(stats.ttest_rel(a, b).pvalue)


def test_matrix_and_json():
    rng = np.random.default_rng(5)
    runs = contest(
        runs={n: rng.integers(1, k, 30) for n, k in (("A", 4), ("B", 8), ("C", 16))}, n_queries=30
    )
    c = compare(runs, "nn", tests=["t", "wilcoxon"], resamples=300)
    m = c.matrix("t")
    assert m.shape == (3, 3) and np.isnan(np.diag(m)).all() and np.allclose(m, m.T, equal_nan=True)
    d = c.to_dict()
    assert len(d["pairs"]) == 3 and d["correction"] == "holm"
    assert set(d["pairs"][0]["p"]) == {"t", "wilcoxon"}
    assert c.pair("C", "A").a == "C"


def test_bad_inputs():
    A, B = contest(runs={"A": np.ones(5), "B": np.ones(5)}, n_queries=5)
    with pytest.raises(StatsError, match="unknown test"):
        compare([A, B], "nn", tests=["anova"])
    with pytest.raises(StatsError, match="same name"):
        compare([A, A], "nn")
    with pytest.raises(KeyError):
        compare([A, B], "nope")
    assert paired_p("t", np.array([1.0]), np.array([0.0])) is None
    assert bootstrap_ci(np.array([0.5])) is None


def test_compare_leaves_out_what_the_means_leave_out():
    # classes of 4 and 2: with the PSB cutoff the class of 2 leaves the means
    cls = {"a": "X", "b": "X", "c": "X", "d": "X", "e": "Y", "f": "Y"}
    judg = {q: {t: 1 for t in cls if cls[t] == cls[q]} for q in cls}
    a = Assessment.from_judgments(judg, list(cls), leave_one_out=True)
    lists = {q: sorted(cls, key=lambda t: (t != q, cls[t] != cls[q], t)) for q in cls}
    bad = {q: sorted(cls, key=lambda t: (t != q, cls[t] == cls[q], t)) for q in cls}
    opts = EvalOptions(psb_class_cutoff=True)
    A = evaluate(a, RankedRun.from_lists("A", lists, a), opts)
    B = evaluate(a, RankedRun.from_lists("B", bad, a), opts)
    c = compare([A, B], "ap_trec_r", resamples=200)
    assert c.runs[0].n == 4 and c.runs[0].mean == pytest.approx(A.mean("ap_trec_r"))
    assert c.pairs[0].n == 4 and c.pairs[0].n_left_out == 2


def _class_results(folder, average: str):
    """Three runs of the small classified contest, scored under ``average``."""
    from contest_files import write_many_runs
    from shrec_eval.contest import Contest
    from shrec_eval.service import score_contest

    contest = Contest.read(write_many_runs(folder, 3))
    contest = Contest(contest.assessment, contest.runs, EvalOptions(average=average))
    return score_contest(contest)[1]


@pytest.mark.parametrize(
    "average, unit",
    [("micro", "query"), ("macro", "class"), ("proportional", "query"), ("reciprocal", "query")],
)
def test_compare_pairs_as_the_results_average_unless_told(tmp_path, average, unit):
    """M7 (round 3): without a unit, compare pairs the runs' class means
    under the macro average and their per-query values otherwise, so that
    under micro and macro the means it ranks by are the contest's."""
    from shrec_eval.scoring.stats import average_note

    results = _class_results(tmp_path, average)
    c = compare(results, "nn", resamples=200)
    assert c.unit == unit
    assert c.to_dict() == compare(results, "nn", resamples=200, unit=unit).to_dict()
    if average in ("micro", "macro"):
        means = {r.name: r.mean for r in c.runs}
        assert means == pytest.approx({r.run_name: r.mean("nn") for r in results}, abs=1e-12)
        assert average_note(average, unit).startswith(f"the contest's {average} average")
    else:  # a weighted average: said not to be the one paired
        assert f"not the contest's {average} average" in average_note(average, unit)
        assert "weigh every query alike" in average_note(average, unit)
    other = {"query": "class", "class": "query"}[unit]
    assert compare(results, "nn", resamples=200, unit=other).unit == other
    assert f"not the contest's {average} average" in average_note(average, other)
