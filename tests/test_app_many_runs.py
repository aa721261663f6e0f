"""Many runs in a small screen (what the review-day walk of issue 31
found): a 14-run contest in a 1280 x 720 window (every tab fits, the window
never grows past the screen nor comes back larger than it), the Per class
legend shown whole, and the heatmap naming every run and class."""

import json
import time

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from guitools import retire, settled  # noqa: E402
from PySide6.QtCore import QRect  # noqa: E402
from shrec_eval.resources import demo_manifest  # noqa: E402

from shrec_gui.window import settings  # noqa: E402
from shrec_gui.window.main import MainWindow, app_settings  # noqa: E402

DEMO = demo_manifest().parent
SCREEN = (1280, 720)


def fourteen_runs(folder):
    """The demo's seven runs twice (the second time named "-v2"), with its
    shapes: a 14-run contest file in ``folder``."""
    d = json.loads(demo_manifest().read_text())

    def absolute(entry):
        return {**entry, "path": str(DEMO / entry["path"])}

    d["assessment"] = {**absolute(d["assessment"]), "queries": str(DEMO / "queries.cla")}
    runs = [absolute(r) for r in d["runs"]]
    d["runs"] = runs + [{**r, "name": r["name"] + "-v2"} for r in runs]
    d["shapes"] = absolute(d["shapes"])
    path = folder / "fourteen.json"
    path.write_text(json.dumps(d))
    return path


def spin(app, seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.005)


@pytest.fixture(scope="module")
def big(qapp, tmp_path_factory):
    """A 1280 x 720 window with the 14-run contest scored."""
    w = MainWindow(app_settings())
    w.quiet = True
    w.resize(*SCREEN)
    w.show()
    w.controller.open_session(str(fourteen_runs(tmp_path_factory.mktemp("fourteen"))))
    deadline = time.monotonic() + 120
    while not settled(w, 14):
        assert time.monotonic() < deadline, w.errors
        qapp.processEvents()
        time.sleep(0.005)
    yield w
    retire(w)


def test_fourteen_runs_fit_a_1280x720_screen(big, qapp):
    """M1: no tab asks for more height than a 720 px screen has (with the
    window's title bar), so the window never grows itself past it."""
    room = SCREEN[1] - settings.DECORATION_PX
    for tab in big.all_tabs():
        big.tabs.setCurrentWidget(tab)
        if tab is big.ranked:
            tab.select_query("q01")
            qapp.processEvents()
        spin(qapp, 0.3)
        assert big.size().toTuple() == SCREEN, tab.title
        assert big.minimumSizeHint().height() <= room, tab.title
        assert big.minimumSizeHint().width() <= SCREEN[0], tab.title
        assert tab.minimumSizeHint().height() <= 560, tab.title
    r = big.ranked
    assert len(r.shown_runs()) == 14
    # the run names are thinned where the rows are thinner than a line, never overlap
    left = r.plot.getPlotItem().getAxis("left")
    ticks = left._tickLevels[0]
    pitch = r.plot.getPlotItem().vb.boundingRect().height() / 14
    step = 14 // len(ticks) if len(ticks) < 14 else 1
    assert pitch * step >= r.fontMetrics().height() * 0.9
    # the per-run lines scroll: all there, the view shorter than them
    assert r.info.text().count("\n") == 14
    assert r.info_scroll.height() <= r.info.sizeHint().height() + 4


def test_window_never_restored_larger_than_the_screen(qtbot, monkeypatch):
    """M1: a geometry saved from a taller window (or the 1200 x 760 default)
    is shrunk into the screen's free area."""
    monkeypatch.setattr(settings, "available_area", lambda window: QRect(0, 0, *SCREEN))
    big = MainWindow(app_settings())
    qtbot.addWidget(big)
    big.resize(1280, 1041)
    big.prefs.save_window(big)
    again = MainWindow(app_settings())
    qtbot.addWidget(again)
    assert again.height() <= SCREEN[1] - settings.DECORATION_PX
    assert again.width() <= SCREEN[0]
    frame = again.frameGeometry()
    assert frame.top() >= 0 and frame.left() >= 0
    again.prefs.qsettings.remove("window/geometry")
    fresh = MainWindow(app_settings())
    qtbot.addWidget(fresh)
    assert fresh.height() <= SCREEN[1] - settings.DECORATION_PX


def _legend_drawn(plot_widget) -> tuple:
    """(rect of the legend in the widget, share of its pixels that are text
    or samples, i.e. not the background)."""
    pi = plot_widget.getPlotItem()
    legend = pi.legend
    rect = plot_widget.mapFromScene(legend.sceneBoundingRect()).boundingRect()
    img = plot_widget.grab().toImage()
    box = rect.intersected(img.rect())
    arr = np.array(
        [[img.pixelColor(x, y).lightness() for x in range(box.left(), box.right(), 2)]
         for y in range(box.top(), box.bottom(), 2)]
    )  # fmt: skip
    return rect, box, (arr < 200).mean() if arr.size else 0.0


