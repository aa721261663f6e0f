"""Starting and sessions in the desktop app: the welcome page of an empty
start (its buttons, the recent files, missing ones greyed and removable),
closing a contest back to it, and the one unsaved-changes question asked on
every path that replaces the contest (drop, recent file, open assessment,
close, the welcome page)."""

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from guitools import answer_questions, wait_idle  # noqa: E402
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl  # noqa: E402
from PySide6.QtGui import QDropEvent  # noqa: E402
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox  # noqa: E402
from shrec_eval.contest import AssessmentSource, Contest  # noqa: E402
from shrec_eval.options import EvalOptions  # noqa: E402
from shrec_eval.resources import demo_manifest, resource_path  # noqa: E402

from shrec_gui.models.tables import SORT_ROLE  # noqa: E402
from shrec_gui.state import view_state  # noqa: E402
from shrec_gui.widgets.welcome import PATH_ROLE  # noqa: E402
from shrec_gui.window.file_dialogs import unsaved_question  # noqa: E402
from shrec_gui.window.main import MainWindow, app_settings  # noqa: E402

DEMO = resource_path("demo")


def new_window(qtbot, recent=()) -> MainWindow:
    """A shown window whose recent files are ``recent`` (QSettings in a temp folder)."""
    app_settings().setValue("files/recent", list(recent))
    w = MainWindow(app_settings())
    qtbot.addWidget(w)
    w.show()
    return w


@pytest.fixture
def saved_session(tmp_path):
    """The demo contest as a session file of its own."""
    path = tmp_path / "review.json"
    Contest.read(demo_manifest()).write(path)
    return path


def drop(w, *paths) -> None:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    w.dropEvent(
        QDropEvent(
            QPointF(10, 10),
            Qt.DropAction.CopyAction,
            mime,
            Qt.MouseButton.LeftButton,
            Qt.KeyboardModifier.NoModifier,
        )
    )


def test_an_empty_start_shows_the_welcome_page_until_a_contest_is_open(qtbot, dialogs, monkeypatch):
    w = new_window(qtbot)
    assert w.showing_welcome() and w.welcome.isVisible() and not w.tabs.isVisible()
    buttons = [w.welcome.demo_button, w.welcome.assessment_button, w.welcome.session_button]
    assert [b.text() for b in buttons] == [
        "Open the &demo contest",
        "Open an &assessment…",
        "&Open a session…",
    ]
    assert all(b.focusPolicy() & Qt.FocusPolicy.TabFocus for b in buttons)
    # every Alt+letter of the page and the menu bar is one thing's
    texts = [b.text() for b in buttons] + [w.welcome.recent_label.text()]
    texts += [w.welcome.remove_button.text()] + [a.text() for a in w.menuBar().actions()]
    letters = [t[t.index("&") + 1].lower() for t in texts]
    assert len(letters) == len(set(letters)) == 10, texts
    assert w.welcome.none_label.isVisible() and not w.welcome.recent.isVisible()  # none yet
    # keyboard: Enter on a focused button presses it (here: the session file dialog)
    asked = []
    monkeypatch.setattr(
        QFileDialog, "getOpenFileName", lambda *a, **k: asked.append(a[1]) or ("", "")
    )
    w.welcome.session_button.setFocus()
    qtbot.keyClick(w.welcome.session_button, Qt.Key.Key_Return)
    assert asked == ["Open session"] and w.showing_welcome()
    # keyboard: the focused button opens the demo with Space
    w.welcome.demo_button.setFocus()
    qtbot.keyClick(w.welcome.demo_button, Qt.Key.Key_Space)
    wait_idle(qtbot, w, 7)
    assert not w.showing_welcome() and w.tabs.isVisible() and w.summary.model.rowCount() == 7
    assert "SHREC demo contest" in w.shown_title()
    # File > Close contest: back to the welcome page, nothing open, the demo in the recent files
    w.dialogs.close_contest()
    wait_idle(qtbot, w)
    c = w.controller
    assert w.showing_welcome() and c.assessment is None and not c.entries
    assert c.session_path is None and w.shown_title() == "SHREC evaluation"
    assert w.welcome.paths() == [str(demo_manifest().resolve())]
    assert dialogs == []


