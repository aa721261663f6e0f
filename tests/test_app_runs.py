"""Runs in the app: removed by their key (also when another failed to load),
the status after removing runs, a run that fits several formats read as the
user chooses (or left unread), TREC runs asked about once by name, files
without an extension in the runs dialog, a FIFO dropped on the window."""

import os
import re
import threading
from fnmatch import fnmatch

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from guitools import names_of, select_rows, wait_idle  # noqa: E402
from PySide6.QtCore import Qt, QTimer  # noqa: E402
from PySide6.QtWidgets import QDialog, QFileDialog, QInputDialog, QLabel  # noqa: E402
from shrec_eval import evaluate  # noqa: E402
from shrec_eval.choices import run_file_filters  # noqa: E402
from shrec_eval.contest import AssessmentSource, RunSource  # noqa: E402
from shrec_eval.options import EvalOptions  # noqa: E402
from shrec_eval.reading.readers import load_assessment, load_run  # noqa: E402

from shrec_gui.models.tables import KEY_ROLE  # noqa: E402
from shrec_gui.window.dialogs import TrecOrderDialog  # noqa: E402


def test_del_removes_the_selected_run_when_another_failed_to_load(with_failed_first, dialogs):
    w = with_failed_first
    assert [e.name for e in w.controller.entries.values() if e.error] == ["Broken"]
    view, proxy = w.summary.view, w.summary.proxy
    view.sortByColumn(w.summary.model.column("ap_trec_r"), Qt.SortOrder.AscendingOrder)
    row = next(r for r in range(proxy.rowCount()) if proxy.index(r, 0).data() == "SpectralNet")
    key = proxy.index(row, 0).data(KEY_ROLE)
    assert w.controller.entries[key].name == "SpectralNet"  # the model's key role
    w.tabs.setCurrentWidget(w.summary)
    select_rows(view, [row])
    w.menus.remove_action.trigger()  # Del
    assert "SpectralNet" not in names_of(w) and len(w.controller.entries) == 7
    assert "Broken" in names_of(w)  # the failed run is still there
    shown = {proxy.index(r, 0).data() for r in range(proxy.rowCount())}
    assert shown == set(names_of(w)) - {"Broken"} and len(shown) == 6
    # two rows at once, sorted the other way
    view.sortByColumn(0, Qt.SortOrder.DescendingOrder)
    rows = [
        r
        for r in range(proxy.rowCount())
        if proxy.index(r, 0).data() in ("ShapeHistogram", "VoxelMoments")
    ]
    assert len(rows) == 2
    select_rows(view, rows)
    w.menus.remove_action.trigger()
    assert sorted(names_of(w)) == sorted(shown - {"ShapeHistogram", "VoxelMoments"} | {"Broken"})


def test_rows_carry_their_run_key(demo, qtmodeltester):
    m = demo.summary.model
    for r in range(m.rowCount()):
        key = m.index(r, 0).data(KEY_ROLE)
        assert demo.controller.entries[key].name == m.index(r, 0).data()
        assert m.index(r, 3).data(KEY_ROLE) == key
    qtmodeltester.check(m)


def test_a_fifo_dropped_on_the_window_does_not_block_it(win, qtbot, tmp_path, dialogs):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)

    def feed_the_reader() -> None:
        """Whoever opened the FIFO for reading gets end of file (never
        blocks: no reader, no open)."""
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass

    # a guard so that a regression fails instead of hanging the suite
    guard = threading.Timer(5.0, feed_the_reader)
    guard.start()
    try:
        win.open_files([str(fifo)])
        returned_before_the_guard = guard.is_alive()
    finally:
        guard.cancel()
    assert returned_before_the_guard  # open_files did not open the FIFO
    ticks = []
    QTimer.singleShot(0, lambda: ticks.append(1))
    qtbot.waitUntil(lambda: bool(ticks))  # the event loop runs
    qtbot.waitUntil(lambda: (feed_the_reader(), bool(dialogs))[1], timeout=10000)
    assert str(fifo) in dialogs[-1][1] and "pipe" in dialogs[-1][1]
    assert win.controller.assessment is None and not win.controller.entries


def demo_window(win, qtbot, width=1200):
    win.resize(width, 760)
    win.open_demo()
    wait_idle(qtbot, win, 7)
    return win


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
        "Removed 1 run (broken); Edit > Undo (Ctrl+Z) brings it back. "
        "7 of 7 runs scored with the current options."
    )
    keys = list(w.controller.entries)
    w.controller.remove(keys[1:])
    wait_idle(qtbot, w)
    assert w.status_label.text().endswith(" 1 of 1 run scored with the current options.")
    assert w.summary.assessment_label.text().endswith("; 1 run")
    w.controller.score()  # F5 with nothing to do says so, and the same count
    wait_idle(qtbot, w, 1)
    assert w.status_label.text() == (
        "Nothing to score (no option or file changed): 1 of 1 run scored with the current options."
    )


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
    w.dialogs._runs_chosen(kinds)
    assert len(asked) == 1 and "a.trec" in asked[0] and ", b)" in asked[0]
    assert [(s.path.name, s.trec_order) for s in added] == [
        ("a.trec", True),
        ("b", True),
        ("m.txt", False),
    ]
    # the trec_eval profile decides (it sorts as trec_eval does): no question
    w.controller.options = EvalOptions(profile="trec_eval")
    added.clear()
    w.dialogs._runs_chosen(kinds)
    assert len(asked) == 1 and len(added) == 3


def test_the_runs_dialog_shows_files_without_an_extension(win, qtbot, monkeypatch):
    filters = []
    monkeypatch.setattr(
        QFileDialog, "getOpenFileNames", lambda *a, **k: filters.append(a[3]) or ([], "")
    )
    win.dialogs.add_runs_dialog()
    # any file first (the formats' table adds each format's usual names)
    assert filters == [run_file_filters()]
    first = re.search(r"\(([^()]*)\)$", filters[0].split(";;")[0]).group(1).split()
    for name in ("q01", "alice", "run.trec", "ranks.txt"):
        assert any(fnmatch(name, pat) for pat in first), name


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
