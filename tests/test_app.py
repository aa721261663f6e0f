"""The desktop app, offscreen with pytest-qt: the demo scored in the worker
and compared cell by cell with the engine, numeric sorting, cancel, bad
files, drag and drop, sessions, exports, and qtmodeltester on every model."""

import csv
import json
import time
import xml.etree.ElementTree as ET

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from guitools import wait_idle  # noqa: E402
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl  # noqa: E402
from PySide6.QtGui import QDropEvent, QGuiApplication, QImage  # noqa: E402
from shrec_eval import EvalOptions, evaluate  # noqa: E402
from shrec_eval.contest import CONTEST_VERSION, AssessmentSource, Contest, RunSource  # noqa: E402
from shrec_eval.reading.readers import load_assessment, load_run  # noqa: E402
from shrec_eval.resources import resource_path  # noqa: E402

from shrec_gui.models.per_query import PerQueryModel  # noqa: E402
from shrec_gui.models.tables import SORT_ROLE, SummaryModel, WarningsModel  # noqa: E402
from shrec_gui.state import view_state  # noqa: E402
from shrec_gui.window.dialogs import about_text  # noqa: E402
from shrec_gui.window.main import MainWindow, app_settings  # noqa: E402

DEMO = resource_path("demo")


@pytest.fixture
def fresh(win, qtbot):
    """A window of its own with the demo scored, for tests that change it."""
    win.open_demo()
    wait_idle(qtbot, win, 7)
    return win


@pytest.fixture(scope="module")
def engine_results():
    a = load_assessment(DEMO / "target.cla", queries=DEMO / "queries.cla", graded=True)
    spec = json.loads((DEMO / "contest.json").read_text())
    return {
        r["name"]: evaluate(a, load_run(DEMO / r["path"], a, name=r["name"])) for r in spec["runs"]
    }


def test_demo_cells_equal_the_engine(demo, engine_results):
    m = demo.summary.model
    assert m.rowCount() == 7
    for row in range(m.rowCount()):
        name = m.index(row, 0).data()
        ref = engine_results[name]
        for col, key in enumerate(m.keys, start=m.FIRST):
            idx = m.index(row, col)
            assert idx.data(SORT_ROLE) == pytest.approx(ref.mean(key), abs=1e-12), (name, key)
            assert idx.data() == f"{ref.mean(key):.4f}"
    assert "7 of 7 runs scored" in demo.status_label.text()
    assert not demo.errors


def test_best_value_per_column_is_highlighted(demo):
    m = demo.summary.model
    col = m.column("ap_trec_r")
    best = [
        m.index(r, 0).data()
        for r in range(m.rowCount())
        if m.index(r, col).data(Qt.ItemDataRole.BackgroundRole) is not None
    ]
    assert best == ["SpectralNet"]


def test_sorting_is_numeric(demo, qtbot):
    view, proxy = demo.summary.view, demo.summary.proxy
    col = demo.summary.model.column("e_measure")
    for order in (Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder):
        view.sortByColumn(col, order)
        vals = [proxy.index(r, col).data(SORT_ROLE) for r in range(proxy.rowCount())]
        assert vals == sorted(vals, reverse=order == Qt.SortOrder.DescendingOrder)
    # undefined values sort last in both orders
    pq = demo.per_query.proxy
    demo.per_query.mode.setCurrentIndex(1)
    demo.per_query.choice.setCurrentIndex(demo.per_query.choice.findData("ap_hr"))
    first = demo.per_query.model.first  # the first run's column, after query and class
    demo.per_query.view.sortByColumn(first, Qt.SortOrder.AscendingOrder)
    vals = [pq.index(r, first).data(SORT_ROLE) for r in range(pq.rowCount())]
    defined = [v for v in vals if v is not None]
    assert vals[: len(defined)] == sorted(defined)


