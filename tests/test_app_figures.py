"""Figures fit to print (shrec_gui/figures/printing.py): the demo's plots exported as
PNG, SVG and PDF at a chosen size, the SVG rendered back by cairosvg and
compared with the PNG, narrow figures, dark theme, legend placement, numeric
axes, the ranked strip's limits, the SHREC measure bars, the export dialog."""

import io
import json
import re
import shutil
import subprocess
from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

pg = pytest.importorskip("pyqtgraph")

from guitools import wait_idle  # noqa: E402
from PySide6.QtCore import QSettings, Qt  # noqa: E402
from PySide6.QtGui import QImage  # noqa: E402
from shrec_eval import evaluate  # noqa: E402
from shrec_eval.options import EvalOptions  # noqa: E402
from shrec_eval.outputs.palette import run_looks  # noqa: E402
from shrec_eval.reading.readers import load_assessment, load_run  # noqa: E402
from shrec_eval.resources import resource_path  # noqa: E402

from shrec_gui.figures.dialog import FigureDialog, ask_figure_settings  # noqa: E402
from shrec_gui.figures.printing import (  # noqa: E402
    FigureSettings,
    build_figure,
    export_figure,
    figure_bytes,
    flatten_cosmetic_strokes,
)
from shrec_gui.plots.curves import BARS, CurvesWidget, set_widget_theme  # noqa: E402
from shrec_gui.plots.measure_bars import SHREC_BARS  # noqa: E402
from shrec_gui.plots.ranked_strips import RankedListsWidget  # noqa: E402
from shrec_gui.window.settings import Preferences  # noqa: E402
from shrec_gui.workers.ranked_data import QueryLists, RunList  # noqa: E402

DEMO = resource_path("demo")


@pytest.fixture(scope="module")
def results():
    a = load_assessment(DEMO / "target.cla", queries=DEMO / "queries.cla", graded=True)
    spec = json.loads((DEMO / "contest.json").read_text())
    return [
        (r["name"], evaluate(a, load_run(DEMO / r["path"], a, name=r["name"])))
        for r in spec["runs"]
    ]


@pytest.fixture
def curves(qtbot, results):
    w = CurvesWidget()
    qtbot.addWidget(w)
    w.resize(900, 600)
    w.show()
    looks = run_looks([None] * len(results))  # each run the look of its place
    w.set_entries([(n, look, r) for (n, r), look in zip(results, looks)])
    return w


def image_array(img: QImage) -> np.ndarray:
    """Grey levels 0-255 of a QImage, rows x columns."""
    img = img.convertToFormat(QImage.Format.Format_Grayscale8)
    ptr = img.constBits()
    a = np.frombuffer(ptr, dtype=np.uint8).reshape(img.height(), img.bytesPerLine())
    return a[:, : img.width()].astype(float)


def png_array(data: bytes) -> np.ndarray:
    img = QImage.fromData(data, "PNG")
    assert not img.isNull()
    return image_array(img)


def ink_box(a: np.ndarray, level: float = 200) -> tuple[int, int, int, int]:
    """Bounding box (top, left, bottom, right) of everything darker than level."""
    rows = np.flatnonzero((a < level).any(axis=1))
    cols = np.flatnonzero((a < level).any(axis=0))
    return rows[0], cols[0], rows[-1], cols[-1]


