"""Every profile gives one set of numbers on every face: the library
(``shrec_eval.load_assessment(path, profile=...)``, ``load_run``,
``evaluate``), the command line's JSON, its ``--format`` text output where
the profile has one (trec_eval's), and the app's headless export
(tests/test_app_profile_parity.py holds the app's files equal to the command line's).
And where the library cannot give the command line's numbers (files read
by another profile's rules), it says so: never other numbers.
"""

from __future__ import annotations

import io
import json
import math
from dataclasses import replace
from pathlib import Path

import pytest
from contest_profiles import boli_contest
from shrec_eval import EvalOptions, evaluate, load_assessment, load_run
from shrec_eval.cli.parser import main as cli_main
from shrec_eval.contest import AssessmentSource, Contest, RunSource
from shrec_eval.errors import ShrecEvalError
from shrec_eval.profiles import REGISTRY
from shrec_eval.profiles.base import ReadingError

DATA = Path(__file__).parent / "data"
GENERATED = DATA / "sipiran21" / "generated"


def _cla_contest(folder: Path) -> Contest:
    from test_app_profile_parity import cla_contest

    return cla_contest(folder)


def _qrels_contest(folder: Path) -> Contest:
    from test_app_profile_parity import qrels_contest

    return qrels_contest(folder)


def _sketch_contest(folder: Path) -> Contest:
    queries, target, lists = boli_contest(folder)
    return Contest(AssessmentSource(target, queries=queries), (RunSource(lists),))


def _id_contest(folder: Path) -> Contest:
    """Matrices indexed by model id (ids 0..N-1 listed out of order): SHREC 2021's layout."""
    src = GENERATED / "ties_small_classes"
    runs = tuple(RunSource(p) for p in sorted((src / "runs").iterdir()))
    return Contest(AssessmentSource(src / "target.cla", queries=src / "query.cla"), runs)


def _trec_eval_contest(folder: Path) -> Contest:
    """trec_eval's own test files (qrels.test, results.test)."""
    te = DATA / "trec_eval"
    return Contest(AssessmentSource(te / "qrels.test"), (RunSource(te / "results.test"),))


CONTESTS = (_cla_contest, _qrels_contest, _sketch_contest, _id_contest, _trec_eval_contest)
#: the profiles that read contests the library's way (shapenet17 reads its own
#: method folders: tests/test_profile_shapenet17.py)
PROFILES = [name for name, p in REGISTRY.items() if p.contest_reader is None]


def _cli(path: Path, tmp_path: Path, *extra: str) -> tuple[int, dict | None, str, str]:
    out = io.StringIO()
    json_path = tmp_path / "out.json"
    import contextlib

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = cli_main(["evaluate", str(path), "--json", str(json_path), *extra], out=out)
    doc = json.loads(json_path.read_text()) if code == 0 and json_path.exists() else None
    return code, doc, out.getvalue(), err.getvalue()


def _library(contest: Contest, profile: str):
    """The library call a user writes, with the contest's reader settings."""
    a_src = contest.assessment
    # what a user writes: the settings the contest sets, not the defaults (a
    # profile refuses a setting it fixes otherwise when it is given)
    default = AssessmentSource(a_src.path).reader_settings()
    settings = {
        k: v for k, v in a_src.reader_settings().items() if v is not None and v != default[k]
    }
    a = load_assessment(a_src.path, profile=profile, **settings)
    options = replace(contest.options, profile=profile)
    return a, [evaluate(a, load_run(r.path, a, **_run_settings(r)), options) for r in contest.runs]


def _run_settings(r: RunSource) -> dict:
    return {k: v for k, v in r.reader_settings().items() if v is not None and k != "name"}


