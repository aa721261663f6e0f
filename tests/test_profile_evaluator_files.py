"""Evaluator files (docs/evaluators.md): a contest's evaluator as data, on
every face.  The built-ins are such files, and each one printed by
``profiles show`` and given back with ``--profile FILE`` gives the same
numbers and bytes; a new evaluator file works on the command line (every
command), in the library, in contest files (named or embedded), with its
problems said at their line; what a profile fixes is refused when asked
otherwise; evaluator files are found in the config folder and in installed
packages (an entry point); a profile pickles with its options."""

from __future__ import annotations

import contextlib
import filecmp
import io
import json
import pickle
from pathlib import Path

import pytest
import shrec_eval
from contest_profiles import boli_contest, psb_contest, shapenet_csv, shapenet_method
from shrec_eval import EvalOptions, evaluate, load_assessment, load_run
from shrec_eval.cli.parser import main
from shrec_eval.contest import AssessmentSource, Contest, RunSource
from shrec_eval.errors import FormatError, OptionsError
from shrec_eval.profiles import NAMES, REGISTRY, get_profile
from shrec_eval.profiles.evaluator_file import EvaluatorFileError, check_text

DATA = Path(__file__).parent / "data"
SIPIRAN = DATA / "sipiran21" / "generated" / "ties_small_classes"
TREC = DATA / "trec_eval"

#: a new track's evaluator, data only: SHREC-style columns with a measure
#: with parameters, its own native table of runs
TRACK = """\
# a track of our own (tests/test_profile_evaluator_files.py)
format = 1

[evaluator]
name = "mytrack"
label = "My track's evaluator"
source = "tests/test_profile_evaluator_files.py"
help = "a track of our own: NN, FT, mAP and a NDCG of the retrieved hits"
why = "its script never takes a query out of its own list"
program = "evaluate.py"

[options]
remove_self = false

[[measures]]
key = "ndcg_hits"
binding = "ndcg(discount=log2_from_1,ideal=retrieved)"
label = "NDCG over the retrieved hits"
definition = "gain / log2(rank + 1) from rank 1 over the whole list, the ideal made of the hits"
short = "NDCG"

[table]
columns = ["nn", "ft_psb", "ap_trec_r", "ndcg_hits", "ndcg(gain=exp2)@10"]
headings = ["NN", "FT", "mAP", "NDCG", "NDCG@10"]
rank_by = "ap_trec_r"

[averages]
number_format = "%.3f"

[[native.files]]
file = "table.txt"
layout = "runs"
header = "Run | {headings}\\n"
row = "{run} | {values}\\n"
sep = " | "
sum = "running"
"""


