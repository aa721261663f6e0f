"""What each file the app opens is: on its command line (and a recent
file), as shrec-eval takes them, a session alone or the assessment first
and the runs after it, whatever a run's content looks like (f07: a matrix of
four whole-number columns reads as qrels); dropped together (no order meant),
the assessment among them first; never a file left out without a word."""

from __future__ import annotations

import contextlib
import io

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from guitools import wait_idle  # noqa: E402
from shrec_eval.cli.parser import main as cli_main  # noqa: E402
from shrec_eval.reading.contest_fields import contest_roles  # noqa: E402
from shrec_eval.reading.readers import sniff_all  # noqa: E402
from test_app_session import drop  # noqa: E402

from shrec_gui.headless import export  # noqa: E402

CLA = "PSB 1\n2 4\n\na 0 2\n0\n1\n\nc 0 2\n2\n3\n"
#: whole numbers in four columns: "qid iter docno rel" to the eye of detection
INT4 = "0 1 2 3\n1 0 2 3\n2 3 0 1\n3 2 1 0\n"
#: another ranking of the same models (NN 0.5: queries 1 and 2 find the other class first)
INT4_OTHER = "0 2 1 3\n2 0 1 3\n2 0 3 1\n3 1 2 0\n"
_KEEP: list = []  # headless windows, alive to the end of the session (guitools.retire)


@pytest.fixture
def contest(tmp_path):
    (tmp_path / "a.cla").write_text(CLA)
    (tmp_path / "m.txt").write_text(INT4)
    (tmp_path / "other.txt").write_text(INT4_OTHER)
    return tmp_path


def test_the_roles_are_the_command_lines():
    assert contest_roles(["c.json"]) == ("c.json", None, [])
    assert contest_roles(["C.JSON"]) == ("C.JSON", None, [])
    assert contest_roles(["a.cla"]) == (None, "a.cla", [])
    # after the first, every file is a run, a .json too (the reader then says why not)
    assert contest_roles(["q.txt", "m.txt", "c.json"]) == (None, "q.txt", ["m.txt", "c.json"])
    assert contest_roles([]) == (None, None, [])


def test_a_run_after_the_assessment_is_scored_as_the_command_line_scores_it(qapp, contest):
    """f07: `shrec-gui a.cla m.txt --export-report DIR` wrote nothing ("no
    runs to score"); now the report of both runs, as shrec-eval's."""
    a, m, other = (str(contest / n) for n in ("a.cla", "m.txt", "other.txt"))
    assert sniff_all(m)[0] == "qrels" and "ascii-matrix" in sniff_all(m)  # why it was lost
    said: list[str] = []
    status = export([a, m, other], report=str(contest / "app"), say=said.append, windows=_KEEP)
    assert status == 0, said
    with contextlib.redirect_stderr(io.StringIO()):
        code = cli_main(
            ["evaluate", a, m, other, "--report", str(contest / "cli")], out=io.StringIO()
        )
    assert code == 0
    app = (contest / "app" / "summary.csv").read_text()
    assert app == (contest / "cli" / "summary.csv").read_text()
    assert [line.split(",")[1] for line in app.splitlines()[1:]] == ["m", "other"]


def test_the_window_takes_the_command_lines_files_in_their_order(win, qtbot, contest):
    win.quiet = True
    win.open_files([str(contest / "a.cla"), str(contest / "m.txt")], ordered=True)
    wait_idle(qtbot, win, 1)
    c = win.controller
    assert c.assessment_source.path == contest / "a.cla"
    (e,) = c.entries.values()
    assert e.name == "m" and e.result.means["nn"] == 1.0 and not win.errors


def test_dropped_files_put_the_assessment_first(win, qtbot, contest, dialogs):
    win.quiet = True
    drop(win, contest / "m.txt", contest / "a.cla")  # a .cla is never a run: the assessment
    wait_idle(qtbot, win, 1)
    c = win.controller
    assert c.assessment_source.path == contest / "a.cla"
    assert [e.name for e in c.entries.values()] == ["m"]
    # one more dropped alone on the open contest: a qrels file or a run? said, nothing changed
    drop(win, contest / "other.txt")
    qtbot.waitUntil(lambda: bool(win.errors), timeout=10000)
    assert str(contest / "other.txt") in win.errors[-1]
    assert (
        "this reads both as an assessment (TREC qrels (qid iter docno rel)) and as a run "
        "(ASCII dissimilarity matrix (one row per query)): File > Open assessment… opens it as "
        "the assessment, File > Add runs… adds it as a run"
    ) in win.errors[-1]
    assert c.assessment_source.path == contest / "a.cla" and len(c.entries) == 1


