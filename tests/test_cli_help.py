"""The command line meets users where they come from (issue 22): help that
ends with worked examples and lists the input formats, an unknown option
answered with the nearest one and the command's help, other tools' measure
names on every option that takes a measure, profiles' own columns and
ranking measure, quiet notes, and --help / --version without numpy."""

import io
import subprocess
import sys

import numpy as np
import pytest
from shrec_eval import load_assessment, load_run
from shrec_eval.choices import ASSESSMENT_FORMATS, RANKLIST_VARIANTS, RUN_FORMATS
from shrec_eval.cli.parser import COMMAND_NAMES, main
from shrec_eval.resources import resource_path

DEMO = resource_path("demo")


def run_main(argv, capsys=None):
    out = io.StringIO()
    code = main(argv, out=out)
    return code, out.getvalue()


def help_text(capsys, *argv) -> str:
    code = main([*argv, "--help"], out=io.StringIO())
    assert code == 0
    return capsys.readouterr().out


def examples(text: str) -> list[str]:
    tail = text.split("\nexamples:\n", 1)[1]
    return [ln.strip() for ln in tail.splitlines() if ln.startswith("  shrec-eval ")]


def test_top_help_ends_with_examples(capsys):
    text = help_text(capsys)
    ex = examples(text)
    assert 2 <= len(ex) <= 4 and text.rstrip().endswith(text.rstrip().splitlines()[-1])
    assert all(c in text for c in COMMAND_NAMES)
    assert "shrec-eval demo" in ex and any("--profile trec_eval" in e for e in ex)


@pytest.mark.parametrize("command", COMMAND_NAMES)
def test_every_command_help_ends_with_examples(capsys, command):
    text = help_text(capsys, command)
    ex = examples(text)
    assert 2 <= len(ex) <= 4, ex
    assert all(e.startswith(f"shrec-eval {command}") for e in ex)
    assert text.rstrip().splitlines()[-1].startswith("      ")  # an example's description


@pytest.mark.parametrize("command", ("evaluate", "check", "compare"))
def test_help_lists_what_assessment_and_run_may_be(capsys, command):
    text = help_text(capsys, command)
    for key in (*ASSESSMENT_FORMATS, *RUN_FORMATS, *RANKLIST_VARIANTS):
        assert f"  {key} " in text, key
    assert "measures.md" not in text  # a wheel's user has no such file


@pytest.mark.parametrize(
    "argv,message",
    [
        (
            ["evaluate", "a.cla", "r.txt", "--colection-size", "5"],
            "unknown option '--colection-size'; did you mean --collection-size? "
            "(see shrec-eval evaluate --help)",
        ),
        (
            ["compare", "a.cla", "r.txt", "--measure", "map", "--corection", "bh"],
            "did you mean --correction? (see shrec-eval compare --help)",
        ),
        (["measures", "--profle", "trec_eval"], "did you mean --profile?"),
        (["check", "a.cla", "r.txt", "--zzz"], "unknown option '--zzz' (see shrec-eval check"),
        (["evalute", "a.cla"], "did you mean evaluate? (see shrec-eval --help)"),
        (
            ["evaluate", "a.cla", "r.txt", "--profile", "trec-eval"],
            "did you mean trec_eval? (see shrec-eval evaluate --help)",
        ),
    ],
)
def test_an_unknown_option_names_the_nearest_and_the_commands_help(capsys, argv, message):
    code, _ = run_main(argv)
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.splitlines()) == 1


