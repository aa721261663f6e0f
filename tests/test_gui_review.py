"""Review-day polish of the app (issue 26): default output folders, the
Summary's sorting and Rank column, the Per query columns, Data checks, the
status after removing runs, the unsaved-changes question, dialogs' texts, the
Significance hint, sessions' names and folders, adding TREC runs, and the
welcome page's keyboard order and width."""

import os
import re
import shutil
from fnmatch import fnmatch
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from guitools import wait_idle  # noqa: E402
from PySide6.QtCore import QPoint, Qt  # noqa: E402
from PySide6.QtWidgets import QApplication, QDialog, QFileDialog, QLabel  # noqa: E402
from shrec_eval.choices import run_file_filters  # noqa: E402
from shrec_eval.contest import AssessmentSource, Contest, RunSource  # noqa: E402
from shrec_eval.options import EvalOptions  # noqa: E402
from shrec_eval.outputs.report import HEADLINE  # noqa: E402
from shrec_eval.resources import demo_manifest, resources_dir  # noqa: E402
from shrec_eval.scoring.measures import expand, measure_by_key  # noqa: E402

from shrec_gui import settings  # noqa: E402
from shrec_gui.dialogs import OptionsDialog, ReaderDialog, TrecOrderDialog  # noqa: E402
from shrec_gui.file_dialogs import unsaved_question  # noqa: E402
from shrec_gui.models import SORT_ROLE, competition_ranks  # noqa: E402

DEMO = demo_manifest().parent
H = Qt.Orientation.Horizontal


def demo_window(win, qtbot, width=1200):
    win.resize(width, 760)
    win.open_demo()
    wait_idle(qtbot, win, 7)
    return win


def save_dialog_starts(monkeypatch) -> list[str]:
    """Where each save dialog opens (the dialog itself answers Cancel)."""
    starts = []

    def fake(parent, title, start, filters, *a, **k):
        starts.append(start)
        return "", ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", fake)
    return starts


def inside(path, folder) -> bool:
    path, folder = Path(path).resolve(), Path(folder).resolve()
    return path == folder or folder in path.parents


def contest_copy(tmp_path) -> Path:
    """The demo contest copied to a folder of the user's (writable)."""
    folder = tmp_path / "my contest"
    shutil.copytree(DEMO, folder)
    return folder / "contest.json"


# -- default output folders --------------------------------------------------------


def test_outputs_of_the_demo_default_to_the_documents_folder(win, qtbot, monkeypatch):
    """The demo lives in the installation: the report, figure, CSV and
    session dialogs open in the documents folder, never there."""
    demo_window(win, qtbot)
    starts = save_dialog_starts(monkeypatch)
    win.exports.export_report_dialog()
    win.exports.export_tab_dialog()
    win.exports.export_plot_dialog("csv", "curves")
    win.save_session_dialog()
    assert len(starts) == 4
    docs = settings.documents_folder()
    for start in starts:
        assert Path(start).parent == Path(docs)
        assert not inside(start, resources_dir())
    assert Path(starts[0]).name == "report" and Path(starts[3]).name == "session.json"


def test_outputs_of_a_contest_default_to_its_folder(win, qtbot, monkeypatch, tmp_path):
    manifest = contest_copy(tmp_path)
    win.controller.open_session(str(manifest))
    wait_idle(qtbot, win, 7)
    starts = save_dialog_starts(monkeypatch)
    win.prefs.remember_folder(str(tmp_path))  # another folder used last: not for outputs
    win.exports.export_report_dialog()
    win.save_session_dialog()
    assert [Path(s).parent for s in starts] == [manifest.parent] * 2


def test_an_unwritable_or_installed_folder_gives_the_documents_folder(monkeypatch, tmp_path):
    docs = settings.documents_folder()
    assert settings.output_folder(tmp_path) == str(tmp_path.resolve())
    assert settings.output_folder(DEMO) == docs  # inside the installation
    assert settings.output_folder(None) == docs
    assert settings.output_folder(tmp_path / "gone") == docs
    monkeypatch.setattr(os, "access", lambda path, mode: False)  # read-only (tests run as root)
    assert settings.output_folder(tmp_path) == docs


