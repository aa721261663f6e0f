"""``pr_interpolation="psbplot"``: psbPlot's precision-recall curve (PSB, C),
checked by hand on one query and against a restatement of the program's own
loops (the whole row sorted with the query in it, ties to the lower index,
float32 throughout) on random matrices, per query and averaged."""

from __future__ import annotations

import numpy as np
import pytest
from contest_files import write_binary_matrix, write_cla
from shrec_eval import evaluate
from shrec_eval.options import EvalOptions
from shrec_eval.reading.readers import load_assessment, load_run

F = np.float32


def _psbplot_model_curves(d: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """psbPlot's per-model perf lists interpolated at j/20 (NaN where its
    average skips them): the program's loops, restated."""
    n = len(labels)
    out = np.full((n, 20), np.nan)
    for q in range(n):
        order = sorted(range(n), key=lambda j: (d[q, j], j))  # qsort, ties by index
        c = int((labels == labels[q]).sum())  # USE_QUERY: the query counts
        perf, count = [], 0
        for i, j in enumerate(order):
            if labels[j] == labels[q]:
                perf.append(F(count + 1) / F(i + 1))
                count += 1
        for j in range(20):
            if c < 2 or F(c) < F(20) / F(j + 1):
                continue
            xx = F(F(j + 1) / F(20)) * F(c) - F(1)
            x1 = int(xx)
            x2 = x1 + 1
            dx = F(xx - F(x1))
            x1, x2 = min(max(x1, 0), c - 1), min(max(x2, 0), c - 1)
            out[q, j] = F(perf[x1] * (F(1) - dx) + perf[x2] * dx)
    return out


def _contest(tmp_path, sizes, seed):
    classes, k = [], 0
    for i, s in enumerate(sizes):
        classes.append((f"c{i}", "0", [str(k + j) for j in range(s)]))
        k += s
    cla = write_cla(tmp_path / "a.cla", classes)
    labels = np.repeat(np.arange(len(sizes)), sizes)
    rng = np.random.default_rng(seed)
    d = rng.integers(1, 40, (k, k)).astype(np.float32)  # many ties
    d -= (labels[:, None] == labels[None, :]) * 5
    np.fill_diagonal(d, 0)  # every row's least: the query first
    return cla, write_binary_matrix(tmp_path / "m.matrix", d), d, labels


def test_one_query_by_hand(tmp_path):
    write_cla(tmp_path / "a.cla", [("a", "0", ["0", "1", "2"]), ("b", "0", ["3", "4", "5"])])
    d = np.array([[0, 1, 4, 2, 5, 6]] + [[1] * 6] * 5, dtype=np.float32)
    np.fill_diagonal(d, 0)
    a = load_assessment(tmp_path / "a.cla")
    run = load_run(write_binary_matrix(tmp_path / "m.matrix", d), a)
    res = evaluate(a, run, EvalOptions(pr_interpolation="psbplot"))
    pr = res.curves["pr"]
    assert pr.x.tolist() == [j / 20 for j in range(1, 21)]
    # query 0's full list 0 1 3 2 4 5: hits at ranks 1, 2, 4: P = 1, 1, 3/4 (C = 3)
    row = pr.per_query[0]
    assert np.isnan(row[:6]).all()  # r = j/20 below 1/3
    assert row[6] == 1.0  # xx = 0.05: between P[0] and P[1]
    assert row[13] == pytest.approx(0.9 * 1 + 0.1 * 0.75, abs=1e-6)  # xx = 1.1
    assert row[19] == 0.75


@pytest.mark.parametrize("seed", range(3))
def test_matches_the_programs_loops(tmp_path, seed):
    sizes = [1, 2, 5, 7, 3, 11]  # a class of one (left out) and of two
    cla, m, d, labels = _contest(tmp_path, sizes, seed)
    a = load_assessment(cla)
    want = _psbplot_model_curves(d, labels)
    for keep_self in (False, True):  # the query put back first, or kept in place
        res = evaluate(a, load_run(m, a), EvalOptions(pr_interpolation="psbplot",
                                                      remove_self=not keep_self))  # fmt: skip
        got = res.curves["pr"].per_query
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        assert np.array_equal(got[~np.isnan(got)], want[~np.isnan(want)])  # bit for bit
        # the micro curve: psbPlot's mean over the models each level keeps
        # (a level no model reaches: psbPlot prints 0, here undefined)
        kept = ~np.isnan(want)
        micro = [np.mean(want[kept[:, j], j]) if kept[:, j].any() else np.nan for j in range(20)]
        got_micro = res.curves["pr"].averages["micro"]
        assert got_micro == pytest.approx(micro, abs=1e-6, nan_ok=True)
        assert np.isnan(got_micro[0]) and not np.isnan(got_micro[-1])


def _psbplot_perf(d, labels):
    """Each model's perf list, as psbPlot's calcModelPerf makes it."""
    n = len(labels)
    out = []
    for q in range(n):
        order = sorted(range(n), key=lambda j: (d[q, j], j))
        count, perf = 0, []
        for i, j in enumerate(order):
            if labels[j] == labels[q]:
                perf.append(F(count + 1) / F(i + 1))
                count += 1
        out.append(perf)
    return out


def _interpolate(perf, j):
    c = len(perf)
    xx = F(F(j + 1) / F(20)) * F(c) - F(1)
    x1 = int(xx)
    dx = F(xx - F(x1))
    x1, x2 = min(max(x1, 0), c - 1), min(max(x1 + 1, 0), c - 1)
    return F(perf[x1] * (F(1) - dx) + perf[x2] * dx)


def _avg(perfs, j):
    """calcAvgPerf at level j: float32 sum over the lists of a valid size."""
    acc, valid = F(0), 0
    for perf in perfs:
        if len(perf) < 2 or F(len(perf)) < F(20) / F(j + 1):
            continue
        acc = F(acc + _interpolate(perf, j))
        valid += 1
    return F(acc / F(valid)) if valid else F(0)


def test_native_psbplot_files_as_psbplot_prints_them(tmp_path):
    from shrec_eval.cli.parser import main

    sizes = [2, 5, 7, 3, 11, 1]
    cla, m, d, labels = _contest(tmp_path, sizes, 7)
    code = main(
        ["evaluate", str(cla), str(m), "--profile", "psbtable", "--pr-interpolation", "psbplot"]
        + ["--native", str(tmp_path / "nat")],
        out=__import__("io").StringIO(),
    )
    assert code == 0
    perfs = _psbplot_perf(d, labels)
    micro = "".join("%f\t%f\n" % (F(j + 1) / F(20), _avg(perfs, j)) for j in range(20))
    assert (tmp_path / "nat" / "psbplot.plot").read_text() == micro
    # -macro: the class perf lists (classes of more than 2 models), then their mean
    class_perfs, k = [], 0
    for s in sizes:
        if s > 2:
            total = [F(0)] * s
            for q in range(k, k + s):
                total = [F(a + b) for a, b in zip(total, perfs[q])]
            class_perfs.append([F(t / F(s)) for t in total])
        k += s
    got = (tmp_path / "nat" / "psbplot.macro.plot").read_text().splitlines()
    for j, line in enumerate(got):
        x, y = map(float, line.split("\t"))
        assert x == pytest.approx((j + 1) / 20) and y == pytest.approx(
            _avg(class_perfs, j), abs=2e-6
        )
