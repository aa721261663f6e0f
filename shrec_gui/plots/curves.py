"""Curves (pyqtgraph), and what the plots of the app share: the query
picker, export buttons, numeric axes and the theme.  Plot items are only
touched on the GUI thread; the data arrives with the worker's signals."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from pyqtgraph.graphicsItems.ScatterPlotItem import drawSymbol
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QAction, QPainter
from PySide6.QtWidgets import (
    QComboBox,
    QCompleter,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)
from shrec_eval.outputs.palette import RunLook
from shrec_eval.scoring.measures import CURVES

from .legend_place import LegendPlacer
from .measure_bars import MeasureBarsWidget
from .plot_view import PlotView

MEAN = "Mean over queries"


#: the runs' markers (shrec_eval.outputs.palette.MARKERS, matplotlib's names) as
#: pyqtgraph names the same shapes
SYMBOLS = {
    "o": "o",
    "s": "s",
    "^": "t1",
    "D": "d",
    "v": "t",
    "P": "+",
    "X": "x",
    "<": "t3",
    ">": "t2",
    "*": "star",
}
#: the runs' line styles (shrec_eval.outputs.palette.DASHES) as Qt's pen styles
DASH_STYLES = {
    "solid": Qt.PenStyle.SolidLine,
    "dashed": Qt.PenStyle.DashLine,
    "dotted": Qt.PenStyle.DotLine,
    "dashdot": Qt.PenStyle.DashDotLine,
}


def look_pen(look: RunLook, width: float = 2):
    """The pen of a run's line: its colour and line style."""
    return pg.mkPen(look.colour, width=width, style=DASH_STYLES[look.dash])


class RunCurve(pg.PlotDataItem):
    """A run's curve in its look (shrec_eval.outputs.palette.run_look, as in
    the print figures): the line in its colour and line style, its marker on
    the points RunLook.marks gives (about ten), and line and marker in the
    legend."""

    def __init__(self, look: RunLook, name: str | None = None) -> None:
        super().__init__(
            [],
            [],
            pen=look_pen(look),
            symbol=SYMBOLS[look.marker],
            symbolSize=7,
            symbolBrush=look.colour,
            symbolPen=None,
            antialias=True,
        )
        self.opts["name"] = name
        self.look = look

    def marked(self) -> np.ndarray:
        """Which points carry the marker (those of the print figures)."""
        n = 0 if self.xData is None else len(self.xData)
        first, every = self.look.marks(n)
        out = np.zeros(n, bool)
        out[first::every] = True
        return out

    def updateItems(self, styleUpdate: bool = True) -> None:
        super().updateItems(styleUpdate)
        if getattr(self, "look", None) is None:  # while pyqtgraph builds the item
            return
        mark = self.marked()
        if self.opts["symbol"] is None or mark.all() or self.xData is None:
            return
        o = self.opts
        self.scatter.setData(
            x=np.asarray(self.xData)[mark],
            y=np.asarray(self.yData)[mark],
            symbol=o["symbol"],
            size=o["symbolSize"],
            pen=o["symbolPen"],
            brush=o["symbolBrush"],
        )


class RunSample(pg.ItemSample):
    """A legend sample long enough to show a run's line style (dashed,
    dotted, dash-dotted) with its marker in the middle; other items as
    pyqtgraph draws them."""

    WIDTH = 36

    def __init__(self, item) -> None:
        super().__init__(item)
        if isinstance(item, RunCurve):
            self.setFixedWidth(self.WIDTH)

    def boundingRect(self):
        if isinstance(self.item, RunCurve):
            return QRectF(0, 0, self.WIDTH, 20)
        return super().boundingRect()

    def paint(self, p, *args):
        item = self.item
        if not isinstance(item, RunCurve) or not item.isVisible():
            super().paint(p, *args)
            return
        o = item.opts
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.setPen(pg.mkPen(o["pen"]))
        p.drawLine(QPointF(0, 11), QPointF(self.WIDTH, 11))
        p.translate(self.WIDTH / 2, 11)
        drawSymbol(p, o["symbol"], o["symbolSize"], pg.mkPen(o["symbolPen"]),
                   pg.mkBrush(o["symbolBrush"]))  # fmt: skip


#: legend background on screen (light, dark); exports are always light (figures/printing.py)
LEGEND_BRUSH = {False: (255, 255, 255, 215), True: (32, 33, 36, 215)}
#: room around the [0, 1] x [0, 1] of a precision-recall plot: a point at 1
#: drawn whole (not half cut by the axes) and the axes' end labels "1.0" shown
UNIT_PADDING = 0.05
#: what the curve-kind list offers besides the registry's curves
BARS = "bars"
EXPORTS = (("figure", "Export figure…"), ("csv", "Export CSV…"))


def searchable_combo() -> QComboBox:
    """A query picker one can type into: the list narrows to the ids that
    contain what is typed (thousands of queries are no scrolling job)."""
    combo = QComboBox()
    combo.setEditable(True)
    combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
    completer = combo.completer()
    completer.setFilterMode(Qt.MatchFlag.MatchContains)
    completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
    completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
    return combo