def test_recent_files_open_with_enter_and_missing_ones_are_greyed_and_removable(
    qtbot, dialogs, saved_session, tmp_path
):
    gone = str(tmp_path / "moved" / "old.json")
    w = new_window(qtbot, [str(saved_session), gone])
    qtbot.waitUntil(lambda: w.welcome.missing == {gone}, timeout=10000)  # found off the GUI thread
    lst = w.welcome.recent
    assert lst.isVisible() and w.welcome.paths() == [str(saved_session), gone]
    present, missing = lst.item(0), lst.item(1)
    assert "review.json" in present.text() and "(session)" in present.text()
    assert "missing" in missing.text() and missing.font().italic()
    assert present.data(Qt.ItemDataRole.ForegroundRole) is None  # the theme's text colour
    grey = missing.data(Qt.ItemDataRole.ForegroundRole)
    text, base = lst.palette().color(lst.foregroundRole()), lst.palette().base().color()
    assert min(text.lightness(), base.lightness()) < grey.lightness()
    assert grey.lightness() < max(text.lightness(), base.lightness())
    # a missing file says so instead of opening
    lst.setCurrentItem(missing)
    lst.itemActivated.emit(missing)
    assert "no longer in" in w.welcome.note.text() and w.controller.assessment_source is None
    # Del takes it off the list (and off the File > Recent menu and QSettings)
    lst.setFocus()
    qtbot.keyClick(lst, Qt.Key.Key_Delete)
    assert w.welcome.paths() == [str(saved_session)]
    assert w.prefs.recent() == [str(saved_session)]
    assert [a.text() for a in w.menus.recent_menu.actions()] == [str(saved_session)]
    # Enter on a present one opens it
    lst.setCurrentRow(0)
    qtbot.keyClick(lst, Qt.Key.Key_Return)
    wait_idle(qtbot, w, 7)
    assert not w.showing_welcome() and w.controller.session_path == str(saved_session)
    assert dialogs == []


def test_the_theme_recolours_the_missing_files(qtbot, tmp_path):
    gone = str(tmp_path / "gone.json")
    w = new_window(qtbot, [gone])
    qtbot.waitUntil(lambda: w.welcome.missing == {gone}, timeout=10000)
    greys = []
    for dark in (False, True, False):
        w.set_dark(dark)
        greys.append(w.welcome.recent.item(0).data(Qt.ItemDataRole.ForegroundRole))
    assert greys[0] == greys[2] and greys[0] != greys[1]


@pytest.fixture
def changed_demo(qtbot, monkeypatch):
    """The demo open with a run removed (unsaved), the unsaved-changes question
    recorded and answered with ``answer[0]`` (Cancel at first)."""
    w = new_window(qtbot)
    w.open_demo()
    wait_idle(qtbot, w, 7)
    w.controller.remove([next(iter(w.controller.entries))])
    assert w.controller.unsaved()
    w.asked = []
    w.answer = [QMessageBox.StandardButton.Cancel]
    answer_questions(monkeypatch, w.answer, w.asked)
    return w


def state(w):
    c = w.controller
    return (c.session_path, c.assessment_source, tuple(c.run_sources()), c.options)


def test_every_path_that_replaces_the_contest_asks_first(
    changed_demo, qtbot, monkeypatch, saved_session, dialogs
):
    w = changed_demo
    before = state(w)
    picked = []
    monkeypatch.setattr(
        QFileDialog, "getOpenFileName", lambda *a, **k: picked.append(a[1]) or ("", "")
    )
    # Cancel: each path leaves everything as it was
    drop(w, saved_session)  # a session dropped: asked once it is known to be one
    qtbot.waitUntil(lambda: len(w.asked) == 1, timeout=10000)
    w.dialogs.open_recent(str(saved_session))
    w.dialogs.open_assessment_dialog()
    w.dialogs.open_session_dialog()
    w.dialogs.close_contest()
    w.welcome.demoRequested.emit()  # the welcome page's buttons go the same way
    wait_idle(qtbot, w)
    assert w.asked == ["Unsaved changes"] * 6
    assert picked == [] and state(w) == before and not w.showing_welcome()
    # runs alone dropped are added: nothing is replaced, nothing asked
    drop(w, DEMO / "randombaseline.trec")
    wait_idle(qtbot, w, 7)
    assert len(w.asked) == 6
    # Discard: the dropped session replaces the contest
    w.answer[0] = QMessageBox.StandardButton.Discard
    drop(w, saved_session)
    qtbot.waitUntil(lambda: w.controller.session_path == str(saved_session), timeout=10000)
    wait_idle(qtbot, w, 7)
    assert len(w.asked) == 7 and not w.controller.unsaved()
    # nothing changed since: closing asks nothing
    w.dialogs.close_contest()
    assert len(w.asked) == 7 and w.showing_welcome() and dialogs == []


