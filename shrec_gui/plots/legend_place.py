"""Legends that never hide data on screen: a plot's legend goes to the
first place inside the view that covers no drawn point (the corners, top
right first, then the middles of the sides), else outside the axes, to the
right of the view (the plot makes room for it; in columns where it is
taller than the view).  Placed again whenever the data, the range or the
size change.

Inside, the legend is a child of the view box (it moves with it); outside, of
the plot item: the view box clips its children to itself, so a legend
outside it, still its child, was never seen."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, QTimer

PAD = 8  # pixels between the legend and the view's edge
#: (x, y) of the legend's anchor in the view, as fractions: corners first
PLACES = ((1, 0), (0, 0), (1, 1), (0, 1), (0.5, 0), (0.5, 1), (1, 0.5), (0, 0.5))


class LegendPlacer(QObject):
    """Keeps ``plot_item``'s legend off its data (see the module)."""

    def __init__(self, plot_item) -> None:
        # the plot's child: deleted with it (a placing asked for as a closed
        # window's tab was made ran after the window was gone)
        super().__init__(plot_item)
        self.plot = plot_item
        self.outside = False
        self._margin = 0.0
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.place)
        plot_item.vb.sigResized.connect(self.schedule)
        plot_item.vb.sigRangeChanged.connect(self.schedule)

    def schedule(self, *_args) -> None:
        self._timer.start()

    def _points(self, width: float, height: float) -> np.ndarray:
        """Pixel positions in the view (as wide as ``width``) of the drawn
        points and of points along every line and bar."""
        (x0, x1), (y0, y1) = self.plot.vb.viewRange()
        pts = []
        for item in self.plot.vb.addedItems:
            if not item.isVisible():
                continue
            if isinstance(item, pg.PlotDataItem) and item.xData is not None:
                x, y = np.asarray(item.xData, float), np.asarray(item.yData, float)
                if len(x) > 1:
                    t = np.linspace(0, 1, 12)[:, None]
                    x = (x[:-1] + t * (x[1:] - x[:-1])).ravel()
                    y = (y[:-1] + t * (y[1:] - y[:-1])).ravel()
                pts.append(np.column_stack([x, y]))
            elif isinstance(item, pg.BarGraphItem):
                o = item.opts
                x = np.atleast_1d(np.asarray(o.get("x"), float))
                h = np.atleast_1d(np.asarray(o.get("height"), float))
                w = float(np.max(o.get("width", 0.8)))
                for fx in (-0.5, 0.0, 0.5):
                    for fy in np.linspace(0, 1, 12):
                        pts.append(np.column_stack([x + fx * w, fy * h]))
        if not pts:
            return np.zeros((0, 2))
        p = np.concatenate(pts)
        p = p[np.isfinite(p).all(axis=1)]
        px = (p[:, 0] - x0) / ((x1 - x0) or 1) * width
        py = (y1 - p[:, 1]) / ((y1 - y0) or 1) * height
        return np.column_stack([px, py])

    def place(self) -> None:
        legend = self.plot.legend
        if legend is None or not legend.items or not legend.isVisible():
            self._set_margin(0.0)
            return
        self._columns(legend, 1)
        legend.updateSize()
        lw, lh = legend.boundingRect().width(), legend.boundingRect().height()
        box = self.plot.vb.boundingRect()
        # judged on the view as wide as it is with the legend inside, so
        # that making room outside never changes the answer
        width, height = box.width() + self._margin, box.height()
        pts = self._points(width, height)
        if lw <= 0.6 * width and lh <= 0.6 * height:
            for fx, fy in PLACES:
                left = fx * (width - lw) + (PAD if fx == 0 else -PAD if fx == 1 else 0)
                top = fy * (height - lh) + (PAD if fy == 0 else -PAD if fy == 1 else 0)
                inside = (
                    (pts[:, 0] >= left - 2)
                    & (pts[:, 0] <= left + lw + 2)
                    & (pts[:, 1] >= top - 2)
                    & (pts[:, 1] <= top + lh + 2)
                )
                if not inside.any():
                    self.outside = False
                    self._set_margin(0.0)
                    self._parent(legend, self.plot.vb)
                    legend.anchor(
                        (fx, fy),
                        (fx, fy),
                        offset=(
                            PAD if fx == 0 else -PAD if fx == 1 else 0,
                            PAD if fy == 0 else -PAD if fy == 1 else 0,
                        ),
                    )
                    return
        self.outside = True
        # taller than the view: as many columns as it takes to fit its height
        rows = max(1, int((height - PAD) // max(lh / len(legend.items), 1.0)))
        self._columns(legend, -(-len(legend.items) // rows))
        lw = legend.boundingRect().width()
        self._set_margin(lw + 2 * PAD)
        self._parent(legend, self.plot)
        top = self.plot.vb.geometry().top()
        legend.anchor((1, 0), (1, 0), offset=(-PAD, top))

    @staticmethod
    def _parent(legend, parent) -> None:
        if legend.parentItem() is not parent:
            # GraphicsWidget's own: LegendItem.setParentItem anchors it anew
            pg.GraphicsWidget.setParentItem(legend, parent)

    @staticmethod
    def _columns(legend, n: int) -> None:
        if legend.columnCount != n:
            legend.setColumnCount(n)
            legend.updateSize()

    def _set_margin(self, margin: float) -> None:
        if abs(margin - self._margin) < 0.5:
            return
        self._margin = margin
        left, top, _, bottom = self.plot.layout.getContentsMargins()
        self.plot.layout.setContentsMargins(left, top, margin, bottom)