def export_buttons(emit, csv: bool = True, plots=()) -> list[QPushButton]:
    """The export buttons of a plot: a figure (PNG, SVG or PDF, asked in the
    export dialog) and the plotted data as CSV; ``emit(kind)`` on click.

    The same two entries replace pyqtgraph's "Export..." in the right-click
    menu of each of ``plots`` (pg.PlotWidget): its dialog wrote files past the
    output gate (not atomically, over any file, CSV cells unquoted) and its
    SVG exporter fails on Qt 6's paths (figures/printing.py)."""
    entries = EXPORTS if csv else EXPORTS[:1]
    out = []
    for kind, text in entries:
        b = QPushButton(text)
        b.clicked.connect(lambda _=False, k=kind: emit(k))
        out.append(b)
    for plot in plots:
        scene = plot.scene()
        actions = []
        for kind, text in entries:
            action = QAction(text, scene)
            action.triggered.connect(lambda _=False, k=kind: emit(k))
            actions.append(action)
        scene.contextMenu = actions  # what pyqtgraph adds under every item's own menu
    return out


def numeric_axes(plot: pg.PlotWidget) -> None:
    """Axes that read as numbers: no SI prefix scaling ("F (x0.001)" over
    values 0-800, "Rank (x0.001)")."""
    for name in ("left", "bottom", "right", "top"):
        plot.getAxis(name).enableAutoSIPrefix(False)