def test_the_last_folder_is_stored_absolute(win, monkeypatch, tmp_path):
    (tmp_path / "runs").mkdir()
    monkeypatch.chdir(tmp_path)
    win.prefs.remember_folder("runs/alice.txt")
    stored = win.prefs.qsettings.value("files/lastFolder")
    assert stored == str(tmp_path / "runs") and Path(stored).is_absolute()
    win.prefs.remember_folder("runs")  # a folder: itself
    assert win.prefs.last_folder() == str(tmp_path / "runs")


# -- Summary ------------------------------------------------------------------------


def click_header(view, section: int) -> None:
    from pytestqt.qtbot import QtBot

    header = view.horizontalHeader()
    x = header.sectionViewportPosition(section) + header.sectionSize(section) // 2
    QtBot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(x, 5))


def column_values(view, col: int) -> list:
    p = view.model()
    return [p.index(r, col).data(SORT_ROLE) for r in range(p.rowCount())]


def test_the_first_click_on_a_column_sorts_best_first(win, qtbot):
    w = demo_window(win, qtbot)
    s = w.summary
    s.set_columns(["nn", "ft_psb", "adr", "fp_r"])  # fp_r: lower is better
    for key in ("ft_psb", "fp_r", "adr"):
        col = s.model.column(key)
        click_header(s.view, col)
        higher = measure_by_key(key).higher_is_better
        want = Qt.SortOrder.DescendingOrder if higher else Qt.SortOrder.AscendingOrder
        assert s.proxy.sortColumn() == col and s.proxy.sortOrder() == want, key
        vals = column_values(s.view, col)
        assert vals == sorted(vals, reverse=higher), key  # the best run on top
    click_header(s.view, s.model.column("adr"))  # the second click: worst first
    assert s.proxy.sortOrder() == Qt.SortOrder.AscendingOrder


def test_the_rank_column_follows_the_ranking_measure(win, qtbot):
    w = demo_window(win, qtbot)
    s = w.summary
    key = s.rank_key()
    assert s.model.rank_key == key and f"[{key}]" in s.rank_label.text()
    means = {e.name: e.result.mean(key) for e in w.controller.scored_entries()}
    want = sorted(means, key=lambda n: -means[n])  # higher is better: the demo's ADR

    def ranks():
        p = s.proxy
        return {p.index(r, 0).data(): int(p.index(r, s.model.RANK).data()) for r in range(7)}

    assert ranks() == {n: want.index(n) + 1 for n in want}
    assert [s.proxy.index(r, 0).data() for r in range(7)] == want  # sorted by rank at first
    click_header(s.view, s.model.column("nn"))  # sorted by another measure: ranks stay
    assert ranks() == {n: want.index(n) + 1 for n in want}
    assert not s.view.verticalHeader().isVisible()  # no row numbers that read like ranks
    assert s.model.headerData(s.model.RANK, H) == "Rank"
    assert competition_ranks([0.5, 0.9, None, 0.9, 0.1], True) == [3, 1, None, 1, 4]
    assert competition_ranks([0.5, 0.9, 0.5], False) == [1, 3, 1]


