"""Figures fit to print: any plot of the app (curves, ranked strip,
significance, measure bars) written as PNG, SVG or PDF at a chosen size.

A figure is never a picture of the widget on screen.  ``build_figure`` copies
what a plot shows (its data items, axes, ticks, ranges, title and legend) into a
fresh, light-styled plot laid out off screen at the requested size and font
size; the copy is then painted by Qt onto a QImage (PNG), a QSvgGenerator (SVG)
or a QPdfWriter (PDF).  So the export does not depend on the widget's shape or
on the window's theme, and the three formats share one layout.

Where pyqtgraph's exporters are replaced, and why:

* ``ImageExporter`` scales a picture of the widget's scene: a narrow widget
  gives a tall image with shrunken text, the legend keeps its on-screen place
  (cut when the widget is narrow), and the dark theme's colours are kept.
* ``SVGExporter`` (pyqtgraph 0.14) fails on Qt 6.11's path syntax (it splits
  "M x y" on commas) and, where it runs, draws text and axes at 0.75 scale
  against the curves (it mixes 72 and 96 dpi).  QSvgGenerator at 96 dpi with
  pixel-sized fonts renders the same in Qt, browsers and cairosvg (tested).
* pyqtgraph has no PDF exporter; QPdfWriter paints the same scene as vectors.

``CSVExporter`` stays: it writes the data of the live plot, which is right.
"""

from __future__ import annotations

import re
from xml.dom import minidom

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMarginsF, QRectF, QSize, QSizeF
from PySide6.QtGui import QColor, QImage, QPageLayout, QPageSize, QPainter, QPdfWriter
from shrec_eval.outputs.atomic import write_bytes

from .layout import Figure, build_figure
from .settings import FORMATS, LEGEND_PLACES, FigureSettings

__all__ = [
    "FORMATS",
    "LEGEND_PLACES",
    "FigureSettings",
    "build_figure",
    "export_figure",
    "figure_bytes",
    "flatten_cosmetic_strokes",
]


# -- SVG for every renderer -----------------------------------------------------------------
_MATRIX = re.compile(r"matrix\(([^)]*)\)")
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_PATH_COMMANDS = set("MLCZ")  # what QSvgGenerator writes: absolute x,y pairs only


def _mapped_pairs(text: str, m: list[float]) -> str:
    """Every x,y pair of a Qt path or polyline mapped through matrix m."""
    nums = iter(_NUMBER.findall(text))
    out = []
    for x in nums:
        y = next(nums)
        fx, fy = float(x), float(y)
        out.append(f"{m[0] * fx + m[2] * fy + m[4]:.6g},{m[1] * fx + m[3] * fy + m[5]:.6g}")
    return out


def flatten_cosmetic_strokes(svg: bytes) -> bytes:
    """Qt draws a curve as a path in data coordinates under a scaling matrix
    with ``vector-effect="non-scaling-stroke"`` (SVG Tiny 1.2).  Browsers
    honour it; cairosvg and Inkscape (SVG 1.1) scale the stroke by the
    matrix, so a 3-px line becomes a solid block.  Here such paths get their
    coordinates mapped and the matrix removed: the same drawing in every
    renderer (and the attribute goes where the matrix only shifts).
    (pyqtgraph's SVGExporter does the same, but its parser fails on the path
    syntax of Qt 6.11.)"""
    doc = minidom.parseString(svg)
    for g in doc.getElementsByTagName("g"):
        match = _MATRIX.fullmatch(g.getAttribute("transform").strip())
        kids = [c for c in g.childNodes if c.nodeType == c.ELEMENT_NODE]
        if match is None or not kids:
            continue
        m = [float(v) for v in _NUMBER.findall(match.group(1))]
        if m[:4] == [1.0, 0.0, 0.0, 1.0]:  # a shift: strokes are not scaled anyway
            for c in kids:
                if c.hasAttribute("vector-effect"):
                    c.removeAttribute("vector-effect")
            continue
        if not all(
            c.tagName in ("path", "polyline")
            and c.getAttribute("vector-effect") == "non-scaling-stroke"
            for c in kids
        ):
            continue
        # the commands of a path (its numbers taken out: "1.38778e-17" is one)
        if any(
            set(re.sub(r"[^A-Za-z]", "", _NUMBER.sub(" ", c.getAttribute("d")))) - _PATH_COMMANDS
            for c in kids
        ):
            continue
        for c in kids:
            if c.tagName == "polyline":
                c.setAttribute("points", " ".join(_mapped_pairs(c.getAttribute("points"), m)))
            else:
                d = c.getAttribute("d")
                pieces = re.split(r"([MLCZ])", d)
                mapped = []
                for piece in pieces:
                    if piece.isalpha():
                        mapped.append(piece)
                    elif piece.strip():
                        mapped.append(" ".join(_mapped_pairs(piece, m)) + " ")
                c.setAttribute("d", "".join(mapped).strip())
            c.removeAttribute("vector-effect")
        g.removeAttribute("transform")
    return doc.toxml(encoding="utf-8")


