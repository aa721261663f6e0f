"""Polish of the app (issue 14): the profile, averaging and F-beta in
Scoring > Options, carried by sessions and named in the Summary; a run that
fits several formats makes the app ask which (issue 11)."""

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from guitools import answer_questions, wait_idle  # noqa: E402
from PySide6.QtWidgets import QDialog, QInputDialog, QMessageBox  # noqa: E402
from shrec_eval import evaluate  # noqa: E402
from shrec_eval.contest import AssessmentSource, Contest, RunSource  # noqa: E402
from shrec_eval.options import EvalOptions  # noqa: E402
from shrec_eval.profiles import NAMES  # noqa: E402
from shrec_eval.reading.readers import load_assessment, load_run  # noqa: E402

from shrec_gui.dialogs import OptionsDialog  # noqa: E402


def test_options_dialog_sets_profile_average_and_beta(qtbot):
    start = EvalOptions(profile="trec_eval", complete_queries=True, f_beta=2.0)
    d = OptionsDialog(start)
    qtbot.addWidget(d)
    assert d.options() == start  # shown as they are
    assert d.profile.currentData() == "trec_eval" and d.f_beta.value() == 2.0
    d.profile.setCurrentIndex(d.profile.findData("psbtable"))
    d.average.setCurrentIndex(d.average.findData("macro"))
    d.f_beta.setValue(0.5)
    o = d.options()
    assert (o.profile, o.average, o.f_beta) == ("psbtable", "macro", 0.5)
    assert not o.complete_queries  # trec_eval's -c does not follow to another profile
    assert [d.profile.itemData(i) for i in range(d.profile.count())] == list(NAMES)
    assert [d.average.itemData(i) for i in range(d.average.count())] == [
        "micro",
        "macro",
        "proportional",
        "reciprocal",
    ]


def test_profile_is_scored_named_and_saved(win, qtbot, monkeypatch, tmp_path):
    win.open_demo()
    wait_idle(qtbot, win, 7)
    assert "profile <b>shrec</b>" in win.summary.rank_label.text()
    before = {e.name: e.result.mean("ft_psb") for e in win.controller.entries.values()}

    def fill(self):
        self.profile.setCurrentIndex(self.profile.findData("psbtable"))
        self.average.setCurrentIndex(self.average.findData("macro"))
        self.f_beta.setValue(2.0)
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(OptionsDialog, "exec", fill)
    win.options_dialog()
    qtbot.waitUntil(
        lambda: all(
            e.result is not None and e.result.options.profile == "psbtable"
            for e in win.controller.entries.values()
        ),
        timeout=30000,
    )
    wait_idle(qtbot, win, 7)
    after = {e.name: e.result.mean("ft_psb") for e in win.controller.entries.values()}
    assert after != before  # macro averaging over the demo's unequal classes moves FT
    text = win.summary.rank_label.text()
    assert "profile <b>psbtable</b>" in text and "--average macro" in text
    assert win.summary.grab().save(str(tmp_path / "summary_profile.png"))
    path = tmp_path / "s.json"
    assert win.controller.save_session(str(path))
    o = Contest.read(path).options
    assert (o.profile, o.average, o.f_beta) == ("psbtable", "macro", 2.0)


SIX_CLA = "PSB 1\n2 6\na 0 3\n0\n1\n2\nb 0 3\n3\n4\n5\n"
#: every line a TREC line with one run tag, and a 6 x 6 matrix of numbers (repro d07)
AMBIGUOUS = "".join(
    f"{i} 0 {j} 1 {k}.5 7\n" for i, j, k in zip(range(6), (1, 0, 4, 5, 3, 2), range(6))
)