def test_per_query_views(demo, engine_results):
    demo.per_query.mode.setCurrentIndex(0)
    demo.per_query.choice.setCurrentIndex(demo.per_query.choice.findText("VoxelMoments"))
    m = demo.per_query.model
    assert m.rowCount() == 30
    ref = engine_results["VoxelMoments"]
    col = m.first + m.keys.index("adr")
    for r in range(30):
        assert m.index(r, col).data(SORT_ROLE) == pytest.approx(ref.column("adr")[r])
    demo.per_query.mode.setCurrentIndex(1)
    demo.per_query.choice.setCurrentIndex(demo.per_query.choice.findData("adr"))
    assert m.mode == "measure" and m.columnCount() == 2 + 7 + 1  # query, class, runs, ranking
    for r in range(30):
        ranking = m.index(r, m.first + 7).data().split(" > ")
        vals = {n: res.column("adr")[r] for n, res in engine_results.items()}
        assert ranking == sorted(vals, key=lambda n: -vals[n])


def test_models_pass_qtmodeltester(demo, qtmodeltester):
    qtmodeltester.check(demo.summary.model)
    qtmodeltester.check(demo.checks.model)
    demo.per_query.mode.setCurrentIndex(0)
    qtmodeltester.check(demo.per_query.model)
    demo.per_query.mode.setCurrentIndex(1)
    qtmodeltester.check(demo.per_query.model)
    for model in (SummaryModel(), PerQueryModel(), WarningsModel()):
        qtmodeltester.check(model)


def test_warnings_panel_lists_data_checks(demo):
    m = demo.checks.model
    rows = [(m.index(r, 0).data(), m.index(r, 1).data()) for r in range(m.rowCount())]
    assert ("LightField-200", "truncated_lists") in rows
    assert ("ShapeHistogram", "ids_normalised") in rows


def test_ranked_list_shows_where_relevant_items_landed(demo, qtbot, engine_results):
    """Every run's list of the query, stacked (tests/test_app_lists.py checks
    the items); one run's alone when it is picked."""
    ranked = demo.ranked
    demo.tabs.setCurrentWidget(ranked)
    qtbot.waitUntil(lambda: ranked.lists is not None, timeout=5000)
    assert ranked.info.text().startswith("Query q01")
    assert [r.name for r in ranked.shown_runs()] == list(engine_results)
    assert len(ranked.strips) == 7
    ranked.run.setCurrentIndex(ranked.run.findText("LightField-200"))
    assert "LightField-200: 98 of 107 relevant items in a list of 200" in ranked.info.text()
    assert len(ranked.strips) == 1 and ranked.strips[0].image.shape[0] == 200
    ranked.run.setCurrentIndex(0)


def test_curves_show_every_run_with_a_legend(demo):
    c = demo.curves
    assert [n for n, *_ in c.curve_data()] == [e.name for e in demo.controller.entries.values()]
    assert len(c.plot_item.legend.items) == 7
    c.select_query("q05")
    name, colour, x, y = c.curve_data()[0]
    ref = demo.controller.entries[next(iter(demo.controller.entries))].result
    np.testing.assert_allclose(y, ref.curves["pr"].per_query[4])
    c.kind.setCurrentIndex(c.kind.findData("ndcg"))
    assert len(c.curve_data()[0][2]) == 100


def test_exports_write_valid_files(demo, tmp_path):
    png, svg, pcsv, tcsv = (tmp_path / n for n in ("pr.png", "pr.svg", "pr.csv", "t.csv"))
    demo.exports.export_plot(str(png), "png", 1200)
    img = QImage(str(png))
    assert not img.isNull() and img.width() == 1200
    assert img.pixelColor(3, 3).name() == "#ffffff"  # white background for papers
    demo.exports.export_plot(str(svg), "svg")
    assert ET.parse(svg).getroot().tag.endswith("svg")
    demo.exports.export_plot(str(pcsv), "csv")
    rows = list(csv.reader(pcsv.open()))
    assert len(rows) >= 21 and len(rows[0]) == 14  # x and y of 7 curves
    demo.exports.export_tab(demo.summary, str(tcsv))
    rows = list(csv.reader(tcsv.open()))
    assert rows[0][0] == "Run" and len(rows) == 8
    assert not [p for p in tmp_path.iterdir() if ".part." in p.name]