def _same(x, y) -> bool:
    if x is None or y is None:
        return (x is None or (isinstance(x, float) and math.isnan(x))) and (
            y is None or (isinstance(y, float) and math.isnan(y))
        )
    return x == y


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("make", CONTESTS, ids=lambda m: m.__name__.strip("_"))
def test_library_and_command_line_give_the_same_numbers(tmp_path, make, profile):
    data = tmp_path / "data"
    data.mkdir()
    contest = make(data)
    contest = replace(contest, options=replace(contest.options, profile=profile))
    path = tmp_path / "contest.json"
    contest.write(path)
    code, doc, _, err = _cli(path, tmp_path)
    try:
        a, results = _library(contest, profile)
    except ShrecEvalError as exc:
        # what the command line cannot read, the library cannot either, in the same words
        assert code == 2 and str(exc) in err, (str(exc), err)
        return
    assert code == 0, err
    assert len(results) == len(doc["runs"])
    compared = 0
    for r, run in zip(results, doc["runs"]):
        for key in r.keys:
            assert _same(r.mean(key), run["mean"][key]), (profile, run["name"], key)
            for q in r.query_ids:
                assert _same(r.value(q, key), run["per_query"][q][key]), (key, q)
                compared += 1
    assert compared


def test_trec_eval_text_is_the_library_values(tmp_path):
    """--format trec_eval -q prints the library's values (trec_eval's test files)."""
    te = DATA / "trec_eval"
    a = load_assessment(te / "qrels.test", profile="trec_eval")
    res = evaluate(a, load_run(te / "results.test", a), EvalOptions(profile="trec_eval"))
    out = io.StringIO()
    code = cli_main(
        [
            "evaluate",
            str(te / "qrels.test"),
            str(te / "results.test"),
            "--profile",
            "trec_eval",
            "--format",
            "trec_eval",
            "-q",
        ],
        out=out,
    )
    assert code == 0
    lines = [ln.split("\t") for ln in out.getvalue().splitlines()]
    maps = {q.strip(): v for name, q, v in lines if name.strip() == "map"}
    assert maps["all"] == "0.1785"
    for q in res.query_ids:
        if q in maps:
            assert maps[q] == f"{res.value(q, 'ap_trec_r'):6.4f}", q


def test_the_issue_call_is_never_silently_other_numbers():
    """``evaluate(load_assessment(Q), load_run(R, a), EvalOptions(profile=
    "trec_eval"))`` read by the default rules is refused, naming the call to
    use; read under the profile it is trec_eval's MAP, as the command line's."""
    from shrec_eval.reading.readers import load_assessment as read_assessment
    from shrec_eval.reading.readers import load_run as read_run

    te = DATA / "trec_eval"
    a = read_assessment(te / "qrels.test")
    with pytest.raises(ReadingError) as exc:
        evaluate(a, read_run(te / "results.test", a), EvalOptions(profile="trec_eval"))
    assert "load_assessment(path, profile='trec_eval')" in str(exc.value)
    assert "ids as written" in str(exc.value)
    a = load_assessment(te / "qrels.test", profile="trec_eval")
    res = evaluate(a, load_run(te / "results.test", a), EvalOptions(profile="trec_eval"))
    assert f"{res.mean('ap_trec_r'):.4f}" == "0.1785"
    # a run follows the profile of its assessment, through RunSource.load too
    run = RunSource(te / "results.test").load(a)
    assert run.reading == {"trec_order": True, "normalize_ids": False, "c_numbers": True}


def test_a_run_read_by_one_profile_is_refused_under_another(tmp_path):
    src = GENERATED / "ties_small_classes"
    a = load_assessment(src / "target.cla", profile="sipiran21", queries=src / "query.cla")
    run = load_run(src / "runs" / "A.run1.txt", a)
    assert a.matrix_order == "id" and a.reading["class_match"] == "position"
    evaluate(a, run, EvalOptions(profile="sipiran21"))
    with pytest.raises(ReadingError, match="by position in the files; the shrec profile"):
        evaluate(a, run, EvalOptions(profile="shrec"))