def test_an_assessment_dropped_asks_and_a_recent_session_opens_after_discard(
    changed_demo, qtbot, saved_session
):
    w = changed_demo
    before = state(w)
    drop(w, DEMO / "target.cla")
    qtbot.waitUntil(lambda: len(w.asked) == 1, timeout=10000)
    wait_idle(qtbot, w)
    assert state(w) == before
    w.answer[0] = QMessageBox.StandardButton.Discard
    w.dialogs.open_recent(str(saved_session))
    qtbot.waitUntil(lambda: w.controller.session_path == str(saved_session), timeout=10000)
    wait_idle(qtbot, w, 7)
    assert len(w.asked) == 2
    # and the welcome page lists it again once the contest is closed
    w.dialogs.close_contest()
    assert w.welcome.paths()[0] == str(saved_session.resolve())
    item = w.welcome.recent.item(0)
    assert item.data(PATH_ROLE) == str(saved_session.resolve())


# -- the view state a session keeps ----------------------------------------------------------


def _pick(combo, data) -> None:
    i = combo.findData(data)
    assert i >= 0, data
    combo.setCurrentIndex(i)


def test_a_session_keeps_the_view_state(qtbot, tmp_path, dialogs):
    """Columns, sorts, the Per query mode and measure, the Per class and
    Significance measures, the curve kind and the tab shown: saved with the
    session, shown again when it is opened in another window."""
    w = new_window(qtbot)
    w.open_demo()
    wait_idle(qtbot, w, 7)
    w.summary.set_columns(["nn", "ft_psb", "st_psb", "dcg_psb"])
    w.summary.view.sortByColumn(w.summary.model.column("st_psb"), Qt.SortOrder.AscendingOrder)
    _pick(w.per_query.mode, "measure")
    _pick(w.per_query.choice, "ndcg@10")
    w.per_query.view.sortByColumn(w.per_query.model.first + 1, Qt.SortOrder.DescendingOrder)
    per_query_sort = w.per_query.view.sort_state()
    _pick(w.per_class.measure, "e_measure")
    w.per_class.view.sortByColumn(1, Qt.SortOrder.DescendingOrder)  # by query count
    _pick(w.curves.kind, "dcg_recall")
    _pick(w.significance.measure, "nn")
    w.tabs.setCurrentWidget(w.curves)
    assert not w.controller.unsaved()  # what is shown is no change to the contest
    path = tmp_path / "view.json"
    monkeypatch_path = str(path)
    w.dialogs.ask_save_path = lambda *a: monkeypatch_path  # File > Save session as…
    assert w.dialogs.save_session_dialog()
    doc = json.loads(path.read_text())
    assert doc["view"]["summary"] == {
        "columns": ["nn", "ft_psb", "st_psb", "dcg_psb"],
        "sort": {"column": "st_psb", "order": "ascending"},
    }
    assert doc["view"]["per_query"] == {
        "mode": "measure",
        "choice": "ndcg@10",
        "sort": {"column": per_query_sort[0], "order": "descending"},
    }
    assert per_query_sort[0].startswith("run:")
    assert doc["view"]["per_class"]["measure"] == "e_measure"
    assert doc["view"]["per_class"]["sort"] == {"column": "queries", "order": "descending"}
    assert doc["view"]["curves"] == {"kind": "dcg_recall"}
    assert doc["view"]["significance"] == {"measure": "nn"}
    assert doc["view"]["tab"] == "Curves"
    saved = view_state.capture(w)
    # another window, whose own preferences show other columns
    app_settings().setValue("summary/columns", ["p@5"])
    other = new_window(qtbot)
    assert other.summary.keys == ["p@5"]
    other.controller.open_session(str(path))
    qtbot.waitUntil(lambda: other.tabs.currentWidget() is other.curves, timeout=10000)
    other.tabs.setCurrentWidget(other.summary)  # a tab chosen while the runs are scored stays
    wait_idle(qtbot, other, 7)
    qtbot.waitUntil(lambda: other._view_to_restore is None, timeout=10000)
    assert view_state.capture(other) == {**saved, "tab": "Summary"}
    other.tabs.setCurrentWidget(other.curves)
    assert other.summary.keys == ["nn", "ft_psb", "st_psb", "dcg_psb"]
    assert other.summary.view.sort_state() == ("st_psb", Qt.SortOrder.AscendingOrder)
    col = other.summary.model.column("st_psb")
    shown = [other.summary.proxy.index(r, col).data(SORT_ROLE) for r in range(7)]
    assert shown == sorted(shown)  # the rows are in that order
    assert other.per_query.choice.currentData() == "ndcg@10"
    assert other.per_query.view.sort_state() == (per_query_sort[0], Qt.SortOrder.DescendingOrder)
    assert other.curves.kind.currentData() == "dcg_recall"
    assert other.tabs.currentWidget() is other.curves and not other.showing_welcome()
    # Ctrl+S writes the view shown now
    _pick(other.curves.kind, "pr")
    other.dialogs.save_session_action()
    assert json.loads(path.read_text())["view"]["curves"] == {"kind": "pr"}