def test_the_heatmaps_csv_holds_its_cells(demo, tmp_path):
    """Export CSV… with the heatmap shown: a row per class, a column per run,
    each cell the class mean it is coloured by (the Per class table's
    values), not the empty file of a plot without curves."""
    tab = demo.per_class
    tab.plots.setCurrentIndex(1)  # Heatmap (all classes)
    assert tab.shown_plot() == "class_heatmap"
    path = tmp_path / "heat.csv"
    demo.exports.export_plot(str(path), "csv", which="class_heatmap")
    rows = list(csv.reader(path.open()))
    model = tab.model
    runs = [e[1] for e in model.entries]
    assert rows[0] == [f"class ({model.measure_info.key}, class mean)", *runs]
    assert [r[0] for r in rows[1:]] == list(model.classes) and len(runs) == 7
    for r, values in zip(rows[1:], model.rows):
        assert len(r) == 1 + len(runs)
        for cell, v in zip(r[1:], values):
            assert (cell == "") if v is None else float(cell) == pytest.approx(v, abs=1e-10)
    assert any(cell for r in rows[1:] for cell in r[1:])
    tab.plots.setCurrentIndex(0)


def test_copy_selection_as_tsv(demo):
    v = demo.summary.view
    v.selectAll()
    demo.tabs.setCurrentIndex(0)
    v.setFocus()
    demo.copy_selection()
    text = QGuiApplication.clipboard().text()
    lines = text.splitlines()
    assert len(lines) == 8 and lines[0].split("\t")[:2] == ["Run", "Rank"]
    assert all(len(ln.split("\t")) == 2 + len(demo.summary.model.keys) for ln in lines)


def test_session_round_trip(fresh, qtbot, tmp_path, dialogs):
    fresh.controller.entries[next(iter(fresh.controller.entries))].colour = "#123456"
    fresh.controller.set_options(EvalOptions(ranks=(5, 10), pr_levels=11))
    fresh.controller.score()
    wait_idle(qtbot, fresh, 7)
    path = tmp_path / "s" / "session.json"
    path.parent.mkdir()
    assert fresh.controller.save_session(str(path))
    doc = json.loads(path.read_text())
    assert doc["version"] == CONTEST_VERSION and doc["options"]["ranks"] == [5, 10]
    # relative to the session, or absolute where the two share nothing below the root
    written = Contest.read(path).assessment.path
    assert written.resolve() == (DEMO / "target.cla").resolve()
    assert doc["options"]["ranks"] == [5, 10]
    other = MainWindow(app_settings())
    qtbot.addWidget(other)
    other.controller.open_session(str(path))
    wait_idle(qtbot, other, 7)
    a = [(e.name, e.colour, e.result.means) for e in fresh.controller.entries.values()]
    b = [(e.name, e.colour, e.result.means) for e in other.controller.entries.values()]
    assert a == b and other.controller.options.ranks == (5, 10)
    other.close()
    bad = tmp_path / "bad.json"
    bad.write_text('{"assessment": 3}')
    other2 = MainWindow(app_settings())
    qtbot.addWidget(other2)
    other2.controller.open_session(str(bad))  # read off the GUI thread
    qtbot.waitUntil(lambda: bool(dialogs))
    assert dialogs and "assessment" in dialogs[-1][1]
    other2.close()


