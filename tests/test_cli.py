"""The shrec-eval command line: through main(argv), and one real subprocess
per command; the golden JSON of the demo; exit codes and one-line errors;
reports and their escaping."""

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from shrec_eval.cli.commands import Progress
from shrec_eval.cli.parser import main
from shrec_eval.resources import demo_manifest, resource_path

DEMO = resource_path("demo")
GOLDEN = Path(__file__).parent / "golden" / "demo.json"
ARGS = [str(DEMO / "target.cla"), "--queries", str(DEMO / "queries.cla"), "--sister-classes"]


def run_main(argv):
    out = io.StringIO()
    code = main(argv, out=out)
    return code, out.getvalue()


def test_demo_matches_golden_json(tmp_path):
    code, text = run_main(["demo", "--json", str(tmp_path / "d.json")])
    assert code == 0 and "SpectralNet" in text
    doc = json.loads((tmp_path / "d.json").read_text())
    # the golden's measures are the oracle's (tests/golden/make_demo_json.py): the engine
    # agrees to 1e-9 (relative; 1e-12 absolute near zero)
    golden = json.loads(GOLDEN.read_text())
    assert doc["tool"]["name"] == "shrec-eval"
    assert doc["profile"] == golden["profile"] == "shrec"
    assert {
        k: doc["assessment"][k] for k in ("kind", "queries", "collection_size", "top_grade")
    } == {k: golden["assessment"][k] for k in ("kind", "queries", "collection_size", "top_grade")}
    assert doc["options"] == golden["options"]
    assert doc["assessment"]["reader"] == golden["assessment"]["reader"]
    assert [r["reader"] for r in doc["runs"]] == [r["reader"] for r in golden["runs"]]
    assert [r["name"] for r in doc["runs"]] == [r["name"] for r in golden["runs"]]
    for got, want in zip(doc["runs"], golden["runs"]):
        assert got["format"] == want["format"]
        for k, v in want["mean"].items():
            assert (
                got["mean"][k] == pytest.approx(v, rel=1e-9, abs=1e-12, nan_ok=False)
                if v is not None
                else got["mean"][k] is None
            ), (got["name"], k)
        for q, vals in want["per_query"].items():
            for k, v in vals.items():
                assert got["per_query"][q][k] == pytest.approx(v, rel=1e-9, abs=1e-12)
        # the four averages and the class means (issue 13)
        assert got["averages"]["micro"] == got["mean"]
        for kind in ("micro", "macro", "proportional", "reciprocal"):
            for k, v in want["averages"][kind].items():
                assert got["averages"][kind][k] == pytest.approx(v, rel=1e-9, abs=1e-12), (kind, k)
        assert set(got["per_class"]) == set(want["per_class"])
        for c, vals in want["per_class"].items():  # the golden keeps the headline keys
            assert {k: got["per_class"][c][k] for k in vals} == pytest.approx(
                vals, rel=1e-9, abs=1e-12
            )
        assert [{"code": w["code"], "count": w["count"]} for w in got["warnings"]] == want[
            "warnings"
        ]
        assert set(got["curves"]) == {
            "pr",
            "cg",
            "dcg",
            "ncg",
            "ndcg",
            "f",
            "cg_recall",
            "dcg_recall",
        }
        assert len(got["curves"]["pr"]["x"]) == 21


def test_demo_table_is_ranked_by_madr():
    code, text = run_main(["demo"])
    lines = text.splitlines()
    rows = [ln.split() for ln in lines if ln[:1].isdigit()]
    adr = [float(r[-2]) for r in rows]  # columns: ..., ap_trec_r, adr, ndcg@100
    assert code == 0 and adr == sorted(adr, reverse=True)
    assert rows[0][1] == "SpectralNet" and rows[-1][1] == "RandomBaseline"
    assert "ranked by adr" in text


def test_evaluate_matches_the_engine(tmp_path):
    from shrec_eval import evaluate
    from shrec_eval.reading.readers import load_assessment, load_run

    run = str(DEMO / "viewharmonics.trec")
    code, _ = run_main(
        [
            "evaluate",
            *ARGS,
            run,
            "--json",
            str(tmp_path / "e.json"),
            "--ranks",
            "5,10",
            "--pr-levels",
            "11",
        ]
    )
    assert code == 0
    doc = json.loads((tmp_path / "e.json").read_text())
    a = load_assessment(DEMO / "target.cla", queries=DEMO / "queries.cla", graded=True)
    from shrec_eval import EvalOptions

    res = evaluate(a, load_run(run, a), EvalOptions(ranks=(5, 10), pr_levels=11))
    assert doc["runs"][0]["mean"] == pytest.approx(res.means)
    assert "p@100" not in doc["runs"][0]["mean"] and "p@10" in doc["runs"][0]["mean"]
    assert doc["options"]["ranks"] == [5, 10] and doc["options"]["pr_levels"] == 11


