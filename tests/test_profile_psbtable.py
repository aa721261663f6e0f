"""psbtable profile: hand-computed values on tests/contest_profiles.psb_contest.

Models (file order) a1 a2 a3 z b1 b2 s d1 d2 d3 d4, d(i, j) = |i - j|, ties
to the lower index; N = 11, each list without the query has 10 entries, E's
K = min(32, 10) = 10.  Gains (1 = same class) by hand:

    a1: 1 1 0 ...            a2: 1 1 0 ...        a3: 1 0 1 0 ...
    b1: 0 1 0 ...            b2: 1 0 ...          s:  (no relevant)
    d1: 0 1 0 1 0 1 0 ...    d2: 1 1 0 1 0 ...    d3, d4: 1 1 1 0 ...
"""

from __future__ import annotations

import io
import math
import warnings

import numpy as np
import pytest
from contest_files import write_ascii_matrix
from contest_profiles import psb_contest
from hostile import run_cli
from shrec_eval.cli.parser import main
from shrec_eval.contest import AssessmentSource, RunSource
from shrec_eval.options import EvalOptions
from shrec_eval.outputs.native import native_files
from shrec_eval.scoring.engine import evaluate

L2 = math.log2
IDEAL = {1: 1.0, 2: 2.0, 3: 2 + 1 / L2(3)}


def _e(hits, C, K=10):
    P, R = hits / K, hits / C
    return 2 / (1 / R + 1 / P)


# (model, class full name, NN, FT, ST, E, DCG)
ROWS = [
    ("a1", "A", 1, 1, 1, _e(2, 2), 2 / 2),
    ("a2", "A", 1, 1, 1, _e(2, 2), 2 / 2),
    ("a3", "A", 1, 1 / 2, 1, _e(2, 2), (1 + 1 / L2(3)) / 2),
    ("b1", "B", 0, 0, 1, _e(1, 1), 1 / 1),
    ("b2", "B", 1, 1, 1, _e(1, 1), 1 / 1),
    ("s", "S", 0, 0, 0, 0, 0),
    ("d1", "P___D", 0, 1 / 3, 1, _e(3, 3), (1 + 1 / L2(4) + 1 / L2(6)) / IDEAL[3]),
    ("d2", "P___D", 1, 2 / 3, 1, _e(3, 3), (1 + 1 + 1 / L2(4)) / IDEAL[3]),
    ("d3", "P___D", 1, 1, 1, _e(3, 3), 1.0),
    ("d4", "P___D", 1, 1, 1, _e(3, 3), 1.0),
]
# NN 6/7, FT 5.5/7, ST 1, E (3 * 1/3 + 4 * 6/13) / 7, DCG 6.4829 / 7
MICRO = "       0.857        0.786        1.000        0.407        0.926\n"
KEYS = ("nn", "ft_psb", "st_psb", "e_measure", "dcg_psb")


def _score(tmp_path, **opts):
    cla, m = psb_contest(tmp_path)
    a = AssessmentSource(cla).load()
    run = RunSource(m, name="dist").load(a)
    return a, evaluate(a, run, EvalOptions(profile="psbtable", **opts))


def _mean(rows):
    return [sum(r[j] for r in rows) / len(rows) for j in range(2, 7)]


def test_per_model_values_and_averages(tmp_path):
    a, res = _score(tmp_path)
    for model, _, *want in ROWS:
        got = [res.value(model, k) for k in KEYS]
        assert got == pytest.approx(want, abs=1e-6), model
    # the -1 model is not a query; B (2 models) and S (1) leave the averages
    assert all(res.value("z", k) is None for k in KEYS)
    assert {w.code for w in res.warnings} >= {"misc_class", "psb_class_cutoff"}
    # -1 sits before B, S and D: psbTable's class rows after it would be wrong
    late = {w.code: w for w in res.warnings}["misc_class_not_last"]
    assert late.examples == ("B", "S", "D")
    kept = [r for r in ROWS if r[1] in ("A", "P___D")]
    assert [res.mean(k) for k in KEYS] == pytest.approx(_mean(kept), abs=1e-6)
    a_rows, d_rows = kept[:3], kept[3:]
    macro = [(x + y) / 2 for x, y in zip(_mean(a_rows), _mean(d_rows))]
    assert [res.averages["macro"][k] for k in KEYS] == pytest.approx(macro, abs=1e-6)
    assert list(res.per_class) == ["A", "D"] and res.per_class["D"]["queries"] == 4


def test_native_files_byte_for_byte(tmp_path):
    a, res = _score(tmp_path)
    files = native_files(res, a)
    kept = [r for r in ROWS if r[1] in ("A", "P___D")]
    a_mean, d_mean = _mean(kept[:3]), _mean(kept[3:])
    assert files["micro.txt"] == "%12.3f %12.3f %12.3f %12.3f %12.3f\n" % tuple(_mean(kept))
    assert (
        files["micro.txt"] == "       0.857        0.786        1.000        0.407        0.926\n"
    )
    macro = tuple((x + y) / 2 for x, y in zip(a_mean, d_mean))
    assert files["macro.txt"] == "%12.3f %12.3f %12.3f %12.3f %12.3f\n" % macro
    assert files["class.txt"] == (
        "%-50s %12.3f %12.3f %12.3f %12.3f %12.3f\n" % ("A", *a_mean)
        + "%-50s %12.3f %12.3f %12.3f %12.3f %12.3f\n" % ("P___D", *d_mean)
    )
    assert files["model.txt"] == "".join(
        "%-50s %s %12.3f %12.3f %12.3f %12.3f %12.3f\n" % (name, model, *vals)
        for model, name, *vals in ROWS
    )
    assert files["model.txt"].splitlines()[5] == "%-50s s" % "S" + "        0.000" * 5


def test_cli_native_one_folder_per_run(tmp_path):
    cla, m = psb_contest(tmp_path)
    out = io.StringIO()
    args = ["evaluate", str(cla), str(m), str(m), "--names", "one,two"]
    code = main(args + ["--profile", "psbtable", "--native", str(tmp_path / "nat")], out=out)
    assert code == 0, out.getvalue()
    assert "profile psbtable" in out.getvalue()
    for run in ("one", "two"):
        names = sorted(p.name for p in (tmp_path / "nat" / run).iterdir())
        assert names == ["class.txt", "macro.txt", "micro.txt", "model.txt"]
    one = (tmp_path / "nat" / "one" / "micro.txt").read_text()
    assert one == MICRO
    # the default profile has no native files: a clear usage error
    err = io.StringIO()
    code = main(["evaluate", str(cla), str(m), "--native", str(tmp_path / "x")], out=err)
    assert code == 2 and err.getvalue() == ""  # refused before any scoring


def test_e18_psbtable_every_class_small_gives_nan_without_numpy_warnings(tmp_path):
    (tmp_path / "small.cla").write_text("PSB 1\n3 5\n\na 0 2\n0\n1\n\nb 0 1\n2\n\nc 0 2\n3\n4\n")
    d = np.random.default_rng(1).uniform(1, 2, (5, 5))
    np.fill_diagonal(d, 0)
    write_ascii_matrix(tmp_path / "s.txt", d)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a RuntimeWarning fails the test
        code, _ = run_cli(
            ["evaluate", tmp_path / "small.cla", tmp_path / "s.txt", "--profile", "psbtable"]
            + ["--native", tmp_path / "n3"]
        )
    assert code == 0
    assert (tmp_path / "n3" / "micro.txt").read_text().split() == ["nan"] * 5
