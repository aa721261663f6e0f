"""``--native DIR``: the evaluators' own files through the output gate (issue
"Nothing lost, nothing misread", round 5: f01, f04, f08).

* Every native file name is made once (``outputs.native.native_names``): a
  class's or a method's name becomes one safe file name, never a path; names
  a case-blind file system would merge, or that Windows reserves, are told
  apart by a hash; the command line writes what the library writes.
* A folder holding other files than the profile's native files is refused
  with the rule and message of ``--csv`` / ``--report``, before anything is
  read or scored (their own check moved before scoring too); an earlier
  native output there is replaced.
* Nothing is ever written outside the folder, and a target that cannot be
  written is found before the first file is.
"""

from __future__ import annotations

import os
import unicodedata

import numpy as np
import pytest
from hostile import run_cli, sipiran21_contest
from hostile import six_contest as _six
from shrec_eval.contest import AssessmentSource, Contest, RunSource
from shrec_eval.errors import NativeError, OutputError
from shrec_eval.options import EvalOptions
from shrec_eval.outputs.atomic import Output, gate_outputs
from shrec_eval.outputs.native import native_files, native_holds, native_names, write_native
from shrec_eval.profiles import get_profile

#: class names a hostile or careless organiser writes in a query .cla (the
#: reader refuses C0 control characters: C1 ones and U+2028 reach the writer)
HOSTILE = [
    "..",
    "../x",
    "a/b",
    "a\\b",
    "a:b",
    "a?b",
    "a\x85b",
    "a\u2028b",
    "a/../../escaped",
    "x" * 300,
    "x" * 300 + "y",
    "Vase",
    "vase",
    "Ab",
    "aB",
    "CON",
    "nul.txt",
    "COM1",
    ".hidden",
    "-rf",
    "\u00e9",
    "e\u0301",
    "\u202etxt.exe",
]

_WINDOWS_DEVICES = {"CON", "PRN", "AUX", "NUL"} | {
    f"{p}{n}" for p in ("COM", "LPT") for n in "0123456789\u00b9\u00b2\u00b3"
}


def _fold(name: str) -> str:
    return unicodedata.normalize("NFC", name).casefold()


def _one_portable_name(name: str) -> None:
    assert name and name not in (".", "..") and not name.startswith(".")
    assert "/" not in name and "\\" not in name and name.isprintable()
    assert len(name.encode("utf-8")) <= 255
    assert name.split(".")[0].rstrip(" ").upper() not in _WINDOWS_DEVICES


def _tree(root) -> dict[str, bytes]:
    """Every file under ``root`` (relative path -> bytes), and every folder (-> None)."""
    out: dict = {}
    for folder, dirs, files in os.walk(root):
        for d in dirs:
            out[os.path.relpath(os.path.join(folder, d), root)] = None
        for f in files:
            p = os.path.join(folder, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, root)] = fh.read()
    return out


# -- the names, made once -----------------------------------------------------------------------


def test_native_names_are_one_portable_name_each_and_distinct():
    values = HOSTILE + ["a\x01b", "a\tb", "a\nb", "a\x1bb", "a\x7fb", "", " ", "aux ", "CON.x"]
    for pattern in ("table_*.txt", "*", "*.summary.csv"):
        names = native_names([(pattern, v) for v in values])
        for n in names:
            _one_portable_name(n)
            head, _, tail = pattern.partition("*")
            assert n.startswith(head) and n.endswith(tail)  # the profile's pattern
        assert len({_fold(n) for n in names}) == len(values)  # not even case-blind alike
        # stable: a name does not depend on the other names or their order
        back = native_names([(pattern, v) for v in reversed(values)])
        assert back == names[::-1]


def test_ordinary_names_are_kept_as_the_evaluator_writes_them():
    keys = ["table.txt", ("table_*.txt", "Culture1"), ("table_*.tex", "Dog")]
    assert native_names(keys) == ["table.txt", "table_Culture1.txt", "table_Dog.tex"]
    # a device name is a file name when the pattern makes it one (table_CON.txt)
    assert native_names([("table_*.txt", "CON"), ("*.pr.csv", "meth (teamA)")]) == [
        "table_CON.txt",
        "meth (teamA).pr.csv",
    ]
    for value in ("CON", "con", "Lpt1", "CON.x", "nul "):
        (name,) = native_names([("*.summary.csv", value)])
        _one_portable_name(name)
        assert name.endswith(".summary.csv")