class CurvesWidget(QWidget):
    """Every run's curve of one kind, mean over queries or one query."""

    exportRequested = Signal(str)  # "figure", "csv"

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.kind = QComboBox()
        for c in CURVES:
            self.kind.addItem(c.label, c.key)
        self.kind.addItem("Measure bars (SHREC summary)", BARS)
        self.kind.setCurrentIndex([c.key for c in CURVES].index("pr"))
        self.query = searchable_combo()
        self.query.addItem(MEAN)
        self.query.setMinimumContentsLength(12)
        self._qids: tuple = ()
        self.plot = PlotView()
        self.plot.showGrid(x=True, y=True, alpha=0.25)
        self.plot.addLegend(
            offset=(-10, 10), brush=pg.mkBrush(LEGEND_BRUSH[False]), sampleType=RunSample
        )
        self.legend_place = LegendPlacer(self.plot.getPlotItem())  # off the data, else outside
        numeric_axes(self.plot)
        self.bars = MeasureBarsWidget()
        self.stack = QStackedWidget()
        self.stack.addWidget(self.plot)
        self.stack.addWidget(self.bars)
        bar = QHBoxLayout()
        bar.addWidget(QLabel("Curve:"))
        bar.addWidget(self.kind)
        bar.addWidget(QLabel("Queries:"))
        bar.addWidget(self.query)
        bar.addStretch(1)
        for b in export_buttons(self.exportRequested.emit, plots=(self.plot, self.bars.plot)):
            bar.addWidget(b)
        self.readout = QLabel(" ")  # the curve point under the mouse
        lay = QVBoxLayout(self)
        lay.addLayout(bar)
        lay.addWidget(self.stack, 1)
        lay.addWidget(self.readout)
        self._hover = pg.SignalProxy(
            self.plot.scene().sigMouseMoved, rateLimit=30, slot=lambda e: self.hover(e[0])
        )
        # deleted with its plot: without a parent, the proxy's connection to the
        # slot (which holds the plot) kept a closed window's plots and menus alive
        self._hover.setParent(self.plot)
        self.entries: list = []  # (name, RunLook, RunResult)
        self._items: list = []  # (name, RunLook, RunCurve) on the plot
        self.kind.currentIndexChanged.connect(self.redraw)
        self.query.currentIndexChanged.connect(self.redraw)

    @property
    def plot_item(self):
        """The plot shown: the curves, or the measure bars."""
        return self.bars.plot_item if self.showing_bars() else self.plot.getPlotItem()

    def showing_bars(self) -> bool:
        return self.kind.currentData() == BARS

    def set_entries(self, entries) -> None:
        self.entries = [e for e in entries if e[2] is not None]
        self.bars.set_entries(self.entries)
        qids = tuple(self.entries[0][2].query_ids) if self.entries else ()
        if qids != self._qids:  # refill the query list only when it changes (one call)
            current = self.current_query()
            self._qids = qids
            self.query.blockSignals(True)
            self.query.clear()
            self.query.addItems([MEAN] + list(qids))
            self.query.setCurrentIndex(qids.index(current) + 1 if current in qids else 0)
            self.query.blockSignals(False)
        self.redraw()

    def current_query(self) -> str | None:
        """The chosen query id, or None for the mean over queries."""
        i = self.query.currentIndex()
        return self._qids[i - 1] if 0 < i <= len(self._qids) else None

    def select_query(self, query_id: str | None) -> None:
        self.query.setCurrentIndex(self._qids.index(query_id) + 1 if query_id in self._qids else 0)

    def curve_data(self):
        """(name, look, x, y) of the curves."""
        key = self.kind.currentData()
        if key == BARS:
            return []
        q = self.current_query()
        out = []
        for name, look, res in self.entries:
            c = res.curves[key]
            if q is None:
                y = c.mean
            else:
                y = c.per_query[res.query_ids.index(q)]
            ok = ~np.isnan(y)
            out.append((name, look, c.x[ok], y[ok]))
        return out

    def nearest_point(self, scene_pos, radius: float = 10.0):
        """(run name, x, y) of the drawn point nearest to a scene position,
        within ``radius`` pixels; None elsewhere (hidden runs are skipped)."""
        vb = self.plot.getPlotItem().vb
        if self.showing_bars() or not vb.sceneBoundingRect().contains(scene_pos):
            return None
        t = vb.childGroup.sceneTransform()  # data -> scene
        best = None
        for name, _, item in self._items:
            if not item.isVisible() or item.xData is None or not len(item.xData):
                continue
            x, y = np.asarray(item.xData, float), np.asarray(item.yData, float)
            sx = t.m11() * x + t.m21() * y + t.dx()
            sy = t.m12() * x + t.m22() * y + t.dy()
            d = np.hypot(sx - scene_pos.x(), sy - scene_pos.y())
            i = int(np.nanargmin(d))
            if d[i] <= radius and (best is None or d[i] < best[0]):
                best = (float(d[i]), name, float(x[i]), float(y[i]))
        return None if best is None else best[1:]

    def hover(self, scene_pos) -> None:
        """Show run, x and y of the point under the mouse."""
        hit = self.nearest_point(scene_pos)
        if hit is None:
            self.readout.setText(" ")
            return
        spec = next(c for c in CURVES if c.key == self.kind.currentData())
        name, x, y = hit
        self.readout.setText(f"{name}: {spec.x_label} {x:.4g}, {spec.y_label} {y:.4g}")

    def redraw(self) -> None:
        """Update the curves in place (new data into the existing items) so
        that a refresh while runs arrive costs little."""
        bars = self.showing_bars()
        self.stack.setCurrentWidget(self.bars if bars else self.plot)
        self.query.setEnabled(not bars)  # the bars are means over queries
        if bars:
            return
        pi = self.plot.getPlotItem()
        spec = next(c for c in CURVES if c.key == self.kind.currentData())
        pi.setLabel("bottom", spec.x_label)
        pi.setLabel("left", spec.y_label)
        q = self.current_query()
        pi.setTitle(f"{spec.label} — {'mean over queries' if q is None else 'query ' + q}")
        data = self.curve_data()
        wanted = [(name, look) for name, look, _, _ in data]
        if wanted != [(n, c) for n, c, _ in self._items]:
            self._items = self._reuse_items(pi, wanted)
        key = spec.key
        for (_, _, item), (_, _, x, y), (_, _, res) in zip(self._items, data, self.entries):
            was = getattr(item, "_shows", None)
            if was is not None and was[:2] == (key, q) and was[2] is res:
                continue  # the same curve of the same result: nothing to redraw
            item._shows = (key, q, res)
            item.setData(x, y)
        if spec.key in ("pr",):
            pi.setXRange(0, 1, padding=UNIT_PADDING)
            pi.setYRange(0, 1, padding=UNIT_PADDING)
        else:
            pi.enableAutoRange()

    def _reuse_items(self, pi, wanted: list) -> list:
        """Curve items for ``wanted`` (name, look) pairs: the existing
        ones kept (a run arriving adds one item instead of redrawing all),
        the others removed; the legend follows the order of ``wanted``."""
        have = {(n, c): item for n, c, item in self._items}
        for key, item in have.items():
            if key not in wanted:
                pi.removeItem(item)
        items = []
        for name, look in wanted:
            item = have.get((name, look))
            if item is None:
                item = RunCurve(look)
                pi.addItem(item)  # nameless: the legend is kept below, in order
                item.opts["name"] = name
            items.append((name, look, item))
        if pi.legend is not None:
            shown = [sample.item for sample, _ in pi.legend.items]
            kept = [item for _, _, item in items[: len(shown)]]
            if shown == kept:  # runs only arrived: their entries go below
                for name, _, item in items[len(shown) :]:
                    pi.legend.addItem(item, name)
            else:
                pi.legend.clear()
                for name, _, item in items:
                    pi.legend.addItem(item, name)
        return items


def set_widget_theme(widget: pg.PlotWidget, dark: bool) -> None:
    widget.setBackground("#202124" if dark else "w")
    fg = "#e8e8e8" if dark else "#202020"
    pi = widget.getPlotItem()
    for name in ("left", "bottom"):
        ax = pi.getAxis(name)
        ax.setPen(pg.mkPen(fg))
        ax.setTextPen(pg.mkPen(fg))
    pi.titleLabel.setText(pi.titleLabel.text, color=fg)
    if pi.legend is not None:
        pi.legend.setBrush(pg.mkBrush(LEGEND_BRUSH[dark]))
        pi.legend.setLabelTextColor(fg)
        for _, label in pi.legend.items:
            label.setText(label.text, color=fg)