def test_options_reach_the_engine(tmp_path):
    base = ["evaluate", *ARGS, str(DEMO / "spectralnet.txt"), "--columns", "ap_trec_r,tn_r"]
    code, a = run_main(base + ["--collection-size", "5000"])
    code2, b = run_main(base)
    assert code == code2 == 0 and a != b  # TN depends on the collection size
    code, c = run_main(base + ["--pr-interpolation", "psb", "--json", str(tmp_path / "p.json")])
    doc = json.loads((tmp_path / "p.json").read_text())
    assert code == 0 and doc["options"]["pr_interpolation"] == "psb"
    assert len(doc["runs"][0]["curves"]["pr"]["x"]) == 20


@pytest.mark.parametrize(
    "flags,want",
    [
        ([], 2 / 3),
        (["--trec-order"], (1 + 0.5 + 1 / 3 + 0.5) / 4),
        (["--keep-self"], (1 + 1 + 5 / 12 + 5 / 12) / 4),
    ],
)
def test_trec_order_and_keep_self(tmp_path, flags, want):
    p = tmp_path / "x.cla"
    p.write_text("PSB 1\n2 4\na 0 2\n1\n2\nb 0 2\n3\n4\n")
    run = tmp_path / "r.trec"  # file order 1 2 3 4, scores order 2 3 1 4
    run.write_text(
        "".join(
            f"{q} Q0 {d} 1 {s} r\n"
            for q in "1234"
            for d, s in (("1", 1), ("2", 3), ("3", 2), ("4", 0))
        )
    )
    code, _ = run_main(["evaluate", str(p), str(run), "--json", str(tmp_path / "o.json"), *flags])
    doc = json.loads((tmp_path / "o.json").read_text())
    assert code == 0 and doc["runs"][0]["mean"]["ap_trec_r"] == pytest.approx(want)
    assert doc["options"]["remove_self"] is ("--keep-self" not in flags)


def test_csv_and_report_outputs(tmp_path):
    code, _ = run_main(
        [
            "demo",
            "--csv",
            str(tmp_path / "csv"),
            "--report",
            str(tmp_path / "rep"),
            "--gallery-k",  # the demo has shapes: a gallery (tests/test_outputs_gallery.py)
            "1",
        ]
    )
    assert code == 0
    rows = list(csv.reader((tmp_path / "csv" / "summary.csv").open()))
    assert rows[0][:2] == ["rank", "run"] and len(rows) == 8 and "ndcg@100" in rows[0]
    pq = list(csv.reader((tmp_path / "csv" / "per_query.csv").open()))
    assert pq[0][:2] == ["run", "query"] and len(pq) == 1 + 7 * 30
    names = sorted(p.name for p in (tmp_path / "rep").iterdir())
    assert names == [
        "figures",
        "gallery.html",
        "index.html",
        "per_class-wide.tex",
        "per_class.csv",
        "per_class.tex",
        "per_query.csv",
        "summary-wide.tex",
        "summary.csv",
        "summary.md",
        "summary.tex",
        "thumbs",
    ]
    assert len(list((tmp_path / "rep" / "figures").iterdir())) == 4 * 3
    # one row per run and query class (the demo's 30 queries are 30 classes)
    pc = list(csv.reader((tmp_path / "rep" / "per_class.csv").open()))
    assert pc[0][:3] == ["run", "class", "queries"] and len(pc) == 1 + 7 * 30
    assert {r[2] for r in pc[1:]} == {"1"}
    tex = (tmp_path / "rep" / "summary.tex").read_text()
    assert r"\toprule" in tex and r"\textbf{" in tex and r"\bottomrule" in tex
    md = (tmp_path / "rep" / "summary.md").read_text()
    assert "**0.9" in md and "profile shrec, mean over queries (micro)" in md
    assert "Per class: Average Dynamic Recall" in md
    html = (tmp_path / "rep" / "index.html").read_text()
    assert html.startswith("<!DOCTYPE html>") and 'class="num best"' in html
    assert "Per class: Average Dynamic Recall" in html and "profile shrec" in html