def test_every_summary_column_fits_1200_px(win, qtbot):
    w = demo_window(win, qtbot)
    s = w.summary
    s.set_columns(HEADLINE)  # the default columns (a test before may have chosen others)
    w.tabs.setCurrentWidget(s)
    qtbot.wait(20)
    assert w.width() == 1200 and len(s.keys) == 8
    assert s.view.horizontalScrollBar().maximum() == 0  # no sideways scrolling
    header = s.view.horizontalHeader()
    fm = header.fontMetrics()
    lines = max(1, (header.height() - 8) // fm.lineSpacing())
    for c in range(s.proxy.columnCount()):
        text = s.proxy.headerData(c, H)
        assert s.view.columnWidth(c) >= max(fm.horizontalAdvance(x) for x in text.split()), text
        flags = int(Qt.TextFlag.TextWordWrap)
        need = fm.boundingRect(0, 0, s.view.columnWidth(c) - 8, 1000, flags, text).height()
        assert need <= lines * fm.lineSpacing(), text  # the whole header is shown
        for r in range(s.proxy.rowCount()):  # and every value
            cell = s.proxy.index(r, c).data()
            assert fm.horizontalAdvance(cell) <= s.view.columnWidth(c), cell
    assert s.model.headerData(s.model.column("adr"), H, Qt.ItemDataRole.InitialSortOrderRole) == (
        Qt.SortOrder.DescendingOrder.value
    )


# -- Per query ----------------------------------------------------------------------


def test_per_query_columns_scroll_alignment_and_sort_arrow(win, qtbot):
    w = demo_window(win, qtbot)
    remembered = w.prefs.summary_columns()  # the next tests' windows start with them
    w.summary.set_columns(HEADLINE)
    pq = w.per_query
    w.tabs.setCurrentWidget(pq)
    header = pq.view.horizontalHeader()
    # no sort yet: the file's order, and no arrow claiming one
    assert pq.proxy.sortColumn() == -1 and header.sortIndicatorSection() == -1
    ids = list(pq.model.query_ids)
    assert [pq.proxy.index(r, 0).data() for r in range(len(ids))] == ids
    m = pq.model
    assert [m.headerData(c, H) for c in (0, 1)] == ["Query", "Class"]
    wrap = Qt.TextFlag.TextWordWrap  # headers wrap where the columns would not fit
    left = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter | wrap)
    right = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter | wrap)
    align = Qt.ItemDataRole.TextAlignmentRole
    assert m.headerData(0, H, align) == m.headerData(1, H, align) == left
    assert m.headerData(2, H, align) == right  # a measure: as its numbers
    # scrolled sideways (more measures than the width holds, even with their
    # headers wrapped), then the other mode: shown from the query again
    o = w.controller.options
    w.summary.set_columns([m.key for m in expand(o.ranks, o.profile)][:30])
    qtbot.wait(50)
    bar = pq.view.horizontalScrollBar()
    assert bar.maximum() > 0
    bar.setValue(bar.maximum())
    pq.mode.setCurrentIndex(pq.mode.findData("measure"))
    assert bar.value() == 0 and pq.view.columnViewportPosition(0) == 0
    assert pq.proxy.sortColumn() == -1 and header.sortIndicatorSection() == -1
    last = m.columnCount() - 1
    assert m.headerData(last, H) == "Ranking of runs (best first)"
    assert m.headerData(last, H, align) == left
    assert pq.view.columnWidth(last) <= pq.view.viewport().width()  # its header in sight
    assert m.headerData(2, H, align) == right
    # a run's column: best first on the first click (ADR: higher is better)
    click_header(pq.view, 2)
    assert pq.proxy.sortOrder() == Qt.SortOrder.DescendingOrder
    assert header.sortIndicatorSection() == 2
    vals = [v for v in column_values(pq.view, 2) if v is not None]
    assert vals == sorted(vals, reverse=True)
    pq.mode.setCurrentIndex(pq.mode.findData("run"))
    w.prefs.set_summary_columns(remembered)


# -- Data checks --------------------------------------------------------------------


def test_data_checks_read_in_short_rows_without_installed_paths(win, qtbot):
    w = demo_window(win, qtbot)
    checks = w.checks
    w.tabs.setCurrentWidget(checks)
    qtbot.wait(20)
    m, v = checks.proxy, checks.view
    what, examples = m.columnCount() - 2, m.columnCount() - 1
    assert v.columnWidth(what) > v.columnWidth(examples)  # the meaning gets the room
    assert v.horizontalScrollBar().maximum() == 0
    line = v.fontMetrics().lineSpacing()
    for r in range(m.rowCount()):
        assert v.rowHeight(r) <= 3 * line + 8, m.index(r, what).data()  # at most 3 lines
        text = m.index(r, what).data()
        assert str(resources_dir()) not in text and not re.search(r"(^|\s)/\w", text), text
    notes = [m.index(r, what).data() for r in range(m.rowCount())]
    assert any("of the run shapehistogram normalised" in n for n in notes)


# -- status after removing runs -----------------------------------------------------


