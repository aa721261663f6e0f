"""What the command line says when an option or a file does not fit: shape
files that cannot be drawn (a NaN corner, an empty file) named for what
they are, huge coordinates drawn without numpy's warnings; outputs named
'' or 'res/'; the embedding options (--metric, --ids) applied to the runs
they fit, refused when none does; the gallery's options without a gallery;
--save-contest never written for a contest that cannot be read; and the
indefinite article of every message."""

from __future__ import annotations

import contextlib
import io
import warnings

import numpy as np
import pytest
from hostile import run_cli
from hostile import six_contest as _six
from shrec_eval.cli.parser import main
from shrec_eval.reading.formats.source import a, default_name
from shrec_eval.shapes.index import ShapeFiles
from shrec_eval.shapes.render import render_mesh
from shrec_eval.shapes.thumbnails import thumbnail

CLA = "PSB 1\n2 4\n\na 0 2\n0\n1\n\nb 0 2\n2\n3\n"
MATRIX = "0 1 2 3\n1 0 2 3\n2 3 0 1\n3 2 1 0\n"


def cli(argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main([str(x) for x in argv], out=out)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def contest(tmp_path):
    (tmp_path / "a.cla").write_text(CLA)
    (tmp_path / "m.txt").write_text(MATRIX)
    feats = np.eye(4, dtype=np.float32) + 0.1
    np.save(tmp_path / "f.npy", feats)
    np.savez(tmp_path / "g.npz", features=feats, ids=np.arange(4))
    (tmp_path / "ids.txt").write_text("0\n1\n2\n3\n")
    return tmp_path


# -- shape files -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "content,reason",
    [
        (b"OFF\n3 1 0\nnan 0 0\n1 0 0\n0 1 0\n3 0 1 2\n", "has a corner that is not a number"),
        (b"", "the file is empty"),
        (b"OFF\n3 0 0\n0 0 0\n1 0 0\n0 1 0\n", "the file holds no faces"),
    ],
)
def test_a_shape_that_cannot_be_drawn_is_named_for_what_it_is(tmp_path, content, reason):
    (tmp_path / "1.off").write_bytes(content)
    t = thumbnail(ShapeFiles(mesh=tmp_path / "1.off"), 32)
    assert not t.ok and reason in t.problem, t.problem