def test_reports_escape_participant_text(tmp_path):
    evil = '<script>alert(1)</script>,=HYPERLINK("http://x")'
    runs = [str(DEMO / "spectralnet.txt"), str(DEMO / "viewharmonics.trec")]
    code, _ = run_main(["evaluate", *ARGS, *runs, "--names", evil, "--report", str(tmp_path / "r")])
    assert code == 0
    html = (tmp_path / "r" / "index.html").read_text()
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    tex = (tmp_path / "r" / "summary.tex").read_text()
    assert r"\textless{}script\textgreater{}" in tex and "<script>" not in tex
    md = (tmp_path / "r" / "summary.md").read_text()
    assert "<script>" not in md
    for name in ("summary.csv", "per_query.csv"):
        cells = [c for row in csv.reader((tmp_path / "r" / name).open()) for c in row]
        assert '\'=HYPERLINK("http://x")' in cells
        assert not any(c.startswith(("=", "+", "@")) for c in cells)
    assert not [p for p in (tmp_path / "r").iterdir() if p.name.startswith(".")]


def test_check_verdicts(tmp_path):
    code, text = run_main(
        [
            "check",
            *ARGS,
            str(DEMO / "viewharmonics.trec"),
            str(DEMO / "lightfield-200"),
            "--json",
            str(tmp_path / "c.json"),
        ]
    )
    assert code == 0 and text.count("verdict: OK") == 2
    assert "rank-list folder, variant query-line (detected)" in text
    assert "notice: ranked lists shorter" in text
    code, _ = run_main(["check", *ARGS, str(DEMO / "lightfield-200"), "--strict"])
    assert code == 1
    bad = tmp_path / "bad.trec"
    bad.write_text("q01 Q0 0 1 5 r\nq01 Q0 zz 2 4 r\nq01 Q0 0 3 3 r\n")
    garbage = tmp_path / "garbage.txt"
    garbage.write_bytes(b"\x00\x01binary")
    code, text = run_main(
        ["check", *ARGS, str(bad), str(garbage), "--json", str(tmp_path / "c.json")]
    )
    assert code == 1
    assert "problem: ids the assessment does not know" in text
    assert "problem: ids repeated within a ranked list" in text
    assert "problem: queries of the assessment missing from the run" in text
    assert "verdict: CANNOT BE READ" in text
    doc = json.loads((tmp_path / "c.json").read_text())
    assert [r["verdict"] for r in doc["runs"]] == ["problems", "cannot be read"]
    codes = {w["code"] for w in doc["runs"][0]["problems"]}
    assert codes == {"unknown_ids", "duplicate_ids", "missing_queries"}


def test_measures_lists_the_registry():
    code, text = run_main(["measures", "--ranks", "3"])
    keys = [ln.split()[0] for ln in text.split("\n\n")[0].splitlines()]
    assert code == 0 and "ndcg@3" in keys and "ndcg@10" not in keys and "e_measure" in keys


@pytest.mark.parametrize(
    "argv,needle",
    [
        ([], "a command is needed"),
        (["evaluate"], "required"),
        (["evaluate", "x.cla"], "at least one RUN is needed"),
        (["frobnicate"], "invalid choice"),
        (["evaluate", *ARGS, str(DEMO / "spectralnet.txt"), "--ranks", "a,b"], "whole numbers"),
        (
            ["evaluate", *ARGS, str(DEMO / "spectralnet.txt"), "--rank-by", "nope"],
            "unknown measure",
        ),
        (
            ["evaluate", *ARGS, str(DEMO / "spectralnet.txt"), "--names", "a,b"],
            "2 names for 1 runs",
        ),
        (["evaluate", *ARGS, "/no/such/run.trec"], "cannot read the file"),
        (
            ["evaluate", str(DEMO / "spectralnet.txt"), str(DEMO / "spectralnet.txt")],
            "cannot tell what this file is",
        ),
        (["evaluate", *ARGS, str(DEMO / "target.cla")], "cannot tell what this run is"),
        (["evaluate", str(DEMO / "target.cla"), str(DEMO / "spectralnet.txt")], "1101 x 1101"),
    ],
)
def test_errors_exit_2_with_one_line(capsys, argv, needle):
    code, out = run_main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and needle in err, err
    assert err.startswith("shrec-eval: error: ") and "Traceback" not in err