def test_a_view_that_no_longer_fits_is_passed_over(qtbot, tmp_path, dialogs):
    """A hand-edited or stale view: what fits is shown, the rest ignored
    (the unsaved-changes question and sessions never fail on it)."""
    w = new_window(qtbot)
    w.open_demo()
    wait_idle(qtbot, w, 7)
    before = view_state.capture(w)
    for view in (
        [],
        {"tab": 5, "summary": {"columns": "nn"}, "curves": {"kind": ["pr"]}},
        {"summary": {"columns": [3, "nope"], "sort": {"column": "zz", "order": "sideways"}}},
        {"per_query": {"mode": "sideways", "choice": None, "sort": "ft"}, "per_class": 7},
    ):
        view_state.restore(w, view)
        assert view_state.capture(w) == before, view
    view_state.restore(w, {"summary": {"columns": ["p@10", "gone"]}, "tab": "Per class"})
    assert w.summary.keys == ["p@10"] and w.tabs.currentWidget() is w.per_class


def test_a_version_1_session_still_opens(qtbot, tmp_path, dialogs):
    """Sessions written before version 2 ("color", no view) open as they were."""
    doc = Contest.read(demo_manifest()).to_dict()  # absolute paths
    doc["version"] = 1
    del doc["shapes"]  # version 3 added the shapes folders
    doc["runs"][0]["color"] = "#123456"
    for r in doc["runs"][1:]:
        del r["colour"]
    del doc["runs"][0]["colour"]
    path = tmp_path / "old.json"
    path.write_text(json.dumps(doc))
    w = new_window(qtbot)
    w.controller.open_session(str(path))
    wait_idle(qtbot, w, 7)
    first = next(iter(w.controller.entries.values()))
    assert first.name == "SpectralNet" and first.colour == "#123456"
    assert not w.controller.unsaved() and dialogs == []


def demo_window(win, qtbot, width=1200):
    win.resize(width, 760)
    win.open_demo()
    wait_idle(qtbot, win, 7)
    return win


def contest_copy(tmp_path) -> Path:
    """The demo contest copied to a folder of the user's (writable)."""
    folder = tmp_path / "my contest"
    shutil.copytree(DEMO, folder)
    return folder / "contest.json"


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


# -- sessions: name, title, folder --------------------------------------------------


def test_a_session_is_saved_under_the_contests_name_in_its_folder(
    win, qtbot, monkeypatch, tmp_path
):
    manifest = contest_copy(tmp_path)
    name = Contest.read(manifest).name
    win.controller.open_session(str(manifest))
    wait_idle(qtbot, win, 7)
    assert win.shown_title() == f"SHREC evaluation — {name}"
    starts = []
    target = manifest.parent / "saved.json"

    def fake(parent, title, start, filters, *a, **k):
        starts.append(start)
        return str(target), ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", fake)
    win.controller.remove([next(iter(win.controller.entries))])
    assert win.dialogs.save_session_dialog()
    assert Path(starts[0]).parent == manifest.parent  # the contest's folder
    assert Contest.read(target).name == name and name in win.shown_title()


