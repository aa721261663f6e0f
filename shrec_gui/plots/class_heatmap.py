"""The Per-class table as a heatmap plot (classes x runs, one ImageItem of
the table's colours, class and run names on the axes, a colour bar with the
measure and its range, a tooltip per cell).  Its figures (a print preset
or a custom size) are drawn by shrec_eval.outputs.figures from the results, with
every class named and the colour scale."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QFontMetricsF
from shrec_eval.outputs.report import fmt

from .curves import numeric_axes
from .plot_view import PlotView


class ClassHeatmap(PlotView):
    """Runs along x, classes down y (first class on top), cells coloured as
    the table's heatmap (viridis, brighter = better), the colour bar on the
    right giving the scale, and the class, run and value of the cell under
    the mouse as a tooltip.  The plot is never smaller than its names need
    (its minimum size; the Per class tab scrolls it): every class is named,
    a line each, and every run over the cells, on two rows in turn where
    neighbours need two cells' width (the title above them, as the label of
    the upper row: a plot's title takes the place of that row)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        numeric_axes(self)
        self.image = pg.ImageItem()
        self.addItem(self.image)
        self.setMouseEnabled(x=False, y=False)
        self.rgb = np.zeros((0, 0, 3), dtype=np.uint8)
        self.bar = pg.ColorBarItem(
            values=(0.0, 1.0),
            colorMap=pg.colormap.get("viridis"),
            interactive=False,
            colorMapMenu=False,
            width=14,
        )
        self.bar.axis.enableAutoSIPrefix(False)  # "x0.001" never; the ticks are the values
        pi = self.getPlotItem()
        pi.layout.addItem(self.bar, 2, 5)
        # room right of the bar for its label's whole box (pyqtgraph puts the
        # turned label a few pixels past the bar's own width)
        left, top, _, bottom = pi.layout.getContentsMargins()
        pi.layout.setContentsMargins(left, top, 8, bottom)
        # the run names over the cells: the top axis, and over it a second row
        # where the title was (the title goes into that row's label)
        pi.layout.removeItem(pi.titleLabel)
        pi.titleLabel.setVisible(False)
        self.over = pg.AxisItem("top")
        self.over.linkToView(pi.vb)
        self.over.enableAutoSIPrefix(False)
        self.over.setPen(pg.mkPen(None))  # names only: no second axis line
        self.over.setTextPen(pg.mkPen("#202020"))
        pi.layout.addItem(self.over, 0, 1)
        pi.layout.setRowMinimumHeight(0, 0)
        pi.layout.setRowMaximumHeight(0, 10_000)
        pi.showAxis("top")
        pi.hideAxis("bottom")
        self.title = ""
        self.runs: list[str] = []
        self.classes: list[str] = []
        self.values: list = []  # classes x runs: the class means (None: undefined)
        self._measure = None
        self.steps = (1, 1)
        self._hover = pg.SignalProxy(
            self.scene().sigMouseMoved, rateLimit=30, slot=lambda e: self._show_tip(e[0])
        )
        # deleted with its plot: without a parent, the proxy's connection to the
        # slot (which holds the plot) kept a closed window's plots and menus alive
        self._hover.setParent(self)
        # the cells' room changes with the colour bar's label too, not only
        # with the widget's size: the names are fitted to the view as laid out
        pi.vb.sigResized.connect(lambda *_: self.fit_ticks())

    def set_model(self, model) -> None:
        """Colour every class cell of a PerClassModel (grey where undefined)."""
        runs, classes = len(model.entries), len(model.classes)
        rgb = np.full((max(runs, 1), max(classes, 1), 3), 200, dtype=np.uint8)
        for i in range(classes):
            for j in range(runs):
                v = model.rows[i][j]
                if v is not None:
                    c = model.heat_brush(v).color()
                    rgb[j, classes - 1 - i] = (c.red(), c.green(), c.blue())
        self.rgb = rgb
        self.image.setImage(rgb, levels=(0, 255))
        self.image.setRect(QRectF(-0.5, -0.5, rgb.shape[0], rgb.shape[1]))
        pi = self.getPlotItem()
        self.runs = [e[1] for e in model.entries]
        self.classes = list(model.classes)
        self.values = [list(row) for row in model.rows[:classes]]
        self._measure = model.measure_info
        self._fit_minimum()
        self.fit_ticks()
        m = model.measure_info
        shown = m is not None and runs > 0
        # short: a long label was cut at the plot's width; the bar says the rest
        self.title = f"{m.short or m.key} per class" if shown else ""
        self.over.setLabel(self.title)
        self.over.label.setToolTip(f"{m.label}: mean over each class's queries" if shown else "")
        self.bar.setVisible(shown)
        if shown:
            lo, hi = model._lo, model._hi
            if hi - lo < 1e-12:
                lo, hi = lo - 0.5, hi + 0.5
            cmap = pg.colormap.get("viridis")
            if not m.higher_is_better:
                cmap = cmap.reverse() or cmap
            self.bar.setColorMap(cmap)
            self.bar.setLevels((lo, hi))
            self.bar.axis.setLabel(f"{m.short or m.key}, class mean (brighter = better)")
        self._fit_minimum()  # the colour bar's label known
        pi.setRange(xRange=(-0.5, rgb.shape[0] - 0.5), yRange=(-0.5, rgb.shape[1] - 0.5), padding=0)

    def csv_rows(self, precision: int = 10) -> list[list[str]]:
        """What Export CSV… writes of the heatmap: a row per class (in the
        plot's order, top to bottom) and a column per run, each cell the class
        mean the cell is coloured by (empty where undefined), numbers written
        as the curves' CSV writes them; the first column says the measure."""
        m = self._measure
        rows = [["class" if m is None else f"class ({m.key}, class mean)", *self.runs]]
        for name, values in zip(self.classes, self.values):
            rows.append(
                [name]
                + [
                    "" if v is None else np.format_float_positional(v, precision=precision)
                    for v in values
                ]
            )
        return rows

    def set_dark(self, dark: bool) -> None:
        fg = "#e8e8e8" if dark else "#202020"
        top = self.getPlotItem().getAxis("top")  # the run names
        top.setPen(pg.mkPen(fg))
        top.setTextPen(pg.mkPen(fg))
        self.over.setTextPen(pg.mkPen(fg))
        self.over.setLabel(self.title, color=fg)
        self.bar.axis.setPen(pg.mkPen(fg))
        self.bar.axis.setTextPen(pg.mkPen(fg))
        self.bar.axis.setLabel(self.bar.axis.labelText, color=fg)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.fit_ticks()

    def _metrics(self) -> QFontMetricsF:
        return QFontMetricsF(self.getPlotItem().getAxis("left").style["tickFont"] or self.font())

    def _fit_minimum(self) -> None:
        """The least size at which every class and run is named: a line per
        class, two cells per run name (names alternate under and over)."""
        fm = self._metrics()
        line = fm.height() * 1.05
        widest_class = max((fm.horizontalAdvance(c) for c in self.classes), default=0.0)
        axes = 2 * (fm.height() + 12)  # the run names, two rows over the cells
        title = 2 * fm.height()
        # the colour bar: the bar, its values, its label turned along it (as
        # long as the bar may be short, as thick as it is wide: whole)
        label = self.bar.axis.label.boundingRect() if self.bar.isVisible() else QRectF()
        values = fm.horizontalAdvance("0.000")
        bar = 14 + 10 + values + label.height() + 16
        self.setMinimumSize(
            int(widest_class + 24 + max(len(self.runs), 1) * self._min_cell(fm) + bar),
            int(max(len(self.classes) * line, label.width() + 2 * line) + axes + title + 16),
        )

    @staticmethod
    def _min_cell(fm) -> float:
        """A run's least width: two of them hold a name of 10 characters (a
        longer one is cut, whole in the tooltips)."""
        return 5 * fm.averageCharWidth() + 4

    def fit_ticks(self) -> None:
        """Name as many classes and runs as fit without overlapping (at the
        minimum size: all): every k-th class, k from the height of a line
        and the room of a row; the runs in turn under and over the cells,
        every k-th where two cells are narrower than the widest name."""
        pi = self.getPlotItem()
        if pi is None or not hasattr(self, "values"):  # resized while being built
            return
        left, top, over = pi.getAxis("left"), pi.getAxis("top"), self.over
        fm = self._metrics()
        box = pi.vb.boundingRect()
        n_c, n_r = len(self.classes), len(self.runs)
        room_c = max(box.height(), 1.0) / max(n_c, 1)
        step_c = max(1, math.ceil(fm.height() * 1.05 / room_c))
        room_r = max(box.width(), 1.0) / max(n_r, 1)
        gap = fm.averageCharWidth() * 2
        runs = list(self.runs)
        widest = max((fm.horizontalAdvance(r) for r in runs), default=0.0)
        # neighbours named on the two rows in turn: each name has two cells
        # (cut to them where the cells are narrower than the tab's least)
        stagger = widest + gap > room_r
        if stagger and widest + gap > 2 * room_r and room_r >= self._min_cell(fm) - 0.5:
            runs = [fm.elidedText(r, Qt.TextElideMode.ElideRight, 2 * room_r - gap) for r in runs]
            widest = max((fm.horizontalAdvance(r) for r in runs), default=0.0)
        step_r = max(1, math.ceil((widest + gap) / ((2 if stagger else 1) * room_r)))
        named = [(j, r) for j, r in enumerate(runs) if j % step_r == 0]
        stagger = stagger and step_r == 1
        top.setTicks([[(j, r) for j, r in named if not stagger or j % 2 == 1], []])
        over.setTicks([[(j, r) for j, r in named if stagger and j % 2 == 0], []])
        over.setStyle(showValues=stagger)
        for axis in (top, over):
            # the end names may reach past the cells (pyqtgraph drops a name that
            # reaches further than this past the axis)
            axis.setStyle(hideOverlappingLabels=int(widest / 2) + 2)
        # y up, so the first class on top: the same on screen and in a figure
        left.setTicks([[(n_c - 1 - i, c) for i, c in enumerate(self.classes) if i % step_c == 0]])
        self.steps = (step_r, step_c)

    def cell_at(self, scene_pos) -> tuple[int, int] | None:
        """(class index, run index) of the cell under a scene position."""
        vb = self.getPlotItem().vb
        if not self.values or not vb.sceneBoundingRect().contains(scene_pos):
            return None
        p = vb.mapSceneToView(scene_pos)
        j, row = round(p.x()), round(p.y())
        i = len(self.classes) - 1 - row
        if 0 <= i < len(self.classes) and 0 <= j < len(self.runs):
            return i, j
        return None

    def tip_at(self, scene_pos) -> str:
        """Class, run and value of the cell under a scene position ("" off the cells)."""
        cell = self.cell_at(scene_pos)
        if cell is None or self._measure is None:
            return ""
        i, j = cell
        v = self.values[i][j]
        value = (
            "undefined (no query of the class defines it)" if v is None else fmt(v, self._measure)
        )
        m = self._measure
        return f"class {self.classes[i]}, {self.runs[j]}: {m.short or m.key} = {value}"

    def _show_tip(self, scene_pos) -> None:
        self.setToolTip(self.tip_at(scene_pos))
