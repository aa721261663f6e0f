"""Measures with parameters on the command line: --columns (commas inside
parentheses), --rank-by and compare --measure take them, the JSON and CSV key
a column by its canonical name, the library gives the same numbers, a bad
name is one line naming the parameter and the allowed values, a contest file
keeps them, and ``shrec-eval measures --params`` lists the families."""

import csv
import io
import json
import math

import pytest
from shrec_eval import EvalOptions, load_assessment, load_run
from shrec_eval.cli.parser import main
from shrec_eval.scoring.engine import evaluate
from shrec_eval.scoring.families import BY_NAME

QRELS = "q1 0 d1 1\nq1 0 d2 2\nq1 0 d3 1\nq1 0 d9 1\nq2 0 d1 1\nq2 0 d4 1\n"
RUN = (
    "q1 Q0 d4 1 0.9 x\nq1 Q0 d1 2 0.8 x\nq1 Q0 d2 3 0.7 x\nq1 Q0 d5 4 0.6 x\nq1 Q0 d3 5 0.5 x\n"
    "q2 Q0 d1 1 0.9 x\nq2 Q0 d2 2 0.8 x\n"
)
# q1: grades 0 1 2 0 1 at ranks 1..5, four relevant (d9 never retrieved);
# q2: grades 1 0, two relevant
NDCG = "ndcg(discount=log2_from_1,ideal=retrieved)"
L2 = math.log2


def run_main(argv):
    out = io.StringIO()
    return main(argv, out=out), out.getvalue()


@pytest.fixture
def contest(tmp_path):
    (tmp_path / "a.qrels").write_text(QRELS)
    (tmp_path / "run.trec").write_text(RUN)
    return [str(tmp_path / "a.qrels"), str(tmp_path / "run.trec"), "-N", "10"]


def test_columns_with_parameters_in_the_table_json_and_csv(contest, tmp_path):
    columns = f"{NDCG},ap(divide=min_k)@2,map,ft(tier=C-1)"
    code, text = run_main(
        [
            "evaluate",
            *contest,
            "--columns",
            columns,
            "--json",
            str(tmp_path / "r.json"),
            "--csv",
            str(tmp_path / "r.csv"),
        ]
    )
    assert code == 0
    assert f"{NDCG} = NDCG (discount=log2_from_1, ideal=retrieved)" in text
    mean = json.loads((tmp_path / "r.json").read_text())["runs"][0]["mean"]
    # by hand: q1 gains 0 1 2 0 1 (ideal of its hits: 2 1 1), q2 gains 1 0 (ideal 1)
    q1 = (1 / L2(3) + 2 / L2(4) + 1 / L2(6)) / (2 + 1 / L2(3) + 1 / L2(4))
    assert mean[NDCG] == pytest.approx((q1 + 1) / 2, abs=1e-15)
    # ap within the first 2, divided by min(C, 2): q1 1/2 / 2, q2 1 / 2
    assert mean["ap(divide=min_k)@2"] == pytest.approx((1 / 4 + 1 / 2) / 2, abs=1e-15)
    # ft with tiers of C - 1: q1 2 hits in the first 3 / 3, q2 1 hit in the first 1 / 1
    assert mean["ft(tier=C-1)"] == pytest.approx((2 / 3 + 1) / 2, abs=1e-15)
    assert "ap_trec_r" in mean  # map, the registry's key
    rows = list(csv.reader((tmp_path / "r.csv" / "summary.csv").open()))
    # every measure, those with parameters last (the name quoted where it holds commas)
    assert rows[0][-3:] == [NDCG, "ap(divide=min_k)@2", "ft(tier=C-1)"]
    assert float(rows[1][rows[0].index(NDCG)]) == mean[NDCG]
    # the library's numbers, by the same names
    a = load_assessment(contest[0], collection_size=10)
    r = evaluate(a, load_run(contest[1], a), EvalOptions(measures=[NDCG, "ft(tier=C-1)"]))
    assert r.mean(NDCG) == mean[NDCG]
    assert r.mean(" ndcg( ideal=retrieved ,discount=log2_from_1 )") == mean[NDCG]
    assert r.mean("ft(tier=C-1)") == mean["ft(tier=C-1)"]