def test_the_title_marks_unsaved_changes_until_saved(win, qtbot, monkeypatch, tmp_path):
    """The title says when the contest has unsaved changes (an asterisk, Qt's
    window-modified mark): none once opened, one after a change (a run
    removed, an option), none again once saved, back after an undo."""
    manifest = contest_copy(tmp_path)
    name = Contest.read(manifest).name
    c = win.controller
    c.open_session(str(manifest))
    wait_idle(qtbot, win, 7)
    assert win.shown_title() == f"SHREC evaluation — {name}" and not win.isWindowModified()
    c.remove([next(iter(c.entries))])
    assert win.shown_title() == f"SHREC evaluation — {name}*" and c.unsaved()
    target = tmp_path / "saved.json"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    assert win.dialogs.save_session_dialog()
    assert win.shown_title() == f"SHREC evaluation — {name}" and not c.unsaved()
    win.menus.undo_action.trigger()  # the run back: differs from the file saved
    qtbot.waitUntil(lambda: len(c.entries) == 7)
    assert win.shown_title().endswith("*")
    c.set_options(replace(c.options, ranks=(3, 9)))
    wait_idle(qtbot, win, 7)
    assert win.shown_title().endswith("*")
    c.close()
    assert win.shown_title() == "SHREC evaluation"


def test_a_new_contest_takes_the_name_of_its_session_file(win, qtbot, monkeypatch, tmp_path):
    win.controller.open_assessment(AssessmentSource(DEMO / "target.cla"))
    wait_idle(qtbot, win)
    target = tmp_path / "shrec2026.json"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    assert win.dialogs.save_session_action()
    assert Contest.read(target).name == "shrec2026"
    assert win.shown_title() == "SHREC evaluation — shrec2026"
    assert "shrec-gui session" not in target.read_text()


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
    monkeypatch.setattr(
        win.controller, "open_session", lambda path, given=None: opened.append(path)
    )
    win.open_demo()
    assert asked == [] and len(opened) == 1  # nothing changed: no question
    win.controller.remove([next(iter(win.controller.entries))])
    assert win.controller.unsaved()
    win.open_demo()
    assert asked == ["Unsaved changes"] and len(opened) == 1  # Cancel: the session stays
    win.quit_action()
    assert win.isVisible()  # Cancel: the app stays
    answer[0] = QMessageBox.StandardButton.Save
    monkeypatch.setattr(win.dialogs, "ask_save_path", lambda *a: str(tmp_path / "mine.json"))
    win.open_demo()  # Save: written (the demo's own file is never overwritten), then replaced
    assert len(opened) == 2 and not win.controller.unsaved()
    assert len(Contest.read(tmp_path / "mine.json").runs) == 6
    win.controller.set_options(EvalOptions(f_beta=3.0))
    answer[0] = QMessageBox.StandardButton.Discard
    win.open_demo()
    assert len(opened) == 3 and len(asked) == 4


def test_a_session_of_a_newer_version_is_refused(win, qtbot, tmp_path, dialogs):
    doc = Contest.read(demo_manifest()).to_dict()  # absolute paths
    doc["version"] = 99
    path = tmp_path / "future.json"
    path.write_text(json.dumps(doc))
    win.controller.open_session(str(path))
    qtbot.waitUntil(lambda: bool(dialogs), timeout=10000)
    assert "future.json" in dialogs[-1][1] and "version 99" in dialogs[-1][1]
    wait_idle(qtbot, win)
    assert win.controller.assessment is None and not win.controller.entries


def test_the_welcome_page_gives_its_room_to_the_recent_list(win, qtbot):
    """In a window on a 960 x 540 screen: three recent files shown whole (no
    scroll bar), ten in a list that scrolls while the page itself does not;
    in a strip of a window the page scrolls instead of drawing over itself."""
    p = win.welcome
    win.resize(958, 508)
    for n, scrolls in ((3, False), (10, True)):
        p.set_recent([f"/tmp/folder-{i}/session-{i}.json" for i in range(n)])
        qtbot.waitUntil(lambda: p.recent.isVisible())
        qtbot.wait(20)
        assert (p.recent.verticalScrollBar().maximum() > 0) == scrolls, n
        assert p.scroll.verticalScrollBar().maximum() == 0, n  # the page fits
    win.resize(331, 300)
    qtbot.waitUntil(lambda: p.scroll.verticalScrollBar().maximum() > 0)
    assert win.height() == 300  # the window keeps its size; the page scrolls
