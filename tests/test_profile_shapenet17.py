"""shapenet17 profile: hand-computed values on tests/contest_profiles.shapenet_*.

test_normal (split test; synset A = 100001..100004, synset B = 1003 models):

* 100002 (A, sub 02000011): list 100002 100003 100001 999999 100005 100003
  200000 100004 -> unknown 999999, val 100005 and the repeat dropped ->
  grades 3 3 2 0 1, n = 5; oracle (CSV order) 100001..100004 = 2 3 3 1, R = 4.
* 100001 (A, sub = synset; the file 0100001 is replaced by 100001): list
  100004 100001 -> grades 1 3; oracle 3 1 1 1, R = 4.
* 201001 (B, sub = synset): 1003 entries, cut to 1000, one repeat removed ->
  201001 201000 200000..200996, grades 3 3 1.., n = 999; R = min(1003, 1000);
  the ideal is the first 1000 oracle grades in CSV order (all 1), so NDCG > 1.
* 000777 (B, sub 03000022): list 000777 201001 -> grades 3 2; R = 1000,
  ideal = 1000 threes.
* 000099 (unknown) and 100005 (val) are ignored.

Queries are met as Node enumerates object keys: 100001, 100002, 201001
(array indices, ascending), then 000777.
"""

from __future__ import annotations

import io
import json
import math
import os
import time

import numpy as np
import pytest
from contest_profiles import shapenet_csv, shapenet_method
from hostile import run_cli
from shrec_eval.cli.parser import main
from shrec_eval.errors import FileAccessError
from shrec_eval.options import EvalOptions
from shrec_eval.outputs.native import native_files
from shrec_eval.profiles import shapenet17 as sn
from shrec_eval.profiles.shapenet_data import read_taxonomy
from shrec_eval.scoring.engine import evaluate

L2 = math.log2


def dcg(x):
    return x[0] + sum(g / L2(i) for i, g in enumerate(x[1:], start=2))


B_IDEAL = dcg([3] * 1000)
WANT = {  # P@N, R@N, F1@N, mAP, NDCG
    "100001": (1, 2 / 4, 2 * 0.5 / 1.5, (1 + 1) / 4, dcg([1, 3]) / dcg([3, 1, 1, 1])),
    "100002": (
        4 / 5,
        1,
        2 * 0.8 / 1.8,
        (1 + 1 + 1 + 4 / 5) / 4,
        dcg([3, 3, 2, 0]) / dcg([3, 3, 2, 1]),
    ),
    "201001": (1, 0.999, 2 * 0.999 / 1.999, 0.999, dcg([3, 3] + [1] * 997) / dcg([1] * 1000)),
    "000777": (1, 0.002, 2 * 0.002 / 1.002, 2 / 1000, dcg([3, 2]) / B_IDEAL),
}


def _results(tmp_path):
    tax = sn.read_taxonomy(shapenet_csv(tmp_path))
    method = shapenet_method(tmp_path)
    return [
        evaluate(a, run, EvalOptions(profile="shapenet17"))
        for a, run in sn.read_method(tax, method)
    ]


def test_lists_grades_and_measures(tmp_path):
    test, val = _results(tmp_path)
    assert test.run_name == "mymethod/test_normal" and val.run_name == "mymethod/val_normal"
    assert test.query_ids == ("100001", "100002", "201001", "000777")
    for q, want in WANT.items():
        got = [test.value(q, k) for k in sn.SUMMARY_KEYS]
        assert got == pytest.approx(want, rel=1e-12), q
    assert test.value("201001", "ndcg_sn") > 1  # the evaluator's quirk, reproduced
    codes = {w.code: w for w in test.warnings}
    assert codes["unknown_queries"].examples == ("000099",)
    assert codes["other_split_queries"].examples == ("100005",)
    assert codes["cut_lists"].count == 1 and codes["duplicate_ids"].count == 2
    assert codes["dropped_ids"].examples == ("100002 (2)",)
    assert codes["replaced_files"].count == 1
    # a list left empty by the filtering: NaN, except AP (0)
    assert [val.value("300001", k) for k in sn.SUMMARY_KEYS] == [None] * 3 + [0.0, None]
    assert "empty_lists" in {w.code for w in val.warnings}
    # padded precision and recall vectors: 100001's list has 2 entries
    p = test.curves["sn_p"].per_query[0]
    r = test.curves["sn_r"].per_query[0]
    assert p.size == 1000 and p[:3] == pytest.approx([0 / 1 + 1, 1, 1])
    assert r[:3] == pytest.approx([1 / 4, 2 / 4, 2 / 4]) and r[-1] == 0.5