def cli(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            code = main([str(a) for a in argv], out=out)
        except SystemExit as e:
            code = e.code
    return code, out.getvalue(), err.getvalue()


def track(folder: Path, text: str = TRACK, name: str = "mytrack.toml") -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


# -- the built-ins: the file shown gives the same numbers and bytes ----------------------------


def _contest(name: str, folder: Path) -> tuple[list, list]:
    """(evaluate's arguments, extra options) of a small contest that suits ``name``."""
    if name in ("shrec", "psbtable"):
        cla, m = psb_contest(folder)
        return [cla, m], ["--native", folder / "native"] if name == "psbtable" else []
    if name == "boli":
        queries, target, lists = boli_contest(folder)
        return [target, lists, "--queries", queries], ["--native", folder / "native"]
    if name == "sipiran21":
        runs = sorted((SIPIRAN / "runs").iterdir())[:3]
        args = [SIPIRAN / "target.cla", *runs, "--queries", SIPIRAN / "query.cla"]
        return args, ["--native", folder / "native"]
    if name == "trec_eval":
        return [TREC / "qrels.test", TREC / "results.test"], []
    assert name == "shapenet17"
    return [shapenet_csv(folder), shapenet_method(folder)], ["--native", folder / "native"]


@pytest.mark.parametrize("name", NAMES)
def test_a_built_in_shown_and_given_back_as_a_file_gives_the_same_bytes(name, tmp_path):
    code, text, _ = cli("profiles", "show", name)
    assert code == 0 and text == Path(REGISTRY[name].path).read_text(encoding="utf-8")
    copy = tmp_path / f"{name}.toml"
    copy.write_text(text, encoding="utf-8")
    outputs = []
    for i, profile in enumerate((name, copy)):
        folder = tmp_path / str(i)
        folder.mkdir()
        args, extra = _contest(name, folder)
        extra = [str(e).replace(str(folder), str(folder)) for e in extra]
        code, table, err = cli(
            "evaluate", *args, "--profile", profile, "--json", folder / "r.json", *extra
        )
        assert code == 0, err
        outputs.append((folder, table, (folder / "r.json").read_bytes()))
    (a, table_a, json_a), (b, table_b, json_b) = outputs
    assert table_a == table_b and json_a.replace(bytes(a), bytes(b)) == json_b
    if (a / "native").exists():
        same = filecmp.dircmp(a / "native", b / "native")
        assert same.left_list == same.right_list and not same.diff_files, same.report()
        for sub in same.common_dirs:
            assert not filecmp.dircmp(a / "native" / sub, b / "native" / sub).diff_files
    if name == "trec_eval":  # its own text output, byte for byte
        args, _ = _contest(name, tmp_path)
        one = cli("evaluate", *args, "--profile", name, "--format", "trec_eval", "-q")
        two = cli("evaluate", *args, "--profile", copy, "--format", "trec_eval", "-q")
        assert one[0] == 0 and one[1] == two[1]


def test_every_built_in_pickles_and_keeps_its_rules_in_the_options(tmp_path):
    for name in NAMES:
        profile = get_profile(name)
        assert pickle.loads(pickle.dumps(profile)) == profile
    mine = EvalOptions(profile=track(tmp_path))
    back = pickle.loads(pickle.dumps(mine))
    assert back == mine and back.rules == mine.rules and back.profile == "mytrack"
    assert back.rules.native(*_scored(tmp_path, back)) == mine.rules.native(
        *_scored(tmp_path, mine)
    )


def _scored(folder: Path, options: EvalOptions):
    cla, m = psb_contest(folder)
    a = load_assessment(cla, profile=options.rules)
    run = load_run(m, a, name="M.run1")
    r = evaluate(a, run, options)
    from dataclasses import replace

    return [replace(r, run_source=str(folder / "M.run1.txt"))], a


# -- a new evaluator file on every face ------------------------------------------------------


def test_a_new_evaluator_file_scores_on_the_command_line_with_its_columns(tmp_path):
    path = track(tmp_path)
    cla, m = psb_contest(tmp_path)
    code, out, err = cli(
        "evaluate",
        cla,
        m,
        "--profile",
        path,
        "--json",
        tmp_path / "r.json",
        "--native",
        tmp_path / "n",
    )
    assert code == 0, err
    head = out.splitlines()[0].split()
    assert head[:7] == [
        "Rank",
        "Run",
        "nn",
        "ft_psb",
        "ap_trec_r",
        "ndcg_hits",
        "ndcg(gain=exp2)@10",
    ]
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["profile"] == "mytrack" and doc["options"]["remove_self"] is False
    lib = evaluate(
        load_assessment(cla, profile=path),
        load_run(m, load_assessment(cla, profile=path)),
        EvalOptions(profile=path),
    )
    mean = doc["runs"][0]["mean"]
    for key in ("nn", "ft_psb", "ap_trec_r", "ndcg_hits", "ndcg(gain=exp2)@10"):
        assert mean[key] == lib.mean(key), key
    # its NDCG: the ideal of the retrieved hits, gain / log2(rank + 1) from rank 1
    assert lib.mean("ndcg_hits") == lib.mean("ndcg(discount=log2_from_1,ideal=retrieved)")
    table = (tmp_path / "n" / "table.txt").read_text()
    assert table.splitlines()[0] == "Run | NN | FT | mAP | NDCG | NDCG@10"
    assert table.splitlines()[1] == "dist | " + " | ".join(
        "%.3f" % v
        for v in (
            lib.mean(k) for k in ("nn", "ft_psb", "ap_trec_r", "ndcg_hits", "ndcg(gain=exp2)@10")
        )
    )
    for command in (["check", cla, m], ["compare", cla, m, m, "--measure", "ndcg_hits"]):
        code, _, err = cli(*command, "--profile", path)
        assert code in (0, 1), err  # check: 1 when a run has a problem
    code, out, _ = cli("measures", "--profile", path)
    assert code == 0 and "Profile mytrack:" in out and "ndcg_hits" in out
    code, out, _ = cli("demo", "--profile", path)
    assert code == 0 and "profile mytrack" in out


def test_a_contest_file_names_or_embeds_its_evaluator(tmp_path):
    path = track(tmp_path)
    cla, m = psb_contest(tmp_path)
    c = Contest(AssessmentSource(cla), (RunSource(m),), EvalOptions(profile=path))
    c.write(tmp_path / "named.json")
    doc = json.loads((tmp_path / "named.json").read_text())
    assert doc["evaluator"] == "mytrack.toml" and doc["options"]["profile"] == "mytrack"
    assert Contest.read(tmp_path / "named.json").options == c.options
    assert path in c.inputs()  # never an output's place
    doc["evaluator"] = get_profile(path).document  # the table itself
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "embedded.json").write_text(json.dumps(doc))
    back = Contest.read(tmp_path / "sub" / "embedded.json")
    assert back.options.rules.measures == c.options.rules.measures
    back.write(tmp_path / "sub" / "again.json")
    again = json.loads((tmp_path / "sub" / "again.json").read_text())
    assert again["evaluator"] == doc["evaluator"]  # embedded again
    doc["options"]["profile"] = "boli"
    (tmp_path / "other.json").write_text(json.dumps(doc))
    with pytest.raises(FormatError, match='"profile" is \'boli\', but the contest\'s "evaluator"'):
        Contest.read(tmp_path / "other.json")
    doc["options"]["profile"] = "mytrack"
    doc["evaluator"]["table"]["rank_by"] = "nope"
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    with pytest.raises(
        EvaluatorFileError, match="bad.json: evaluator.table.rank_by: unknown measure 'nope'"
    ):
        Contest.read(tmp_path / "bad.json")


