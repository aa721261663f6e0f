"""The Per-class table as a heatmap plot (classes x runs, one ImageItem of
the table's colours, class and run names on the axes, a colour bar with the
measure and its range), so that it exports as a figure through
shrec_gui.figures like every other plot (and, at a print preset, is drawn
by shrec_eval.figures from the results)."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF
from PySide6.QtGui import QFontMetricsF

from .plots import numeric_axes


class ClassHeatmap(pg.PlotWidget):
    """Runs along x, classes down y (first class on top), cells coloured as
    the table's heatmap (viridis, brighter = better).  Where the names do not
    fit, every second (third...) class or run is named, so that no two
    labels overlap; the colour bar on the right gives the scale."""

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
        self.getPlotItem().layout.addItem(self.bar, 2, 5)
        self.runs: list[str] = []
        self.classes: list[str] = []

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
        self.fit_ticks()
        m = model.measure_info
        shown = m is not None and runs > 0
        # short: a long label was cut at the plot's width; the bar says the rest
        pi.setTitle(f"{m.short or m.key} per class" if shown else "")
        pi.titleLabel.setToolTip(f"{m.label}: mean over each class's queries" if shown else "")
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
        pi.setRange(xRange=(-0.5, rgb.shape[0] - 0.5), yRange=(-0.5, rgb.shape[1] - 0.5), padding=0)

    def set_dark(self, dark: bool) -> None:
        fg = "#e8e8e8" if dark else "#202020"
        self.bar.axis.setPen(pg.mkPen(fg))
        self.bar.axis.setTextPen(pg.mkPen(fg))
        self.bar.axis.setLabel(self.bar.axis.labelText, color=fg)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.fit_ticks()

    def fit_ticks(self) -> None:
        """Name as many classes and runs as fit without overlapping: every
        k-th one, k from the height of a line (classes) or the widest name
        (runs) and the room of a cell."""
        pi = self.getPlotItem()
        if pi is None or not hasattr(self, "runs"):  # resized while being built
            return
        left, bottom = pi.getAxis("left"), pi.getAxis("bottom")
        fm = QFontMetricsF(left.style["tickFont"] or self.font())
        box = pi.vb.boundingRect()
        n_c, n_r = len(self.classes), len(self.runs)
        room_c = max(box.height(), 1.0) / max(n_c, 1)
        step_c = max(1, math.ceil(fm.height() * 1.05 / room_c))
        widest = max((fm.horizontalAdvance(r) for r in self.runs), default=0.0)
        room_r = max(box.width(), 1.0) / max(n_r, 1)
        step_r = max(1, math.ceil((widest + fm.averageCharWidth() * 2) / room_r))
        bottom.setTicks([[(j, r) for j, r in enumerate(self.runs) if j % step_r == 0]])
        # the end names may reach past the cells (pyqtgraph drops a name that
        # reaches further than this past the axis)
        bottom.setStyle(hideOverlappingLabels=int(widest / 2) + 2)
        # y up, so the first class on top: the same on screen and in a figure
        left.setTicks([[(n_c - 1 - i, c) for i, c in enumerate(self.classes) if i % step_c == 0]])
        self.steps = (step_r, step_c)
