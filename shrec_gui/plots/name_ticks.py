"""Run names under bars (the measure bars) at the text's full size, never
overlapping and never dropped: on one line where they fit their bar's
room, else every second name on a second line, else shortened with an
ellipsis (the whole name in the data and the tooltips).  Shrinking the font
instead made the names half the size of the other text."""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QFontMetricsF


def fit_names(names: list[str], room: float, metrics: QFontMetricsF) -> list[str]:
    """The tick strings of ``names`` for bars ``room`` pixels apart."""
    gap = metrics.averageCharWidth() * 1.5
    widest = max((metrics.horizontalAdvance(n) for n in names), default=0.0)
    if widest + gap <= room:
        return list(names)
    # staggered: neighbours on different lines, so a name has two bars' room
    width = 2 * room - gap
    out = []
    for i, n in enumerate(names):
        if metrics.horizontalAdvance(n) > width:
            n = metrics.elidedText(n, Qt.TextElideMode.ElideMiddle, max(width, 1.0))
        out.append(n if i % 2 == 0 else "\n" + n)
    return out


class NameTicks(QObject):
    """Keeps the bottom axis of ``plot_item`` naming ``names`` at x = 0, 1,
    ... fitted to the view's width (again whenever the view is resized)."""

    def __init__(self, plot_item) -> None:
        super().__init__()
        self.plot = plot_item
        self.names: list[str] = []
        plot_item.vb.sigResized.connect(self.refit)
        plot_item.vb.sigXRangeChanged.connect(self.refit)

    def set_names(self, names) -> None:
        self.names = list(names)
        self.plot.getAxis("bottom")._run_names = self.names  # for the print copy
        self.refit()

    def refit(self, *_args) -> None:
        axis = self.plot.getAxis("bottom")
        (x0, x1) = self.plot.vb.viewRange()[0]
        width = self.plot.vb.width()
        room = width / max(x1 - x0, 1e-9)  # pixels between two bars
        font = axis.style["tickFont"] or axis.font()
        metrics = QFontMetricsF(font)
        ticks = fit_names(self.names, room, metrics)
        axis.setTicks([list(enumerate(ticks))])
        # the first and last names may reach past the axis' ends by half their
        # width (pyqtgraph drops a name reaching further: never one here)
        widest = max((metrics.horizontalAdvance(t.strip()) for t in ticks), default=0.0)
        axis.setStyle(hideOverlappingLabels=int(widest / 2) + 2)
        set_name_height(axis, ticks, metrics)


def set_name_height(axis, ticks: list[str], metrics: QFontMetricsF) -> None:
    """Room under the axis for one or two lines of names (pyqtgraph measures
    a tick's text as one line)."""
    lines = 2 if any(t.startswith("\n") for t in ticks) else 1
    offset = axis.style["tickTextOffset"][1] + max(0, axis.style["tickLength"])
    axis.setHeight(int(metrics.height() * lines + offset + metrics.descent()) + 2)
