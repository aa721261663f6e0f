"""The window carved into rooms: removal by run key (a run that failed to
load present), each tab exporting itself (Ctrl+E), the Columns menu, the
Options and Reader dialogs, sessions of a newer version, and files opened
off the GUI thread (a FIFO dropped on the window)."""

import csv
import json
import os
import threading

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from guitools import wait_idle  # noqa: E402
from PySide6.QtCore import QItemSelectionModel, Qt, QTimer  # noqa: E402
from PySide6.QtWidgets import QDialog, QFileDialog  # noqa: E402
from shrec_eval import EvalOptions  # noqa: E402
from shrec_eval.contest import Contest, RunSource  # noqa: E402
from shrec_eval.errors import OptionsError  # noqa: E402
from shrec_eval.measures import measure_by_key  # noqa: E402
from shrec_eval.resources import demo_manifest, resource_path  # noqa: E402

from shrec_gui.dialogs import OptionsDialog, ReaderDialog, TrecOrderDialog  # noqa: E402
from shrec_gui.mainwindow import MainWindow, app_settings  # noqa: E402
from shrec_gui.models import KEY_ROLE, SORT_ROLE  # noqa: E402
from shrec_gui.settings import Preferences  # noqa: E402

DEMO = resource_path("demo")


@pytest.fixture
def save_as(monkeypatch, tmp_path):
    """File > Save dialogs answer a path in tmp_path (the name offered)."""
    offered = []

    def answer(parent, title, start, filters):
        offered.append(os.path.basename(start))
        return str(tmp_path / os.path.basename(start)), filters

    monkeypatch.setattr(QFileDialog, "getSaveFileName", answer)
    return offered


@pytest.fixture
def with_failed_first(win, qtbot, tmp_path):
    """The demo contest with an unreadable run listed first (as a session
    that names a file gone bad would open)."""
    bad = tmp_path / "broken.txt"
    bad.write_text("1.0 2.0\n3.0 x\n")
    contest = Contest.read(demo_manifest())
    win.controller.open_assessment(
        contest.assessment,
        runs=[RunSource(bad, format="ascii-matrix", name="Broken")] + list(contest.runs),
        options=contest.options,
    )
    qtbot.waitUntil(lambda: len(win.controller.scored_entries()) == 7, timeout=30000)
    wait_idle(qtbot, win)
    return win


def select_rows(view, rows) -> None:
    sel = view.selectionModel()
    sel.clearSelection()
    for r in rows:
        sel.select(
            view.model().index(r, 0),
            QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows,
        )


def names_of(w) -> list[str]:
    return [e.name for e in w.controller.entries.values()]


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
    w.remove_action.trigger()  # Del
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
    w.remove_action.trigger()
    assert sorted(names_of(w)) == sorted(shown - {"ShapeHistogram", "VoxelMoments"} | {"Broken"})


def test_a_failed_run_is_removed_from_data_checks(with_failed_first, qtmodeltester):
    w = with_failed_first
    m, proxy = w.checks.model, w.checks.proxy
    qtmodeltester.check(m)
    w.tabs.setCurrentWidget(w.checks)
    row = next(r for r in range(proxy.rowCount()) if proxy.index(r, 1).data() == "unreadable")
    assert proxy.index(row, 0).data() == "Broken"
    select_rows(w.checks.view, [row])
    w.checks.remove_button.click()
    assert "Broken" not in names_of(w) and len(w.controller.entries) == 7
    assert "unreadable" not in {m.index(r, 1).data() for r in range(m.rowCount())}
    assert w.summary.model.rowCount() == 7  # the scored runs untouched


def test_rows_carry_their_run_key(demo, qtmodeltester):
    m = demo.summary.model
    for r in range(m.rowCount()):
        key = m.index(r, 0).data(KEY_ROLE)
        assert demo.controller.entries[key].name == m.index(r, 0).data()
        assert m.index(r, 3).data(KEY_ROLE) == key
    qtmodeltester.check(m)


def read_csv(path) -> list[list[str]]:
    with open(path, newline="") as fh:
        return list(csv.reader(fh))