def test_rank_by_and_compare_take_them(contest, tmp_path):
    code, text = run_main(["evaluate", *contest, "--rank-by", "ndcg(gain=exp2)@3"])
    assert code == 0 and "ranked by ndcg(gain=exp2)@3 (NDCG@3 (gain=exp2)" in text
    code, text = run_main(["compare", *contest, contest[1], "--measure", "p(rel=2)@3"])
    assert code == 0 and "[p(rel=2)@3]" in text


def test_a_key_of_the_profile_is_that_column(contest, tmp_path):
    """Under trec_eval, ndcg(discount=log2_from_1)@10 is its ndcg@10 (ndcg_cut_10)."""
    code, text = run_main(
        [
            "evaluate",
            *contest,
            "--profile",
            "trec_eval",
            "--columns",
            "ndcg(discount=log2_from_1)@10,ft(divide=min_va)",
            "--json",
            str(tmp_path / "t.json"),
        ]
    )
    assert code == 0
    doc = json.loads((tmp_path / "t.json").read_text())
    assert "measures" not in doc["options"]  # nothing beside the profile's measures
    assert "ndcg@10 = NDCG@10" in text and "ft_r = First Tier (relevant)" in text


@pytest.mark.parametrize(
    "columns, says",
    [
        (
            "ndcg(discount=log3)",
            "ndcg: discount='log3' is not allowed; expected log2_from_2 "
            "(default), log2_from_1 or none",
        ),
        ("ap(rel=2,divide=every)@5", "ap: divide='every' is not allowed; expected relevant"),
        ("ft(depth=C)", "ft has no parameter 'depth'; its parameters: rel, tier, divide, plus_one"),
        ("ndcg(gain=exp2@10", "the parenthesis is not closed"),
        ("e", "e needs a cutoff"),
    ],
)
def test_a_bad_name_is_one_line(contest, capsys, columns, says):
    code, _ = run_main(["evaluate", *contest, "--columns", f"map,{columns}"])
    err = capsys.readouterr().err
    assert code == 2 and says in err and "Traceback" not in err
    assert err.count("\n") == 1


def test_a_contest_file_keeps_them(contest, tmp_path, capsys):
    saved = tmp_path / "c.json"
    code, _ = run_main(["evaluate", *contest, "--columns", NDCG, "--save-contest", str(saved)])
    assert code == 0
    assert json.loads(saved.read_text())["options"]["measures"] == [NDCG]
    code, text = run_main(["evaluate", str(saved), "--json", str(tmp_path / "again.json")])
    assert code == 0
    assert NDCG in json.loads((tmp_path / "again.json").read_text())["runs"][0]["mean"]
    # more asked on the command line: both
    code, text = run_main(["evaluate", str(saved), "--columns", f"{NDCG},e@R"])
    assert code == 0 and "e@R = E-Measure@R" in text
    doc = json.loads(saved.read_text())
    doc["options"]["measures"] = ["ndcg(ideal=all)"]
    saved.write_text(json.dumps(doc))
    code, _ = run_main(["evaluate", str(saved)])
    err = capsys.readouterr().err
    assert code == 2 and str(saved) in err and "ideal='all' is not allowed" in err


def test_measures_params_lists_every_family_and_parameter():
    code, text = run_main(["measures", "--params"])
    assert code == 0
    for f in BY_NAME.values():
        assert f"{f.name}: {f.label}; cutoff {f.cutoffs()}" in text
        for p in f.params:
            assert f"  {p.name}: {p.desc}" in text
            assert f"{p.default} (default): {p.values[p.default]}"[:60] in text
    assert "  ft_r = ft(divide=min_va)\n" in text and "  ndcg@K = ndcg@K\n" in text
    assert "  st_s21 = st(divide=2T,plus_one=true,early_exit=1)\n" in text
    code, text = run_main(["measures", "--params", "--profile", "trec_eval"])
    assert (
        "under --profile trec_eval" in text and "  ndcg@K = ndcg(discount=log2_from_1)@K\n" in text
    )
    assert "ft_s21" not in text