def blocks(a: np.ndarray, n: int = 16) -> np.ndarray:
    """Mean grey of n x n blocks (downsampled)."""
    h, w = (a.shape[0] // n) * n, (a.shape[1] // n) * n
    return a[:h, :w].reshape(h // n, n, w // n, n).mean(axis=(1, 3))


def test_svg_renders_in_cairosvg_like_the_png(curves):
    cairosvg = pytest.importorskip("cairosvg")
    s = FigureSettings(width=1200, height=800, font_px=20)
    png = png_array(figure_bytes(curves.plot_item, s))
    svg = figure_bytes(curves.plot_item, FigureSettings(**{**s.__dict__, "fmt": "svg"}))
    assert b"non-scaling-stroke" not in svg  # cairosvg and Inkscape ignore it
    back = png_array(cairosvg.svg2png(bytestring=svg, output_width=1200, output_height=800))
    assert back.shape == png.shape == (800, 1200)
    # same drawing: axes, curves and legend in the same places ...
    assert np.allclose(ink_box(back), ink_box(png), atol=3)
    # ... no solid blocks: about as much white, and the same picture at 1/16 scale
    assert abs((back > 240).mean() - (png > 240).mean()) < 0.02
    assert np.abs(blocks(back) - blocks(png)).mean() < 4


def test_png_size_and_text_do_not_depend_on_the_widget(curves, qtbot):
    s = FigureSettings(width=1000, height=700, font_px=22)
    arrays = []
    for size in ((1400, 500), (420, 900)):
        curves.resize(*size)
        qtbot.wait(20)
        arrays.append(png_array(figure_bytes(curves.plot_item, s)))
        fig = build_figure(curves.plot_item, s)
        try:
            assert fig.plot.getAxis("bottom").style["tickFont"].pixelSize() == 22
        finally:
            fig.close()
    assert arrays[0].shape == arrays[1].shape == (700, 1000)
    assert np.abs(blocks(arrays[0]) - blocks(arrays[1])).mean() < 1


@pytest.mark.parametrize("legend", ["inside", "right", "below"])
def test_a_narrow_figure_keeps_its_legend_and_title_whole(curves, legend):
    s = FigureSettings(width=420, height=600, font_px=20, legend=legend)
    fig = build_figure(curves.plot_item, s)
    try:
        box = fig.legend.sceneBoundingRect()
        assert box.left() >= 0 and box.top() >= 0
        assert box.right() <= 420 and box.bottom() <= 600
        assert fig.plot.geometry().right() <= 420.5  # the title did not widen the plot
        labels = [label.text for _, label in fig.legend.items]
        assert labels == [e[0] for e in curves.entries]
        vb = fig.plot.vb.sceneBoundingRect()
        if fig.legend.pos().y() > vb.bottom():  # below: under the axes
            assert box.top() >= fig.plot.geometry().bottom() - 1
    finally:
        fig.close()


def test_legend_outside_the_plot(curves):
    fig = build_figure(curves.plot_item, FigureSettings(width=1400, height=700, legend="right"))
    try:
        assert fig.legend.sceneBoundingRect().left() >= fig.plot.vb.sceneBoundingRect().right()
        assert fig.legend.sceneBoundingRect().right() <= 1400
    finally:
        fig.close()


def test_dark_theme_exports_come_out_light(curves):
    set_widget_theme(curves.plot, True)
    a = png_array(figure_bytes(curves.plot_item, FigureSettings(width=900, height=600)))
    assert a[2, 2] == 255 and a[-3, -3] == 255  # white paper
    top, left, bottom, right = ink_box(a, level=80)  # black text and axes are there
    assert bottom - top > 400 and right - left > 600
    fig = build_figure(curves.plot_item, FigureSettings())
    try:
        assert fig.plot.getAxis("left").textPen().color().name() == "#000000"
        assert pg.mkColor(fig.legend.opts["labelTextColor"]).name() == "#000000"
    finally:
        fig.close()


def test_pdf_is_one_vector_page_of_the_chosen_size(curves, tmp_path):
    path = tmp_path / "pr.pdf"
    export_figure(curves.plot_item, str(path), FigureSettings(width=1200, height=800, fmt="pdf"))
    data = path.read_bytes()
    assert data.startswith(b"%PDF")
    box = re.search(rb"/MediaBox \[\s*0 0 ([\d.]+) ([\d.]+)\s*\]", data)
    assert box and (float(box[1]), float(box[2])) == pytest.approx((900, 600), abs=1)
    assert b"/Subtype /Image" not in data  # curves, symbols and text drawn as vectors
    if shutil.which("pdftoppm"):
        out = subprocess.run(
            ["pdftoppm", "-png", "-r", "96", "-singlefile", str(path)],
            capture_output=True,
            check=True,
        ).stdout
        page = png_array(out)
        png = png_array(figure_bytes(curves.plot_item, FigureSettings(width=1200, height=800)))
        assert page.shape == png.shape
        assert np.allclose(ink_box(page), ink_box(png), atol=3)


def test_axes_read_as_numbers(curves, qtbot):
    """No "x0.001" axis scaling: not on screen, not in a figure."""
    for i in range(curves.kind.count()):
        curves.kind.setCurrentIndex(i)
        qtbot.wait(5)
        for name in ("left", "bottom"):
            axis = curves.plot_item.getAxis(name)
            assert not axis.autoSIPrefix
            assert "(x" not in axis.labelString()
    fig = build_figure(curves.plot_item, FigureSettings())
    try:
        assert not fig.plot.getAxis("left").autoSIPrefix
    finally:
        fig.close()


def _scored_window(qtbot):
    """A quiet window of its own with the demo scored (for tests that change it)."""
    from shrec_gui.window.main import MainWindow, app_settings

    w = MainWindow(app_settings())
    qtbot.addWidget(w)
    w.quiet = True
    w.show()
    w.open_demo()
    wait_idle(qtbot, w, 7, timeout=60000)
    return w


def _ranked_strips(qtbot, results) -> RankedListsWidget:
    """A shown ranked-list widget holding ``results`` (run 2 chosen)."""
    w = RankedListsWidget()
    qtbot.addWidget(w)
    w.show()
    w.set_entries([(i, n, r) for i, (n, r) in enumerate(results)], 2)
    return w


def test_ranked_strip_cannot_show_negative_ranks(qtbot, results):
    w = _ranked_strips(qtbot, results)
    gains = np.zeros(1000)
    gains[[0, 2, 9]] = [2, 1, 2]
    items = tuple(f"m{i}" for i in range(1000))
    w.show_lists(QueryLists(w.current_query(), (RunList(0, "run", gains, items, None, 2, 1),)))
    vb = w.plot.getPlotItem().vb
    vb.setXRange(-300, 50, padding=0)
    assert vb.viewRange()[0][0] >= 0.5
    assert not w.plot.getPlotItem().getAxis("bottom").autoSIPrefix
    # its figure shows the ranks in view only (first 200), cut to the axes
    fig = build_figure(w.plot.getPlotItem(), FigureSettings(width=1200, height=300))
    try:
        (image,) = [i for i in fig.plot.vb.addedItems if isinstance(i, pg.ImageItem)]
        r = image.mapRectToParent(image.boundingRect())
        x0, x1 = vb.viewRange()[0]
        assert r.left() >= x0 - 1 and r.right() <= x1 + 1
    finally:
        fig.close()


def test_legend_has_a_background(curves):
    assert curves.plot_item.legend.opts["brush"].color().alpha() > 150
    set_widget_theme(curves.plot, True)
    assert curves.plot_item.legend.opts["brush"].color().lightness() < 80


def test_measure_bars_show_the_engine_means_and_export(curves, results, tmp_path):
    curves.kind.setCurrentIndex(curves.kind.findData(BARS))
    assert curves.showing_bars()
    bars = curves.bars
    assert bars.shown_measures() == list(SHREC_BARS)
    want = np.array([[r.mean(k) for k in SHREC_BARS] for _, r in results])
    np.testing.assert_allclose(bars.values(), want)
    items = bars.plot_item.listDataItems()
    labels = {m.key: m.label for m in results[0][1].measures}
    assert [i.name() for i in items] == [labels[k] for k in SHREC_BARS]
    for j, item in enumerate(items):
        np.testing.assert_allclose(item.opts["height"], want[:, j])
    ticks = bars.plot_item.getAxis("bottom")._tickLevels[0]
    assert [t[1] for t in ticks] == [n for n, _ in results]
    bars.choose("nn", False)
    assert bars.shown_measures() == list(SHREC_BARS[1:])
    cairosvg = pytest.importorskip("cairosvg")
    s = FigureSettings(width=1200, height=700, font_px=18, legend="right")
    png = png_array(figure_bytes(curves.plot_item, s))
    svg = figure_bytes(curves.plot_item, FigureSettings(**{**s.__dict__, "fmt": "svg"}))
    back = png_array(cairosvg.svg2png(bytestring=svg, output_width=1200, output_height=700))
    assert np.abs(blocks(back) - blocks(png)).mean() < 4
    fig = build_figure(curves.plot_item, s)
    try:
        assert [label.text for _, label in fig.legend.items] == [labels[k] for k in SHREC_BARS[1:]]
    finally:
        fig.close()


def test_zoomed_curves_stay_inside_the_axes(curves):
    curves.plot_item.vb.setRange(xRange=(0.2, 0.6), yRange=(0.5, 0.9), padding=0)
    fig = build_figure(curves.plot_item, FigureSettings())
    try:
        for item in fig.plot.vb.addedItems:
            if item.xData is None:  # a run without points in this curve
                continue
            x, y = item.xData, item.yData
            ok = np.isfinite(x) & np.isfinite(y)
            assert ((x[ok] >= 0.2 - 1e-9) & (x[ok] <= 0.6 + 1e-9)).all()
            assert ((y[ok] >= 0.5 - 1e-9) & (y[ok] <= 0.9 + 1e-9)).all()
    finally:
        fig.close()


def test_flatten_cosmetic_strokes_maps_the_path():
    svg = (
        b'<svg xmlns="http://www.w3.org/2000/svg"><g transform="matrix(100,0,0,-50,10,60)" '
        b'stroke-width="2"><path vector-effect="non-scaling-stroke" d="M0,0 L1,1 L0.5,0.2"/>'
        b'<polyline vector-effect="non-scaling-stroke" points="0,0 1,1"/></g></svg>'
    )
    out = flatten_cosmetic_strokes(svg).decode()
    assert "transform" not in out and "vector-effect" not in out
    assert 'd="M10,60 L110,10 L60,50"' in out
    assert 'points="10,60 110,10"' in out


def test_export_dialog_remembers_its_answers(qtbot, tmp_path, monkeypatch):
    qs = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    d = FigureDialog(FigureSettings.load(qs))
    qtbot.addWidget(d)
    d.width_box.setValue(1600)
    d.height_box.setValue(900)
    d.font_box.setValue(28)
    d.fmt.setCurrentIndex(d.fmt.findData("pdf"))
    d.legend.setCurrentIndex(d.legend.findData("below"))
    want = FigureSettings(width=1600, height=900, font_px=28, fmt="pdf", legend="below")
    assert d.settings() == want
    monkeypatch.setattr(FigureDialog, "exec", lambda self: FigureDialog.DialogCode.Accepted)
    monkeypatch.setattr(FigureDialog, "settings", lambda self: want)
    assert ask_figure_settings(None, FigureSettings()) == want
    prefs = Preferences(qs)
    prefs.set_figure(want)
    again = Preferences(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    assert again.figure() == want
    qs.setValue("figure/width", "not a number")
    qs.setValue("figure/font_px", 100000)
    got = FigureSettings.load(qs)
    assert got.width == FigureSettings().width and got.font_px == 200


def test_png_bytes_decode(curves):
    """A PNG figure is a valid image with the pixel density of 96 dpi."""
    img = QImage.fromData(io.BytesIO(figure_bytes(curves.plot_item, FigureSettings())).read())
    assert img.width() == 1200 and img.height() == 800
    assert round(img.dotsPerMeterX() * 0.0254) == 96


@pytest.fixture
def significance(qtbot, results):
    from shrec_gui.plots.significance import SignificanceWidget
    from shrec_gui.widgets.table_view import CopyTable

    w = SignificanceWidget(CopyTable)
    qtbot.addWidget(w)
    w.set_measures(EvalOptions().ranks, "ap_trec_r")
    return w


def test_significance_marks_results_stale_when_the_measure_changes(significance, results):
    from shrec_eval.scoring.stats import compare

    w = significance
    w.set_results(dict(results))
    w.measure.setCurrentIndex(w.measure.findData("adr"))
    w.set_comparison(compare([r for _, r in results], "adr", resamples=200, seed=0))
    assert not w.stale() and w.pview.isEnabled()
    w.measure.setCurrentIndex(w.measure.findData("nn"))
    assert w.stale()
    assert not w.pview.isEnabled() and not w.means_plot.isEnabled()
    assert "stale" in w.means_plot.getPlotItem().titleLabel.text
    assert "Compute" in w.status.text()
    w.measure.setCurrentIndex(w.measure.findData("adr"))
    assert not w.stale() and w.pview.isEnabled()
    assert "stale" not in w.means_plot.getPlotItem().titleLabel.text


def test_head_to_head_never_defaults_to_one_run_twice(significance, results):
    w = significance
    w.set_results(dict(results[:1]))  # runs arrive one by one
    w.set_results(dict(results[:2]))
    assert w.run_a.currentText() != w.run_b.currentText()
    w.set_results(dict(results))
    assert w.run_a.currentText() != w.run_b.currentText()


def test_win_tie_loss_respects_lower_is_better(significance, results):
    w = significance
    w.set_results(dict(results))
    a, b = results[0][0], results[-1][0]  # the best run and the random baseline
    w.run_a.setCurrentIndex(w.run_a.findText(a))
    w.run_b.setCurrentIndex(w.run_b.findText(b))
    for key, better in (("nn", np.greater), ("fp_r", np.less)):
        w.measure.setCurrentIndex(w.measure.findData(key))
        va, vb = results[0][1].column(key), results[-1][1].column(key)
        ok = ~np.isnan(va) & ~np.isnan(vb)
        wins = int(better(va[ok], vb[ok]).sum())
        assert wins != int(better(vb[ok], va[ok]).sum())  # the direction matters here
        assert w.h2h_label.text().startswith(f"{a} better on {wins} queries")


def test_export_report_writes_the_cli_folder_and_the_figures(qtbot, tmp_path, results):
    from shrec_eval.outputs.figures import PRESETS
    from shrec_eval.outputs.report import write_report
    from shrec_eval.profiles import get_profile

    w = _scored_window(qtbot)
    out = tmp_path / "report"
    w.exports.export_report(str(out))
    # the demo has shapes: the gallery's thumbnails are drawn too
    qtbot.waitUntil(lambda: "Wrote the report" in w.status_label.text(), timeout=180000)
    # what `shrec-eval evaluate --report` writes for the same results
    a = load_assessment(DEMO / "target.cla", queries=DEMO / "queries.cla", graded=True)
    keys, rank_key = get_profile("shrec").table(a, EvalOptions())
    cli = tmp_path / "cli"
    write_report(cli, a, [r for _, r in results], keys=keys, rank_key=rank_key)
    files = sorted(str(p.relative_to(cli)) for p in cli.rglob("*"))
    app_files = sorted(str(p.relative_to(out)) for p in out.rglob("*"))
    # the app's report adds the gallery of the demo's shapes
    assert [f for f in app_files if f != "gallery.html" and not f.startswith("thumbs")] == files
    assert "figures/class_heatmap.pdf" in files and "summary-wide.tex" in files
    # the gallery of `shrec-eval demo --report` (tests/test_outputs_gallery.py checks its images)
    from shrec_eval.cli.parser import main

    assert main(["demo", "--report", str(tmp_path / "cli-demo")], out=io.StringIO()) == 0
    assert (out / "gallery.html").read_text() == (
        tmp_path / "cli-demo" / "gallery.html"
    ).read_text()
    assert sorted(p.name for p in (out / "thumbs").iterdir()) == sorted(
        p.name for p in (tmp_path / "cli-demo" / "thumbs").iterdir()
    )
    for name in ("summary.csv", "per_query.csv", "summary.md", "summary.tex", "per_class.tex"):
        assert (out / name).read_text() == (cli / name).read_text(), name
    # the figures of the same core code, at the column preset, in the runs' colours
    png = QImage(str(out / "figures" / "precision_recall.png"))
    assert abs(png.width() - PRESETS["column"].width_cm / 2.54 * 300) < 1
    pdf = (out / "figures" / "measure_bars.pdf").read_bytes()
    assert pdf.startswith(b"%PDF")
    box = re.search(rb"/MediaBox \[\s*0 0 ([\d.]+) ([\d.]+)\s*\]", pdf)
    assert float(box[1]) == pytest.approx(PRESETS["column"].size_pt[0], abs=0.01)
    svg = (out / "figures" / "precision_recall.svg").read_text()
    colours = {look.colour.lower() for look in w.controller.looks().values()}
    assert colours <= set(re.findall(r"stroke: (#[0-9a-f]{6})", svg))
    w.exports.export_report(str(tmp_path))  # a folder with other files: refused, nothing removed
    qtbot.waitUntil(lambda: "not written" in w.status_label.text(), timeout=30000)
    assert (tmp_path / "cli" / "summary.csv").exists() and w.errors
    w.close()


def test_export_figure_at_a_print_preset_is_the_core_figure(qtbot, tmp_path):
    """Export figure with the column preset: the curves, bars, heatmap, a
    class's curves and the ranked lists are drawn by shrec_eval.outputs.figures (page
    of the preset, text at 8 pt) on a file thread (figureDone says when); the
    significance charts are copied from the screen at the preset's size."""
    from shrec_eval.outputs.figures import PRESETS

    w = _scored_window(qtbot)
    ranked = w.ranked  # made when first read: it asks for its query's lists, as when shown
    qtbot.waitUntil(lambda: ranked.lists is not None, timeout=10000)
    w.per_class.select_class("house")
    col = FigureSettings(preset="column", fmt="pdf")
    p = PRESETS["column"]
    for which, kind in (
        ("curves", "pr"),
        ("curves", BARS),
        ("class_heatmap", None),
        ("class_pr", None),
        ("ranked", None),
    ):
        if kind is not None:
            w.curves.kind.setCurrentIndex(w.curves.kind.findData(kind))
        path = tmp_path / f"{which}-{kind}.pdf"
        with qtbot.waitSignal(w.exports.figureDone, timeout=60000) as done:
            w.exports.export_plot(str(path), "pdf", which=which, figure=col)
        assert done.args == [str(path), ""]
        data = path.read_bytes()
        box = re.search(rb"/MediaBox \[\s*0 0 ([\d.]+) ([\d.]+)\s*\]", data)
        assert float(box[1]) == pytest.approx(p.size_pt[0], abs=0.01), which
        assert b"/FontFile2" in data  # TrueType embedded (matplotlib, Type 42)
    path = tmp_path / "means.pdf"
    w.exports.export_plot(str(path), "pdf", which="means", figure=col)
    box = re.search(rb"/MediaBox \[\s*0 0 ([\d.]+) ([\d.]+)\s*\]", path.read_bytes())
    assert float(box[1]) == pytest.approx(p.size_pt[0], abs=1)
    # the dialog offers the presets; a print preset fixes size, font and legend
    dialog = FigureDialog(col)
    assert dialog.preset.currentData() == "column" and not dialog.width_box.isEnabled()
    assert "8.5 x 6.4 cm" in dialog.print_size.text()
    dialog.preset.setCurrentIndex(dialog.preset.findData("custom"))
    assert dialog.width_box.isEnabled() and dialog.settings().preset == "custom"
    w.close()


def test_submissions_with_problems_are_flagged_and_ranking_said(qtbot, tmp_path):
    from shrec_eval.profiles import get_profile

    lines = (DEMO / "viewharmonics.trec").read_text().splitlines()
    bad = [ln.replace("ViewHarmonics", "Flawed") for ln in lines if not ln.startswith("q02 ")]
    bad.insert(1, "q01 Q0 zzz999 2 -7.6 Flawed")  # an id the collection does not hold
    run = tmp_path / "flawed.trec"
    run.write_text("\n".join(bad) + "\n")
    w = _scored_window(qtbot)
    w.open_files([str(run)])
    wait_idle(qtbot, w, 8, timeout=60000)
    s = w.summary
    m = s.model
    row = next(i for i in range(m.rowCount()) if m.index(i, 0).data() == "Flawed")
    assert m.index(row, 0).data(Qt.ItemDataRole.DecorationRole) is not None  # the badge
    why = m.index(row, 0).data(Qt.ItemDataRole.ToolTipRole)
    assert "unknown_ids" in why and "missing_queries" in why
    clean = next(i for i in range(m.rowCount()) if m.index(i, 0).data() == "SpectralNet")
    assert m.index(clean, 0).data(Qt.ItemDataRole.DecorationRole) is None
    assert "Flawed" in s.rank_label.text() and "unknown_ids" in s.rank_label.text()
    # ranked by what `shrec-eval evaluate` ranks by, and says so
    _, key = get_profile(w.controller.options.profile).table(
        w.controller.assessment, w.controller.options
    )
    assert f"[{key}]" in s.rank_label.text()
    assert s.view.horizontalHeader().sortIndicatorSection() == s.model.RANK
    assert s.model.rank_key == key
    means = {e.name: e.result.mean(key) for e in w.controller.readable_entries()}
    shown = [s.proxy.index(r, 0).data() for r in range(s.proxy.rowCount())]
    assert shown == sorted(means, key=lambda n: -means[n])
    # Data checks: problems apart from notes, problems first
    c = w.checks
    kinds = [c.proxy.index(r, 2).data() for r in range(c.proxy.rowCount())]
    assert kinds[0] == "problem" and "note" in kinds
    assert kinds == sorted(kinds, reverse=True)
    w.close()


def test_hover_reads_a_curve_point_and_the_legend_hides_a_run(curves, qtbot):
    from PySide6.QtCore import QPointF

    curves.kind.setCurrentIndex(curves.kind.findData("pr"))
    qtbot.wait(20)
    name, _, x, y = curves.curve_data()[0]
    vb = curves.plot_item.vb
    pos = vb.mapViewToScene(QPointF(x[4], y[4])) + QPointF(2, -2)  # two pixels off
    curves.hover(pos)
    assert curves.readout.text() == f"{name}: Recall {x[4]:.4g}, Precision {y[4]:.4g}"
    curves.hover(vb.sceneBoundingRect().topLeft() + QPointF(-5, -5))  # off the axes
    assert curves.readout.text().strip() == ""
    # a click on a legend entry hides its run (and a hidden run is not in a figure)
    sample, _ = curves.plot_item.legend.items[0]
    click = SimpleNamespace(button=lambda: Qt.MouseButton.LeftButton, accept=lambda: None)
    sample.mouseClickEvent(click)
    assert not curves._items[0][2].isVisible()
    curves.hover(pos)
    assert not curves.readout.text().startswith(name)
    fig = build_figure(curves.plot_item, FigureSettings())
    try:
        assert name not in [label.text for _, label in fig.legend.items]
    finally:
        fig.close()


def test_picking_a_query_shows_its_curves_and_ranked_list(qtbot, results):

    w = _scored_window(qtbot)
    w.per_query.view.doubleClicked.emit(w.per_query.proxy.index(4, 0))
    q = w.per_query.proxy.index(4, 0).data()
    assert w.curves.current_query() == q and w.ranked.query.currentText() == q
    assert w.tabs.currentWidget() is w.curves
    sig = w.significance
    with qtbot.waitSignal(sig.querySelected) as got:
        sig.h2h_plot.getPlotItem().listDataItems()[-1].scatter.sigClicked.emit(
            None, [SimpleNamespace(data=lambda: "q07")], None
        )
    assert got.args == ["q07"]
    w.show_query("q07")
    assert w.curves.current_query() == "q07" and w.ranked.query.currentText() == "q07"
    w.close()


def test_query_pickers_are_searchable(curves, qtbot, results):
    w = _ranked_strips(qtbot, results)
    for combo in (curves.query, w.query):
        assert combo.isEditable()
        c = combo.completer()
        c.setCompletionPrefix("07")  # part of an id, not its start
        assert c.completionCount() == 1 and c.currentCompletion() == "q07"
        c.setCompletionPrefix("Q1")  # any case: q10 ... q19
        assert c.completionCount() == 10
        combo.lineEdit().selectAll()
        qtbot.keyClicks(combo.lineEdit(), "q07")  # typed, then Enter
        qtbot.keyClick(combo.lineEdit(), Qt.Key.Key_Return)
        assert combo.currentText() == "q07" and combo.itemText(combo.currentIndex()) == "q07"
        assert combo.count() == len(results[0][1].query_ids) + (combo is curves.query)
    assert curves.current_query() == "q07"


def test_ranked_strip_hover_names_the_item(qtbot, results):
    from PySide6.QtCore import QPointF

    w = _ranked_strips(qtbot, results)
    gains = np.zeros(300)
    gains[[0, 2]] = [2, 1]
    items = tuple(f"m{i}" for i in range(300))[::-1]
    run = RunList(0, "RunA", gains, items, None, 1, 1)  # a contest without classes
    w.show_lists(QueryLists(w.current_query(), (run,)))
    qtbot.wait(20)
    vb = w.plot.getPlotItem().vb
    w.hover(vb.mapViewToScene(QPointF(3.2, 0.5)))
    assert w.readout.text() == "RunA, rank 3: item m297 (relevant, grade 1)"
    w.hover(vb.mapViewToScene(QPointF(2, 0.5)))
    assert w.readout.text() == "RunA, rank 2: item m298 (not relevant)"
    w.set_entries([], 2)  # the contest closed: nothing left drawn
    assert w.lists is None and not w.strips and w.info.text().startswith("Score a contest")


def test_a_hidden_plot_exports_its_current_range(qtbot, results):
    """Switched to another curve while its tab is hidden: the figure shows
    the new curve's range (the auto range is applied before copying)."""
    w = CurvesWidget()
    qtbot.addWidget(w)  # never shown
    w.set_entries([(n, look, r) for (n, r), look in zip(results, run_looks([None] * len(results)))])
    w.kind.setCurrentIndex(w.kind.findData("dcg"))
    fig = build_figure(w.plot_item, FigureSettings())
    try:
        (x0, x1), (y0, y1) = fig.plot.vb.viewRange()
        xs = np.concatenate([x for _, _, x, _ in w.curve_data()])
        ys = np.concatenate([y for _, _, _, y in w.curve_data()])
        assert x0 <= xs.min() and x1 >= xs.max() and x1 > 10
        assert y0 <= ys.min() and y1 >= ys.max()
    finally:
        fig.close()


def test_print_figure_is_drawn_off_the_gui_thread(demo, qtbot, tmp_path, monkeypatch):
    """M6: Export figure at a print preset returns at once; matplotlib draws
    on a file thread while the window goes on (figureDone when written)."""
    import threading

    from shrec_eval.outputs import figures as core_figures

    from shrec_gui.figures.printing import FigureSettings

    gate, seen = threading.Event(), {}
    real = core_figures.curve_figure

    def slow(*args, **kwargs):
        seen["thread"] = threading.current_thread()
        assert gate.wait(60)
        return real(*args, **kwargs)

    monkeypatch.setattr(core_figures, "curve_figure", slow)
    demo.curves.kind.setCurrentIndex(demo.curves.kind.findData("pr"))
    demo.curves.select_query(None)
    path = tmp_path / "pr.pdf"
    with qtbot.waitSignal(demo.exports.figureDone, timeout=60000) as done:
        demo.exports.export_plot(
            str(path), "pdf", which="curves", figure=FigureSettings(preset="column")
        )
        assert not path.exists()  # returned before the drawing: it waits on its thread
        qtbot.waitUntil(lambda: "thread" in seen, timeout=10000)
        qtbot.wait(50)  # the event loop runs while the figure is drawn
        assert "Drawing the figure" in demo.status_label.text() and not path.exists()
        gate.set()
    assert done.args == [str(path), ""]
    assert seen["thread"] is not threading.main_thread()
    assert path.read_bytes().startswith(b"%PDF")


def test_ranked_and_class_figures_at_a_preset_are_whole(demo, qtbot):
    """M4: at a print preset the ranked lists and a class's curves are the
    core's figures: the title and every run name inside the page, the ranks
    shown on screen, and the axes (not the legend) take most of the height."""
    from shrec_eval.outputs.figures import PRESETS

    p = PRESETS["column"]
    demo.tabs.setCurrentWidget(demo.ranked)
    demo.ranked.select_query("q05")
    # (no lists at all until the first answer: the tab is made when first shown)
    qtbot.waitUntil(
        lambda: demo.ranked.lists is not None and demo.ranked.lists.query_id == "q05",
        timeout=10000,
    )
    fig = demo.exports._print_figure("ranked", p)()
    renderer = fig.canvas.get_renderer()
    page = fig.bbox
    (ax,) = fig.axes
    lo, hi = ax.get_xlim()
    shown_ticks = [t for t in ax.get_xticklabels() if lo <= t.get_position()[0] <= hi]
    legend = fig.legends[0].get_texts()
    texts = [fig._suptitle, ax.xaxis.label, *ax.get_yticklabels(), *shown_ticks, *legend]
    for t in texts:  # nothing cut at the page's edges
        box = t.get_window_extent(renderer)
        assert page.x0 - 1 <= box.x0 and box.x1 <= page.x1 + 1, t.get_text()
    names = [t.get_text() for t in ax.get_yticklabels()]
    assert names == [r.name for r in demo.ranked.shown_runs()]
    assert fig._suptitle.get_text() == "Ranked lists of query q05 (class vase)"
    assert (round(lo + 0.5), round(hi - 0.5)) == (1, 200)  # the ranks in view on screen
    assert fig.get_figwidth() == pytest.approx(p.size_in[0])
    demo.per_class.select_class("house")
    fig = demo.exports._print_figure("class_pr", p)()
    ax = fig.axes[0]
    assert ax.get_title().endswith("class house")
    assert ax.get_position().height >= 0.45  # the legend takes no half of the figure
    assert fig.get_figheight() == pytest.approx(p.size_in[1])


def test_a_plots_right_click_exports_as_its_buttons_do(demo, monkeypatch):
    """Right-click on any plot of the window: its menu offers the app's
    Export figure…/Export CSV… (the buttons' entries, through the app's
    dialog and output gate), not pyqtgraph's Export... dialog, whose SVG
    exporter fails on Qt 6's paths and which wrote files past the gate."""
    calls = []
    monkeypatch.setattr(
        demo.exports, "export_plot_dialog", lambda kind, which: calls.append((which, kind))
    )
    which = {
        demo.curves.plot: "curves",
        demo.curves.bars.plot: "curves",
        demo.ranked.plot: "ranked",
        demo.significance.means_plot: "means",
        demo.significance.h2h_plot: "h2h",
        demo.per_class.plot: "class_pr",
        demo.per_class.heat: "class_pr",  # the plot shown in the tab, as its buttons export
    }
    plots = demo.findChildren(pg.PlotWidget)
    assert set(plots) == set(which)  # every plot of the window is one of these
    for plot, name in which.items():
        # the menu a right-click on the plot's view opens: the view's own
        # entries, then what the scene adds under them
        vb = plot.getPlotItem().vb
        event = SimpleNamespace(acceptedItem=vb)
        menu = vb.getMenu(event)
        plot.scene().addParentContextMenus(vb, menu, event)
        texts = [a.text() for a in menu.actions() if a.text()]
        exports = [t for t in texts if t.startswith("Export")]
        assert exports == (
            ["Export figure…"] if name == "ranked" else ["Export figure…", "Export CSV…"]
        ), texts
        for action in menu.actions():
            if action.text().startswith("Export"):
                action.trigger()
    assert calls == [
        (name, kind)
        for name in which.values()
        for kind in (["figure"] if name == "ranked" else ["figure", "csv"])
    ]
