"""boli profile: hand-computed values on tests/contest_profiles.boli_contest.

Gains of the first 8 ranks (the 30 filler targets follow, never relevant):

    q1 chair C=3: 1 1 0 1 0 0 0 0   hits at 1, 2, 4: p = 1, 1, 3/4
    q2 chair C=3: 0 1 0 1 0 1 0 0   hits at 2, 4, 6: p = 1/2, 1/2, 1/2
    q3 table C=1: 0 1 0 ...         hit at 2:        p = 1/2
    q4 lamp  C=2: 1 0 0 0 0 0 0 1   hits at 1, 8:    p = 1, 1/4
"""

from __future__ import annotations

import io
import math

import pytest
from contest_profiles import boli_contest
from shrec_eval.cli.parser import main
from shrec_eval.contest import AssessmentSource, RunSource
from shrec_eval.errors import FormatError
from shrec_eval.options import EvalOptions
from shrec_eval.outputs.native import native_files
from shrec_eval.profiles.base import ReadingError
from shrec_eval.scoring.engine import evaluate
from shrec_eval.scoring.measures import expand

L2 = math.log2
IDEAL3 = 1 + 1 + 1 / L2(3)
# query: NN, FT, ST, E (F1 over 32: 2h / (32 + C)), DCG, ap_boli (/ max C = 3), ap_trec_r
WANT = {
    "q1": (1, 2 / 3, 1, 6 / 35, (1 + 1 + 1 / 2) / IDEAL3, 2.75 / 3, 2.75 / 3),
    "q2": (0, 1 / 3, 1, 6 / 35, (1 + 1 / 2 + 1 / L2(6)) / IDEAL3, 1.5 / 3, 1.5 / 3),
    "q3": (0, 0, 1, 2 / 33, 1.0, 0.5 / 3, 0.5),
    "q4": (1, 1 / 2, 1 / 2, 4 / 34, (1 + 1 / 3) / 2, 1.25 / 3, 1.25 / 2),
}
KEYS = ("nn", "ft_psb", "st_psb", "e_measure", "dcg_psb", "ap_boli", "ap_trec_r")
P = {"q1": [1, 1, 0.75], "q2": [0.5, 0.5, 0.5], "q4": [1, 0.25]}


def _level(p, j):
    """profiles.md's interpolation of one query at level j/20."""
    C = len(p)
    x = j / 20 * C
    x1 = int(x)
    dx = x - x1
    x2 = min(max(x1 + 1, 1), C)
    x1 = min(max(x1, 1), C)
    return p[x1 - 1] * (1 - dx) + p[x2 - 1] * dx


def _pr():
    out = []
    for j in range(1, 21):
        vals = [_level(p, j) for p in P.values() if len(p) >= 20 / j]
        out.append(sum(vals) / len(vals) if vals else 0.0)
    return out


def _score(tmp_path):
    queries, target, runs = boli_contest(tmp_path)
    a = AssessmentSource(target, queries=queries).load("boli")
    run = RunSource(runs, name="method").load(a)  # a run follows its assessment's profile
    return a, run, evaluate(a, run, EvalOptions(profile="boli"))


def test_measures_ap_boli_and_pr(tmp_path):
    a, run, res = _score(tmp_path)
    for q, want in WANT.items():
        assert [res.value(q, k) for k in KEYS] == pytest.approx(want, abs=1e-12), q
    assert res.mean("ap_boli") == pytest.approx((2.75 + 1.5 + 0.5 + 1.25) / 3 / 4)
    pr = res.curves["pr"]
    assert pr.x == pytest.approx([j / 20 for j in range(1, 21)])
    assert list(pr.mean) == pytest.approx(_pr(), abs=1e-12)
    # levels 1..6 nobody reaches (C = 3 needs j >= 7): printed as 0
    assert list(pr.mean[:6]) == [0.0] * 6 and pr.mean[6] == pytest.approx(0.75)
    assert pr.mean[9] == pytest.approx(2.5 / 3) and pr.mean[19] == pytest.approx(0.5)
    # q3 (one relevant target) takes no part
    assert pr.count[19] == 3
    codes = {w.code for w in run.warnings}
    assert {"skipped_files", "nonfinite_distances"} <= codes
    # ap_boli belongs to the boli profile only
    assert "ap_boli" not in [m.key for m in expand(res.options.ranks, "shrec")]
    # and a run read by boli's rules (its own files skipped) is not scored under another
    with pytest.raises(ReadingError, match="the shrec profile reads with every file"):
        evaluate(a, run)


def test_nan_distance_is_an_error_outside_boli(tmp_path):
    queries, target, runs = boli_contest(tmp_path)
    a = AssessmentSource(target, queries=queries).load()
    (runs / "Stats_test.txt").unlink()
    (runs / "PR_test.txt").unlink()
    with pytest.raises(FormatError, match="finite"):
        RunSource(runs).load(a)


def test_native_files_byte_for_byte(tmp_path):
    a, run, res = _score(tmp_path)
    files = native_files(res, a)
    row = "%2.3f\t %2.3f\t %2.3f\t %2.3f\t %2.3f\n"
    stats = "        NN     FT     ST      E       DCG\n"
    for i, q in enumerate(("q1", "q2", "q3", "q4"), start=1):
        stats += f"No.{i}: " + row % WANT[q][:5]
    means = [sum(WANT[q][j] for q in WANT) / 4 for j in range(5)]
    stats += "NN       FT       ST       E       DCG \n" + row % tuple(means)
    assert files["Stats_test.txt"] == stats
    assert files["Stats_test.txt"].splitlines()[1] == "No.1: 1.000\t 0.667\t 1.000\t 0.171\t 0.950"
    pr = "".join("%f\t%f\n" % (j / 20, v) for j, v in zip(range(1, 21), _pr()))
    assert files["PR_test.txt"] == pr
    assert files["PR_test.txt"].splitlines()[6] == "0.350000\t0.750000"


def test_cli_profile_boli(tmp_path):
    queries, target, runs = boli_contest(tmp_path)
    out = io.StringIO()
    code = main(
        ["evaluate", str(target), str(runs), "--queries", str(queries), "--profile", "boli"]
        + ["--columns", "ap_boli,ap_trec_r", "--native", str(tmp_path / "nat")],
        out=out,
    )
    assert code == 0, out.getvalue()
    text = out.getvalue()
    assert "profile boli" in text and "0.5000" in text
    assert (tmp_path / "nat" / "PR_test.txt").read_text().startswith("0.050000\t0.000000\n")