def test_every_user_error_is_caught_in_one_place(capsys, monkeypatch):
    """Any ShrecEvalError, even one no command raises today, is one line and exit 2;
    anything else is reported as unexpected."""
    import shrec_eval.cli.commands as cli  # the commands main() runs
    from shrec_eval.errors import ShrecEvalError

    class NewKindOfUserError(ShrecEvalError):
        pass

    def raises(exc):
        def command(args, out):
            raise exc

        return command

    monkeypatch.setitem(cli.COMMANDS, "measures", raises(NewKindOfUserError("a: b\nc")))
    assert run_main(["measures"])[0] == 2
    err = capsys.readouterr().err
    assert err == "shrec-eval: error: a: b\nc\n"
    monkeypatch.setitem(cli.COMMANDS, "measures", raises(KeyError("k")))
    assert run_main(["measures"])[0] == 2
    assert "unexpected KeyError" in capsys.readouterr().err
    with pytest.raises(NewKindOfUserError):
        monkeypatch.setitem(cli.COMMANDS, "measures", raises(NewKindOfUserError("x")))
        run_main(["measures", "--debug"])


def test_user_errors_share_one_base():
    from shrec_eval.errors import (
        AssessmentError,
        Cancelled,
        ContestFileError,
        FileAccessError,
        FormatError,
        OptionsError,
        ShrecEvalError,
        StatsError,
        UsageError,
    )

    for cls in (
        AssessmentError,
        Cancelled,
        ContestFileError,
        FileAccessError,
        FormatError,
        OptionsError,
        StatsError,
        UsageError,
    ):
        assert issubclass(cls, ShrecEvalError), cls
    assert str(Cancelled()) == "cancelled"


def test_debug_shows_the_traceback():
    from shrec_eval.errors import FileAccessError

    with pytest.raises(FileAccessError, match="cannot read the file"):
        main(["evaluate", *ARGS, "/no/such/run.trec", "--debug"], out=io.StringIO())


def test_progress_bar_only_on_a_terminal():
    class Tty(io.StringIO):
        def isatty(self):
            return True

    tty, pipe = Tty(), io.StringIO()
    for stream in (tty, pipe):
        p = Progress(stream, "run")
        p(1, 4)
        p(4, 4)
    assert "[" in tty.getvalue() and "100%" in tty.getvalue() and pipe.getvalue() == ""