def test_status_and_caption_after_removing_runs(win, qtbot, tmp_path, dialogs):
    w = demo_window(win, qtbot)
    broken = tmp_path / "broken.txt"
    broken.write_text("this is no run\n")
    w.controller.add_runs([RunSource(broken)])
    wait_idle(qtbot, w)
    assert "1 could not be read" in w.status_label.text()
    bad = [k for k, e in w.controller.entries.items() if e.error is not None]
    w.controller.remove(bad)
    # what was removed (undoable), and the runs left
    assert w.status_label.text() == (
        "Removed 1 run (broken.txt); Edit > Undo (Ctrl+Z) brings it back. "
        "7 of 7 runs scored with the current options."
    )
    keys = list(w.controller.entries)
    w.controller.remove(keys[1:])
    wait_idle(qtbot, w)
    assert w.status_label.text().endswith(" 1 of 1 run scored with the current options.")
    assert w.summary.assessment_label.text().endswith("; 1 run")
    w.controller.score()  # F5: the end of a job says the same
    wait_idle(qtbot, w, 1)
    assert w.status_label.text() == "1 of 1 run scored with the current options."


# -- the unsaved-changes question ---------------------------------------------------


def test_the_question_says_what_changed_and_of_which_session(win, qtbot):
    w = demo_window(win, qtbot)
    c = w.controller
    c.remove([next(iter(c.entries))])
    c.set_options(EvalOptions(f_beta=2.0))
    changes = c.unsaved_changes()
    assert changes == ["1 run removed", "the scoring options (f_beta)"]
    box, _, _ = unsaved_question(w, changes, "contest.json")
    qtbot.addWidget(box)
    assert "contest.json" in box.text() and "1 run removed" in box.text()
    assert "the scoring options (f_beta)" in box.text()


def test_without_a_session_the_question_names_no_session(win, qtbot):
    w = win
    w.controller.open_assessment(AssessmentSource(DEMO / "target.cla"))
    wait_idle(qtbot, w)
    assert w.controller.unsaved() and w.controller.session_path is None
    changes = w.controller.unsaved_changes()
    assert changes == ["the assessment target.cla and 0 runs"]
    box, _, _ = unsaved_question(w, changes, None)
    qtbot.addWidget(box)
    assert "since the session" not in box.text() and "No session holds" in box.text()
    assert "target.cla" in box.text()


@pytest.mark.parametrize("key", [Qt.Key.Key_S, Qt.Key.Key_D])
def test_the_question_answers_to_alt_s_and_alt_d(qtbot, key):
    box, save, discard = unsaved_question(None, ["1 run added"], "mine.json")
    qtbot.addWidget(box)
    box.show()
    qtbot.waitExposed(box)
    box.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is box)
    assert [save.text(), discard.text()] == ["&Save session", "&Discard changes"]
    qtbot.keyClick(box, key, Qt.KeyboardModifier.AltModifier)
    # a mnemonic "animates" the click: the button is clicked a moment later
    want = save if key == Qt.Key.Key_S else discard
    qtbot.waitUntil(lambda: box.clickedButton() is want, timeout=2000)


# -- dialogs' texts -----------------------------------------------------------------


def test_options_name_no_file_the_user_lacks_and_the_placeholder_is_whole(qtbot):
    d = OptionsDialog(EvalOptions())
    qtbot.addWidget(d)
    texts = [d.profile.itemText(i) for i in range(d.profile.count())]
    assert texts and not [t for t in texts if "measures.md" in t]
    r = ReaderDialog("cla", "target.cla")
    qtbot.addWidget(r)
    r.show()
    qtbot.waitExposed(r)
    line = r.queries
    shown = line.width() - line.textMargins().left() - line.textMargins().right()
    assert line.fontMetrics().horizontalAdvance(line.placeholderText()) < shown - 8


def test_significance_says_what_to_do_when_every_run_is_scored(win, qtbot):
    w = demo_window(win, qtbot)
    w.tabs.setCurrentWidget(w.significance)
    text = w.significance.status.text()
    assert "Score runs" not in text and text.startswith("7 runs scored")
    w.controller.remove(list(w.controller.entries)[1:])
    wait_idle(qtbot, w)
    assert w.significance.status.text().startswith("At least two scored runs")