# -- painting -------------------------------------------------------------------------------
def _paint(fig: Figure, device) -> None:
    w, h = fig.settings.width, fig.settings.height
    scene = fig.view.scene()
    painter = QPainter(device)
    items = [i for i in scene.items() if hasattr(i, "setExportMode")]
    try:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        # export mode: symbols drawn as shapes, not copied from a pixmap atlas
        for item in items:
            item.setExportMode(
                True, {"antialias": True, "background": QColor("white"), "painter": painter}
            )
        rect = QRectF(0, 0, w, h)
        painter.fillRect(rect, QColor("white"))
        scene.render(painter, rect, rect)
    finally:
        for item in items:
            item.setExportMode(False)
        painter.end()


def figure_bytes(src_plot, settings: FigureSettings) -> bytes:
    """The file content of ``src_plot`` as a figure in settings.fmt."""
    from PySide6.QtSvg import QSvgGenerator

    s = settings.checked()
    fig = build_figure(src_plot, s)
    data = QByteArray()
    buf = QBuffer(data)
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    try:
        if s.fmt == "png":
            img = QImage(s.width, s.height, QImage.Format.Format_ARGB32)
            img.setDotsPerMeterX(3780)  # 96 dpi
            img.setDotsPerMeterY(3780)
            _paint(fig, img)
            img.save(buf, "PNG")
        elif s.fmt == "svg":
            # SVG Tiny 1.2 without clip paths: Qt 6.11's SVG 1.1 mode leaves an
            # item's clip on the items painted after it (axes vanish); the copy
            # is cut to the axes instead (items.copy_item)
            gen = QSvgGenerator(QSvgGenerator.SvgVersion.SvgTiny12)
            gen.setOutputDevice(buf)
            gen.setResolution(96)  # pixel-sized fonts and pens come out at their size
            gen.setSize(QSize(s.width, s.height))
            gen.setViewBox(QRectF(0, 0, s.width, s.height))
            gen.setTitle("shrec-eval figure")
            _paint(fig, gen)
            buf.close()
            return flatten_cosmetic_strokes(bytes(data))
        else:
            pdf = QPdfWriter(buf)
            pdf.setResolution(96)  # one figure pixel = 1/96 inch = 0.75 pt
            pdf.setPageSize(
                QPageSize(QSizeF(s.width * 0.75, s.height * 0.75), QPageSize.Unit.Point)
            )
            pdf.setPageMargins(QMarginsF(0, 0, 0, 0), QPageLayout.Unit.Point)
            pdf.setTitle("shrec-eval figure")
            pdf.setCreator("shrec-eval")
            _paint(fig, pdf)
    finally:
        buf.close()
        fig.close()
    return bytes(data)


def export_figure(src_plot, path: str, settings: FigureSettings) -> None:
    """Write ``src_plot`` as a figure to ``path`` (atomically)."""
    write_bytes(path, figure_bytes(src_plot, settings))