# -- problems with their line ------------------------------------------------------------------


@pytest.mark.parametrize(
    "change, says",
    [
        (('name = "mytrack"', 'name = "My Track"'), "evaluator.name: a name of lower-case"),
        (('rank_by = "ap_trec_r"', 'rank_by = "map@"'), "table.rank_by: unknown measure"),
        (('layout = "runs"', 'layout = "tables"'), 'native.files[1].layout: one of "queries"'),
        (('sum = "running"', 'sum = "float"'), 'native.files[1].sum: one of "engine"'),
        (("remove_self = false", "remove_self = 1"), "options.remove_self: remove self must be"),
        (
            ('binding = "ndcg(discount', 'binding = "ndcg(base'),
            "measures[1].binding: ndcg has no parameter 'base'; its parameters: gain,",
        ),
        (('number_format = "%.3f"', 'number_format = "%d %d"'), "a printf format of one"),
        (("[table]", "[table]\nfont = 3"), "table.font: unknown key; [table] takes columns"),
        (('headings = ["NN", ', "headings = ["), "4 headings for 5 columns"),
        (("format = 1", 'format = 1\n[hooks]\nscored = "trec_eval.text"'), "no scored hook named"),
        (("format = 1", "format = 2"), "newer than this shrec-eval reads"),
        # a misspelt field would be written as it is, braces and all
        (
            ('row = "{run} | {values}\\n"', 'row = "{run} | {vlaues}\\n"'),
            "native.files[1].row: {vlaues} is not a field of the runs layout, so it would be "
            "written as it is; did you mean {values}?",
        ),
        (  # a field of another layout
            ('header = "Run | {headings}\\n"', 'header = "{query} | {headings}\\n"'),
            "native.files[1].header: {query} is not a field of the runs layout",
        ),
    ],
)
def test_every_problem_is_said_with_its_line(change, says, tmp_path):
    text = TRACK.replace(*change)
    assert text != TRACK
    # the line the change wrote (its last line: the key)
    mark = change[1].splitlines()[-1]
    line = next(i for i, t in enumerate(text.splitlines(), 1) if t.startswith(mark))
    problems = check_text(text, "t.toml")
    assert problems and says in problems[0].message, problems
    assert problems[0].line == line, problems
    path = track(tmp_path, text)
    code, out, _ = cli("profiles", "check", path)
    assert code == 1 and f"{path}:{line}: " in out and says in out
    code, _, err = cli("evaluate", *psb_contest(tmp_path), "--profile", path)
    assert code == 2 and f"{path}, line {line}: " in err and says in err