# -- sessions: name, title, folder --------------------------------------------------


def test_a_session_is_saved_under_the_contests_name_in_its_folder(
    win, qtbot, monkeypatch, tmp_path
):
    manifest = contest_copy(tmp_path)
    name = Contest.read(manifest).name
    win.controller.open_session(str(manifest))
    wait_idle(qtbot, win, 7)
    assert win.windowTitle() == f"SHREC evaluation — {name}"
    starts = []
    target = manifest.parent / "saved.json"

    def fake(parent, title, start, filters, *a, **k):
        starts.append(start)
        return str(target), ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", fake)
    win.controller.remove([next(iter(win.controller.entries))])
    assert win.save_session_dialog()
    assert Path(starts[0]).parent == manifest.parent  # the contest's folder
    assert Contest.read(target).name == name and name in win.windowTitle()


def test_a_new_contest_takes_the_name_of_its_session_file(win, qtbot, monkeypatch, tmp_path):
    win.controller.open_assessment(AssessmentSource(DEMO / "target.cla"))
    wait_idle(qtbot, win)
    target = tmp_path / "shrec2026.json"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    assert win.save_session_action()
    assert Contest.read(target).name == "shrec2026"
    assert win.windowTitle() == "SHREC evaluation — shrec2026"
    assert "shrec-gui session" not in target.read_text()


# -- adding TREC runs ---------------------------------------------------------------


def test_trec_runs_are_asked_about_once_by_name(win, qtbot, monkeypatch):
    w = demo_window(win, qtbot)
    asked, added = [], []

    def exec_(d):
        asked.append(d.findChildren(QLabel)[0].text())
        d.trec_order.setChecked(True)
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(TrecOrderDialog, "exec", exec_)
    monkeypatch.setattr(w.controller, "add_runs", added.extend)
    kinds = [("/data/a.trec", "trec"), ("/data/b", "trec"), ("/data/m.txt", "ascii-matrix")]
    w._runs_chosen(kinds)
    assert len(asked) == 1 and "a.trec" in asked[0] and ", b)" in asked[0]
    assert [(s.path.name, s.trec_order) for s in added] == [
        ("a.trec", True),
        ("b", True),
        ("m.txt", False),
    ]
    # the trec_eval profile decides (it sorts as trec_eval does): no question
    w.controller.options = EvalOptions(profile="trec_eval")
    added.clear()
    w._runs_chosen(kinds)
    assert len(asked) == 1 and len(added) == 3


def test_the_runs_dialog_shows_files_without_an_extension(win, qtbot, monkeypatch):
    filters = []
    monkeypatch.setattr(
        QFileDialog, "getOpenFileNames", lambda *a, **k: filters.append(a[3]) or ([], "")
    )
    win.add_runs_dialog()
    # any file first (the formats' table adds each format's usual names)
    assert filters == [run_file_filters()]
    first = re.search(r"\(([^()]*)\)$", filters[0].split(";;")[0]).group(1).split()
    for name in ("q01", "alice", "run.trec", "ranks.txt"):
        assert any(fnmatch(name, pat) for pat in first), name


# -- the welcome page ---------------------------------------------------------------


def test_welcome_page_tab_order_and_narrow_window(win, qtbot):
    w = win
    w.welcome.set_recent([str(DEMO / "contest.json"), str(DEMO / "target.cla")])
    assert w.showing_welcome()
    w.activateWindow()
    w.welcome.demo_button.setFocus()
    qtbot.waitUntil(lambda: w.welcome.demo_button.hasFocus())
    order = []
    for _ in range(6):
        order.append(QApplication.focusWidget())
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
    p = w.welcome
    want = [
        p.demo_button,
        p.assessment_button,
        p.session_button,
        p.recent,
        p.remove_button,
        p.demo_button,
    ]
    assert order == want
    assert w.minimumSizeHint().width() <= 800
    w.resize(800, 600)
    qtbot.waitUntil(lambda: w.width() == 800)
    assert p.demo_button.isVisible() and p.demo_button.width() < 800