def test_bad_run_shows_the_reader_message_and_keeps_results(fresh, qtbot, tmp_path, dialogs):
    before = {k: e.result for k, e in fresh.controller.entries.items()}
    bad = tmp_path / "bad.txt"
    bad.write_text("1.0 2.0\n3.0 x\n")
    fresh.controller.add_runs([RunSource(str(bad), format="ascii-matrix")])
    wait_idle(qtbot, fresh)
    assert len(dialogs) == 1 and "bad.txt" in dialogs[-1][1] and "line 1" in dialogs[-1][1]
    assert {k: fresh.controller.entries[k].result for k in before} == before
    failed = [e for e in fresh.controller.entries.values() if e.error]
    assert len(failed) == 1 and failed[0].result is None and "line 1" in failed[0].error
    assert fresh.summary.model.rowCount() == 7  # not a row of the results
    rows = [
        (fresh.checks.model.index(r, 0).data(), fresh.checks.model.index(r, 1).data())
        for r in range(fresh.checks.model.rowCount())
    ]
    assert ("bad", "unreadable") in rows  # listed with the data checks, named as a run is (M9)
    assert "could not be read" in fresh.status_label.text()


def test_bad_assessment_keeps_the_current_one(fresh, qtbot, tmp_path, dialogs):
    a = fresh.controller.assessment
    bad = tmp_path / "bad.cla"
    bad.write_text("PSB 1\n1 2\na b 2\n1\n2\n")
    fresh.controller.open_assessment(AssessmentSource(str(bad)))
    wait_idle(qtbot, fresh)
    assert fresh.controller.assessment is a and len(fresh.controller.entries) == 7
    assert "line 3" in dialogs[-1][1] and "parent 'b'" in dialogs[-1][1]
    assert all(e.result is not None for e in fresh.controller.entries.values())


def test_cancel_mid_run_keeps_earlier_results(fresh, qtbot, monkeypatch):
    import shrec_eval.service as service  # the app scores through the service

    real = service.evaluate

    def slow(a, run, options, progress=None, should_stop=None):
        def stop():
            time.sleep(0.02)
            return should_stop()

        return real(
            a, run, EvalOptions(ranks=(7,), memory_budget=1), progress=progress, should_stop=stop
        )

    monkeypatch.setattr(service, "evaluate", slow)
    before = {k: e.result for k, e in fresh.controller.entries.items()}
    fresh.controller.set_options(EvalOptions(ranks=(7,)))  # F5 scores what changed
    fresh.controller.score()
    first = next(iter(fresh.controller.entries))
    qtbot.waitUntil(
        lambda: fresh.controller.entries[first].result is not before[first], timeout=10000
    )
    fresh.controller.cancel()  # how fast: tests/benchmarks/bench_gui.py
    wait_idle(qtbot, fresh)
    assert "Cancelled; earlier results kept" in fresh.status_label.text()
    assert all(e.result is not None for e in fresh.controller.entries.values())
    changed = [k for k in before if fresh.controller.entries[k].result is not before[k]]
    assert 1 <= len(changed) < 7


