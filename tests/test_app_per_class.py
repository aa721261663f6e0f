"""The Per-class tab (issue 14): class x run table equal to the engine's
class means and averages, best run marked, sorting with the averages kept
at the bottom, the class's PR curves, the first-tier confusion computed in
the worker, and the Per query filter to a class."""

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from guitools import retire, scored_demo_window  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtGui import QImage  # noqa: E402
from PySide6.QtWidgets import QLabel  # noqa: E402
from shrec_eval.options import AVERAGES  # noqa: E402
from shrec_eval.scoring.confusion import first_tier_confusion, item_classes  # noqa: E402

from shrec_gui.models.per_class import AVERAGE_ROLE, BEST_ROLE, CLASS_ROLE  # noqa: E402
from shrec_gui.models.tables import SORT_ROLE  # noqa: E402


@pytest.fixture(scope="module")
def demo(qapp):
    w = scored_demo_window(qapp)
    w.tabs.setCurrentWidget(w.per_class)
    yield w
    retire(w)


def _results(w) -> dict:
    return {e.name: e.result for e in w.controller.readable_entries()}


def _choose(tab, key: str) -> None:
    tab.measure.setCurrentIndex(tab.measure.findData(key))


def test_cells_are_the_engine_class_means(demo):
    tab, res = demo.per_class, _results(demo)
    _choose(tab, "nn")
    m = tab.model
    names = [m.headerData(c, Qt.Orientation.Horizontal) for c in range(2, m.columnCount())]
    assert sorted(names) == sorted(res)
    first = next(iter(res.values()))
    assert m.classes == list(first.per_class)
    assert len(m.classes) > 1
    for r, c in enumerate(m.classes):
        assert m.index(r, 0).data() == c and m.index(r, 0).data(CLASS_ROLE) == c
        assert m.index(r, 1).data(SORT_ROLE) == first.per_class[c]["queries"]
        for col, name in enumerate(names, start=2):
            want = res[name].per_class[c]["nn"]
            assert m.index(r, col).data(SORT_ROLE) == pytest.approx(want, abs=1e-15)
            assert m.index(r, col).data() == f"{want:.4f}"
    # the averages' rows are the engine's, not recomputed
    for i, kind in enumerate(AVERAGES):
        r = len(m.classes) + i
        assert m.index(r, 0).data(AVERAGE_ROLE) and m.index(r, 0).data(CLASS_ROLE) is None
        for col, name in enumerate(names, start=2):
            want = res[name].averages[kind]["nn"]
            assert m.index(r, col).data(SORT_ROLE) == pytest.approx(want, abs=1e-15)


def test_best_run_per_class_is_marked(demo):
    tab, res = demo.per_class, _results(demo)
    _choose(tab, "ft_psb")
    m = tab.model
    names = [m.headerData(c, Qt.Orientation.Horizontal) for c in range(2, m.columnCount())]
    for r, c in enumerate(m.classes):
        vals = {n: res[n].per_class[c]["ft_psb"] for n in names}
        top = max(v for v in vals.values() if v is not None)
        marked = {n for col, n in enumerate(names, start=2) if m.index(r, col).data(BEST_ROLE)}
        assert marked == {n for n, v in vals.items() if v == top}
        for col, n in enumerate(names, start=2):
            brush = m.index(r, col).data(Qt.ItemDataRole.BackgroundRole)
            assert (brush is not None) == (n in marked)


def test_sorting_keeps_the_averages_at_the_bottom(demo):
    tab = demo.per_class
    _choose(tab, "nn")
    p = tab.proxy
    n_classes = len(tab.model.classes)
    for order in (Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder):
        tab.view.sortByColumn(2, order)
        flags = [bool(p.index(r, 0).data(AVERAGE_ROLE)) for r in range(p.rowCount())]
        assert flags == [False] * n_classes + [True] * len(AVERAGES)
        vals = [p.index(r, 2).data(SORT_ROLE) for r in range(n_classes)]
        assert vals == sorted(vals, reverse=order == Qt.SortOrder.DescendingOrder)
    tab.view.sortByColumn(0, Qt.SortOrder.AscendingOrder)


def test_class_pr_curves_are_class_means_of_the_query_curves(demo):
    tab, res = demo.per_class, _results(demo)
    c = tab.model.classes[1]
    tab.select_class(c)
    curves = tab.class_curves()
    assert len(curves) == len(res)
    for name, _, x, y in curves:
        r = res[name]
        rows = [q for q, k in enumerate(r.query_classes) if k == c and r.included[q]]
        want = np.nanmean(r.curves["pr"].per_query[rows], axis=0)
        np.testing.assert_allclose(y, want[~np.isnan(want)], atol=1e-12)
        np.testing.assert_allclose(x, r.curves["pr"].x[~np.isnan(want)])


def test_clicking_a_class_filters_per_query(demo, qtbot):
    tab, pq = demo.per_class, demo.per_query
    c = tab.model.classes[2]
    tab.select_class(c)
    assert pq.proxy.query_class == c
    m = pq.model
    col = 1  # after the query
    assert m.headerData(col, Qt.Orientation.Horizontal) == "Class"
    shown = [pq.proxy.index(r, col).data() for r in range(pq.proxy.rowCount())]
    want = [k for k in m.query_classes if k == c]
    assert shown == want and 0 < len(shown) < m.rowCount()
    pq.clear_filter.click()
    assert pq.proxy.rowCount() == m.rowCount()


