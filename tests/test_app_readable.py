"""The app's plots and tables readable at 1,200 px: the per-class heatmap
with its colour bar, a whole title and labels that never overlap; heatmap
cell text chosen for contrast in light and dark themes; the first-tier
table's header whole; run names under bars at full size and apart; legends
off the data."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

import numpy as np  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtGui import QFontMetricsF  # noqa: E402
from shrec_eval.outputs.figures import contrast_ratio  # noqa: E402

from shrec_gui.plots.name_ticks import fit_names  # noqa: E402


def spin(qapp, n=30):
    import time

    for _ in range(n):
        qapp.processEvents()
        time.sleep(0.005)


@pytest.fixture(scope="module")
def window(demo, qapp):
    demo.resize(1200, 800)
    demo.tabs.setCurrentWidget(demo.per_class)
    demo.per_class.plots.setCurrentWidget(demo.per_class.heat_scroll)
    spin(qapp)
    return demo


def _spacing(ticks) -> float:
    xs = sorted(v for v, _ in ticks)
    return min(b - a for a, b in zip(xs, xs[1:])) if len(xs) > 1 else np.inf


def test_heatmap_colour_bar_title_and_labels(window, qapp):
    heat = window.per_class.heat
    pi = heat.getPlotItem()
    m = window.per_class.model.measure_info
    # the colour bar: shown, named after the measure, spanning the class means
    assert heat.bar.isVisible()
    assert m.short in heat.bar.axis.labelText
    lo, hi = heat.bar.levels()
    values = [v for row in window.per_class.model.rows[: len(heat.classes)] for v in row if v]
    assert (lo, hi) == pytest.approx((min(values), max(values)))
    # the title whole (over the run names): no wider than the plot
    assert heat.title == f"{m.short} per class"
    assert heat.over.label.boundingRect().width() <= pi.width()
    # no two class names (rows) or run names (columns) overlap
    left, top = pi.getAxis("left"), pi.getAxis("top")
    fm = QFontMetricsF(left.style["tickFont"] or heat.font())
    box = pi.vb.boundingRect()
    rows = left._tickLevels[0]
    row_px = box.height() / len(heat.classes)
    assert _spacing(rows) * row_px >= fm.height()
    col_px = box.width() / len(heat.runs)
    named = []
    for axis in (top, heat.over):  # the run names, on two rows in turn where they need it
        cols = axis._tickLevels[0] if axis._tickLevels else []
        named += cols
        if cols:
            widest = max(fm.horizontalAdvance(t) for _, t in cols)
            assert _spacing(cols) * col_px >= widest
    # every run named (a long name cut to its cells), every class (the plot
    # scrolls: it is as tall as the names need)
    assert sorted(j for j, _ in named) == list(range(len(heat.runs)))
    for j, t in named:
        assert t == heat.runs[j] or heat.runs[j].startswith(t.rstrip("…"))
    assert [t for _, t in sorted(rows, reverse=True)] == heat.classes
    # a taller plot names every class
    heat.resize(600, 30 * len(heat.classes))
    spin(qapp)
    assert len(left._tickLevels[0]) == len(heat.classes)


@pytest.mark.parametrize("dark", [False, True])
def test_table_heatmap_text_contrast(window, qapp, dark):
    window.set_dark(dark)
    tab = window.per_class
    tab.heatmap.setChecked(True)
    spin(qapp, 5)
    m = tab.model
    checked = 0
    for r in range(len(m.classes)):
        for c in range(2, m.columnCount()):
            idx = m.index(r, c)
            bg = m.data(idx, Qt.ItemDataRole.BackgroundRole)
            fg = m.data(idx, Qt.ItemDataRole.ForegroundRole)
            if bg is None:
                continue
            b, f = bg.color(), fg.color()
            ratio = contrast_ratio(
                (f.redF(), f.greenF(), f.blueF()), (b.redF(), b.greenF(), b.blueF())
            )
            assert ratio >= 4.5, (m.classes[r], c, f.name(), b.name())
            checked += 1
    assert checked == len(m.classes) * len(m.entries)
    tab.heatmap.setChecked(False)
    window.set_dark(False)


def test_first_tier_header_whole(window):
    view = window.per_class.confusion_view
    head = view.model().headerData(0, Qt.Orientation.Horizontal)
    assert head == "Class in the first tier"
    fm = view.horizontalHeader().fontMetrics()
    assert view.columnWidth(0) >= fm.horizontalAdvance(head)


def test_run_names_under_bars_fit(window, qapp):
    fm = QFontMetricsF(window.font())
    names = ["SpectralNet", "ViewHarmonics", "LightField-200", "RandomBaseline"]
    wide = max(fm.horizontalAdvance(n) for n in names)
    assert fit_names(names, wide * 1.5, fm) == names
    staggered = fit_names(names, wide * 0.8, fm)
    assert [s.strip() for s in staggered] == names and staggered[1].startswith("\n")
    short = fit_names(names, wide * 0.3, fm)
    assert all(fm.horizontalAdvance(s.strip()) <= 2 * wide * 0.3 for s in short)
    assert any("…" in s for s in short)
    # the measure bars: names at the axis' own font size, neighbours apart
    window.tabs.setCurrentWidget(window.curves)
    window.curves.kind.setCurrentIndex(window.curves.kind.findData("bars"))
    spin(qapp)
    pi = window.curves.bars.plot.getPlotItem()
    axis = pi.getAxis("bottom")
    ticks = axis._tickLevels[0]
    assert [t.strip() for _, t in ticks] == [e[0] for e in window.curves.bars.entries]
    px = pi.vb.boundingRect().width() / (pi.vb.viewRange()[0][1] - pi.vb.viewRange()[0][0])
    font = QFontMetricsF(axis.style["tickFont"] or axis.font())
    for line in (0, 1):
        row = [(v, t.strip()) for v, t in ticks if t.startswith("\n") == bool(line)]
        for (a, ta), (b, tb) in zip(row, row[1:]):
            room = (b - a) * px
            assert (font.horizontalAdvance(ta) + font.horizontalAdvance(tb)) / 2 <= room


def test_legends_cover_no_data(window, qapp):
    window.tabs.setCurrentWidget(window.curves)
    for kind in ("pr", "ndcg", "bars"):
        window.curves.kind.setCurrentIndex(window.curves.kind.findData(kind))
        spin(qapp, 40)
        placer = window.curves.bars.legend_place if kind == "bars" else window.curves.legend_place
        placer.place()
        pi = placer.plot
        legend = pi.legend
        box = legend.mapRectToItem(pi.vb, legend.boundingRect())
        r = pi.vb.boundingRect()
        pts = placer._points(r.width(), r.height())
        inside = (
            (pts[:, 0] >= box.left())
            & (pts[:, 0] <= box.right())
            & (pts[:, 1] >= box.top())
            & (pts[:, 1] <= box.bottom())
        )
        assert not inside.any(), kind
        if placer.outside:
            assert box.left() >= r.right()


def test_app_report_tables_have_the_summary_columns(window, monkeypatch):
    from shrec_eval.profiles import get_profile

    import shrec_gui.exports.report as rx

    seen = {}
    monkeypatch.setattr(rx, "write_report", lambda folder, a, res, **kw: seen.update(kw))
    c = window.controller
    results = [e.result for e in c.readable_entries()]
    default, rank_key = get_profile(c.options.profile).table(c.assessment, c.options)
    rx.write_app_report("x", c.assessment, results, c.options, "column", {}, sorted(default))
    assert seen["keys"] == default and seen["rank_key"] == rank_key  # the CLI's order
    rx.write_app_report("x", c.assessment, results, c.options, "slide", {}, ["nn", "p@10"])
    assert seen["keys"] == ["nn", "p@10"] and seen["figure_preset"] == "slide"
    window.summary.toggle_column("p@10", True)
    assert "p@10" in window.summary.keys
    window.summary.toggle_column("p@10", False)