def test_a_file_that_may_be_qrels_dropped_alone_opens_as_the_assessment(win, qtbot, contest):
    """Nothing open: the one file that reads as an assessment is it (numeric
    qrels look like a matrix of four columns)."""
    qrels = contest / "judged.txt"
    qrels.write_text("1 0 10 1\n1 0 11 0\n2 0 10 0\n2 0 12 1\n")
    win.quiet = True
    drop(win, qrels)
    qtbot.waitUntil(lambda: win.controller.assessment is not None, timeout=10000)
    assert win.controller.assessment_source.path == qrels and not win.errors


def test_a_session_with_other_files_is_refused_naming_them(win, qtbot, contest):
    from shrec_eval.resources import demo_manifest

    win.quiet = True
    win.open_files([str(demo_manifest()), str(contest / "m.txt")], ordered=True)
    qtbot.waitUntil(lambda: bool(win.errors), timeout=10000)
    assert "contest.json: a session or contest file opens alone" in win.errors[0]
    assert str(contest / "m.txt") in win.errors[0]
    assert win.controller.assessment is None and not win.controller.entries


# -- a file that cannot be read is said before any question --------------------------------
BAD_CLA = "PSB 1\n2 4\n\na 0 2\n0\n1\n\nc 0 two\n2\n3\n"


@pytest.fixture
def unsaved(win, qtbot, contest, monkeypatch):
    """A contest open with a run and nothing saved (every question would be
    asked); the questions asked recorded in ``win.asked`` (Discard, then
    Start clean), ReaderDialog's too."""
    from PySide6.QtWidgets import QDialog, QMessageBox

    from shrec_gui.window.dialogs import ReaderDialog

    win.open_files([str(contest / "a.cla"), str(contest / "m.txt")], ordered=True)
    wait_idle(qtbot, win, 1)
    assert win.controller.unsaved()
    win.asked = []

    def exec_(box):
        win.asked.append(box.windowTitle())
        texts = {b.text(): b for b in box.buttons()}
        (texts.get("&Discard changes") or texts["Start &clean"]).click()
        return 0

    def reader_exec(dialog):
        win.asked.append(dialog.windowTitle())
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(QMessageBox, "exec", exec_)
    monkeypatch.setattr(ReaderDialog, "exec", reader_exec)
    (contest / "bad.cla").write_text(BAD_CLA)
    return win


def test_a_bad_assessment_is_said_before_any_question(
    unsaved, qtbot, contest, dialogs, monkeypatch
):
    w = unsaved
    drop(w, contest / "bad.cla")
    qtbot.waitUntil(lambda: bool(dialogs), timeout=10000)
    assert dialogs[-1][0] == "Cannot open the assessment"
    assert dialogs[-1][1].startswith(
        f"{contest / 'bad.cla'}, line 8, column 5: the number of models of class 'c' was expected"
    )
    assert w.asked == []  # not the unsaved changes, not whether to keep the runs
    w.open_files([str(contest / "bad.cla"), str(contest / "m.txt")], ordered=True)
    qtbot.waitUntil(lambda: len(dialogs) == 2, timeout=10000)
    assert w.asked == []
    (contest / "bad.json").write_text('{"version": 3, "assessment": ')  # a session cut short
    drop(w, contest / "bad.json")
    qtbot.waitUntil(lambda: len(dialogs) == 3, timeout=10000)
    assert dialogs[-1][0] == "Cannot open the session" and w.asked == []
    # File > Open assessment: the unsaved changes first (nothing chosen yet), then
    # the error, not the reader's options nor the runs' question
    from PySide6.QtWidgets import QFileDialog

    chosen = str(contest / "bad.cla")
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (chosen, ""))
    w.dialogs.open_assessment_dialog()
    qtbot.waitUntil(lambda: len(dialogs) == 4, timeout=10000)
    assert w.asked == ["Unsaved changes"]
    assert w.controller.assessment_source.path == contest / "a.cla"  # nothing changed
    assert [e.name for e in w.controller.entries.values()] == ["m"]
    # a good one: the questions, then it opens
    w.asked.clear()
    drop(w, contest / "a.cla")
    qtbot.waitUntil(lambda: len(w.asked) == 2, timeout=10000)
    wait_idle(qtbot, w)
    assert w.asked == ["Unsaved changes", "New assessment"]


def test_an_image_is_named_for_what_it_is_not_a_matrix(tmp_path):
    """An image dropped or added in the app: told for what it is (it was
    called "a PSB binary float32 dissimilarity matrix")."""
    from PIL import Image

    from shrec_gui.workers.scoring import classify

    png = tmp_path / "shot.png"
    Image.new("RGB", (8, 8)).save(png)
    with pytest.raises(Exception) as err:
        classify([str(png)])
    assert str(err.value) == (
        f"{png}: this is neither an assessment (.cla, qrels) nor a run (matrix, TREC run, folder "
        "of rank lists, .npy or .npz features); the file is not text: it is a .png file "
        "(image/png)"
    )