def test_latex_between_braces_is_not_taken_for_a_field():
    from shrec_eval.profiles.layouts import misspelt_fields

    latex = "\\begin{table}\\begin{tabular}{lrr}\\textbf{x} {run} & {values}\\end{tabular}"
    assert misspelt_fields(latex, "runs") == []
    assert misspelt_fields("{class_pth}: {values}", "classes") == [
        "{class_pth} is not a field of the classes layout, so it would be written as it is; "
        "did you mean {class_path}? (its fields: {class}, {class_path}, {values}, {headings}, "
        "{micro}, {macro})"
    ]


def test_a_toml_error_names_its_line_and_a_good_file_is_ok(tmp_path):
    problems = check_text(TRACK.replace('label = "My', "label = My"), "t.toml")
    assert problems[0].line == 6 and "not TOML" in problems[0].message  # tomllib's line
    code, out, _ = cli("profiles", "check", track(tmp_path))
    assert code == 0 and "ok: the profile mytrack" in out


def test_a_name_taken_by_a_built_in_with_other_rules_is_refused(tmp_path):
    text = (
        Path(REGISTRY["boli"].path)
        .read_text()
        .replace('pr_interpolation = "psb"', 'pr_interpolation = "max"')
    )
    path = track(tmp_path, text, "boli2.toml")
    with pytest.raises(
        OptionsError, match="'boli', the name of a built-in profile with other rules"
    ):
        get_profile(path)
    code, out, _ = cli("profiles", "check", path)
    assert code == 1 and "the name of a built-in profile" in out


def test_run_formats_it_does_not_read_are_refused_before_reading(tmp_path):
    path = track(
        tmp_path, TRACK.replace("[options]", '[reading]\nrun_formats = ["trec"]\n\n[options]')
    )
    cla, m = psb_contest(tmp_path)
    code, _, err = cli("evaluate", cla, m, "--profile", path)
    assert code == 2 and "the profile reads runs of trec only" in err and "ASCII" in err


# -- what a profile fixes, asked otherwise -----------------------------------------------------


def test_every_option_a_file_fixes_is_refused_when_asked_otherwise(tmp_path):
    fixed = TRACK.replace(
        "remove_self = false",
        'remove_self = false\naverage = "macro"\nranks = [5, 10]\npr_levels = 11\nf_beta = 2.0',
    )
    path = track(tmp_path, fixed)
    cla, m = psb_contest(tmp_path)
    for given, says in (
        (["--average", "micro"], "--average micro: the mytrack profile fixes average = macro"),
        (["--pr-levels", "21"], "--pr-levels 21: the mytrack profile fixes pr levels = 11"),
        (["--f-beta", "1"], "fixes f beta = 2.0"),
        (["--ranks", "5,10,20"], "fixes ranks = (5, 10)"),
        (["--keep-self"], None),  # the same value: fine
    ):
        code, out, err = cli("evaluate", cla, m, "--profile", path, *given)
        if says is None:
            assert code == 0, err
        else:
            assert code == 2 and says in err and "leave" in err, err
    code, _, err = cli("evaluate", cla, m, "--profile", path, "--average", "macro")
    assert code == 0, err


