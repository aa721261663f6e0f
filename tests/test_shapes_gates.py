"""The shapes folders and the gates: they are inputs of every command that
names them (no output replaces a file of theirs or writes into them), and
what is wrong with them (missing, no shapes, a layout that finds none or
cannot be a pattern) is found before any scoring, so that nothing asked for
is lost after it."""

from __future__ import annotations

import json

import pytest
from hostile import run_cli
from shrec_eval.contest import Contest
from shrec_eval.errors import OutputError, UsageError
from shrec_eval.outputs.atomic import Output
from shrec_eval.shapes.index import ShapesSource, check_layout

TRI = "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n"
CLA = "PSB 1\n2 4\n\na 0 2\n0\n1\n\nb 0 2\n2\n3\n"
MATRIX = "0 1 2 3\n1 0 2 3\n2 3 0 1\n3 2 1 0\n"


@pytest.fixture
def case(tmp_path, monkeypatch):
    monkeypatch.setenv("SHREC_EVAL_CACHE_DIR", str(tmp_path / "cache"))
    shapes = tmp_path / "shapes"
    (shapes / "sub").mkdir(parents=True)
    for i in range(4):
        (shapes / f"{i}.off").write_text(TRI)
        (shapes / "sub" / f"{i}.off").write_text(TRI)
    (shapes / "micro.txt").write_text("a note kept beside the shapes\n")
    (tmp_path / "a.cla").write_text(CLA)
    (tmp_path / "m.txt").write_text(MATRIX)
    return tmp_path


def _snapshot(folder):
    return {p: p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _evaluate(case, *more):
    return run_cli(["evaluate", case / "a.cla", case / "m.txt", "--columns", "nn", *more])


@pytest.mark.parametrize(
    "option, target, kind",
    [
        ("--json", "shapes/1.off", "file"),
        ("--json", "shapes/new.json", "file"),
        ("--save-contest", "shapes/2.off", "file"),
        ("--csv", "shapes/csv", "folder"),
        ("--native", "shapes", "tree"),
        ("--native", "shapes/nat", "tree"),
        ("--report", "shapes/rep", "folder"),
    ],
)
@pytest.mark.parametrize("which", ["--shapes", "--query-shapes"])
def test_no_output_goes_into_a_shapes_folder(case, capsys, option, target, kind, which):
    before = _snapshot(case / "shapes")
    extra = ["--profile", "psbtable"] if option == "--native" else []
    if option != "--report":
        extra += ["--report", case / "rep"]  # the gallery reads the shapes folder
    code, _ = _evaluate(case, which, case / "shapes", option, case / target, *extra)
    err = capsys.readouterr().err
    assert code == 2 and "shapes" in err and option in err, err
    assert _snapshot(case / "shapes") == before
    assert not (case / "rep").exists()  # refused before any output


def test_an_output_folder_holding_a_shapes_folder_is_refused(case, capsys):
    holder = case / "holder"
    holder.mkdir()
    (case / "shapes").rename(holder / "shapes")
    before = _snapshot(holder)
    for option in ("--report", "--csv"):
        code, _ = _evaluate(case, "--shapes", holder / "shapes", option, holder)
        err = capsys.readouterr().err
        assert code == 2 and f"{option} holds the input {holder / 'shapes'}" in err, err
    assert _snapshot(holder) == before


def test_a_contest_files_shapes_are_inputs_too(case, capsys):
    doc = {
        "version": 3,
        "assessment": {"path": "a.cla"},
        "runs": [{"path": "m.txt"}],
        "shapes": {"path": "shapes"},
    }
    (case / "c.json").write_text(json.dumps(doc))
    before = _snapshot(case / "shapes")
    code, _ = run_cli(["evaluate", case / "c.json", "--json", case / "shapes" / "0.off"])
    assert code == 2 and "lies inside the input folder" in capsys.readouterr().err
    assert _snapshot(case / "shapes") == before
    contest = Contest.read(case / "c.json")
    assert (case / "shapes") in contest.inputs()
    with pytest.raises(OutputError, match="lies inside the input folder"):
        contest.gate_outputs(more=[Output("a plot", case / "shapes" / "plot.png")])
    with pytest.raises(OutputError):
        contest.write(case / "shapes" / "session.json")  # the app's Save session
    code, _ = run_cli(["thumbnails", "--shapes", case / "shapes", case / "shapes" / "th"])
    assert code == 2 and _snapshot(case / "shapes") == before


def test_outputs_beside_the_shapes_folder_are_written(case):
    code, _ = _evaluate(
        case, "--shapes", case / "shapes", "--json", case / "r.json", "--report", case / "rep"
    )
    assert code == 0 and (case / "r.json").exists() and (case / "rep" / "gallery.html").exists()


# -- shapes problems before scoring ---------------------------------------------------------------


@pytest.mark.parametrize(
    "folder, layout, message",
    [
        ("empty", None, "empty: no shapes found (expected a PSB db/ folder"),
        ("shapes", "{id}{id}.off", "expected a pattern with {id} once"),
        ("shapes", "a**{id}.off", "whose ** is a whole folder name"),
        ("shapes", "{id}.ply", "no shapes found with the layout '{id}.ply' (no file matches"),
        ("shapes", "shapenet", "no shapes found with the layout 'shapenet'"),
        ("missing", None, "missing: the shapes folder does not exist"),
    ],
)
def test_shapes_problems_are_found_before_scoring(case, capsys, folder, layout, message):
    (case / "empty").mkdir()
    more = ["--shapes-layout", layout] if layout else []
    code, out = _evaluate(
        case, "--shapes", case / folder, *more, "--json", case / "r.json", "--report", case / "rep"
    )
    err = capsys.readouterr().err
    assert code == 2 and message in err, err
    assert out == "" and not (case / "r.json").exists() and not (case / "rep").exists()
    assert "unexpected" not in err


def test_a_layout_is_checked_where_it_is_given(case):
    for bad in ("{id}{id}.off", "{id}/**x/{id}.off", "x**/{id}.off", "{nope}.off", "/abs/{id}"):
        with pytest.raises(UsageError):
            check_layout(bad)
    doc = {
        "version": 3,
        "assessment": {"path": "a.cla"},
        "runs": [{"path": "m.txt"}],
        "shapes": {"path": "shapes", "layout": "{id}{id}.off"},
    }
    (case / "c.json").write_text(json.dumps(doc))
    code, _ = run_cli(["evaluate", case / "c.json"])
    assert code == 2


def test_star_star_finds_shapes_at_any_depth(case, capsys):
    index = ShapesSource(case / "shapes", "**/{id}.off").index()
    assert index.ids() == ["0", "1", "2", "3"]
    sub = ShapesSource(case / "shapes", "sub/{id}.off").index()
    assert sub.files("2").mesh == case / "shapes" / "sub" / "2.off"
    deep = case / "shapes" / "x" / "y"
    deep.mkdir(parents=True)
    (deep / "m77.off").write_text(TRI)
    index = ShapesSource(case / "shapes", "**/m{id}.off").index()
    assert index.ids() == ["77"] and index.files("77").mesh == deep / "m77.off"
    assert ShapesSource(case / "shapes", "*/{id}.off").index().files("3").mesh.parent.name == "sub"
    code, out = _evaluate(
        case, "--shapes", case / "shapes", "--shapes-layout", "**/{id}.off", "--report", case / "r"
    )
    assert code == 0 and "could not be shown" not in out
    code, out = run_cli(
        ["thumbnails", "--shapes", case / "shapes", case / "th", "--layout", "**/{id}.off"]
    )
    assert code == 0 and out.startswith("5 thumbnails")  # 0-3 and m77
