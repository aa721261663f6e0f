"""trec_eval profile: run lines of 6+ fields, ties by score then docno
descending, -M / -l / -N / -c, a qrels query without relevant documents
scoring 0.  Values by hand.

qrels: q1: d1 2, d2 1, d3 0; q2: d4 0 (nothing relevant); q3: d5 1 (the run
lacks q3).  Run q1: d3 2.0, d2 3.0, d1 3.0, d9 1.0 (+ junk fields): ranked
d2 d1 (tie on 3.0, docno descending) d3 d9, gains 1 2 0 0.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import io
import json
from math import log2 as L2

import numpy as np
import pytest
from hostile import run_cli
from shrec_eval.cli.parser import main
from shrec_eval.contest import AssessmentSource, Contest, RunSource
from shrec_eval.errors import FormatError, OptionsError
from shrec_eval.options import EvalOptions
from shrec_eval.reading.formats.tokens import c_atof, c_atol
from shrec_eval.reading.readers import load_assessment
from shrec_eval.scoring.engine import evaluate

QRELS = "q1 0 d1 2\nq1 0 d2 1\nq1 0 d3 0\nq2 0 d4 0\nq3 0 d5 1\n"
RUN = (
    "q1 Q0 d3 1 2.0 r\n"
    "q1 Q0 d2 2 3.0 r\n"
    "q1 Q0 d1 3 3.0 r extra junk\n"
    "q1 Q0 d9 4 1.0 r\n"
    "q2 Q0 d4 1 1.0 r\n"
)


def _files(tmp_path):
    q, r = tmp_path / "t.qrels", tmp_path / "t.run"
    q.write_text(QRELS)
    r.write_text(RUN)
    return q, r


def _score(tmp_path, **opts):
    q, r = _files(tmp_path)
    a = AssessmentSource(q, collection_size=20).load("trec_eval")
    run = RunSource(r).load(a)  # a run follows the profile of its assessment
    return evaluate(a, run, EvalOptions(profile="trec_eval", **opts))


def test_ties_docno_descending_and_queries_of_the_run(tmp_path):
    res = _score(tmp_path)
    # hits at ranks 1 and 2: AP = (1/1 + 2/2) / 2; q2 has nothing relevant: 0
    assert res.value("q1", "ap_trec_r") == 1.0
    assert res.value("q2", "ap_trec_r") == 0.0
    # trec_eval's ndcg_cut_5: gains 1 2 vs ideal 2 1, rank r discounted by log2(r + 1)
    assert res.value("q1", "ndcg@5") == pytest.approx((1 + 2 / L2(3)) / (2 + 1 / L2(3)))
    # q3 is not in the run: left out of the averages without -c
    assert res.mean("ap_trec_r") == pytest.approx((1 + 0) / 2)
    assert res.mean("p@5") == pytest.approx((2 / 5 + 0) / 2)
    assert "extra_fields" in {w.code for w in res.warnings}


def test_complete_queries_max_rank_relevance_level(tmp_path):
    assert _score(tmp_path, complete_queries=True).mean("ap_trec_r") == pytest.approx(1 / 3)
    # -M 1: the list is [d2]: AP = 1 / 2
    m1 = _score(tmp_path, max_rank=1)
    assert m1.value("q1", "ap_trec_r") == 0.5 and m1.value("q1", "p@5") == pytest.approx(1 / 5)
    assert m1.value("q1", "tp_r") == 1 and m1.value("q1", "fp_r") == 0
    # -l 2: only d1 is relevant, found at rank 2: AP = 1/2
    l2 = _score(tmp_path, relevance_level=2)
    assert l2.value("q1", "ap_trec_r") == 0.5 and l2.value("q1", "tp_r") == 1
    with pytest.raises(OptionsError, match="trec_eval profile"):
        EvalOptions(complete_queries=True)


def test_cli_flags(tmp_path):
    q, r = _files(tmp_path)
    out = io.StringIO()
    args = ["evaluate", str(q), str(r), "--profile", "trec_eval", "-N", "20"]
    code = main(args + ["-c", "-M", "1", "--json", str(tmp_path / "o.json")], out=out)
    assert code == 0, out.getvalue()
    doc = json.loads((tmp_path / "o.json").read_text())
    assert doc["profile"] == "trec_eval"
    assert doc["options"]["max_rank"] == 1 and doc["options"]["complete_queries"] is True
    # q1 0.5, q2 0, q3 0 (missing, -c)
    assert doc["runs"][0]["mean"]["ap_trec_r"] == pytest.approx(0.5 / 3)


# -- e14 / e15: trec_eval's numbers and ids ------------------------------------------------------


def test_e14_c_atof_and_atol_read_as_the_c_library_does():
    libc = ctypes.CDLL(ctypes.util.find_library("c") or None)
    libc.atof.restype = ctypes.c_double
    libc.atof.argtypes = [ctypes.c_char_p]
    libc.atol.restype = ctypes.c_long
    libc.atol.argtypes = [ctypes.c_char_p]
    spellings = [
        b"1_000", b"2abc", b"x", b"", b"-0", b"1e", b"1e+", b"1e5x", b".5", b"5.", b"-.5e-3",
        b"0x1p3", b"0x", b"0x.8", b"inf", b"-Infinity", b"infinit", b"1.#INF00", b"+7",
        b"123456789012345678901234567890", b"1_0", b" 3", b"\xd9\xa3", b"1e400", b"4.9e-324",
    ]  # fmt: skip
    for s in spellings:
        assert np.float64(c_atof(s)).tobytes() == np.float64(libc.atof(s)).tobytes(), s
        if s not in (b"123456789012345678901234567890",):
            assert c_atol(s) == libc.atol(s), s
    assert np.isnan(c_atof(b"nan")) and np.isnan(c_atof(b"-nan(123)"))


def test_e14_underscores_under_trec_eval_and_elsewhere(tmp_path, capsys):
    (tmp_path / "q.qrels").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "r.trec").write_text("1 Q0 b 1 2 t\n1 Q0 a 2 1_000 t\n")
    code, _ = run_cli(
        ["evaluate", tmp_path / "q.qrels", tmp_path / "r.trec", "-N", "5", "--profile", "trec_eval"]
        + ["--json", tmp_path / "t.json"]
    )
    assert code == 0  # atof("1_000") = 1 < 2: b first, a second (trec_eval's AP 0.5)
    doc = json.loads((tmp_path / "t.json").read_bytes())
    assert doc["runs"][0]["mean"]["ap_trec_r"] == 0.5
    (tmp_path / "g.qrels").write_text("1 0 a 1_0\n1 0 b 1\n")
    code, _ = run_cli(["evaluate", tmp_path / "g.qrels", tmp_path / "r.trec", "-N", "5"])
    err = capsys.readouterr().err
    assert code == 2 and "line 1, column 7" in err and "'1_0'" in err
    a = load_assessment(tmp_path / "g.qrels", collection_size=5, c_numbers=True)
    assert a.top_grade == 1  # atol("1_0")
    (tmp_path / "h.cla").write_text("PSB 1\n2 1_0\n")
    with pytest.raises(FormatError, match="whole number"):
        load_assessment(tmp_path / "h.cla")


def test_e15_trec_eval_profile_keeps_padded_ids_apart(tmp_path):
    (tmp_path / "q.qrels").write_text("01 0 a 1\n01 0 b 0\n1 0 c 1\n")
    (tmp_path / "r.trec").write_text("01 Q0 b 1 3 t\n01 Q0 a 2 2 t\n1 Q0 c 1 5 t\n")
    code, _ = run_cli(
        ["evaluate", tmp_path / "q.qrels", tmp_path / "r.trec", "-N", "10"]
        + ["--profile", "trec_eval", "--json", tmp_path / "r.json"]
    )
    assert code == 0
    doc = json.loads((tmp_path / "r.json").read_bytes())
    assert doc["runs"][0]["mean"]["ap_trec_r"] == 0.75  # pytrec_eval: (0.5 + 1) / 2
    (tmp_path / "d.qrels").write_text("1 0 7 1\n1 0 007 0\n1 0 8 1\n")
    (tmp_path / "d.trec").write_text("1 Q0 007 1 5 t\n1 Q0 7 2 4 t\n1 Q0 8 3 3 t\n")
    code, _ = run_cli(
        ["evaluate", tmp_path / "d.qrels", tmp_path / "d.trec", "-N", "10"]
        + ["--profile", "trec_eval", "--json", tmp_path / "d.json"]
    )
    doc = json.loads((tmp_path / "d.json").read_bytes())
    assert code == 0 and doc["runs"][0]["mean"]["ap_trec_r"] == pytest.approx(
        (1 / 2 + 2 / 3) / 2, abs=1e-12
    )
    # the shrec profile merges them, and its error now says why
    with pytest.raises(FormatError, match="'007' and '7' are the same id once normalised"):
        load_assessment(tmp_path / "d.qrels", collection_size=10)


def test_e15_the_trec_eval_reading_follows_the_profile_both_ways(tmp_path):
    """A contest switched to trec_eval and back reads ids normalised again."""
    from dataclasses import replace

    from shrec_eval.options import EvalOptions

    (tmp_path / "q.qrels").write_text("01 0 a 1\n1 0 c 1_0\n")
    c = Contest(AssessmentSource(tmp_path / "q.qrels", collection_size=5))
    te = replace(c, options=EvalOptions(profile="trec_eval"))
    a = te.load_assessment()
    assert a.query_ids == ("01", "1") and a.top_grade == 1  # as written; atol("1_0")
    back = replace(te, options=EvalOptions())
    with pytest.raises(FormatError, match="whole number"):  # 1_0 refused again
        back.load_assessment()
    (tmp_path / "q.qrels").write_text("01 0 a 1\n1 0 c 1\n")
    assert back.load_assessment().query_ids == ("1",)  # normalised again: one query
    assert te.to_dict() == replace(te, options=EvalOptions()).to_dict() | {
        "options": te.options.to_dict()
    }
