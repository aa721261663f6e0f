"""The data items of a plot copied for its print figure (layout.py):
pens and symbols scaled with the font; lines, symbols and images cut to the
axes here, because an SVG clip is not honoured alike by every renderer (see
printing.py)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF


def _clip_segments(x, y, xr, yr):
    """The line through (x, y) cut to the rectangle xr x yr (Liang-Barsky on
    every segment), as separate segments joined by NaN: SVG has no clipping
    that every renderer honours, so nothing may leave the axes."""
    x0, y0, x1, y1 = x[:-1], y[:-1], x[1:], y[1:]
    dx, dy = x1 - x0, y1 - y0
    t0 = np.zeros(len(dx))
    t1 = np.ones(len(dx))
    ok = np.isfinite(x0) & np.isfinite(y0) & np.isfinite(x1) & np.isfinite(y1)
    with np.errstate(divide="ignore", invalid="ignore"):
        for p_, q_ in (
            (-dx, x0 - xr[0]),
            (dx, xr[1] - x0),
            (-dy, y0 - yr[0]),
            (dy, yr[1] - y0),
        ):
            r = q_ / p_
            parallel = p_ == 0
            ok &= ~(parallel & (q_ < 0))
            t0 = np.where(~parallel & (p_ < 0), np.maximum(t0, r), t0)
            t1 = np.where(~parallel & (p_ > 0), np.minimum(t1, r), t1)
    ok &= t0 <= t1
    n = int(ok.sum())
    out_x, out_y = np.full(3 * n, np.nan), np.full(3 * n, np.nan)
    out_x[0::3], out_y[0::3] = (x0 + t0 * dx)[ok], (y0 + t0 * dy)[ok]
    out_x[1::3], out_y[1::3] = (x0 + t1 * dx)[ok], (y0 + t1 * dy)[ok]
    return out_x, out_y


def _pen(pen, scale: float):
    pen = pg.mkPen(pen)
    if pen.style() != pg.QtCore.Qt.PenStyle.NoPen:
        pen.setWidthF(max(pen.widthF(), 1.0) * scale)
        pen.setCosmetic(True)
    return pen


def copy_item(item, scale: float, xr, yr):
    """A copy of one data item for the print figure (pens and symbols
    scaled; lines, symbols and images cut to the view xr x yr)."""
    if isinstance(item, pg.PlotDataItem):
        o = item.opts
        if item.xData is None or item.yData is None:
            return []
        x, y = np.asarray(item.xData, float), np.asarray(item.yData, float)
        style = {
            "pen": _pen(o["pen"], scale) if o["pen"] is not None else None,
            "symbol": o["symbol"],
            "symbolSize": o["symbolSize"] * scale,
            "symbolBrush": o["symbolBrush"],
            "symbolPen": _pen(o["symbolPen"], scale) if o["symbolPen"] is not None else None,
        }
        inside = (x >= xr[0]) & (x <= xr[1]) & (y >= yr[0]) & (y <= yr[1])
        # a run's curve marks some of its points only (plots/curves.py's RunCurve)
        marked = item.marked() if hasattr(item, "marked") else np.ones(len(x), bool)
        if (inside.all() or not np.isfinite(x).any()) and marked.all():
            copy = pg.PlotDataItem(x, y, antialias=True, name=item.name(), **style)
            return [copy]
        parts = []
        if style["pen"] is not None and len(x) > 1:
            cx, cy = _clip_segments(x, y, xr, yr)
            line = pg.PlotDataItem(cx, cy, connect="finite", pen=style["pen"], antialias=True)
            line._legend_opts = style  # the legend shows line and symbol
            parts.append(line)
        if style["symbol"] is not None:
            shown = inside & marked
            parts.append(
                pg.PlotDataItem(x[shown], y[shown], antialias=True, **{**style, "pen": None})
            )
        return parts
    if isinstance(item, pg.BarGraphItem):
        opts = dict(item.opts)
        opts["pen"] = _pen(opts.get("pen"), scale) if opts.get("pen") is not None else None
        return [pg.BarGraphItem(**opts)]
    if isinstance(item, pg.ErrorBarItem):
        opts = dict(item.opts)
        opts["pen"] = _pen(opts.get("pen"), scale)
        opts["beam"] = opts.get("beam")
        return [pg.ErrorBarItem(**opts)]
    if isinstance(item, pg.ImageItem):
        if item.image is None:
            return []
        # the pixels that fall in the view (image axis 0 is x, pyqtgraph's
        # default column-major order); whole pixels, so an edge pixel may
        # reach half a pixel beyond a view that cuts through it
        img = np.asarray(item.image)
        r = item.mapRectToParent(item.boundingRect())
        nx, ny = img.shape[0], img.shape[1]
        px, py = r.width() / nx, r.height() / ny
        i0 = int(np.clip(np.floor((xr[0] - r.left()) / px), 0, nx))
        i1 = int(np.clip(np.ceil((xr[1] - r.left()) / px), i0, nx))
        j0 = int(np.clip(np.floor((yr[0] - r.top()) / py), 0, ny))
        j1 = int(np.clip(np.ceil((yr[1] - r.top()) / py), j0, ny))
        if i1 <= i0 or j1 <= j0:
            return []
        copy = pg.ImageItem(np.array(img[i0:i1, j0:j1]), levels=item.levels)
        copy.setRect(QRectF(r.left() + i0 * px, r.top() + j0 * py, (i1 - i0) * px, (j1 - j0) * py))
        return [copy]
    raise TypeError(f"a figure cannot show a {type(item).__name__}")
