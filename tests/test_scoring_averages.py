"""The four averages, per-class results and class-paired comparisons
(issue 13), with values computed by hand."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from shrec_eval import Assessment, EvalOptions, OptionsError, RankedRun, evaluate
from shrec_eval.cli.parser import main
from shrec_eval.scoring.stats import compare

# q1 (class A): 1 relevant (x), list x w        -> AP = 1
# q2 (class A): 3 relevant (x y z), list w x y z -> AP = (1/2 + 2/3 + 3/4) / 3 = 23/36
# q3 (class B): 2 relevant (y z), list w y       -> AP = (1/2) / 2 = 1/4
AP = np.array([1.0, 23 / 36, 1 / 4])
N_REL = np.array([1, 3, 2])


def _contest():
    a = Assessment.from_judgments(
        {"q1": {"x": 1}, "q2": {"x": 1, "y": 1, "z": 1}, "q3": {"y": 1, "z": 1}},
        ["w", "x", "y", "z"],
        query_classes={"q1": "A", "q2": "A", "q3": "B"},
    )
    run = RankedRun.from_lists(
        "r", {"q1": ["x", "w"], "q2": ["w", "x", "y", "z"], "q3": ["w", "y"]}, a
    )
    return a, run


def test_four_averages_by_hand():
    a, run = _contest()
    res = evaluate(a, run)
    assert res.column("ap_trec_r") == pytest.approx(AP)
    av = {k: v["ap_trec_r"] for k, v in res.averages.items()}
    assert av["micro"] == pytest.approx((1 + 23 / 36 + 1 / 4) / 3)
    assert av["macro"] == pytest.approx(((1 + 23 / 36) / 2 + 1 / 4) / 2)
    assert av["proportional"] == pytest.approx((1 * 1 + 3 * 23 / 36 + 2 / 4) / 6)
    assert av["reciprocal"] == pytest.approx((1 + 23 / 108 + 1 / 8) / (1 + 1 / 3 + 1 / 2))
    assert res.mean("ap_trec_r") == av["micro"]
    assert set(res.per_class) == {"A", "B"}
    assert (res.per_class["A"]["queries"], res.per_class["B"]["queries"]) == (2, 1)
    # by hand: NN is 1 for q1 (x first), 0 for q2 and q3 (w first); P@5 with
    # the lists' lengths: q1 1/5, q2 3/5, q3 1/5
    assert res.per_class["A"]["ap_trec_r"] == pytest.approx((1 + 23 / 36) / 2)
    assert res.per_class["B"]["ap_trec_r"] == pytest.approx(1 / 4)
    assert (res.per_class["A"]["nn"], res.per_class["B"]["nn"]) == (0.5, 0.0)
    assert res.per_class["A"]["p@5"] == pytest.approx((1 / 5 + 3 / 5) / 2)
    assert res.per_class["B"]["p@5"] == pytest.approx(1 / 5)
    # every other measure: a class's value is the mean of its queries' values
    # (those defined), the per-query values being checked elsewhere
    rows = {"A": [0, 1], "B": [2]}
    for c, idx in rows.items():
        for k in res.keys:
            col = res.column(k)[idx]
            want = float(np.mean(col[~np.isnan(col)])) if (~np.isnan(col)).any() else None
            got = res.per_class[c][k]
            assert (got is None or np.isnan(got)) if want is None else got == pytest.approx(want)


@pytest.mark.parametrize("kind", ["macro", "proportional", "reciprocal"])
def test_mean_follows_the_average_option(kind):
    a, run = _contest()
    res = evaluate(a, run, EvalOptions(average=kind))
    assert res.mean("ap_trec_r") == res.averages[kind]["ap_trec_r"]
    assert res.means["nn"] == res.averages[kind]["nn"]
    # curves too: the mean of a curve is its chosen average
    pr = res.curves["pr"]
    assert np.array_equal(pr.mean, pr.averages[kind], equal_nan=True)


def test_curve_averages_by_hand():
    a, run = _contest()
    res = evaluate(a, run, EvalOptions(curve_length=2))
    # CG at rank 1: q1 1, q2 0, q3 0; at rank 2: 1, 1, 1
    cg = res.curves["cg"]
    assert cg.averages["micro"] == pytest.approx([1 / 3, 1.0])
    assert cg.averages["macro"] == pytest.approx([(0.5 + 0) / 2, 1.0])
    assert cg.averages["proportional"] == pytest.approx([1 / 6, 1.0])
    assert cg.averages["reciprocal"] == pytest.approx([1 / (1 + 1 / 3 + 1 / 2), 1.0])


def test_macro_needs_classes_and_unknown_average_is_refused():
    a = Assessment.from_judgments({"q": {"x": 1}}, ["x"])
    run = RankedRun.from_lists("r", {"q": ["x"]}, a)
    with pytest.raises(OptionsError, match="macro average needs query classes"):
        evaluate(a, run, EvalOptions(average="macro"))
    res = evaluate(a, run)
    assert res.averages["macro"] is None and res.per_class == {}
    with pytest.raises(OptionsError, match="unknown average"):
        EvalOptions(average="median")
    with pytest.raises(OptionsError, match="unknown profile"):
        EvalOptions(profile="matlab")


def test_queries_without_relevant_items_weigh_nothing():
    a = Assessment.from_judgments(
        {"q1": {"x": 1}, "q2": {}}, ["w", "x"], query_classes={"q1": "A", "q2": "A"}
    )
    run = RankedRun.from_lists("r", {"q1": ["x"], "q2": ["w"]}, a)
    res = evaluate(a, run)
    # prec_r is defined for q2 (0); micro counts it, the weighted averages do not
    assert res.averages["micro"]["prec_r"] == pytest.approx(0.5)
    assert res.averages["proportional"]["prec_r"] == 1.0
    assert res.averages["reciprocal"]["prec_r"] == 1.0


def test_compare_pairs_classes():
    a, run = _contest()
    b = RankedRun.from_lists(
        "s", {"q1": ["w", "x"], "q2": ["x", "y", "z", "w"], "q3": ["y", "z"]}, a
    )
    ra, rb = evaluate(a, run), evaluate(a, b)
    c = compare([ra, rb], "ap_trec_r", unit="class", resamples=50)
    assert c.unit == "class" and c.profile == "shrec"
    # class means: r = (1 + 23/36)/2, 1/4; s = (1/2 + 1)/2, 1
    p = c.pair("r", "s")
    assert p.n == 2 and p.wins == 1 and p.losses == 1
    assert p.mean_difference == pytest.approx(((1 + 23 / 36) / 2 - 0.75 + 0.25 - 1) / 2)
    assert [r.n for r in c.runs] == [2, 2]


def test_cli_average_profile_and_unit(tmp_path):
    cla = tmp_path / "t.cla"
    cla.write_text("PSB 1\n2 5\n\nX 0 3\na\nb\nc\n\nY 0 2\nd\ne\n")
    run = tmp_path / "run.txt"
    # ASCII matrix: each model closest to the next one in file order
    rows = []
    for i in range(5):
        rows.append(" ".join(str(((j - i) % 5) / 10) for j in range(5)))
    run.write_text("\n".join(rows) + "\n")
    out = io.StringIO()
    code = main(
        ["evaluate", str(cla), str(run), "--average", "macro", "--json", str(tmp_path / "o.json")],
        out=out,
    )
    assert code == 0, out.getvalue()
    assert "profile shrec, mean over classes of the class means (macro)" in out.getvalue()
    doc = json.loads((tmp_path / "o.json").read_text())
    r = doc["runs"][0]
    assert doc["profile"] == "shrec" and doc["options"]["average"] == "macro"
    assert r["mean"] == r["averages"]["macro"]
    assert set(r["per_class"]) == {"X", "Y"} and r["per_class"]["Y"]["queries"] == 2
    # a -> b (hit), b -> c (hit), c -> d (miss), d -> e (hit), e -> a (miss)
    assert r["per_class"]["X"]["nn"] == pytest.approx(2 / 3)
    assert r["mean"]["nn"] == pytest.approx((2 / 3 + 1 / 2) / 2)
    out = io.StringIO()
    code = main(
        ["compare", str(cla), str(run), str(run), "--names", "A,B"]
        + ["--measure", "nn", "--unit", "class", "--resamples", "20"],
        out=out,
    )
    assert code == 0 and "paired over classes" in out.getvalue()


def test_averages_of_many_queries_copy_their_rows_once():
    # a curve of 20,000 queries x 100 points (16 MB as an array), its rows
    # held once: the averages make one copy of the included rows (and the
    # mask of its defined values), not one per step; the same figures as
    # the whole array gives
    import tracemalloc

    from shrec_eval.scoring.averages import ClassGroups, average_all
    from shrec_eval.scoring.rows import QueryRows

    rng = np.random.default_rng(4)
    table = rng.random((3, 100))
    table[1, 40:] = np.nan
    which = rng.integers(0, 3, 20_000)
    rows = QueryRows(table, which)
    included = rng.random(20_000) < 0.9
    n_rel = rng.integers(0, 5, 20_000)
    groups = ClassGroups(None, included)
    whole = 8 * int(included.sum()) * 100
    tracemalloc.start()
    try:
        got = average_all(rows, included, groups, n_rel)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2.4 * whole
    want = average_all(table[which], included, groups, n_rel)
    for k in ("micro", "proportional", "reciprocal"):
        np.testing.assert_array_equal(got[k], want[k])
    assert got["macro"] is None
    np.testing.assert_array_equal(got["micro"][:40], table[which[included], :40].mean(axis=0))


def test_curve_means_made_when_first_read(monkeypatch):
    """Scoring makes none of the curves' means (trec_eval's text reads none:
    under -c, 80,000 queries x 8 curves were a third of scoring); read, they
    are the averages of the curve's per-query rows, bit for bit, and its
    counts those of the rows (held once per kind of unanswered query)."""
    from shrec_eval.profiles.trec_eval_text import P_CUTOFFS, trec_eval_text
    from shrec_eval.scoring import averages
    from shrec_eval.scoring.rows import QueryRows

    judged = {f"q{i}": {f"d{j}": 1 + (i + j) % 2 for j in range(i % 4 + 1)} for i in range(12)}
    judged["q11"] = {"d0": 0, "d3": 0}  # no relevant item: undefined rows
    a = Assessment.from_judgments(judged, [f"d{j}" for j in range(6)])
    run = RankedRun.from_lists("r", {"q1": ["d1", "d0", "d5"], "q6": ["d2", "d0", "d4"]}, a)
    real, calls = averages._mean, []
    monkeypatch.setattr(averages, "_mean", lambda *args: calls.append(1) or real(*args))
    te = EvalOptions(
        profile="trec_eval", complete_queries=True, ranks=EvalOptions().ranks + P_CUTOFFS
    )
    res = evaluate(a, run, te)
    assert "num_q                 \tall\t12\n" in trec_eval_text(a, run, res)
    assert calls == []  # no curve's means made
    partly = 0
    for o in (te, EvalOptions(average="reciprocal")):
        res = evaluate(a, run, o)
        assert len(res.curves) >= 2
        groups = averages.ClassGroups(None, res.included)
        for key, c in res.curves.items():
            rows = np.asarray(c.per_query)
            assert isinstance(c.per_query, QueryRows) and rows.shape[0] == 12
            assert c.per_query.table.shape[0] < 12, key  # unanswered queries' rows held once
            want = averages.average_all(rows, res.included, groups, res.n_relevant)
            assert set(c.averages) == set(want)
            for kind, v in want.items():
                assert v is None or np.array_equal(c.averages[kind], v, equal_nan=True), key
            assert np.array_equal(c.mean, want[o.average], equal_nan=True)
            count = (~np.isnan(rows[res.included])).sum(axis=0)
            assert c.count.dtype == count.dtype and np.array_equal(c.count, count), key
            partly += int(count.min() < count.max())
    assert partly  # some curve's points defined by some queries only
    assert calls  # made once read