@pytest.mark.parametrize("n_runs", [14])
def test_class_precision_recall_legend_is_shown(big, qapp, qtbot, n_runs):
    """M2: the Per class plot's legend (outside the axes when the curves
    leave no room inside) is drawn whole, not clipped away by the view box."""
    tab = big.per_class
    big.tabs.setCurrentWidget(tab)
    tab.plots.setCurrentWidget(tab.plot)
    tab.select_class("house")
    spin(qapp, 0.5)
    pi = tab.plot.getPlotItem()
    legend = pi.legend
    assert legend.isVisible() and len(legend.items) == n_runs
    rect, box, ink = _legend_drawn(tab.plot)
    assert box == rect  # whole, inside the widget
    assert ink > 0.02  # and painted: names and samples, not an empty box
    # not over the curves: inside the axes only where no point is
    if tab.legend_place.outside:  # placed once the layout settles (slow on a loaded machine)
        qtbot.waitUntil(
            lambda: legend.sceneBoundingRect().left() >= pi.vb.sceneBoundingRect().right(),
            timeout=10000,
        )


def test_heatmap_names_every_run_and_class_and_tells_each_cell(big, qapp, qtbot, tmp_path):
    """M5: the in-app heatmap names all runs (two rows over the cells, a
    long name cut to its two cells) and all classes (it scrolls), each cell
    says its class, run and value; a custom-size export has its colour scale."""
    from PySide6.QtCore import QPointF

    from shrec_gui.figures.printing import FigureSettings

    tab = big.per_class
    big.tabs.setCurrentWidget(tab)
    tab.plots.setCurrentWidget(tab.heat_scroll)
    spin(qapp, 0.5)
    heat = tab.heat
    pi = heat.getPlotItem()
    assert len(heat.runs) == 14 and len(heat.classes) == 30
    named = pi.getAxis("top")._tickLevels[0] + heat.over._tickLevels[0]
    assert sorted(j for j, _ in named) == list(range(14))
    rows = pi.getAxis("left")._tickLevels[0]
    assert len(rows) == len(heat.classes)  # every class, a line each
    assert heat.height() >= heat.minimumHeight()  # the scroll area holds it whole
    m = tab.model
    for i, j in ((0, 0), (len(heat.classes) - 1, 13), (7, 6)):
        pos = pi.vb.mapViewToScene(QPointF(j, len(heat.classes) - 1 - i))
        tip = heat.tip_at(pos)
        value = m.index(i, 2 + j).data()
        assert tip == f"class {heat.classes[i]}, {heat.runs[j]}: {m.measure_info.short} = {value}"
    assert heat.tip_at(pi.vb.sceneBoundingRect().topLeft() - QPointF(5, 5)) == ""
    # a custom size: the core's heatmap, with every class and the colour scale
    path = tmp_path / "heat.svg"
    custom = FigureSettings(width=900, height=600, font_px=14, fmt="svg", preset="custom")
    with qtbot.waitSignal(big.exports.figureDone, timeout=60000) as done:
        big.exports.export_plot(str(path), "svg", which="class_heatmap", figure=custom)
    assert done.args == [str(path), ""], big.errors
    svg = path.read_text()
    assert "class mean" in svg and "(bright)" in svg  # the colour bar's label
    assert all(f">{c}<" in svg for c in heat.classes)


_KEEP: list = []  # headless windows, alive to the end of the session (guitools.retire)


def drawn_texts(axis) -> list[str]:
    """The tick texts an axis draws (pyqtgraph's own choice: what it would
    leave out for overlapping its ends or its neighbours is not here)."""
    from PySide6.QtGui import QImage, QPainter

    img = QImage(10, 10, QImage.Format.Format_ARGB32)
    p = QPainter(img)
    try:
        specs = axis.generateDrawSpecs(p)
    finally:
        p.end()
    return [] if specs is None else [text for _, _, text in specs[2]]


LONG = "A run whose name is far longer than any strip's room for it, " * 3


@pytest.fixture(scope="module")
def twenty_six(qapp, tmp_path_factory):
    """A 1280 x 720 window with 26 small runs scored (the last with a very
    long name)."""
    from contest_files import write_many_runs

    names = [f"Participant {i}" for i in range(25)] + [LONG]
    path = write_many_runs(tmp_path_factory.mktemp("twenty-six"), 26, names=names)
    w = MainWindow(app_settings())
    w.quiet = True
    w.resize(*SCREEN)
    w.show()
    w.controller.open_session(str(path))
    deadline = time.monotonic() + 120
    while not settled(w, 26):
        assert time.monotonic() < deadline, w.errors
        qapp.processEvents()
        time.sleep(0.005)
    yield w
    retire(w)