def test_help_and_version_do_not_import_numpy():
    probe = (
        "import sys; from shrec_eval.cli.parser import main; "
        "import io, contextlib; buf = io.StringIO()\n"
        "with contextlib.redirect_stdout(buf):\n"
        "    a = main(['--help']); b = main(['evaluate', '--help']); c = main(['--version'])\n"
        "print(a, b, c, 'numpy' in sys.modules, 'examples:' in buf.getvalue())"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0", "0", "0", "False", "True"]


# -- measure names on the command line ------------------------------------------------------


@pytest.fixture
def trec(tmp_path):
    """A small TREC contest: qrels with one grade-2 judgment, two runs of 30 documents."""
    rng = np.random.default_rng(3)
    docs = [f"D{i:03d}" for i in range(60)]
    qrels, runs = [], {"a": [], "b": []}
    for q in range(1, 6):
        rel = rng.choice(60, 8, replace=False)
        for j, d in enumerate(rel):
            grade = 2 if (q, j) == (1, 0) else 1
            qrels.append(f"{q} 0 {docs[d]} {grade}")
        for name, runlines in runs.items():
            order = rng.permutation(60)[:30]
            runlines += [f"{q} Q0 {docs[d]} {r + 1} {30 - r} {name}" for r, d in enumerate(order)]
    (tmp_path / "q.qrels").write_text("\n".join(qrels) + "\n")
    for name, lines in runs.items():
        (tmp_path / f"{name}.trec").write_text("\n".join(lines) + "\n")
    return tmp_path


def test_profile_trec_eval_shows_trec_eval_measures_ranked_by_map(trec):
    code, text = run_main(
        ["evaluate", str(trec / "q.qrels"), str(trec / "a.trec"), str(trec / "b.trec")]
        + ["--profile", "trec_eval"]
    )
    head = text.splitlines()[0].split()
    assert code == 0
    assert head == ["Rank", "Run", "ap_trec_r", "ft_psb", "rr", "p@5", "p@10", "r@100"] + [
        "ndcg@10",
        "tp_r",
    ]
    assert "ranked by ap_trec_r" in text
    assert "ap_trec_r = Average Precision (trec, relevant) [map]" in text
    assert "rr = Reciprocal Rank [recip_rank]" in text


def test_one_grade_2_judgment_does_not_switch_the_ranking(trec):
    code, text = run_main(["evaluate", str(trec / "q.qrels"), str(trec / "a.trec")])
    assert code == 0 and "ranked by ap_trec_r" in text and "ranked by adr" not in text


def test_aliases_are_taken_by_columns_rank_by_and_compare(trec, capsys):
    args = [str(trec / "q.qrels"), str(trec / "a.trec"), str(trec / "b.trec")]
    code, text = run_main(
        ["evaluate", *args, "--profile", "trec_eval"]
        + ["--columns", "map,P_20,recip_rank,NumRelRet,iprec_at_recall_0.10", "--rank-by", "P@30"]
    )
    assert code == 0
    assert text.splitlines()[0].split()[2:] == ["ap_trec_r", "p@20", "rr", "tp_r", "iprec_0.10"]
    assert "ranked by p@30" in text
    # the values are the registry's keys' values, P_20 computed though 20 is no default rank
    from shrec_eval import EvalOptions, evaluate

    a = load_assessment(trec / "q.qrels", profile="trec_eval")
    res = [
        evaluate(a, load_run(trec / f"{n}.trec", a), o)
        for n in ("a", "b")
        for o in [EvalOptions(ranks=(5, 10, 20, 30), profile="trec_eval")]
    ]
    rows = {ln.split()[1]: ln.split()[2:] for ln in text.splitlines()[2:4]}
    for r in res:
        got = rows[r.run_name]
        assert float(got[0]) == pytest.approx(r.mean("ap_trec_r"), abs=5e-5)
        assert float(got[1]) == pytest.approx(r.mean("p@20"), abs=5e-5)
    best = max(res, key=lambda r: r.mean("p@30")).run_name
    assert text.splitlines()[2].split()[1] == best
    code, text = run_main(["compare", *args, "--profile", "trec_eval", "--measure", "map"])
    assert code == 0 and "[ap_trec_r]" in text.splitlines()[0]
    code, _ = run_main(["evaluate", *args, "--columns", "ndcg_cut_10"])
    err = capsys.readouterr().err
    assert code == 2 and "--profile trec_eval" in err and "defined differently" in err
    code, _ = run_main(["evaluate", *args, "--rank-by", "mapp"])
    assert code == 2 and "did you mean 'map'" in capsys.readouterr().err


def test_measures_lists_aliases_and_takes_a_profile():
    code, text = run_main(["measures", "--profile", "trec_eval"])
    rows = {ln.split()[0]: ln for ln in text.split("\n\n")[0].splitlines()[1:]}
    assert code == 0
    assert "map, AP" in rows["ap_trec_r"] and "P_10, P@10" in rows["p@10"]
    assert "recip_rank, RR" in rows["rr"] and "ndcg_cut_10, nDCG@10" in rows["ndcg@10"]
    assert "ranked by: ap_trec_r" in text
    code, text = run_main(["measures", "--profile", "shrec"])
    rows = {ln.split()[0]: ln for ln in text.split("\n\n")[0].splitlines()[1:]}
    assert "rr" not in rows and "ndcg_cut_10" not in rows["ndcg@10"]
    assert "map, AP" in rows["ap_trec_r"]
    code, text = run_main(["measures", "--profile", "psbtable"])
    assert "ranked by: dcg_psb" in text and "NN" in text


def test_notes_are_quiet_and_say_what_to_do(trec):
    code, text = run_main(["evaluate", str(trec / "q.qrels"), str(trec / "a.trec")])
    notes = [ln for ln in text.splitlines() if ln.startswith("note:")]
    assert code == 0 and notes
    assert not any(n.endswith(": 0") for n in notes)
    assert not any("shorter than the collection" in n for n in notes)
    assert any("give --collection-size N" in n for n in notes)
    code, text = run_main(["demo"])
    notes = [ln for ln in text.splitlines() if ln.startswith("note:")]
    assert not any(str(DEMO.parent) in n for n in notes), notes  # no installed file's path
    assert any("distinct ids of the run shapehistogram normalised" in n for n in notes)