def test_drag_and_drop_of_assessment_and_runs(win, qtbot):
    mime = QMimeData()
    mime.setUrls(
        [
            QUrl.fromLocalFile(str(DEMO / p))
            for p in ("spectralnet.txt", "target.cla", "lightfield-200")
        ]
    )
    ev = QDropEvent(
        QPointF(10, 10),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    win.dropEvent(ev)
    qtbot.waitUntil(lambda: win.controller.assessment is not None, timeout=10000)
    wait_idle(qtbot, win)
    # told apart by content: the .cla is the assessment (leave-one-out, 1101
    # queries); the 30 x 1101 ASCII matrix does not fit it and is refused with
    # the reader's message; the rank-list folder is scored
    assert win.controller.assessment.n_queries == 1101
    assert win.errors and "spectralnet.txt" in win.errors[0] and "1101 x 1101" in win.errors[0]
    scored = [e.name for e in win.controller.entries.values() if e.result is not None]
    failed = [e.name for e in win.controller.entries.values() if e.error is not None]
    assert scored == ["lightfield-200"] and failed == ["spectralnet"]  # its name, M9


def test_settings_remember_folder_recent_and_theme(demo, tmp_path):
    s = app_settings()
    assert s.value("files/lastFolder")
    demo.controller.save_session(str(tmp_path / "x.json"))
    assert str((tmp_path / "x.json").resolve()) in app_settings().value("files/recent")
    demo.set_dark(True)
    assert app_settings().value("view/dark", type=bool) is True
    demo.set_dark(False)


def test_the_theme_is_set_only_when_it_changes(qapp, monkeypatch):
    """A new window applies the theme again: the style and the palette are
    set only when they differ (setting either re-polishes every widget of
    every window, so each new window paid for all the others), and a change
    of theme still sets the palette."""
    from PySide6.QtGui import QPalette

    from shrec_gui.widgets.focus import FocusStyle
    from shrec_gui.window.settings import apply_theme

    apply_theme(False)
    assert isinstance(qapp.style(), FocusStyle)
    calls = []
    real_style, real_palette = qapp.setStyle, qapp.setPalette
    monkeypatch.setattr(qapp, "setStyle", lambda s: calls.append("style") or real_style(s))
    monkeypatch.setattr(qapp, "setPalette", lambda p: calls.append("palette") or real_palette(p))
    light = qapp.palette().color(QPalette.ColorRole.Window)
    apply_theme(False)
    assert calls == []  # the same theme: nothing re-polished
    apply_theme(True)
    assert calls == ["palette"] and qapp.palette().color(QPalette.ColorRole.Window) != light
    apply_theme(False)
    assert calls == ["palette", "palette"]
    assert qapp.palette().color(QPalette.ColorRole.Window) == light


def test_close_stops_the_worker_thread(qtbot):
    w = MainWindow(app_settings())
    qtbot.addWidget(w)
    w.open_demo()
    w.close()
    assert w.controller.thread.isFinished()


def test_about_names_the_versions():
    text = about_text()
    assert "Qt" in text and "numpy" in text and "pyqtgraph" in text


def test_significance_tab_shows_core_stats(demo, qtbot, tmp_path, engine_results):
    from shrec_eval.scoring.stats import compare

    sig = demo.significance
    sig.measure.setCurrentIndex(sig.measure.findData("adr"))
    sig.resamples.setValue(500)
    sig.request()
    qtbot.waitUntil(lambda: sig.comparison is not None, timeout=20000)
    ref = compare(
        [engine_results[e.name] for e in demo.controller.entries.values()],
        "adr",
        resamples=500,
        seed=0,
    )
    m = sig.pmodel
    assert m.names == [r.name for r in ref.ranking()]
    test = sig.test.currentData()
    for i, a in enumerate(m.names):
        for j, b in enumerate(m.names):
            if i != j:
                want = ref.pair(a, b).p_corrected[test]
                assert m.index(i, j).data(SORT_ROLE) == pytest.approx(want)
    sig.run_a.setCurrentIndex(sig.run_a.findText("SpectralNet"))
    sig.run_b.setCurrentIndex(sig.run_b.findText("RandomBaseline"))
    assert "SpectralNet better on 30 queries" in sig.h2h_label.text()
    for which in ("means", "h2h"):
        for fmt in ("png", "svg", "csv"):
            path = tmp_path / f"{which}.{fmt}"
            demo.exports.export_plot(str(path), fmt, 900, which)
            assert path.stat().st_size > 100
    assert QImage(str(tmp_path / "means.png")).width() == 900


def test_pvalue_model_passes_qtmodeltester(demo, qtbot, qtmodeltester):
    sig = demo.significance
    sig.resamples.setValue(200)
    sig.request()
    qtbot.waitUntil(lambda: sig.comparison is not None, timeout=20000)
    qtmodeltester.check(sig.pmodel)


def test_a_superseded_assessment_is_not_adopted(fresh, qtbot):
    """Opening an assessment and, at once, another: the worker and the
    window agree on the one opened last."""
    fresh.controller.open_assessment(AssessmentSource(str(DEMO / "target.cla")))  # 1101 queries
    fresh.controller.open_assessment(
        AssessmentSource(str(DEMO / "target.cla"), queries=str(DEMO / "queries.cla"), graded=True)
    )

    def adopted() -> bool:  # the condition itself, not a guess of how long it takes
        c = fresh.controller
        return (
            c.idle()
            and fresh.caught_up()
            and c.assessment.n_queries == 30
            and len(c.entries) == 7
            and all(e.result is not None for e in c.entries.values())
            and all(len(e.result.query_ids) == 30 for e in c.entries.values())
        )

    qtbot.waitUntil(adopted, timeout=60000)
    assert not fresh.errors


def test_adding_runs_while_scoring_abandons_nothing(win, qtbot):
    win.open_demo()
    qtbot.waitUntil(lambda: win.controller.assessment is not None, timeout=10000)
    win.controller.add_runs([RunSource(str(DEMO / "viewharmonics.trec"), name="Extra")])
    wait_idle(qtbot, win, 8)
    assert "8 of 8 runs scored" in win.status_label.text()


def test_a_failed_session_changes_nothing(fresh, qtbot, tmp_path, dialogs):
    good = tmp_path / "good.json"
    view, name = view_state.capture(fresh), fresh.contest_name
    assert fresh.controller.save_session(str(good), view, name)  # as Ctrl+S
    text = good.read_text()
    broken = tmp_path / "broken.json"
    doc = json.loads(text)
    doc["assessment"]["path"] = "missing.cla"
    doc["options"]["ranks"] = [7]
    broken.write_text(json.dumps(doc))
    fresh.controller.open_session(str(broken))
    wait_idle(qtbot, fresh)
    assert "missing.cla" in dialogs[-1][1]
    assert fresh.controller.session_path == str(good) and fresh.controller.options.ranks == (
        5,
        10,
        25,
        50,
        100,
    )
    fresh.dialogs.save_session_action()
    assert good.read_text() == text  # Ctrl+S still writes the session that is open


def test_a_changed_run_file_is_read_again(fresh, qtbot, tmp_path):
    import shutil

    mine = tmp_path / "mine.trec"
    shutil.copy(DEMO / "viewharmonics.trec", mine)
    fresh.controller.add_runs([RunSource(str(mine), name="Mine")])
    wait_idle(qtbot, fresh, 8)
    first = next(e for e in fresh.controller.entries.values() if e.source.name == "Mine").result
    shutil.copy(DEMO / "randombaseline.trec", mine)
    fresh.controller.score()
    wait_idle(qtbot, fresh, 8)
    again = next(e for e in fresh.controller.entries.values() if e.source.name == "Mine").result
    assert again.mean("adr") < first.mean("adr") / 2


def test_two_runs_of_one_name_get_distinct_names(fresh, qtbot):
    fresh.controller.add_runs([RunSource(str(DEMO / "viewharmonics.trec"))])
    wait_idle(qtbot, fresh, 8)
    names = [e.name for e in fresh.controller.entries.values()]
    # as the command line names them (shrec_eval.service.final_names): the file
    # name added, then a number, since both files are viewharmonics.trec
    assert names.count("ViewHarmonics") == 0
    assert "ViewHarmonics (viewharmonics.trec) #1" in names
    assert "ViewHarmonics (viewharmonics.trec) #2" in names
    fresh.controller.remove(
        [k for k, e in fresh.controller.entries.items() if e.name.endswith("#2")]
    )
    assert "ViewHarmonics" in [e.name for e in fresh.controller.entries.values()]


def test_options_change_then_cancel_keeps_tabs_working(fresh, qtbot, monkeypatch):
    import shrec_eval.service as service  # the app scores through the service

    real = service.evaluate

    def slow(a, run, options, progress=None, should_stop=None):
        def stop():
            time.sleep(0.02)
            return should_stop()

        return real(a, run, options, progress=progress, should_stop=stop)

    monkeypatch.setattr(service, "evaluate", slow)
    fresh.controller.set_options(EvalOptions(ranks=(7,), memory_budget=1))
    fresh.controller.score()
    first = next(iter(fresh.controller.entries))
    qtbot.waitUntil(
        lambda: fresh.controller.entries[first].result.options.ranks == (7,), timeout=10000
    )
    fresh.controller.cancel()
    wait_idle(qtbot, fresh)
    fresh.per_query.mode.setCurrentIndex(1)
    fresh.per_query.choice.setCurrentIndex(fresh.per_query.choice.findData("p@7"))
    assert fresh.per_query.model.rowCount() == 30
    fresh.significance.request()
    assert (
        "At least two runs" in fresh.significance.status.text()
        or fresh.significance.comparison is None
    )
    assert "runs scored with the current options" in fresh.status_label.text()


def test_a_long_comparison_is_cancelled_on_close(qtbot):
    w = MainWindow(app_settings())
    qtbot.addWidget(w)
    w.open_demo()
    wait_idle(qtbot, w, 7)
    w.significance.resamples.setValue(1_000_000)
    w.significance.request()
    time.sleep(0.3)
    w.close()  # returns once the comparison stopped (how fast: the benchmark)
    assert w.controller.thread.isFinished()


def demo_window(win, qtbot, width=1200):
    win.resize(width, 760)
    win.open_demo()
    wait_idle(qtbot, win, 7)
    return win


def test_significance_says_what_to_do_when_every_run_is_scored(win, qtbot):
    w = demo_window(win, qtbot)
    w.tabs.setCurrentWidget(w.significance)
    text = w.significance.status.text()
    assert "Score runs" not in text and text.startswith("7 runs scored")
    w.controller.remove(list(w.controller.entries)[1:])
    wait_idle(qtbot, w)
    assert w.significance.status.text().startswith("At least two scored runs")


def test_help_menu_has_the_shortcuts_and_the_reference(win, qtbot):
    """L12: Help offers the keyboard shortcuts (F1; read from the menus, so
    every entry with keys is there), the measures, profiles and file
    formats, then About."""
    from shrec_eval.profiles import REGISTRY
    from shrec_eval.scoring.measures import MEASURES

    from shrec_gui.window.help import menu_shortcuts, open_help

    (help_menu,) = [a.menu() for a in win.menuBar().actions() if a.text() == "&Help"]
    texts = [a.text() for a in help_menu.actions() if not a.isSeparator()]
    assert texts == [
        "Keyboard shortcuts…",
        "Measures…",
        "Evaluator profiles…",
        "File formats…",
        "&About",
    ]
    assert help_menu.actions()[0].shortcut().toString() == "F1"
    rows = menu_shortcuts(win.menuBar())
    assert ("Scoring", "Score all runs", "F5") in rows and ("File", "Add runs", "Ctrl+R") in rows
    d = open_help(win, "shortcuts")
    qtbot.addWidget(d)
    page = d.pages["shortcuts"].toPlainText()
    for _, what, keys in rows:
        assert what in page and keys in page
    assert open_help(win, "measures") is d  # one help dialog per window, kept
    assert d.tabs.currentWidget() is d.pages["measures"]
    text = d.pages["measures"].toPlainText()
    assert all(m.key.replace("{k}", "K") in text for m in MEASURES)
    # the measure families, each parameter with its values; the keys' forms
    from shrec_eval.scoring.families import FAMILY_LIST

    for f in FAMILY_LIST:
        assert f"{f.label}: {f.definition}" in text
        for p in f.params:
            assert f"{p.name}: {p.default}: {p.values[p.default]}" in text
    assert "ndcg(gain=binary)" in text and "ap(divide=found)" in text
    assert all(name in d.pages["profiles"].toPlainText() for name in REGISTRY)
    assert "binary-matrix" in d.pages["formats"].toPlainText()
