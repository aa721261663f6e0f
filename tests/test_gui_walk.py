"""What the review-day walk found (issue 31, "What the walk found"): a
14-run contest in a 1280 x 720 window (every tab fits, the window never grows
past the screen nor comes back larger than it), the Per class legend shown,
and the other layout items, each seen as a test can see it."""

import json
import shutil
import time

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from guitools import retire, settled  # noqa: E402
from PySide6.QtCore import QRect, Qt  # noqa: E402
from PySide6.QtWidgets import QLabel  # noqa: E402
from shrec_eval.resources import demo_manifest  # noqa: E402

from shrec_gui import settings  # noqa: E402
from shrec_gui.mainwindow import MainWindow, app_settings  # noqa: E402

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
def test_class_precision_recall_legend_is_shown(big, qapp, n_runs):
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
    vb = pi.vb.sceneBoundingRect()
    if tab.legend_place.outside:
        assert legend.sceneBoundingRect().left() >= vb.right()


def _contest(folder, name, runs, shapes):
    d = {
        "version": 3,
        "name": name,
        "assessment": {
            "path": str(DEMO / "target.cla"),
            "queries": str(DEMO / "queries.cla"),
            "graded": True,
        },
        "runs": runs,
        "shapes": {"path": str(shapes), "layout": "flat"},
    }
    path = folder / f"{name}.json"
    path.write_text(json.dumps(d))
    return str(path)


def test_shapes_not_shown_are_not_carried_to_the_next_contest(win, qtbot, tmp_path):
    """M3: a contest whose lists reach items without a shape file says so;
    the next contest (on the same shapes folder, every one of its shapes
    there) does not repeat it."""
    shapes = tmp_path / "shapes"
    shapes.mkdir()
    for f in (DEMO / "shapes").iterdir():  # the queries, and the items 0-499
        if f.name.startswith("q") or int(f.stem[1:]) < 500:
            # copied: a link out of the shapes folder is not followed
            shutil.copyfile(f, shapes / f.name)
    every_item = _contest(
        tmp_path,
        "all-items",
        [{"name": "VoxelMoments", "format": "binary-matrix",
          "path": str(DEMO / "voxelmoments.matrix")}],
        shapes,
    )  # fmt: skip
    lines = []
    for q in range(1, 31):
        lines += [f"q{q:02d} Q0 {i} {r + 1} {-r} shown" for r, i in enumerate(range(0, 500, 7))]
    (tmp_path / "shown.trec").write_text("\n".join(lines) + "\n")
    shown_only = _contest(
        tmp_path,
        "shown-only",
        [{"name": "Shown", "format": "trec", "path": str(tmp_path / "shown.trec")}],
        shapes,
    )
    win.resize(*SCREEN)
    win.quiet = True
    strips = win.ranked.thumbs

    def drawn():
        return bool(strips.rows) and all(t.pixmap is not None for _, ts in strips.rows for t in ts)

    win.controller.open_session(every_item)
    qtbot.waitUntil(lambda: settled(win, 1), timeout=30000)
    win.tabs.setCurrentWidget(win.ranked)
    win.ranked.select_query("q05")
    qtbot.waitUntil(lambda: "could not be shown" in strips.state.text(), timeout=60000)
    win.controller.open_session(shown_only)
    qtbot.waitUntil(lambda: settled(win, 1) and win.ranked.lists is not None, timeout=30000)
    qtbot.waitUntil(lambda: win.ranked.lists.runs[0].name == "Shown" and drawn(), timeout=60000)
    qtbot.wait(200)
    assert strips.service.warning() is None
    assert "could not be shown" not in strips.state.text()


def test_heatmap_names_every_run_and_class_and_tells_each_cell(big, qapp, qtbot, tmp_path):
    """M5: the in-app heatmap names all runs (two rows over the cells, a
    long name cut to its two cells) and all classes (it scrolls), each cell
    says its class, run and value; a custom-size export has its colour scale."""
    from PySide6.QtCore import QPointF

    from shrec_gui.figures import FigureSettings

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
        big.export_plot(str(path), "svg", which="class_heatmap", figure=custom)
    assert done.args == [str(path), ""], big.errors
    svg = path.read_text()
    assert "class mean" in svg and "(bright)" in svg  # the colour bar's label
    assert all(f">{c}<" in svg for c in heat.classes)