def test_ctrl_e_exports_the_tab_shown(demo, qtbot, save_as, tmp_path):
    demo.tabs.setCurrentWidget(demo.summary)
    demo.export_action.trigger()  # Ctrl+E
    rows = read_csv(tmp_path / "table.csv")
    assert rows[0][0] == "Run" and len(rows) == 8
    sig = demo.significance
    sig.measure.setCurrentIndex(sig.measure.findData("adr"))
    sig.resamples.setValue(200)
    sig.request()
    qtbot.waitUntil(lambda: sig.comparison is not None, timeout=20000)
    demo.tabs.setCurrentWidget(sig)
    demo.export_action.trigger()
    assert save_as[-1] == "p-values-adr.csv"
    rows = read_csv(tmp_path / "p-values-adr.csv")
    names = sig.pmodel.names
    assert rows[0] == ["run"] + names and [r[0] for r in rows[1:]] == names
    test = sig.test.currentData()
    a, b = names[0], names[-1]
    want = sig.comparison.pair(a, b).p_corrected[test]
    assert float(rows[1][len(names)]) == pytest.approx(want)
    assert rows[1][1] == ""  # a run against itself
    demo.tabs.setCurrentWidget(demo.curves)
    demo.export_action.trigger()
    assert len(read_csv(tmp_path / save_as[-1])[0]) == 14  # x and y of 7 curves
    demo.tabs.setCurrentWidget(demo.per_query)
    demo.per_query.mode.setCurrentIndex(0)
    demo.export_action.trigger()
    rows = read_csv(tmp_path / "per-query.csv")
    assert rows[0][0] == "Query" and len(rows) == 31


def test_columns_menu_toggles_and_remembers_summary_columns(demo, qtbot):
    s = demo.summary
    before = list(s.keys)
    assert "p@10" not in before
    s.column_action("p@10").setChecked(True)
    assert "p@10" in s.keys and s.model.columnCount() == 2 + len(before) + 1  # run, rank
    j = s.model.column("p@10")
    ref = {e.name: e.result.mean("p@10") for e in demo.controller.scored_entries()}
    for r in range(s.model.rowCount()):
        assert s.model.index(r, j).data(SORT_ROLE) == pytest.approx(ref[s.model.index(r, 0).data()])
    assert s.model.headerData(j, Qt.Orientation.Horizontal) == measure_by_key("p@10").label
    assert Preferences().summary_columns() == s.keys
    other = MainWindow(app_settings())
    qtbot.addWidget(other)
    assert other.summary.keys == s.keys  # a new window shows the same columns
    other.close()
    s.column_action("p@10").setChecked(False)
    s.column_action("adr").setChecked(False)
    assert "adr" not in s.keys and s.model.columnCount() == 2 + len(before) - 1
    s.column_action("adr").setChecked(True)
    assert s.keys == before and Preferences().summary_columns() == before


def test_options_dialog_reads_every_field_and_keeps_the_rest(qtbot):
    start = EvalOptions(f_beta=2.0)
    d = OptionsDialog(start)
    qtbot.addWidget(d)
    assert d.options() == start  # shown as they are
    d.ranks.setText("5, 10")
    d.curve.setValue(50)
    d.levels.setCurrentText("11")
    d.interp.setCurrentIndex(d.interp.findData("psb"))
    d.remove_self.setChecked(True)
    d.cutoff.setChecked(True)
    d.collection_size.setValue(1000)
    o = d.options()
    assert (o.ranks, o.curve_length, o.pr_levels, o.pr_interpolation) == ((5, 10), 50, 11, "psb")
    assert o.remove_self and o.psb_class_cutoff and o.collection_size == 1000
    assert o.f_beta == 2.0  # not a field of the dialog: kept
    d.ranks.setText("5,x")
    with pytest.raises(OptionsError):
        d.options()


def test_options_dialog_rescores_and_asks_again_after_bad_ranks(win, qtbot, monkeypatch, dialogs):
    win.open_demo()
    wait_idle(qtbot, win, 7)
    answers = iter(["5,ten", "5,10"])

    def fill(self):
        self.ranks.setText(next(answers))
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(OptionsDialog, "exec", fill)
    win.options_dialog()
    assert len(dialogs) == 1 and "whole numbers" in dialogs[0][1]  # then asked again
    qtbot.waitUntil(
        lambda: all(e.result.options.ranks == (5, 10) for e in win.controller.entries.values()),
        timeout=30000,
    )
    assert win.controller.options.ranks == (5, 10)
    assert "p@25" not in win.summary.keys and "p@10" in [
        win.significance.measure.itemData(i) for i in range(win.significance.measure.count())
    ]