def test_names_one_file_system_would_merge_are_told_apart_by_a_hash():
    # case, Unicode forms and unsafe characters: each its own file
    groups = [["Vase", "vase", "VASE"], ["\u00e9", "e\u0301"], ["a/b", "a:b", "a\\b", "a_b"]]
    for values in groups:
        names = native_names([("table_*.txt", v) for v in values])
        assert len({_fold(n) for n in names}) == len(values)
    # alone, a name is kept; beside its other case, both get the hash
    assert native_names([("table_*.txt", "Vase")]) == ["table_Vase.txt"]
    a, b = native_names([("table_*.txt", "Vase"), ("table_*.txt", "vase")])
    assert a.startswith("table_Vase~") and b.startswith("table_vase~")
    with pytest.raises(NativeError, match="the same file"):
        native_names(["micro.txt", "Micro.txt"])  # fixed names are the profile's own


def test_a_writer_names_only_what_its_profile_declares(monkeypatch, tmp_path):
    """The gate lets an earlier output be replaced by the profile's
    ``native_files``: a writer naming another file is a programming error,
    found at once (the folder would be refused the next time)."""
    from dataclasses import replace

    from shrec_eval import evaluate, load_assessment, load_run

    cla, m, _ = _six(tmp_path)
    a = load_assessment(cla, profile="boli")
    r = evaluate(a, load_run(m, a), EvalOptions(profile="boli"))
    assert list(native_files(r, a)) == ["Stats_test.txt", "PR_test.txt"]
    own = replace(get_profile("boli"), native=lambda group, a: {("Other_*.txt", "x"): "x"})
    # a result carries its profile (resolved once, in its options)
    r = replace(r, options=replace(r.options, profile=own))
    with pytest.raises(ValueError, match="Other_"):
        native_files(r, a)


# -- sipiran21's class tables (f01) ---------------------------------------------------------------


def _library_tables(t, q, run):
    from shrec_eval import evaluate, load_assessment, load_run

    a = load_assessment(t, queries=q, profile="sipiran21")
    return native_files(evaluate(a, load_run(run, a), EvalOptions(profile="sipiran21")), a)