def test_embeddings_dialog_shadows_no_qt_method(qtbot, capfd, tmp_path):
    """M10: the dialog's distance list is not called ``metric`` (that name
    hid QWidget.metric, which Qt calls while painting: five TypeErrors
    printed each time the dialog opened)."""
    from PySide6.QtWidgets import QWidget

    from shrec_gui.dialogs import ReaderDialog

    d = ReaderDialog("embeddings", str(tmp_path / "net.npy"))
    qtbot.addWidget(d)
    d.show()
    d.grab()
    qtbot.wait(20)
    err = capfd.readouterr().err
    assert "Error calling Python override" not in err and "TypeError" not in err
    for name, value in vars(d).items():  # no attribute hides a QWidget method
        assert not callable(getattr(QWidget, name, None)) or callable(value), name
    assert d.values() == {"metric": "cosine", "top_k": None}


def test_options_dialog_shows_every_profile_text_whole(qtbot):
    """M11: the profile's description (what it fixes and why) is never cut
    off, whichever profile is chosen after the dialog opened."""
    from PySide6.QtCore import Qt
    from shrec_eval.options import EvalOptions
    from shrec_eval.profiles import REGISTRY

    from shrec_gui.dialogs import OptionsDialog

    d = OptionsDialog(EvalOptions())  # opened on the shrec profile: its text is short
    qtbot.addWidget(d)
    d.show()
    qtbot.wait(20)
    label = d.forced
    flags = int(Qt.TextFlag.TextWordWrap)
    for name in REGISTRY:
        d.profile.setCurrentIndex(d.profile.findData(name))
        qtbot.wait(20)
        text = label.text()
        need = label.fontMetrics().boundingRect(0, 0, label.width(), 10_000, flags, text)
        assert label.height() >= need.height(), name
        assert d.height() >= d.minimumSizeHint().height()


def test_a_file_of_no_known_kind_is_told_with_its_line(tmp_path):
    """L10: a malformed TREC run dropped or added in the app says the line
    the readers looked at and what it holds, as the command line does."""
    from shrec_eval.errors import ContestFileError

    from shrec_gui.worker import classify

    bad = tmp_path / "bad.trec"
    bad.write_text("q01 Q0 12 x\nq01 Q0 13 2 -1.0 run\n")
    with pytest.raises(ContestFileError) as err:
        classify([str(bad)])
    assert err.value.line == 1
    assert str(err.value).startswith(f"{bad}, line 1: this is neither an assessment")
    assert "line 1 reads 'q01 Q0 12 x' (4 fields)" in str(err.value)


def test_headless_says_the_readers_words_only(qapp, tmp_path):
    """L11: a run that cannot be read stops a headless export with the
    reader's sentence, as the command line prints it, not the window's words
    around it ("The other results are kept.")."""
    from shrec_eval.cli.parser import main as cli_main

    from shrec_gui.headless import export

    lines = (DEMO / "viewharmonics.trec").read_text().splitlines()[:5]
    bad = tmp_path / "bad.trec"
    bad.write_text("\n".join(lines + ["q01 Q0 12 6 notanumber ViewHarmonics"]) + "\n")
    said: list[str] = []
    status = export(
        [str(DEMO / "target.cla"), str(bad)],
        report=str(tmp_path / "report"),
        say=said.append,
        windows=_KEEP,
    )
    assert status == 1 and not (tmp_path / "report").exists()
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = cli_main(["evaluate", str(DEMO / "target.cla"), str(bad)], out=io.StringIO())
    assert code != 0
    reader = err.getvalue().strip().removeprefix("shrec-eval: error: ")
    assert said == [f"shrec-gui: error: {reader}"]


_KEEP: list = []  # headless windows, alive to the end of the session (guitools.retire)


def test_help_menu_has_the_shortcuts_and_the_reference(win, qtbot):
    """L12: Help offers the keyboard shortcuts (F1; read from the menus, so
    every entry with keys is there), the measures, profiles and file
    formats, then About."""
    from shrec_eval.profiles import REGISTRY
    from shrec_eval.scoring.measures import MEASURES

    from shrec_gui.help import menu_shortcuts, open_help

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
    d.show_page("measures")
    assert d.tabs.currentWidget() is d.pages["measures"]
    text = d.pages["measures"].toPlainText()
    assert all(m.key.replace("{k}", "K") in text for m in MEASURES)
    assert all(name in d.pages["profiles"].toPlainText() for name in REGISTRY)
    assert "binary-matrix" in d.pages["formats"].toPlainText()