def test_first_tier_confusion_equals_a_hand_count(demo, qtbot):
    tab = demo.per_class
    c = tab.model.classes[0]
    tab.run.setCurrentIndex(1)
    key = tab.run.currentData()
    tab.select_class(c)
    qtbot.waitUntil(lambda: tab.confusion.confusion is not None, timeout=10000)
    got = tab.confusion.confusion
    assert got.query_class == c and got.run_name == tab.run.currentText()
    # the hand count: the first R items of each query's list, R = its relevant items
    worker = demo.controller.scoring.worker
    a, run = worker._assessment, worker._by_key[key]
    assert got == first_tier_confusion(a, run, c)
    cls = item_classes(a)
    res = _results(demo)[tab.run.currentText()]
    from shrec_eval import query_detail

    hand: dict = {}
    slots = 0
    for q, k in zip(a.query_ids, a.query_classes):
        if k != c:
            continue
        d = query_detail(a, run, q)
        tier = d.ch + d.cm
        slots += tier
        for i in d.item_indices[:tier]:
            hand[cls[i]] = hand.get(cls[i], 0) + 1
    assert res is not None and got.slots == slots
    assert {k: v for k, v in got.counts.items() if not k.startswith("(")} == hand
    m = tab.confusion
    rows = {m.index(r, 0).data(): m.index(r, 1).data(SORT_ROLE) for r in range(m.rowCount())}
    assert rows == got.counts
    shares = [m.index(r, 2).data(SORT_ROLE) for r in range(m.rowCount())]
    assert sum(shares) == pytest.approx(1.0)


def test_models_pass_qtmodeltester(demo, qtmodeltester):
    qtmodeltester.check(demo.per_class.model)
    qtmodeltester.check(demo.per_class.confusion)
    qtmodeltester.check(demo.per_query.model)


def _mean_lightness(img) -> float:
    """The mean lightness (0-255) of a grabbed widget, sampled every 9 px."""
    img = img.toImage() if hasattr(img, "toImage") else img
    values = [
        img.pixelColor(x, y).lightness()
        for x in range(0, img.width(), 9)
        for y in range(0, img.height(), 9)
    ]
    return sum(values) / len(values)


def test_light_and_dark_screenshots_differ_as_the_theme_says(demo, qtbot, tmp_path):
    """The tab in both themes (the PNGs are kept in tmp_path to look at):
    the dark theme is darker overall, and the heatmap page shows another
    picture than the bar plot."""
    tab = demo.per_class
    demo.resize(1500, 900)
    _choose(tab, "ft_psb")
    tab.select_class(tab.model.classes[0])
    qtbot.waitUntil(lambda: tab.confusion.confusion is not None, timeout=10000)
    light = {}
    for dark in (False, True):
        demo.set_dark(dark)
        tab.heatmap.setChecked(dark)
        qtbot.wait(50)  # the palette change reaches the widgets
        name = "dark" if dark else "light"
        plot = demo.grab()
        assert plot.save(str(tmp_path / f"per-class-{name}.png"))
        tab.plots.setCurrentWidget(tab.heat_scroll)
        qtbot.wait(50)
        heat = demo.grab()
        assert heat.save(str(tmp_path / f"per-class-heatmap-{name}.png"))
        assert heat.toImage() != plot.toImage()  # the heatmap page is shown
        tab.plots.setCurrentWidget(tab.plot)
        light[name] = _mean_lightness(plot)
    assert light["dark"] < light["light"] - 40, light
    demo.set_dark(False)
    tab.heatmap.setChecked(False)


def test_heatmap_plot_exports_as_a_figure(demo, qtbot, tmp_path):
    tab = demo.per_class
    _choose(tab, "nn")
    m, rgb = tab.model, tab.heat.rgb
    assert rgb.shape == (len(m.entries), len(m.classes), 3)
    c = m.heat_brush(m.rows[3][2]).color()
    assert tuple(rgb[2, len(m.classes) - 1 - 3]) == (c.red(), c.green(), c.blue())  # y up
    ticks = dict(tab.heat.getPlotItem().getAxis("left")._tickLevels[0])
    assert ticks[len(m.classes) - 1] == m.classes[0]  # the first class on top
    tab.plots.setCurrentWidget(tab.heat_scroll)
    assert tab.shown_plot() == "class_heatmap"
    path = tmp_path / "heatmap.png"
    with qtbot.waitSignal(demo.exports.figureDone, timeout=60000) as done:
        demo.exports.export_plot(str(path), "png", width=900, which="class_heatmap")
    assert done.args == [str(path), ""], demo.errors
    img = QImage(str(path))
    assert img.width() == 900
    # the viridis cells came through in colour (not grey, not a blank figure)
    colours = {
        img.pixelColor(x, y).name() for x in range(0, 900, 7) for y in range(0, img.height(), 7)
    }
    assert len(colours) > 20
    tab.plots.setCurrentWidget(tab.plot)


def test_class_plot_says_what_it_will_show_and_frames_are_explained(demo, qtbot):
    """L8: before a class is clicked the plot says to click one (and its
    export asks for one); L7: the thumbnails' frame colours are named."""
    from shrec_gui.widgets.thumbnails import QUERY_COLOUR

    tab = demo.per_class
    demo.tabs.setCurrentWidget(tab)
    tab.show_class(None)
    assert tab.empty_note.isVisible() and "Click a class" in tab.empty_note.textItem.toPlainText()
    demo.exports.export_plot_dialog("figure", "class_pr")  # no dialog: a word in the status
    assert "Click a class" in demo.status_label.text()
    tab.select_class("house")
    assert not tab.empty_note.isVisible()
    square = "#{:02x}{:02x}{:02x}".format(*QUERY_COLOUR)
    assert square in tab.class_shapes.key.text() and "queries" in tab.class_shapes.key.text()
    strips_key = [
        w.text() for w in demo.ranked.thumbs.findChildren(QLabel) if w.text().startswith("Frames:")
    ]
    assert strips_key and square in strips_key[0] and "the query" in strips_key[0]