def test_class_names_never_leave_the_folder_and_never_share_a_file(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    t, q, run = sipiran21_contest(work, HOSTILE)
    (work / "nat" / "table_a").mkdir(parents=True)  # as f01: a folder the names could enter
    (work / "escaped.txt").write_text("an unrelated file that must stay\n")
    before = _tree(tmp_path)
    code, _ = run_cli(["evaluate", t, "--queries", q, run, "--profile", "sipiran21"]
                      + ["--native", work / "nat", "--columns", "nn"])  # fmt: skip
    assert code == 0
    after = _tree(tmp_path)
    # outside nat/ nothing changed; inside, files only (table_a/ stays empty)
    outside = {k: v for k, v in before.items() if not k.startswith("work/nat/")}
    assert {k: v for k, v in after.items() if not k.startswith("work/nat/")} == outside
    written = {
        k.removeprefix("work/nat/"): v for k, v in after.items() if k.startswith("work/nat/")
    }
    assert written.pop("table_a") is None and all("/" not in k for k in written)
    assert len(written) == 2 + 2 * len(HOSTILE)  # one .txt and one .tex per class, none replaced
    assert len({_fold(k) for k in written}) == len(written)
    for name in written:
        _one_portable_name(name)
    # the command line writes what the library writes, name for name
    assert written == {k: v.encode() for k, v in _library_tables(t, q, run).items()}


@pytest.mark.parametrize("name", ["../x", "a/b", "a/../../escaped", "..\\..\\x", "CON", "x" * 400])
def test_one_hostile_class_is_written_inside_after_the_others(tmp_path, name):
    """The script's own cases one at a time (f01: ``../x`` failed after
    scoring with table.txt written; ``a/b`` wrote into a subfolder)."""
    t, q, run = sipiran21_contest(tmp_path, ["c", name])
    nat = tmp_path / "out" / "nat"
    code, _ = run_cli(["evaluate", t, "--queries", q, run, "--profile", "sipiran21",
                       "--native", nat])  # fmt: skip
    assert code == 0
    names = sorted(os.listdir(nat))
    assert len(names) == 6 and {"table.txt", "table_c.txt"} <= set(names)
    assert all(os.path.isfile(nat / n) for n in names)
    assert sorted(os.listdir(tmp_path / "out")) == ["nat"]


# -- a folder of other files, before any scoring (f04, f08) ---------------------------------------


@pytest.fixture
def no_scoring(monkeypatch):
    """Reading the assessment or scoring a run fails the test: what is
    refused must be refused before."""

    def fail(*a, **k):
        raise AssertionError("read or scored before the outputs were refused")

    monkeypatch.setattr("shrec_eval.cli.commands.load_assessment", fail)
    monkeypatch.setattr("shrec_eval.cli.steps.score_contest", fail)


def _taxonomy_contest(folder):
    """A small shapenet17 contest: taxonomy and one method folder."""
    rows = ["id,synsetId,subSynsetId,modelId,split"]
    ids = [f"{i:06d}" for i in range(1, 21)]
    rows += [f"{m},0{i % 2}691156,0{i % 2}691156,model{i},test" for i, m in enumerate(ids)]
    (folder / "all.csv").write_text("\n".join(rows) + "\n")
    (folder / "meth" / "test_normal").mkdir(parents=True)
    for q in ids:
        (folder / "meth" / "test_normal" / q).write_text(f"{q} 0.1\n")
    return [folder / "all.csv", folder / "meth"]


@pytest.mark.parametrize(
    "profile, option, own",
    [
        ("sipiran21", "--native", "table.txt"),
        ("psbtable", "--native", "class.txt"),
        ("boli", "--native", "Stats_test.txt"),
        ("shapenet17", "--native", "meth.summary.csv"),
        ("shrec", "--csv", "summary.csv"),
        ("psbtable", "--report", "index.html"),
    ],
)
def test_a_folder_of_other_files_is_refused_before_anything_is_read(
    tmp_path, capsys, no_scoring, profile, option, own
):
    if profile == "shapenet17":
        contest = _taxonomy_contest(tmp_path)
    elif profile == "sipiran21":
        t, q, run = sipiran21_contest(tmp_path, ["a", "b"])
        contest = [t, "--queries", q, run]
    else:
        cla, m, _ = _six(tmp_path)
        contest = [cla, m]
    paper = tmp_path / "paper"
    paper.mkdir()
    (paper / own).write_text("my own table, not a copy\n")  # a name the output writes
    (paper / "draft.tex").write_text("\\section{Results}\n")
    before = _tree(tmp_path)
    code, out = run_cli(["evaluate", *contest, "--profile", profile, option, paper])
    assert code == 2 and out == ""
    assert capsys.readouterr().err == (
        f"shrec-eval: error: {paper}: the folder holds other files than this output writes "
        "(draft.tex); choose a new or empty folder\n"
    )
    assert _tree(tmp_path) == before


def test_other_files_in_a_runs_folder_are_named(tmp_path, capsys, no_scoring):
    cla, m, d = _six(tmp_path)
    np.savetxt(tmp_path / "m2.txt", d, fmt="%.5f")
    nat = tmp_path / "nat"
    (nat / "m2").mkdir(parents=True)
    (nat / "m2" / "micro.txt").write_text("an earlier run's\n")
    (nat / "m2" / "notes.md").write_text("mine\n")
    code, _ = run_cli(["evaluate", cla, m, tmp_path / "m2.txt", "--profile", "psbtable",
                       "--native", nat])  # fmt: skip
    assert code == 2 and "(m2/notes.md); choose a new or empty folder" in capsys.readouterr().err


def test_an_earlier_native_output_is_replaced(tmp_path):
    """What the profile wrote there before (other classes, one run or
    several) is its own: written over, and never refused."""
    nat = tmp_path / "nat"
    t, q, run = sipiran21_contest(tmp_path, ["Dog", "Cat"])
    args = ["evaluate", t, "--queries", q, run, "--profile", "sipiran21", "--native", nat]
    assert run_cli(args)[0] == 0
    (tmp_path / "q.cla").write_text((tmp_path / "q.cla").read_text().replace("Dog", "Emu"))
    assert run_cli(args)[0] == 0
    assert sorted(os.listdir(nat)) == [
        "table.tex", "table.txt", "table_Cat.tex", "table_Cat.txt",
        "table_Dog.tex", "table_Dog.txt", "table_Emu.tex", "table_Emu.txt",
    ]  # fmt: skip
    cla, m, d = _six(tmp_path)
    np.savetxt(tmp_path / "m2.txt", d, fmt="%.5f")
    two = ["evaluate", cla, m, tmp_path / "m2.txt", "--profile", "psbtable", "--native"]
    assert run_cli([*two, tmp_path / "p"])[0] == 0
    assert sorted(os.listdir(tmp_path / "p")) == ["m", "m2"]
    (tmp_path / "p" / "micro.txt").write_text("one run's, earlier\n")
    assert run_cli([*two, tmp_path / "p"])[0] == 0


def test_runs_whose_names_one_file_system_merges_get_their_own_folders(tmp_path):
    cla, m, d = _six(tmp_path)
    np.savetxt(tmp_path / "m2.txt", d, fmt="%.5f")
    code, _ = run_cli(["evaluate", cla, m, tmp_path / "m2.txt", "--profile", "psbtable",
                       "--native", tmp_path / "n", "--names", "Run,run"])  # fmt: skip
    assert code == 0
    folders = sorted(os.listdir(tmp_path / "n"))
    assert len({_fold(f) for f in folders}) == 2 and all(
        f.lower().startswith("run~") for f in folders
    )
    code, _ = run_cli(["evaluate", cla, m, tmp_path / "m2.txt", "--profile", "psbtable",
                       "--native", tmp_path / "w", "--names", "CON,aux"])  # fmt: skip
    assert code == 0
    for f in os.listdir(tmp_path / "w"):
        _one_portable_name(f)


# -- the library ---------------------------------------------------------------------------------


def test_the_library_refuses_a_folder_of_other_files_and_writes_nothing(tmp_path):
    t, q, run = sipiran21_contest(tmp_path, ["c", "a/../../escaped"])
    from shrec_eval import evaluate, load_assessment, load_run

    a = load_assessment(t, queries=q, profile="sipiran21")
    result = evaluate(a, load_run(run, a), EvalOptions(profile="sipiran21"))
    nat = tmp_path / "nat"
    nat.mkdir()
    (nat / "notes.txt").write_text("mine\n")
    with pytest.raises(OutputError, match=r"holds other files than this output writes \(notes"):
        write_native(nat, a, [result])
    assert os.listdir(nat) == ["notes.txt"]
    # a target that cannot be written is found before the first file is written
    (nat / "notes.txt").unlink()
    (nat / "table_c.txt").mkdir()
    with pytest.raises(OutputError, match="this is a folder"):
        write_native(nat, a, [result])
    assert os.listdir(nat) == ["table_c.txt"] and os.listdir(nat / "table_c.txt") == []
    os.rmdir(nat / "table_c.txt")
    written = write_native(nat, a, [result], inputs=[t, q, run])
    assert all(p.parent == nat for p in written) and len(written) == 6


def test_the_gate_refuses_the_folder_for_the_service_and_any_program(tmp_path):
    cla, m, _ = _six(tmp_path)
    c = Contest(AssessmentSource(cla), (RunSource(m),), EvalOptions(profile="psbtable"))
    (tmp_path / "nat").mkdir()
    (tmp_path / "nat" / "macro.txt").write_text("an earlier output\n")
    c.gate_outputs(native=tmp_path / "nat", report=tmp_path / "rep")  # its own files: taken
    (tmp_path / "nat" / "x.csv").write_text("mine\n")
    (tmp_path / "rep").mkdir()
    (tmp_path / "rep" / "y.csv").write_text("mine\n")
    for given in ({"native": tmp_path / "nat"}, {"report": tmp_path / "rep"}):
        with pytest.raises(OutputError, match="holds other files"):
            c.gate_outputs(**given)
    holds = native_holds(get_profile("sipiran21"))
    assert "table_*.txt" in holds and "*/table.tex" in holds
    (tmp_path / "s21").mkdir()
    (tmp_path / "s21" / "table_Dog.txt").write_text("earlier\n")
    gate_outputs([Output("--native", tmp_path / "s21", "tree", (), holds)], [cla])
    (tmp_path / "s21" / "tables.txt").write_text("mine\n")
    with pytest.raises(OutputError, match=r"\(tables.txt\)"):
        gate_outputs([Output("--native", tmp_path / "s21", "tree", (), holds)], [cla])
    # without ``holds`` a tree is not looked at (thumbnails OUT adds to any folder)
    gate_outputs([Output("OUT", tmp_path / "s21", "tree")], [cla])
