"""The print copy of a plot, for printing.py: the data items, axes, ticks,
ranges, title and legend of a pyqtgraph PlotItem copied into a fresh,
light-styled plot on an off-screen canvas of the requested size and font size
(pens, symbols and legend samples scaled with the font), its legend placed.
The data items are copied by items.py; what is asked for (size, font,
format, legend) is settings.py's FigureSettings."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from pyqtgraph.graphicsItems.ScatterPlotItem import drawSymbol
from PySide6.QtCore import (
    QPointF,
    QRectF,
    Qt,
    Signal,
)
from PySide6.QtGui import QFont, QFontMetricsF, QImage, QPainter

from ..plots.name_ticks import fit_names, set_name_height
from .items import copy_item
from .settings import FigureSettings

INK = "#000000"  # text and axes of a printed figure
LEGEND_BRUSH = (255, 255, 255, 230)  # legend background (nearly opaque white)
LEGEND_PEN = "#909090"
SCREEN_FONT_PX = 12  # the font size the on-screen pens and symbols are drawn for


# -- building the print copy -----------------------------------------------------------------
class _Sample(pg.GraphicsWidget):
    """A legend sample sized with the font: the item's line, symbol or bar
    (pyqtgraph's ItemSample is a fixed 20 px square)."""

    _scale = 1.0
    sigClicked = Signal(object)  # LegendItem connects it (not emitted: print copy)

    def __init__(self, item) -> None:
        super().__init__()
        self.item = item
        side = 20 * self._scale
        self.setFixedWidth(side * 1.6)
        self.setFixedHeight(side)

    def boundingRect(self):
        return QRectF(0, 0, 32 * self._scale, 20 * self._scale)

    def paint(self, p, *args):
        w, h = 32 * self._scale, 20 * self._scale
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        item = self.item
        if isinstance(item, pg.BarGraphItem):
            p.setPen(pg.mkPen(item.opts.get("pen")))
            p.setBrush(pg.mkBrush(item.opts.get("brush")))
            p.drawRect(QRectF(w * 0.2, h * 0.15, w * 0.6, h * 0.7))
            return
        o = getattr(item, "_legend_opts", item.opts)
        if o["pen"] is not None:
            p.setPen(pg.mkPen(o["pen"]))
            p.drawLine(QPointF(0, h / 2), QPointF(w, h / 2))
        if o["symbol"] is not None:
            p.translate(w / 2, h / 2)
            pen, brush = pg.mkPen(o["symbolPen"]), pg.mkBrush(o["symbolBrush"])
            drawSymbol(p, o["symbol"], o["symbolSize"], pen, brush)


class _PrintAxis(pg.AxisItem):
    """An axis whose end labels may reach into the margins even with a grid
    (pyqtgraph then bounds an axis by the view and drops the "0" of a bar
    chart whose range starts at 0)."""

    def boundingRect(self):
        m = self.style["tickFont"].pixelSize() if self.style["tickFont"] else 15
        return super().boundingRect().adjusted(-m, -m, m, m)


def _tick_font(font_px: float) -> QFont:
    font = QFont()
    font.setPixelSize(max(6, round(font_px)))
    return font


def _fit_text_ticks(plot) -> bool:
    """Run names under bars (plots/name_ticks.py's NameTicks) fitted to the figure's
    width at the figure's font size (staggered or shortened, never smaller);
    other text ticks shrink until neighbours do not overlap.  True when the
    axis changed (the plot needs laying out again)."""
    axis = plot.getAxis("bottom")
    if axis._tickLevels is None or not axis._tickLevels[0]:
        return False
    ticks = sorted(axis._tickLevels[0])
    (x0, x1), w = plot.vb.viewRange()[0], plot.vb.sceneBoundingRect().width()
    names = getattr(axis, "_run_names", None)
    if names is not None:
        font = axis.style["tickFont"]
        fitted = fit_names(names, w / ((x1 - x0) or 1), QFontMetricsF(font))
        if [t for _, t in ticks] == fitted:
            return False
        axis.setTicks([list(enumerate(fitted))])
        set_name_height(axis, fitted, QFontMetricsF(font))
        return True
    gaps = np.diff([v for v, _ in ticks])
    room = (gaps.min() if len(gaps) else x1 - x0) / ((x1 - x0) or 1) * w * 0.92
    font = axis.style["tickFont"]
    widest = max(QFontMetricsF(font).horizontalAdvance(str(s)) for _, s in ticks)
    if widest <= room or font.pixelSize() <= 6:
        return False
    smaller = _tick_font(font.pixelSize() * room / widest)
    axis.setStyle(tickFont=smaller, tickTextHeight=int(QFontMetricsF(smaller).height()) + 1)
    return True


def _style_axis(axis, src, font_px: int) -> None:
    font = _tick_font(font_px)
    axis.enableAutoSIPrefix(False)  # "F (x0.001)" must never appear on a figure
    axis.setStyle(
        tickFont=font,
        tickLength=-max(4, font_px // 3),
        tickTextOffset=max(3, font_px // 3),
        autoExpandTextSpace=True,
        tickTextHeight=int(QFontMetricsF(font).height()) + 1,
        hideOverlappingLabels=font_px,  # the end labels may reach into the margins
        maxTickLevel=1,  # major and minor grid lines; the finest level is noise in print
        maxTextLevel=1,
    )
    axis.setPen(pg.mkPen(INK, width=max(1.0, font_px / SCREEN_FONT_PX)))
    axis.setTextPen(pg.mkPen(INK))
    axis.setTickPen(pg.mkPen(INK, width=max(1.0, font_px / SCREEN_FONT_PX)))
    if src._tickLevels is not None:  # text ticks (run names): kept as they are
        axis.setTicks(src._tickLevels)
    if getattr(src, "_run_names", None) is not None:  # refitted to the figure
        axis._run_names = src._run_names
    if src.grid is not False:
        axis.setGrid(src.grid)
    if src.labelText or src.labelUnits:
        axis.setLabel(
            src.labelText,
            units=src.labelUnits or None,
            **{
                "font-size": f"{font_px}px",
                "color": INK,
            },
        )
    axis.setVisible(src.isVisible())


def _legend_entries(src_plot) -> list:
    """(copy item, label text) of the source legend, in its order, for the
    items that were copied (build_figure marks them)."""
    legend = src_plot.legend
    if legend is None:
        return []
    return [
        (sample.item._figure_copy, label.text)
        for sample, label in legend.items
        if getattr(sample.item, "_figure_copy", None) is not None
    ]


def _make_legend(entries, settings: FigureSettings, columns: int = 1):
    scale = settings.font_px / SCREEN_FONT_PX
    legend = pg.LegendItem(
        brush=pg.mkBrush(LEGEND_BRUSH),
        pen=pg.mkPen(LEGEND_PEN),
        labelTextColor=INK,
        labelTextSize=f"{settings.font_px}px",
        horSpacing=int(6 * scale),
        verSpacing=0,
        colCount=columns,
        # LegendItem wants a class: one with this figure's scale
        sampleType=type("_ScaledSample", (_Sample,), {"_scale": scale}),
    )
    for item, text in entries:
        legend.addItem(item, text)
    legend.layout.setContentsMargins(*(4 * scale,) * 4)
    legend.updateSize()
    return legend


@dataclass
class Figure:
    """A print copy of a plot on its own off-screen canvas."""

    view: pg.GraphicsView  # never shown: items measure pixels through a view
    plot: pg.PlotItem
    legend: pg.LegendItem | None
    settings: FigureSettings

    def close(self) -> None:
        self.view.scene().clear()
        self.view.close()
        self.view.deleteLater()


def build_figure(src_plot, settings: FigureSettings) -> Figure:
    """A light, print-styled copy of ``src_plot`` (a pyqtgraph PlotItem) laid
    out at settings.width x settings.height pixels.  Close it after use."""
    s = settings.checked()
    scale = s.font_px / SCREEN_FONT_PX
    view = pg.GraphicsView(background="w")
    # axes and symbols measure pixels through the scene's view: an identity
    # view of the figure's size that never appears on screen
    view.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)
    view.resize(s.width, s.height)
    view.show()
    scene = view.scene()
    plot = pg.PlotItem(axisItems={k: _PrintAxis(k) for k in ("left", "bottom", "right", "top")})
    scene.addItem(plot)
    if getattr(src_plot.vb, "_autoRangeNeedsUpdate", False):
        # a plot that was not painted since its data changed (a hidden tab)
        # has not applied its auto range yet: apply it, as painting would
        src_plot.vb.updateAutoRange()
    xr, yr = src_plot.vb.viewRange()
    # ticks exactly on the range's ends (0 of a bar chart) are drawn
    xr, yr = ([a - 1e-9 * (b - a), b + 1e-9 * (b - a)] for a, b in (xr, yr))
    for item in src_plot.vb.addedItems:
        if item.isVisible():
            parts = copy_item(item, scale, xr, yr)
            for part in parts:
                plot.addItem(part)
            if parts:
                item._figure_copy = parts[0]
    for name in ("left", "bottom", "right", "top"):
        src_axis = src_plot.getAxis(name)
        plot.showAxis(name, src_axis.isVisible())
        _style_axis(plot.getAxis(name), src_axis, s.font_px)
    title = src_plot.titleLabel
    if title.isVisible() and title.text:
        plot.setTitle(title.text, color=INK, size=f"{round(s.font_px * 1.15)}px")
        if getattr(src_plot, "_title_over_axes", False):  # as on screen (plots/significance.py)
            plot.layout.removeItem(plot.titleLabel)
            plot.layout.addItem(plot.titleLabel, 0, 0, 1, 3)
    plot.vb.setRange(xRange=xr, yRange=yr, padding=0)
    plot.vb.disableAutoRange()
    margin = s.font_px / 2
    # right margin: half the last tick label hangs over the axis' end
    plot.layout.setContentsMargins(margin, margin, s.font_px * 1.5, margin)
    entries = _legend_entries(src_plot)
    legend = _place_legend(scene, plot, entries, s) if entries else None
    if legend is None:
        _layout(plot, QRectF(0, 0, s.width, s.height))
    for item in src_plot.vb.addedItems:
        item.__dict__.pop("_figure_copy", None)
    return Figure(view, plot, legend, s)


def _layout(plot, rect: QRectF) -> None:
    """Lay the plot out in rect.  A title wider than the axes would widen the
    plot beyond the figure (cut on the right): its font shrinks to fit."""
    plot.setGeometry(rect)
    plot.layout.activate()
    label = plot.titleLabel
    excess = plot.geometry().width() - rect.width()
    if excess > 0.5 and label.isVisible() and label.text:
        wide = label.item.boundingRect().width()
        px = float(label.opts.get("size", "12px").rstrip("ptx") or 12)
        label.setText(label.text, size=f"{max(6.0, px * (wide - excess) / wide - 0.5):.1f}px")
        plot.setGeometry(rect)
        plot.layout.activate()
    if _fit_text_ticks(plot):
        plot.setGeometry(rect)
        plot.layout.activate()
    # axes learn the size of their tick labels when first painted (pyqtgraph's
    # autoExpandTextSpace): paint once off the record, then lay out again
    scratch = QImage(
        max(int(rect.width()), 1), max(int(rect.height()), 1), QImage.Format.Format_ARGB32
    )
    painter = QPainter(scratch)
    try:
        plot.scene().render(painter, QRectF(scratch.rect()), rect)
    finally:
        painter.end()
    plot.setGeometry(rect)
    plot.layout.activate()


def _data_points(plot) -> np.ndarray:
    """Scene positions of what is drawn in the view (points, and points along
    every line), to find the emptiest corner for the legend."""
    vb = plot.vb.sceneBoundingRect()
    (x0, x1), (y0, y1) = plot.vb.viewRange()
    pts = []
    for item in plot.vb.addedItems:
        if isinstance(item, pg.PlotDataItem) and item.xData is not None:
            x, y = np.asarray(item.xData, float), np.asarray(item.yData, float)
            if len(x) > 1:  # ten points along each segment
                t = np.linspace(0, 1, 10)[:, None]
                x = (x[:-1] + t * (x[1:] - x[:-1])).ravel()
                y = (y[:-1] + t * (y[1:] - y[:-1])).ravel()
            pts.append(np.column_stack([x, y]))
        elif isinstance(item, pg.BarGraphItem):
            o = item.opts
            x = np.asarray(o.get("x"), float)
            h = np.asarray(o.get("height"), float)
            for f in np.linspace(0, 1, 10):
                pts.append(np.column_stack([x + 0 * h, f * h]))
    if not pts:
        return np.zeros((0, 2))
    p = np.concatenate(pts)
    p = p[np.isfinite(p).all(axis=1)]
    sx = vb.left() + (p[:, 0] - x0) / ((x1 - x0) or 1) * vb.width()
    sy = vb.bottom() - (p[:, 1] - y0) / ((y1 - y0) or 1) * vb.height()
    return np.column_stack([sx, sy])


def _emptiest_corner(plot, lw: float, lh: float, pad: float) -> QPointF:
    """Top-left position of the legend in the corner of the view that covers
    the fewest drawn points (top right first on ties)."""
    vb = plot.vb.sceneBoundingRect()
    pts = _data_points(plot)
    best = None
    for x in (vb.right() - lw - pad, vb.left() + pad):
        for y in (vb.top() + pad, vb.bottom() - lh - pad):
            inside = (
                (pts[:, 0] >= x) & (pts[:, 0] <= x + lw) & (pts[:, 1] >= y) & (pts[:, 1] <= y + lh)
            )
            n = int(inside.sum())
            if best is None or n < best[0]:
                best = (n, QPointF(x, y))
    return best[1]


def _size(legend) -> tuple[float, float]:
    r = legend.boundingRect()
    return r.width(), r.height()


def _place_legend(scene, plot, entries, s: FigureSettings):
    """Lay out the plot and its legend: inside (in the corner of the axes
    that hides the fewest points), to the right, or below in as many columns
    as fit.  A legend too big for where it is asked goes below, never cut."""
    gap = s.font_px
    legend = _make_legend(entries, s)
    lw, lh = _size(legend)
    place = s.legend
    if place == "right" and lw > 0.45 * s.width:
        place = "below"
    if place == "inside":
        _layout(plot, QRectF(0, 0, s.width, s.height))
        vb = plot.vb.sceneBoundingRect()
        if lw <= 0.6 * vb.width() and lh <= 0.6 * vb.height():
            scene.addItem(legend)
            legend.setPos(_emptiest_corner(plot, lw, lh, gap / 2))
            legend.setZValue(10)
            return legend
        place = "below"
    if place == "right":
        _layout(plot, QRectF(0, 0, s.width - lw - gap, s.height))
        scene.addItem(legend)
        legend.setPos(s.width - lw - gap / 2, plot.vb.sceneBoundingRect().top())
        return legend
    # below: as many columns as the width holds
    columns = max(1, min(len(entries), int((s.width - gap) // max(lw, 1))))
    legend = _make_legend(entries, s, columns)
    lw, lh = _size(legend)
    if columns > 1:  # the widest column decides; shrink columns until it fits
        while columns > 1 and lw > s.width - gap:
            columns -= 1
            legend = _make_legend(entries, s, columns)
            lw, lh = _size(legend)
    _layout(plot, QRectF(0, 0, s.width, max(s.height - lh - gap, s.height * 0.3)))
    scene.addItem(legend)
    legend.setPos(max((s.width - lw) / 2, 0), s.height - lh - gap / 2)
    return legend
