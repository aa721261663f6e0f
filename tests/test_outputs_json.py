"""The JSON document as written: undefined values (NaN) become null, numpy
arrays are written whole as lists, the file is valid JSON for the standard
library and ends with a newline."""

import json

import numpy as np
from shrec_eval import Assessment, EvalOptions, RankedRun, evaluate
from shrec_eval.outputs.report import to_json, write_json


def test_write_json_turns_nan_and_infinities_into_null(tmp_path):
    path = tmp_path / "d.json"
    write_json(path, {"a": np.array([np.nan, 0.5, np.inf]), "b": float("nan"), "c": np.arange(3)})
    text = path.read_text()
    assert text.endswith("}\n")
    assert json.loads(text) == {"a": [None, 0.5, None], "b": None, "c": [0, 1, 2]}
    assert [p.name for p in tmp_path.iterdir()] == ["d.json"]


def test_undefined_values_are_null_in_the_document(tmp_path):
    judged = {"q1": {"m1": 1, "m2": 0}, "q2": {"m2": 0}}  # q2 has nothing relevant
    a = Assessment.from_judgments(judged, items=["m1", "m2", "m3"])
    run = RankedRun.from_lists("r", {"q1": ["m3", "m1", "m2"], "q2": ["m1", "m2"]}, a)
    result = evaluate(a, run, EvalOptions(ranks=(1, 2)))
    path = tmp_path / "r.json"
    write_json(path, to_json(a, [result]))
    doc = json.loads(path.read_text())
    r = doc["runs"][0]
    assert r["per_query"]["q1"]["ap_trec_r"] == 0.5  # the one relevant item at rank 2
    assert r["per_query"]["q2"]["ap_trec_r"] is None
    assert r["mean"]["ap_trec_r"] == 0.5 and r["undefined"]["ap_trec_r"] == 1
    pr = r["curves"]["pr"]
    assert pr["per_query"]["q2"] == [None] * len(pr["x"])
    assert pr["per_query"]["q1"][0] == 0.5 and pr["count"][0] == 1
    assert pr["x"][0] == 0.0 and pr["x"][-1] == 1.0