def test_js_numbers():
    cases = {
        1.0: "1",
        0.5: "0.5",
        -0.25: "-0.25",
        1e-7: "1e-7",
        1.5e-7: "1.5e-7",
        0.000001: "0.000001",
        1e21: "1e+21",
        1.2345678901234568e20: "123456789012345680000",
        0.1 + 0.2: "0.30000000000000004",
        float("nan"): "NaN",
        0.0: "0",
    }
    assert {k: sn.js_number(k) for k in cases} == cases


def test_native_files_byte_for_byte(tmp_path):
    results = _results(tmp_path)
    files = native_files(results, None)
    summary = files["mymethod.summary.csv"].splitlines()
    assert summary[0] == "class,P@N,R@N,F1@N,mAP,NDCG,dataset,method"
    # test_normal: microALL, synset A, synset B (order of first queries), macroALL
    assert [row.split(",")[0] for row in summary[1:5]] == [
        "microALL",
        "02000001",
        "03000002",
        "macroALL",
    ]
    # sums in query order times 1/n, as the evaluator computes them
    order = ["100001", "100002", "201001", "000777"]
    micro = [0.0] * 5
    for q in order:
        micro = [s + v for s, v in zip(micro, WANT[q])]
    assert summary[1].split(",")[1] == "0.95"
    assert summary[1].split(",")[4] == sn.js_number(micro[3] * (1 / 4)) == "0.6127499999999999"
    assert summary[1].endswith(",test_normal,mymethod")
    # macroALL: the synset means 0.9 and 1, then its own average 0.95 once more
    # (the evaluator's loop over its object's keys meets macroALL itself):
    # (0.9 + 1 + 0.95) * (1/3), not 0.95
    assert summary[4].split(",")[1] == sn.js_number((0.9 + 1 + 0.95) * (1 / 3))
    assert summary[4].split(",")[1] == "0.9499999999999998"
    # val_normal, by hand: 100005 scores 1 everywhere; 300001's list is empty
    # (NaN in P@N, R@N, F1@N, NDCG; AP 0): the sums of the scalars are NaN
    assert summary[5:] == [
        "microALL,NaN,NaN,NaN,0.5,NaN,val_normal,mymethod",
        "02000001,NaN,NaN,NaN,0.5,NaN,val_normal,mymethod",
        "macroALL,NaN,NaN,NaN,0.5,NaN,val_normal,mymethod",
    ]
    pr = files["mymethod.pr.csv"].splitlines()
    assert pr[0] == "class,P,R,dataset,method"
    assert len(pr) == 1 + 2 * 1000 * 2  # microALL and macroALL per dataset
    # val: P of 100005 = 1, 1 (padded), the empty list counts 0: mean 0.5;
    # R = 1/2, 1 (padded): mean 0.25 then 0.5
    val_micro = [row for row in pr if row.startswith("microALL") and "val_normal" in row]
    assert val_micro[:2] == [
        "microALL,0.5,0.25,val_normal,mymethod",
        "microALL,0.5,0.5,val_normal,mymethod",
    ]
    assert len(val_micro) == 1000 and val_micro[-1] == "microALL,0.5,0.5,val_normal,mymethod"
    # test micro P at rank 1: every query's first result is relevant
    assert pr[1] == "microALL,1,%s,test_normal,mymethod" % sn.js_number(
        (((1 / 4 + 1 / 4) + 1 / 1000) + 1 / 1000) * (1 / 4)
    )