@pytest.mark.parametrize("scale", [1e-300, 1e300, 1e308])
def test_huge_and_tiny_coordinates_draw_as_any_others_without_warnings(scale):
    v = np.array([[-1.0, 0, 0], [1, 0, 0], [0, 1, 0]]) * scale
    f = np.array([[0, 1, 2]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's overflow and underflow warnings among them
        img = render_mesh(v, f, 32)
    assert (img == render_mesh(v / scale, f, 32)).all()


def test_thumbnails_of_broken_shapes_leak_no_warning(tmp_path, capsys):
    s = tmp_path / "s"
    s.mkdir()
    (s / "1.off").write_bytes(b"OFF\n3 1 0\nnan 0 0\n1 0 0\n0 1 0\n3 0 1 2\n")
    (s / "2.off").write_bytes(b"")
    (s / "3.off").write_bytes(b"OFF\n3 1 0\n-1e308 0 0\n1e308 0 0\n0 1e308 0\n3 0 1 2\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        code, out, err = cli(["thumbnails", "--shapes", s, tmp_path / "out", "--no-cache"])
    assert code == 0 and err == "", err
    assert "shapes that could not be shown: 2" in out and "3 (" not in out


# -- outputs ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path,needle",
    [
        ("", "--json: an empty path was given"),
        ("res/", "this path names a folder (it ends with /)"),
    ],
)
def test_output_paths_that_name_no_file_are_refused(contest, path, needle):
    code, _, err = cli(["evaluate", contest / "a.cla", contest / "m.txt", "--json", path])
    assert code == 2 and needle in err and "input" not in err, err
    assert not (contest / "res").exists()


# -- embedding options ---------------------------------------------------------------------------


def test_metric_for_no_embedding_run_is_refused(contest):
    code, _, err = cli(["evaluate", contest / "a.cla", contest / "m.txt", "--metric", "dot"])
    assert code == 2 and "--metric applies to embedding runs (.npy, .npz)" in err


def test_metric_goes_to_the_embedding_runs_with_a_note_for_the_others(contest):
    code, out, err = cli(
        ["evaluate", contest / "a.cla", contest / "m.txt", contest / "f.npy", "--metric", "dot"]
    )
    assert code == 0, err
    assert "note: --metric applies to embedding runs (.npy, .npz): not to" in err
    assert str(contest / "m.txt") in err and "f.npy" not in err


def test_ids_go_to_the_npy_runs_and_an_npz_keeps_its_own(contest):
    saved = contest / "saved.json"
    code, out, err = cli(
        ["evaluate", contest / "a.cla", contest / "f.npy", contest / "g.npz"]
        + ["--ids", contest / "ids.txt", "--save-contest", saved]
    )
    assert code == 0, err
    assert "--ids applies to .npy runs" in err and "g.npz" in err
    text = saved.read_text()
    assert text.count("ids.txt") == 1  # the .npy's only


def test_ids_for_no_npy_run_is_refused(contest):
    code, _, err = cli(
        ["evaluate", contest / "a.cla", contest / "g.npz", "--ids", contest / "ids.txt"]
    )
    assert code == 2 and "--ids applies to .npy runs" in err


def test_no_contest_file_is_saved_for_runs_that_cannot_be_read(contest):
    (contest / "bad.txt").write_text("0 1 2\n")
    saved = contest / "saved.json"
    code, _, err = cli(
        ["evaluate", contest / "a.cla", contest / "bad.txt", "--save-contest", saved]
    )
    assert code == 2 and not saved.exists(), err


# -- the gallery's options -------------------------------------------------------------------


@pytest.mark.parametrize(
    "extra,needle",
    [
        (["--gallery", "worst", "--report", "rep"], "--gallery set the report's gallery"),
        (["--gallery-k", "3", "--report", "rep"], "needs the shapes: give --shapes DIR"),
        (["--thumbnail-size", "64"], "--thumbnail-size set the report's gallery"),
    ],
)
def test_gallery_options_without_a_gallery_are_refused(contest, extra, needle):
    extra = [contest / "rep" if x == "rep" else x for x in extra]
    code, _, err = cli(["evaluate", contest / "a.cla", contest / "m.txt", *extra])
    assert code == 2 and needle in err, err
    assert not (contest / "rep").exists()


def test_gallery_options_without_report_are_refused_and_shapes_alone_noted(contest):
    (contest / "shapes").mkdir()
    base = ["evaluate", contest / "a.cla", contest / "m.txt", "--shapes", contest / "shapes"]
    code, _, err = cli([*base, "--gallery-k", "3"])
    assert code == 2 and "give --report DIR" in err
    code, _, err = cli(base)
    assert code == 0 and "note: --shapes draw the gallery of --report" in err


# -- articles ------------------------------------------------------------------------------------


def test_indefinite_articles_follow_the_sound():
    assert [a(w) for w in ("ASCII matrix", "run", "8 x 8 matrix", "11 x 11", "18 x 18")] == [
        "an ASCII matrix",
        "a run",
        "an 8 x 8 matrix",
        "an 11 x 11",
        "an 18 x 18",
    ]
    assert [a(w) for w in ("12 x 12", "110 x 110", "80 x 80", "1 x 1")] == [
        "a 12 x 12",
        "a 110 x 110",
        "an 80 x 80",
        "a 1 x 1",
    ]


def test_top_k_message_says_an_ascii_matrix(contest):
    code, _, err = cli(["evaluate", contest / "a.cla", contest / "m.txt", "--top-k", "2"])
    assert code == 2 and "this run is an ASCII dissimilarity matrix" in err


# -- e19: messages -------------------------------------------------------------------------------


def test_e19_messages(tmp_path, capsys):
    cla, m, _ = _six(tmp_path)
    run_cli(["evaluate", "/dev/null", m])
    assert "an assessment was expected" in capsys.readouterr().err
    run_cli(["evaluate", m, m])
    assert "it looks like an ASCII" in capsys.readouterr().err
    code, out = run_cli(
        ["evaluate", cla, m, "--names", "first line\nsecond | line", "--columns", "nn"]
    )
    assert code == 0 and "first line second | line" in out
    assert all(len(line.split()) > 1 for line in out.splitlines() if line.strip())
    code, out = run_cli(
        ["evaluate", cla, m, "--profile", "psbtable", "--keep-self", "--columns", "nn"]
    )
    # an option the profile fixes otherwise is refused, never dropped (f13)
    assert code == 2 and "--keep-self: the psbtable profile fixes remove self = on" in (
        capsys.readouterr().err
    )
    code, out = run_cli(["evaluate", cla, m, "--profile", "psbtable", "--columns", "nn"])
    assert "not a column of this table" in out
    assert default_name("/dev/fd/63") == "pipe 63" and default_name("/proc/self/fd/0") == "stdin"
    assert default_name("runs/alice.txt") == "alice"