# -- found in the config folder and in installed packages --------------------------------------


def test_the_config_folder_and_an_entry_point_add_profiles(tmp_path, monkeypatch):
    config = tmp_path / "config"
    (config / "evaluators").mkdir(parents=True)
    track(config / "evaluators", TRACK.replace('"mytrack"', '"cfgtrack"'), "cfgtrack.toml")
    site = tmp_path / "site"
    (site / "pkgtrack_eval").mkdir(parents=True)
    (site / "pkgtrack_eval" / "__init__.py").write_text(
        "from importlib.resources import files\nEVALUATOR = files(__name__) / 'pkgtrack.toml'\n"
    )
    track(site / "pkgtrack_eval", TRACK.replace('"mytrack"', '"pkgtrack"'), "pkgtrack.toml")
    dist = site / "pkgtrack_eval-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: pkgtrack-eval\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[shrec_eval.evaluators]\npkgtrack = pkgtrack_eval:EVALUATOR\n"
    )
    monkeypatch.setenv("SHREC_EVAL_CONFIG_DIR", str(config))
    monkeypatch.syspath_prepend(str(site))
    code, out, _ = cli("profiles")
    rows = {line.split()[0]: line for line in out.splitlines()[1:] if line.strip()}
    assert "config folder" in rows["cfgtrack"] and "cfgtrack.toml" in rows["cfgtrack"]
    assert "package pkgtrack-eval" in rows["pkgtrack"]
    cla, m = psb_contest(tmp_path)
    for name in ("cfgtrack", "pkgtrack"):
        code, out, err = cli("evaluate", cla, m, "--profile", name)
        assert code == 0 and f"profile {name}" in out, err
        assert get_profile(name).origin in ("config folder", "package pkgtrack-eval")
    code, _, err = cli("evaluate", cla, m, "--profile", "cfgtrak")
    assert code == 2 and "did you mean cfgtrack?" in err


def test_every_hook_is_documented_with_its_kind():
    from shrec_eval.profiles.hooks import HOOKS

    text = (Path(__file__).resolve().parents[1] / "docs" / "evaluators.md").read_text()
    for name, (kind, _, _) in HOOKS.items():
        assert f"| `{name}` | {kind} |" in text, name


def test_a_table_of_one_run_is_refused_in_a_contests_table(tmp_path):
    text = (
        TRACK
        + '\n[native]\ngroup = "contest"\n\n[[native.files]]\nfile = "q.txt"\nlayout = "queries"\n'
    )
    problems = check_text(text, "t.toml")
    assert [p.line for p in problems] == [len(TRACK.splitlines()) + 7]
    assert 'a table of one run (queries) goes with [native] group = "run"' in problems[0].message


def test_an_unknown_format_names_each_text_output_once(tmp_path, monkeypatch):
    """Evaluators of the config folder that write trec_eval's text as the
    built-in does: an unknown --format lists that output once, not once per
    evaluator that has it."""
    builtin = (
        Path(shrec_eval.__file__).parent / "profiles" / "builtin" / "trec_eval.toml"
    ).read_text()
    config = tmp_path / "config"
    (config / "evaluators").mkdir(parents=True)
    for name in ("mytrec", "ourtrec"):
        text = builtin.replace('name = "trec_eval"', f'name = "{name}"', 1)
        track(config / "evaluators", text, f"{name}.toml")
    monkeypatch.setenv("SHREC_EVAL_CONFIG_DIR", str(config))
    code, out, _ = cli("profiles")
    assert {"mytrec", "ourtrec"} <= {line.split()[0] for line in out.splitlines()[1:] if line}
    code, _, err = cli("evaluate", TREC / "qrels.test", TREC / "results.test", "--format", "bogus")
    assert code == 2
    assert err.rstrip().endswith("expected table or a profile's own text output: trec_eval"), err