def test_cli_evaluate_native_and_json(tmp_path):
    csv = shapenet_csv(tmp_path)
    method = shapenet_method(tmp_path)
    out = io.StringIO()
    code = main(
        ["evaluate", str(csv), str(method), "--profile", "shapenet17"]
        + ["--native", str(tmp_path / "nat"), "--report", str(tmp_path / "rep")],
        out=out,
    )
    assert code == 0, out.getvalue()
    text = out.getvalue()
    assert "mymethod/test_normal" in text and "map_sn" in text and "profile shapenet17" in text
    names = sorted(p.name for p in (tmp_path / "nat").iterdir())
    assert names == ["mymethod.pr.csv", "mymethod.summary.csv"]
    err = io.StringIO()
    assert main(["check", str(csv), str(method), "--profile", "shapenet17"], out=err) == 2


#: a taxonomy shaped as ShapeNet Core55's all.csv: synset -> (sub-synsets,
#: models in test, train, val); the table synset has more than 1000 test models
REAL_LIKE = {
    "04379243": (("04379243", "03179701", "04603729"), 1679, 3000, 420),
    "02691156": (("02691156", "02690373"), 404, 1400, 202),
    "03001627": (("03001627", "04331277", "02738535"), 676, 2400, 338),
}


def _real_like_taxonomy(path, seed=0):
    """all.csv's layout: header, 6-digit ids in no order, 8-digit synsets
    with a leading 0, 32-hex model ids, LF line ends; returns the counts
    it wrote, per split and per (synset, split)."""
    rng = np.random.default_rng(seed)
    rows, counts = [], {}
    for syn, (subs, *per_split) in REAL_LIKE.items():
        for split, n in zip(("test", "train", "val"), per_split):
            counts[syn, split] = n
            rows += [(syn, subs[int(k)], split) for k in rng.integers(0, len(subs), n)]
    ids = rng.choice(np.arange(1, 60000), size=len(rows), replace=False)
    order = rng.permutation(len(rows))
    lines = ["id,synsetId,subSynsetId,modelId,split"]
    for i in order:
        syn, sub, split = rows[i]
        lines.append(f"{ids[i]:06d},{syn},{sub},{rng.bytes(16).hex()},{split}")
    path.write_text("\n".join(lines) + "\n")
    return counts


def test_a_taxonomy_shaped_as_the_real_one_reads(tmp_path):
    """A generated all.csv of 10,000 models (the real one's layout; the real
    file is not shipped): every row read, the splits and synsets counted as
    written, and a synset of more than 1000 test models cut to R = 1000."""
    counts = _real_like_taxonomy(tmp_path / "all.csv")
    tax = sn.read_taxonomy(tmp_path / "all.csv")
    assert len(tax.rows) == sum(counts.values()) == 10519
    for split in ("test", "train", "val"):
        assert len(tax.split_ids[split]) == sum(n for (_, s), n in counts.items() if s == split)
    table = [m for m in tax.split_ids["test"] if tax.rows[m][0] == "04379243"]
    assert len(table) == counts["04379243", "test"] == 1679
    assert all(len(m) == 6 and m.isdigit() for m in tax.rows)
    # one query of the table synset: R is min(|synset in split|, 1000)
    method = tmp_path / "meth" / "test_normal"
    method.mkdir(parents=True)
    (method / table[0]).write_text("".join(f"{m} 0.5\n" for m in table[:50]))
    a, run = sn.read_dataset(tax, method, "meth")
    assert a.query_ids == (table[0],) and a.n_items == len(tax.split_ids["test"])
    assert sn.query_data(a, EvalOptions(profile="shapenet17"))["R"].tolist() == [1000]
    res = evaluate(a, run, EvalOptions(profile="shapenet17"))
    assert res.column("p_at_n")[0] == 1.0  # 50 of 50 retrieved are of the synset