def test_figure_dialog_size_line_is_the_formats_and_the_plots(qtbot):
    """L3: the size line speaks the format's units (pixels of a PNG, points of
    an SVG or PDF) and says when the figure grows with the classes or runs."""
    from shrec_gui.figure_dialog import FigureDialog, size_text
    from shrec_gui.figures import FigureSettings

    custom = FigureSettings(width=960, height=600, font_px=16, preset="custom")
    assert size_text(custom) == "960 x 600 px, text 16 px; printed at 300 dpi: 8.1 x 5.1 cm"
    svg = FigureSettings(width=960, height=600, font_px=16, preset="custom", fmt="svg")
    assert size_text(svg) == "720 x 450 pt in SVG, text 12 pt; 25.4 x 15.9 cm"
    heat = size_text(svg, "class_heatmap")
    assert heat == (
        "720 pt wide, as tall as its classes need (at least 450 pt) in SVG, text 12 pt; "
        "25.4 cm wide"
    )
    column = FigureSettings(preset="column", fmt="pdf")
    assert size_text(column) == "8.5 x 6.4 cm, text 8 pt; 241 x 181 pt in PDF"
    assert "as tall as its runs need (at least 6.4 cm)" in size_text(column, "ranked")
    assert "legend" in size_text(column, "curves") and "legend" not in size_text(column, "ranked")
    d = FigureDialog(svg, which="class_heatmap")
    qtbot.addWidget(d)
    assert d.print_size.text() == heat and not d.legend.isEnabled()
    d.fmt.setCurrentIndex(d.fmt.findData("png"))
    assert d.print_size.text().startswith("960 px wide, as tall as its classes need")


def test_summary_columns_and_ranking_said(demo, qtbot):
    """L1, L2, L14: the last column is as wide as its values, no doubled
    parentheses in a label, no row numbers; a profile that ranks by a
    measure it does not show (boli: ADR) says so, and each rank tells its value."""
    import dataclasses

    from shrec_eval.scoring.measures import measure_by_key

    s = demo.summary
    assert not s.view.horizontalHeader().stretchLastSection()
    assert measure_by_key("ap_trec_r").label == "Average Precision (trec, relevant)"
    for tab in (demo.summary, demo.per_query, demo.per_class, demo.checks):
        assert not tab.table().verticalHeader().isVisible(), tab.title
    c = demo.controller
    c.set_options(dataclasses.replace(c.options, profile="boli"))
    c.score()
    qtbot.waitUntil(lambda: settled(demo, 7) and not c.stale_entries(), timeout=60000)
    try:
        assert "adr" not in s.keys
        assert "Rank by <b>Average Dynamic Recall</b> [adr] (not a column of this table" in (
            s.rank_label.text()
        )
        tip = s.proxy.index(0, s.model.RANK).data(Qt.ItemDataRole.ToolTipRole)
        top = max(e.result.means["adr"] for e in c.readable_entries())
        assert tip == f"rank 1 by Average Dynamic Recall [adr] = {top:.4f}"
    finally:
        c.set_options(dataclasses.replace(c.options, profile="shrec"))
        c.score()
        qtbot.waitUntil(lambda: settled(demo, 7) and not c.stale_entries(), timeout=60000)


def test_class_plot_says_what_it_will_show_and_frames_are_explained(demo, qtbot):
    """L8: before a class is clicked the plot says to click one (and its
    export asks for one); L7: the thumbnails' frame colours are named."""
    from shrec_gui.shape_views import QUERY_COLOUR

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


def test_offscreen_smoke_test_says_one_line(tmp_path):
    """The smoke test (CI runs it offscreen) prints its one line, not Qt's
    "This plugin does not support propagateSizeHints()" for every window."""
    import os
    import subprocess
    import sys

    env = dict(
        os.environ, QT_QPA_PLATFORM="offscreen", SHREC_EVAL_CACHE_DIR=str(tmp_path / "cache")
    )
    p = subprocess.run(
        [sys.executable, "-m", "shrec_gui", "--smoke-test", str(tmp_path / "pr.png")],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    lines = [ln for ln in (p.stdout + p.stderr).splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("smoke test: window shown"), lines


def test_print_figure_is_drawn_off_the_gui_thread(demo, qtbot, tmp_path, monkeypatch):
    """M6: Export figure at a print preset returns at once; matplotlib draws
    on a file thread while the window goes on (figureDone when written)."""
    import threading

    from shrec_eval.outputs import figures as core_figures

    from shrec_gui.figures import FigureSettings

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
        demo.export_plot(str(path), "pdf", which="curves", figure=FigureSettings(preset="column"))
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
    qtbot.waitUntil(lambda: demo.ranked.lists.query_id == "q05", timeout=10000)
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