def test_reader_dialog_values_for_each_kind(qtbot):
    cla = ReaderDialog("cla", str(DEMO / "target.cla"))
    qtbot.addWidget(cla)
    assert cla.values() == {"queries": None, "graded": False, "matrix_order": "listing"}
    cla.queries.setText(str(DEMO / "queries.cla"))
    cla.graded.setChecked(True)
    cla.matrix_order.setCurrentIndex(cla.matrix_order.findData("id"))
    assert cla.values() == {
        "queries": str(DEMO / "queries.cla"),
        "graded": True,
        "matrix_order": "id",
    }
    qrels = ReaderDialog("qrels", "x.qrels")
    qtbot.addWidget(qrels)
    assert qrels.values() == {"collection_size": None, "matrix_order": "listing"}
    qrels.collection_size.setValue(5000)
    assert qrels.values() == {"collection_size": 5000, "matrix_order": "listing"}
    ranklists = ReaderDialog("ranklists", "folder")
    qtbot.addWidget(ranklists)
    assert ranklists.values() == {"variant": None}
    ranklists.variant.setCurrentIndex(1)
    assert ranklists.values()["variant"] == ranklists.variant.itemData(1) is not None
    trec = TrecOrderDialog(["run.trec"])
    qtbot.addWidget(trec)
    assert trec.values() == {"trec_order": False}  # file order unless asked
    trec.trec_order.setChecked(True)
    assert trec.values() == {"trec_order": True}


def test_open_assessment_asks_the_reader_options(win, qtbot, monkeypatch):
    monkeypatch.setattr(
        QFileDialog, "getOpenFileName", lambda *a, **k: (str(DEMO / "target.cla"), "")
    )

    def fill(self):
        assert self.kind == "cla"
        self.queries.setText(str(DEMO / "queries.cla"))
        self.graded.setChecked(True)
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(ReaderDialog, "exec", fill)
    win.open_assessment_dialog()
    qtbot.waitUntil(lambda: win.controller.assessment is not None, timeout=10000)
    a = win.controller.assessment
    assert a.n_queries == 30 and a.top_grade == 2  # the query .cla, graded
    assert win.controller.assessment_source.graded


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


def test_a_hidden_tab_catches_up_when_shown_during_a_job(win, qtbot, monkeypatch):
    import time

    import numpy as np
    import shrec_eval.service as service  # the app scores through the service

    win.open_demo()
    wait_idle(qtbot, win, 7)
    real = service.evaluate

    def slow(a, run, options, progress=None, should_stop=None):
        time.sleep(0.2)
        return real(a, run, options, progress=progress, should_stop=should_stop)

    monkeypatch.setattr(service, "evaluate", slow)
    c, pq = win.controller, win.per_query
    c.set_options(EvalOptions(ranks=(7,)))
    pq.mode.setCurrentIndex(1)
    pq.choice.setCurrentIndex(pq.choice.findData("p@7"))

    def runs_with_p7() -> int:  # columns of the per-query table with values
        m = pq.model
        return sum(not np.all(np.isnan(col)) for col in m._arrays)

    assert runs_with_p7() == 0  # nothing scored with the new ranks yet
    win.tabs.setCurrentWidget(win.summary)
    c.score()
    qtbot.waitUntil(
        lambda: sum(e.result.options.ranks == (7,) for e in c.entries.values()) >= 2, timeout=10000
    )
    qtbot.wait(200)  # the coalesced refresh: the Summary shown, Per query hidden
    assert c.busy and runs_with_p7() == 0
    rescored = sum(e.result.options.ranks == (7,) for e in c.entries.values())
    win.tabs.setCurrentWidget(pq)  # shown: it catches up with what is scored so far
    assert runs_with_p7() == rescored >= 2
    wait_idle(qtbot, win)
    assert all(e.result.options.ranks == (7,) for e in c.entries.values())
    assert runs_with_p7() == 7
