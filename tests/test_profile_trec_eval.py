"""trec_eval profile: run lines of 6+ fields, ties by score then docno
descending, -M / -l / -N / -c, a qrels query without relevant documents
scoring 0.  Values by hand.

qrels: q1: d1 2, d2 1, d3 0; q2: d4 0 (nothing relevant); q3: d5 1 (the run
lacks q3).  Run q1: d3 2.0, d2 3.0, d1 3.0, d9 1.0 (+ junk fields): ranked
d2 d1 (tie on 3.0, docno descending) d3 d9, gains 1 2 0 0.
"""

from __future__ import annotations

import io
import json
from math import log2 as L2

import pytest
from shrec_eval.cli.parser import main
from shrec_eval.contest import AssessmentSource, RunSource
from shrec_eval.errors import OptionsError
from shrec_eval.options import EvalOptions
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
