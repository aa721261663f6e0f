"""The SHREC-style summary chart: grouped bars of chosen measures (NN, FT,
ST, E, DCG by default), one group per run, one bar colour per measure."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QHBoxLayout, QLabel, QMenu, QToolButton, QVBoxLayout, QWidget

from .legend_place import LegendPlacer
from .name_ticks import NameTicks
from .plot_view import PlotView

#: the measures of the SHREC track reports' bar charts
SHREC_BARS = ("nn", "ft_psb", "st_psb", "e_measure", "dcg_psb")
#: measure colours (Okabe-Ito), distinct from nothing else on this chart
BAR_COLOURS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#882255"]
GROUP_WIDTH = 0.8  # of the unit step between runs


def bar_layout(n_measures: int) -> tuple[np.ndarray, float]:
    """Offsets of each measure's bar from its run's centre, and bar width."""
    width = GROUP_WIDTH / max(n_measures, 1)
    offsets = (np.arange(n_measures) - (n_measures - 1) / 2) * width
    return offsets, width


class MeasureBarsWidget(QWidget):
    """Mean of each chosen measure per run as grouped bars; the runs in the
    order they are given (the caller's ranking)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._stale = False
        self.plot = PlotView()
        self.plot.showGrid(y=True, alpha=0.25)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.addLegend(offset=(-10, 10), brush=pg.mkBrush(255, 255, 255, 200))
        self.legend_place = LegendPlacer(self.plot.getPlotItem())  # off the bars, else outside
        for name in ("left", "bottom"):
            self.plot.getAxis(name).enableAutoSIPrefix(False)
        self.measures_button = QToolButton()
        self.measures_button.setText("Measures")
        self.measures_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.menu = QMenu(self)
        self.measures_button.setMenu(self.menu)
        self.note = QLabel("")
        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addWidget(self.measures_button)
        bar.addWidget(self.note, 1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(bar)
        lay.addWidget(self.plot, 1)
        self.names = NameTicks(self.plot.getPlotItem())
        self.chosen: list[str] = list(SHREC_BARS)
        self.entries: list = []  # (name, RunLook, RunResult)
        self._labels: dict[str, str] = {}
        self._hover = pg.SignalProxy(
            self.plot.scene().sigMouseMoved,
            rateLimit=30,
            slot=lambda e: self.plot.setToolTip(self.tip_at(e[0])),
        )
        # deleted with its plot: without a parent, the proxy's connection to the
        # slot (which holds the plot) kept a closed window's plots and menus alive
        self._hover.setParent(self.plot)

    @property
    def plot_item(self):
        """The bars' plot (drawn first if runs arrived while it was hidden)."""
        if self._stale:
            self.redraw()
        return self.plot.getPlotItem()

    def showEvent(self, event) -> None:
        if self._stale:
            self.redraw()
        super().showEvent(event)

    def set_entries(self, entries) -> None:
        self.entries = [e for e in entries if e[2] is not None]
        labels = {}
        for _, _, res in self.entries:
            for m in res.measures:
                labels.setdefault(m.key, m.label)
        if list(labels) != list(self._labels):
            self._labels = labels
            self._fill_menu()
        if self.isVisible():
            self.redraw()
        else:  # drawn when shown or exported: runs arrive one by one
            self._stale = True

    def _fill_menu(self) -> None:
        self.menu.clear()
        for key, label in self._labels.items():
            a = QAction(f"{label} [{key}]", self.menu, checkable=True)
            a.setChecked(key in self.chosen)
            a.toggled.connect(lambda on, k=key: self.choose(k, on))
            self.menu.addAction(a)

    def choose(self, key: str, on: bool) -> None:
        if on and key not in self.chosen:
            self.chosen.append(key)
        elif not on and key in self.chosen:
            self.chosen.remove(key)
        self.redraw()

    def shown_measures(self) -> list[str]:
        """The chosen measures the results have, in registry order."""
        return [k for k in self._labels if k in self.chosen]

    def values(self) -> np.ndarray:
        """runs x shown measures: the means (NaN where a measure is undefined)."""
        keys = self.shown_measures()
        out = np.full((len(self.entries), len(keys)), np.nan)
        for i, (_, _, res) in enumerate(self.entries):
            for j, k in enumerate(keys):
                v = res.mean(k) if k in res.keys else None
                out[i, j] = np.nan if v is None else v
        return out

    def redraw(self) -> None:
        self._stale = False
        pi = self.plot.getPlotItem()
        pi.clear()  # also empties the legend
        keys = self.shown_measures()
        vals = self.values()
        offsets, width = bar_layout(len(keys))
        x = np.arange(len(self.entries), dtype=float)
        for j, k in enumerate(keys):
            colour = BAR_COLOURS[j % len(BAR_COLOURS)]
            ok = ~np.isnan(vals[:, j])
            pi.addItem(
                pg.BarGraphItem(
                    x=x[ok] + offsets[j],
                    height=vals[ok, j],
                    width=width * 0.92,
                    brush=colour,
                    pen=pg.mkPen(None),
                    name=self._labels[k],
                )
            )
        pi.setTitle("Mean over queries")
        pi.setLabel("left", "score")
        pi.setLabel("bottom", "")
        n = max(len(self.entries), 1)
        pi.setXRange(-0.6, n - 0.4, padding=0)
        self.names.set_names([e[0] for e in self.entries])
        top = np.nanmax(vals) if np.isfinite(vals).any() else 1.0
        pi.setYRange(0, max(1.0, float(top)) * 1.05, padding=0)
        counts = [k for k in keys if k in self._labels and self._is_count(k)]
        self.note.setText(
            "Counts share the axis with scores: " + ", ".join(counts) + "." if counts else ""
        )

    def tip_at(self, scene_pos) -> str:
        """The whole name and the values of the run whose bars (or name
        under them) are at a scene position; "" elsewhere."""
        pi = self.plot.getPlotItem()
        over = pi.vb.sceneBoundingRect().united(pi.getAxis("bottom").sceneBoundingRect())
        if not self.entries or not over.contains(scene_pos):
            return ""
        i = round(pi.vb.mapSceneToView(scene_pos).x())
        if not 0 <= i < len(self.entries):
            return ""
        vals = self.values()[i]
        shown = [
            f"{self._labels[k]} {v:.4f}" for k, v in zip(self.shown_measures(), vals) if v == v
        ]
        return self.entries[i][0] + (": " + ", ".join(shown) if shown else "")

    def _is_count(self, key: str) -> bool:
        for _, _, res in self.entries:
            for m in res.measures:
                if m.key == key:
                    return bool(m.is_count)
        return False
