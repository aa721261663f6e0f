"""The Per-class table as a heatmap plot (classes x runs, one ImageItem of
the table's colours, class and run names on the axes), so that it exports as
a figure through shrec_gui.figures like every other plot."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF

from .plots import numeric_axes


class ClassHeatmap(pg.PlotWidget):
    """Runs along x, classes down y (first class on top), cells coloured as
    the table's heatmap (viridis, brighter = better)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        numeric_axes(self)
        self.image = pg.ImageItem()
        self.addItem(self.image)
        self.setMouseEnabled(x=False, y=False)
        self.rgb = np.zeros((0, 0, 3), dtype=np.uint8)

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
        pi.getAxis("bottom").setTicks([[(j, model.entries[j][1]) for j in range(runs)]])
        # y up, so the first class on top: the same on screen and in a figure
        pi.getAxis("left").setTicks([[(classes - 1 - i, c) for i, c in enumerate(model.classes)]])
        m = model.measure_info
        pi.setTitle(f"{m.label} per class (brighter = better)" if m is not None and runs else "")
        pi.setRange(xRange=(-0.5, rgb.shape[0] - 0.5), yRange=(-0.5, rgb.shape[1] - 0.5), padding=0)