def _taxonomy(folder, n=40, synsets=("02691156", "03001627"), split="test"):
    rows = ["id,synsetId,subSynsetId,modelId,split"]
    ids = []
    for i in range(1, n + 1):
        mid = f"{i:06d}"
        syn = synsets[i % len(synsets)]
        rows.append(f"{mid},{syn},{syn},model{i},{split}")
        ids.append(mid)
    (folder / "all.csv").write_text("\n".join(rows) + "\n")
    return folder / "all.csv", ids


def _method(folder, ids, length, seed=0, dataset="test_normal"):
    rng = np.random.default_rng(seed)
    (folder / dataset).mkdir(parents=True)
    for q in ids:
        pick = rng.permutation(len(ids))[:length]
        (folder / dataset / q).write_text(
            "".join(f"{ids[k]} {j / 10}\n" for j, k in enumerate(pick))
        )
    return folder


# -- e03 / e12 / e16: the input gate for the taxonomy and contest files -------------------------


def test_e03_taxonomy_fifo_and_device_are_refused_not_read(tmp_path, monkeypatch):
    from shrec_eval.reading.formats import source

    # the wait for a writer, half a second here (5 s by default): what it
    # says after the wait is the question, not how long the wait is
    monkeypatch.setitem(source.open_source.__kwdefaults__, "wait", 0.5)
    fifo = tmp_path / "tax.csv"
    os.mkfifo(fifo)
    start = time.monotonic()
    with pytest.raises(FileAccessError, match="no program writing to it"):
        read_taxonomy(fifo)
    assert time.monotonic() - start < 30  # the pipe timeout, not a hang
    with pytest.raises(FileAccessError, match="a device"):
        read_taxonomy("/dev/zero")


def test_e16_taxonomy_with_a_bom_and_an_empty_dataset(tmp_path):
    tax, ids = _taxonomy(tmp_path, n=6)
    bom = tmp_path / "bom.csv"
    bom.write_bytes(b"\xef\xbb\xbf" + tax.read_bytes())
    assert read_taxonomy(bom).rows == read_taxonomy(tax).rows
    (tmp_path / "empty" / "test_normal").mkdir(parents=True)
    code, out = run_cli(["evaluate", tax, tmp_path / "empty", "--profile", "shapenet17"])
    assert code == 0 and "without a query file of the test split" in out


# -- e10 / e17: shapenet17 methods and row order -------------------------------------------------


def test_e10_two_methods_of_the_same_folder_name_stay_apart(tmp_path):
    tax, ids = _taxonomy(tmp_path)
    _method(tmp_path / "teamA" / "meth", ids, 5, seed=1)
    _method(tmp_path / "teamB" / "meth", ids, 30, seed=2)
    code, _ = run_cli(
        ["evaluate", tax, tmp_path / "teamA" / "meth", tmp_path / "teamB" / "meth"]
        + ["--profile", "shapenet17", "--native", tmp_path / "nat", "--json", tmp_path / "r.json"]
    )
    assert code == 0
    names = [r["name"] for r in json.loads((tmp_path / "r.json").read_bytes())["runs"]]
    assert names == ["meth (teamA)/test_normal", "meth (teamB)/test_normal"]
    summaries = sorted(
        f for _root, _d, files in os.walk(tmp_path / "nat") for f in files if "summary" in f
    )
    assert summaries == ["meth (teamA).summary.csv", "meth (teamB).summary.csv"]


def test_e17_summary_rows_in_javascript_key_order(tmp_path):
    tax, ids = _taxonomy(tmp_path, n=30, synsets=("02691156", "4379243"))
    _method(tmp_path / "meth", ids, 10)
    code, _ = run_cli(
        [
            "evaluate",
            tax,
            tmp_path / "meth",
            "--profile",
            "shapenet17",
            "--native",
            tmp_path / "nat",
        ]
    )
    assert code == 0
    rows = (tmp_path / "nat" / "meth.summary.csv").read_text().splitlines()
    # for (var id in avgs): the array index 4379243 first, then insertion order
    assert [r.split(",")[0] for r in rows] == [
        "class",
        "4379243",
        "microALL",
        "02691156",
        "macroALL",
    ]