def test_a_run_of_two_formats_is_read_as_the_user_chooses(
    win, qtbot, monkeypatch, dialogs, tmp_path
):
    (tmp_path / "six.cla").write_text(SIX_CLA)
    (tmp_path / "amb.txt").write_text(AMBIGUOUS)
    asked = []

    def choose(parent, title, label, items, current, editable):
        asked.append((label, list(items)))
        return next(i for i in items if i.startswith("ascii-matrix")), True

    monkeypatch.setattr(QInputDialog, "getItem", choose)
    win.controller.open_assessment(AssessmentSource(str(tmp_path / "six.cla")))
    qtbot.waitUntil(lambda: win.controller.assessment is not None, timeout=30000)
    win.controller.add_runs([RunSource(str(tmp_path / "amb.txt"))])
    qtbot.waitUntil(
        lambda: any(e.result is not None for e in win.controller.entries.values()), timeout=30000
    )
    wait_idle(qtbot, win, 1)
    assert len(asked) == 1 and "amb.txt" in asked[0][0]
    assert sorted(i.split(":")[0] for i in asked[0][1]) == ["ascii-matrix", "trec"]
    assert dialogs == []  # asked, not told to use --run-format
    (e,) = win.controller.entries.values()
    assert e.source.format == "ascii-matrix" and e.error is None
    a = load_assessment(tmp_path / "six.cla")
    ref = evaluate(a, load_run(tmp_path / "amb.txt", a, format="ascii-matrix"))
    assert e.result.mean("nn") == ref.mean("nn") and e.result.mean("adr") == ref.mean("adr")
    assert win.controller.contest().runs[0].format == "ascii-matrix"  # a session keeps it


def test_a_run_of_two_formats_stays_unread_when_the_user_cancels(
    win, qtbot, monkeypatch, dialogs, tmp_path
):
    (tmp_path / "six.cla").write_text(SIX_CLA)
    (tmp_path / "amb.txt").write_text(AMBIGUOUS)
    monkeypatch.setattr(QInputDialog, "getItem", lambda *a: ("", False))
    win.controller.open_assessment(AssessmentSource(str(tmp_path / "six.cla")))
    qtbot.waitUntil(lambda: win.controller.assessment is not None, timeout=30000)
    win.controller.add_runs([RunSource(str(tmp_path / "amb.txt"))])
    qtbot.waitUntil(lambda: any(e.error for e in win.controller.entries.values()), timeout=30000)
    wait_idle(qtbot, win)
    (e,) = win.controller.entries.values()
    assert e.result is None and "several formats" in e.error and dialogs == []


def test_unsaved_changes_are_asked_about_before_the_session_is_replaced(
    win, qtbot, monkeypatch, tmp_path
):
    win.open_demo()
    wait_idle(qtbot, win, 7)
    assert not win.controller.unsaved()  # as the demo manifest has it
    asked = []
    answer = [QMessageBox.StandardButton.Cancel]
    answer_questions(monkeypatch, answer, asked)
    opened = []
    monkeypatch.setattr(win.controller, "open_session", opened.append)
    win.open_demo()
    assert asked == [] and len(opened) == 1  # nothing changed: no question
    win.controller.remove([next(iter(win.controller.entries))])
    assert win.controller.unsaved()
    win.open_demo()
    assert asked == ["Unsaved changes"] and len(opened) == 1  # Cancel: the session stays
    win.quit_action()
    assert win.isVisible()  # Cancel: the app stays
    answer[0] = QMessageBox.StandardButton.Save
    monkeypatch.setattr(win, "ask_save_path", lambda *a: str(tmp_path / "mine.json"))
    win.open_demo()  # Save: written (the demo's own file is never overwritten), then replaced
    assert len(opened) == 2 and not win.controller.unsaved()
    assert len(Contest.read(tmp_path / "mine.json").runs) == 6
    win.controller.set_options(EvalOptions(f_beta=3.0))
    answer[0] = QMessageBox.StandardButton.Discard
    win.open_demo()
    assert len(opened) == 3 and len(asked) == 4


def test_data_checks_fit_1200_px_without_cutting_names_or_codes(win, qtbot, tmp_path):
    win.resize(1200, 800)
    win.open_demo()
    wait_idle(qtbot, win, 7)
    win.tabs.setCurrentWidget(win.checks)
    qtbot.wait(50)
    win.checks.refresh()
    v, m = win.checks.view, win.checks.proxy
    fm = v.fontMetrics()
    for row in range(m.rowCount()):
        for col in (0, 1):  # run names and check codes are never cut
            assert v.columnWidth(col) >= fm.horizontalAdvance(m.index(row, col).data())
    total = sum(v.columnWidth(c) for c in range(m.columnCount()))
    assert total <= v.viewport().width()  # every column on screen (the long ones wrap)
    assert win.grab().save(str(tmp_path / "checks_1200_wrapped.png"))