@pytest.mark.parametrize(
    "argv,code",
    [
        (["demo", "--columns", "adr"], 0),
        (["measures"], 0),
        (["evaluate", *ARGS, str(DEMO / "voxelmoments.matrix"), "--columns", "nn"], 0),
        (["check", *ARGS, str(DEMO / "shapehistogram")], 0),
        (["evaluate", *ARGS, "/no/such/file"], 2),
    ],
)
def test_real_subprocess(argv, code, tmp_path):
    # the installed package, run from a folder that is not the repository
    p = subprocess.run(
        [sys.executable, "-m", "shrec_eval", *argv],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert p.returncode == code, p.stderr
    if code:
        assert len(p.stderr.strip().splitlines()) == 1
    else:
        assert p.stdout and not p.stderr


def test_a_closed_output_pipe_ends_quietly(tmp_path):
    """shrec-eval ... | head, head gone: exit 141 (SIGPIPE's status), nothing on stderr."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader has gone before the first line is written
    try:
        p = subprocess.run(
            [sys.executable, "-m", "shrec_eval", "demo", "--columns", "adr"],
            stdout=write_end,
            stderr=subprocess.PIPE,
            cwd=tmp_path,
            timeout=120,
        )
    finally:
        os.close(write_end)
    assert p.returncode == 141 and p.stderr == b"", p.stderr


def test_demo_manifest_is_found():
    assert demo_manifest().is_file()


def test_compare_prints_ranking_matrix_and_writes_json_and_report(tmp_path):
    runs = [str(DEMO / p) for p in ("spectralnet.txt", "voxelmoments.matrix", "viewharmonics.trec")]
    code, text = run_main(
        [
            "compare",
            *ARGS,
            *runs,
            "--measure",
            "ap_trec_r",
            "--test",
            "t",
            "--resamples",
            "500",
            "--json",
            str(tmp_path / "c.json"),
            "--report",
            str(tmp_path / "r"),
        ]
    )
    assert code == 0
    assert "95% CI" in text and "Corrected p-values, paired t-test" in text
    doc = json.loads((tmp_path / "c.json").read_text())["comparison"]
    assert doc["measure"] == "ap_trec_r" and doc["tests"] == ["t"] and len(doc["pairs"]) == 3
    assert doc["runs"][0]["name"] == "spectralnet" and len(doc["runs"][0]["ci"]) == 2
    for p in doc["pairs"]:
        assert set(p) >= {"p", "p_corrected", "mean_difference", "wins", "left_out"}
        assert p["p_corrected"]["t"] >= p["p"]["t"]
    md = (tmp_path / "r" / "summary.md").read_text()
    # Markdown source: the legend names a run, escaped as every name is
    assert r"significantly different from the best run \(spectralnet\)" in md
    assert "\\*" in md


@pytest.mark.parametrize(
    "argv,needle",
    [
        (["compare", *ARGS, str(DEMO / "spectralnet.txt")], "--measure"),
        (["compare", *ARGS, str(DEMO / "spectralnet.txt"), "--measure", "zz"], "unknown measure"),
        (
            ["compare", *ARGS, str(DEMO / "spectralnet.txt"), "--measure", "nn", "--alpha", "2"],
            "alpha",
        ),
    ],
)
def test_compare_errors(capsys, argv, needle):
    code, _ = run_main(argv)
    err = capsys.readouterr().err
    assert code == 2 and needle in err and len(err.strip().splitlines()) == 1


def test_custom_ranks_reach_the_reports(tmp_path):
    code, text = run_main(
        [
            "evaluate",
            *ARGS,
            str(DEMO / "spectralnet.txt"),
            "--ranks",
            "7",
            "--rank-by",
            "p@7",
            "--columns",
            "p@7",
            "--report",
            str(tmp_path / "r"),
        ]
    )
    assert code == 0 and "Precision@7" in text
    assert "Precision@7" in (tmp_path / "r" / "summary.md").read_text()


def test_written_files_keep_the_usual_mode(tmp_path):
    import stat

    from shrec_eval.outputs.atomic import write_text

    p = tmp_path / "x.txt"
    write_text(p, "a")
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(p.stat().st_mode) == 0o666 & ~mask
    os.chmod(p, 0o640)
    write_text(p, "b")
    assert stat.S_IMODE(p.stat().st_mode) == 0o640 and p.read_text() == "b"


def test_markdown_escapes_backslashes_and_pipes():
    from shrec_eval import evaluate
    from shrec_eval.outputs.report import Summary, summary_md
    from shrec_eval.reading.readers import load_assessment, load_run

    a = load_assessment(DEMO / "target.cla", queries=DEMO / "queries.cla", graded=True)
    r = evaluate(a, load_run(DEMO / "spectralnet.txt", a, name="evil\\|x"))
    md = summary_md(Summary.build([r], ["nn"], "nn"))
    row = [ln for ln in md.splitlines() if "evil" in ln][0]
    assert row.count(" | ") == 2  # | rank | run | nn |: no extra column


def test_a_contest_file_is_scored_with_the_options_given_over_its_own(tmp_path, capsys):
    """evaluate|check|compare CONTEST.json: the file's runs and options, with
    what the command line gives explicitly on top; --save-contest writes the
    contest a command line describes, which scores the same."""
    contest = str(DEMO / "contest.json")
    code, out = run_main(["evaluate", contest, "--columns", "nn,ft_psb"])
    assert code == 0 and "SpectralNet" in out and "RandomBaseline" in out
    code, psb = run_main(["evaluate", contest, "--profile", "psbtable", "--columns", "nn"])
    assert code == 0 and "profile psbtable" in psb
    saved = tmp_path / "saved.json"
    files = [str(DEMO / "target.cla"), str(DEMO / "spectralnet.txt"), str(DEMO / "lightfield-200")]
    flags = ["--queries", str(DEMO / "queries.cla"), "--sister-classes", "--average", "macro"]
    code, direct = run_main(["evaluate", *files, *flags, "--save-contest", str(saved)])
    assert code == 0 and saved.exists()
    code, again = run_main(["evaluate", str(saved)])
    assert code == 0 and again == direct  # the saved contest keeps the macro average
    code, micro = run_main(["evaluate", str(saved), "--average", "micro"])
    assert code == 0 and "(micro)" in micro and micro != direct
    code, checked = run_main(["check", str(saved)])
    assert code == 0 and checked.count("verdict: OK") == 2
    code, compared = run_main(["compare", str(saved), "--measure", "nn", "--resamples", "50"])
    assert code == 0 and "spectralnet" in compared and "lightfield-200" in compared
    # the contest file is an input: --save-contest never replaces it
    code, _ = run_main(["evaluate", str(saved), "--save-contest", str(saved)])
    assert code == 2 and "--save-contest" in capsys.readouterr().err


def test_runs_may_follow_options_given_after_the_assessment():
    code, out = run_main(
        [
            "evaluate",
            str(DEMO / "target.cla"),
            "--queries",
            str(DEMO / "queries.cla"),
            str(DEMO / "spectralnet.txt"),
            "--sister-classes",
            str(DEMO / "viewharmonics.trec"),
        ]
    )
    assert code == 0 and "spectralnet" in out and "ViewHarmonics" in out