def test_every_ranked_list_strip_is_named_with_26_runs(twenty_six, qapp):
    """M5 (round 3): every strip has its run's name on its row, a line of
    text apart (the plot scrolls rather than leave one out); a name too long
    for the room is cut in the middle and whole in the tooltip over it."""
    from PySide6.QtCore import QPointF

    w = twenty_six
    r = w.ranked
    w.tabs.setCurrentWidget(r)
    r.select_query(r.query.itemText(3))
    spin(qapp, 0.5)
    assert w.size().toTuple() == SCREEN and w.minimumSizeHint().height() <= SCREEN[1]
    runs = r.shown_runs()
    assert len(runs) == 26
    pi = r.plot.getPlotItem()
    left = pi.getAxis("left")
    ticks = left._tickLevels[0]
    assert [round(v - 0.5) for v, _ in ticks] == list(range(25, -1, -1))  # one on each row
    names = [t for _, t in ticks]
    assert names[:25] == [run.name for run in runs[:25]]
    assert drawn_texts(left) == names  # drawn, none left out
    pitch = pi.vb.boundingRect().height() / 26
    assert pitch >= r.fontMetrics().height()  # a line of text a row: no overlap
    # the long name: cut in the middle to its room, whole in the tooltip
    assert "…" in names[25] and names[25] != LONG
    assert names[25].startswith(LONG[:10]) and names[25].endswith(LONG[-5:])
    assert r.fontMetrics().horizontalAdvance(names[25]) <= r.plot.width() * 0.4 + 1
    row = left.sceneBoundingRect()
    below = pi.vb.mapViewToScene(QPointF(1, 0.5))  # the last run's row
    assert r.name_at(QPointF(row.center().x(), below.y())) == LONG
    assert r.name_at(QPointF(row.center().x(), pi.vb.mapViewToScene(QPointF(1, 25.5)).y())) == (
        "Participant 0"
    )
    # the plot scrolls in the tab when the window is shorter than its rows
    assert r.plot.minimumHeight() >= 26 * r.fontMetrics().height()


def test_every_measure_bar_is_named_with_26_runs(twenty_six, qapp):
    """M5: the measure bars' run names, all drawn (the first and the last
    reached past the axis' ends and were dropped), cut to fit where they
    must, each whole in the tooltip over its bars."""
    from PySide6.QtCore import QPointF

    w = twenty_six
    cw = w.curves
    w.tabs.setCurrentWidget(cw)
    cw.kind.setCurrentIndex(cw.kind.findData("bars"))
    spin(qapp, 0.5)
    pi = cw.bars.plot.getPlotItem()
    axis = pi.getAxis("bottom")
    ticks = [t for _, t in sorted(axis._tickLevels[0])]
    assert len(ticks) == 26
    assert sorted(drawn_texts(axis)) == sorted(ticks)
    names = [e[0] for e in cw.bars.entries]
    for j in (0, 12, 25):
        pos = pi.vb.mapViewToScene(QPointF(j, 0.5))
        tip = cw.bars.tip_at(pos)
        assert tip.startswith(names[j] + ": ") and "Nearest Neighbour" in tip
    assert cw.bars.tip_at(pi.vb.mapViewToScene(QPointF(30, 0.5))) == ""
    cw.kind.setCurrentIndex(cw.kind.findData("pr"))


def test_the_heatmaps_colour_bar_label_is_drawn_whole(twenty_six, qapp):
    """Low item: at 1280 x 720 the colour bar's label lies inside the
    heatmap (its box reached past the plot's right edge) and along the bar."""
    w = twenty_six
    tab = w.per_class
    w.tabs.setCurrentWidget(tab)
    tab.plots.setCurrentWidget(tab.heat_scroll)
    spin(qapp, 0.5)
    for key in ("nn", "ap_trec_r", "ndcg@100"):
        tab.measure.setCurrentIndex(tab.measure.findData(key))
        spin(qapp, 0.3)
        heat = tab.heat
        label = heat.bar.axis.label
        assert label.isVisible() and "class mean" in heat.bar.axis.labelText
        box = label.mapRectToScene(label.boundingRect())
        whole = heat.mapToScene(heat.rect()).boundingRect()
        assert whole.contains(box), (key, box, whole)
        bar = heat.bar.axis.sceneBoundingRect()
        assert bar.top() <= box.top() and box.bottom() <= bar.bottom(), key
