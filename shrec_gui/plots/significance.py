"""The Significance tab: corrected p-values between every pair of runs,
run means with bootstrap intervals, and a head-to-head view of two runs.
The statistics are computed by the worker (shrec_eval.scoring.stats); this module only
shows them."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QFontMetricsF
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)
from shrec_eval.scoring.measures import expand
from shrec_eval.scoring.stats import CORRECTIONS, TESTS, average_note, average_unit

from ..models.tables import PValueModel
from .curves import export_buttons, numeric_axes
from .plot_view import PlotView

#: a run's row in the means plot, in lines of text (its name on the left, whole)
ROW_LINES = 1.4
#: the widest a run name is drawn on the means plot's axis, in share of the
#: plot's width; a longer one is cut in the middle (whole in the tooltip)
NAME_SHARE = 0.6


def title_over_axes(pi) -> None:
    """The plot's title over its whole width (the run names' axis too), not
    over the view only: a title wider than the view beside long names would
    make the plot wider than its place (and the figure copied from it)."""
    pi.layout.removeItem(pi.titleLabel)
    pi.layout.addItem(pi.titleLabel, 0, 0, 1, 3)
    pi._title_over_axes = True  # the figure's copy does the same (figures/layout.py)


class SignificanceWidget(QWidget):
    """Controls, p-value matrix, means with intervals, head to head."""

    computeRequested = Signal(object)  # params for shrec_eval.scoring.stats.compare
    querySelected = Signal(str)  # a head-to-head point clicked: its query
    exportRequested = Signal(str, str)  # which plot ("means", "h2h"), "figure" or "csv"

    def __init__(self, table_view_factory, parent=None) -> None:
        super().__init__(parent)
        self.comparison = None
        self._compared: dict = {}
        self.results: dict = {}
        self.measure = QComboBox()
        self.test = QComboBox()
        for key, text in TESTS.items():
            self.test.addItem(text, key)
        self.test.setCurrentIndex(self.test.findData("wilcoxon"))
        self.correction = QComboBox()
        for key, text in CORRECTIONS.items():
            self.correction.addItem(text, key)
        self.alpha = QDoubleSpinBox()
        self.alpha.setRange(0.0001, 0.5)
        self.alpha.setDecimals(4)
        self.alpha.setSingleStep(0.01)
        self.alpha.setValue(0.05)
        self.resamples = QSpinBox()
        self.resamples.setRange(100, 1_000_000)
        self.resamples.setSingleStep(1000)
        self.resamples.setValue(10000)
        self.seed = QSpinBox()
        self.seed.setRange(0, 2_000_000_000)
        self.compute = QPushButton("Compute")
        self.compute.clicked.connect(self.request)
        self.status = QLabel("Score runs, then compute.")
        self.status.setWordWrap(True)
        # which average the means are: the contest's (the Summary's means)
        self.average = QLabel("")
        self.average.setWordWrap(True)
        self._average = ("micro", "query")  # the results' average and the unit paired
        form = QFormLayout()
        form.addRow("Measure:", self.measure)
        form.addRow("Test:", self.test)
        form.addRow("Correction:", self.correction)
        form.addRow("Average:", self.average)
        row = QHBoxLayout()
        row.addWidget(QLabel("alpha"))
        row.addWidget(self.alpha)
        row.addWidget(QLabel("resamples"))
        row.addWidget(self.resamples)
        row.addWidget(QLabel("seed"))
        row.addWidget(self.seed)
        row.addWidget(self.compute)
        form.addRow(row)
        # p-values
        self.pmodel = PValueModel(self)
        self.pview = table_view_factory()
        self.pview.setSortingEnabled(False)
        self.pview.setModel(self.pmodel)
        self.pview.verticalHeader().setVisible(True)  # the runs, as the columns
        self.pview.horizontalHeader().setStretchLastSection(False)
        # means with intervals
        self.means_plot = PlotView()
        self.means_plot.showGrid(x=True, alpha=0.25)
        self.means_plot.getPlotItem().setTitle("Run means with bootstrap intervals")
        self.means_plot.setMouseEnabled(x=False, y=False)
        numeric_axes(self.means_plot)
        # a run a row, named whole on the left (best on top); the plot is as
        # tall as its rows need and scrolls where the tab is shorter
        self.means_scroll = QScrollArea()
        self.means_scroll.setWidget(self.means_plot)
        self.means_scroll.setWidgetResizable(True)
        self.means_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.means_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._ranked_names: list[str] = []
        self.means_plot.getPlotItem().vb.sigResized.connect(lambda *_: self._name_runs())
        title_over_axes(self.means_plot.getPlotItem())
        self._hover = pg.SignalProxy(
            self.means_plot.scene().sigMouseMoved,
            rateLimit=30,
            slot=lambda e: self.means_plot.setToolTip(self.means_tip(e[0])),
        )
        # deleted with its plot: without a parent, the proxy's connection to the
        # slot (which holds the plot) kept a closed window's plots and menus alive
        self._hover.setParent(self.means_plot)
        # head to head
        self.run_a = QComboBox()
        self.run_b = QComboBox()
        self.h2h_plot = PlotView()
        self.h2h_plot.showGrid(x=True, y=True, alpha=0.25)
        numeric_axes(self.h2h_plot)
        self.h2h_label = QLabel("")
        self.h2h_label.setWordWrap(True)
        self.run_a.currentIndexChanged.connect(self.draw_h2h)
        self.run_b.currentIndexChanged.connect(self.draw_h2h)
        self.test.currentIndexChanged.connect(self.show_current)
        self.measure.currentIndexChanged.connect(self._measure_changed)
        self._higher: dict[str, bool] = {}  # measure key -> higher is better

        left = QWidget()
        ll = QVBoxLayout(left)
        ll.addLayout(form)
        ll.addWidget(self.status)
        ll.addWidget(
            QLabel("Corrected p-values (green: significant at alpha; runs ranked by their mean):")
        )
        ll.addWidget(self.pview, 2)
        ll.addWidget(self.means_scroll, 2)
        ll.addLayout(self._export_row("means"))
        right = QWidget()
        rl = QVBoxLayout(right)
        pick = QHBoxLayout()
        pick.addWidget(QLabel("Run A:"))
        pick.addWidget(self.run_a, 1)
        pick.addWidget(QLabel("Run B:"))
        pick.addWidget(self.run_b, 1)
        rl.addLayout(pick)
        rl.addWidget(self.h2h_plot, 1)
        rl.addWidget(self.h2h_label)
        rl.addLayout(self._export_row("h2h"))
        split = QSplitter()
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        lay = QVBoxLayout(self)
        lay.addWidget(split)

    def _export_row(self, which: str) -> QHBoxLayout:
        row = QHBoxLayout()
        row.addStretch(1)
        plot = self.means_plot if which == "means" else self.h2h_plot
        for b in export_buttons(lambda kind: self.exportRequested.emit(which, kind), plots=(plot,)):
            row.addWidget(b)
        return row

    def plot_item(self, which: str):
        return (self.means_plot if which == "means" else self.h2h_plot).getPlotItem()

    def set_measures(self, ranks, default: str) -> None:
        cur = self.measure.currentData() or default
        self.measure.blockSignals(True)
        self.measure.clear()
        self._higher = {}
        for m in expand(ranks):
            self.measure.addItem(f"{m.label} [{m.key}]", m.key)
            self._higher[m.key] = m.higher_is_better
        i = self.measure.findData(cur)
        self.measure.setCurrentIndex(i if i >= 0 else max(self.measure.findData(default), 0))
        self.measure.blockSignals(False)

    def set_results(self, results: dict) -> None:
        """name -> RunResult of the scored runs.  A comparison of other
        results (runs added, removed or scored again) is taken down."""
        self.results = results
        self.show_average()
        if self.comparison is not None and self._compared != self._identity(results):
            self.comparison = None
            self.show_current()
            self.status.setText("The results changed: compute again.")
        elif self.comparison is None and self._hint_shown():
            self.status.setText(self.hint())
        names = list(results)
        for combo, pick in ((self.run_a, 0), (self.run_b, 1)):
            cur = combo.currentText()
            combo.blockSignals(True)
            combo.clear()
            combo.addItems(names)
            if cur in names:
                combo.setCurrentIndex(names.index(cur))
            elif len(names) > pick:
                combo.setCurrentIndex(pick)
            combo.blockSignals(False)
        if len(names) > 1 and self.run_a.currentText() == self.run_b.currentText():
            # never a run against itself by default (e.g. B was kept while runs arrived)
            other = next(n for n in names if n != self.run_a.currentText())
            self.run_b.blockSignals(True)
            self.run_b.setCurrentIndex(names.index(other))
            self.run_b.blockSignals(False)
        self.draw_h2h()

    def show_average(self) -> None:
        """Say which average the means and the pairs are: the comparison's
        (the unit it paired), else what Compute will pair for the scored
        runs' average (shrec_eval.scoring.stats.compare pairs as the contest
        averages: per query under micro, per class under macro)."""
        first = next(iter(self.results.values()), None)
        average = first.options.average if first is not None else self._average[0]
        c = self.comparison
        unit = c.unit if c is not None else average_unit(average)
        self._average = (average, unit)
        note = average_note(average, unit)
        self.average.setText(note[0].upper() + note[1:] + ".")

    HINTS = (
        "Score runs, then compute.",
        "At least two scored runs are needed (F5 scores the runs added).",
    )

    def hint(self) -> str:
        """What to do next, by how many runs are scored."""
        n = len(self.results)
        if n == 0:
            return self.HINTS[0]
        if n == 1:
            return self.HINTS[1]
        return f"{n} runs scored: choose the measure and the test, then Compute."

    def _hint_shown(self) -> bool:
        """The status is a hint (not a message about a comparison)."""
        text = self.status.text()
        return text in self.HINTS or text.endswith("then Compute.")

    def params(self) -> dict:
        return {
            "measure": self.measure.currentData(),
            "tests": list(TESTS),
            "correction": self.correction.currentData(),
            "alpha": self.alpha.value(),
            "resamples": self.resamples.value(),
            "seed": self.seed.value(),
        }

    def request(self) -> None:
        if len(self.results) < 2:
            self.status.setText("At least two scored runs are needed.")
            return
        self.status.setText("Computing…")
        self.computeRequested.emit(self.params())

    @staticmethod
    def _identity(results: dict) -> dict:
        return {name: id(r) for name, r in results.items()}

    def set_comparison(self, comparison) -> None:
        self.comparison = comparison
        self._compared = self._identity(self.results)
        self.show_average()
        self.status.setText(
            f"{comparison.label}: {len(comparison.runs)} runs, {len(comparison.pairs)} pairs, "
            f"{CORRECTIONS[comparison.correction]} correction per test, alpha = "
            f"{comparison.alpha}, {comparison.resamples} resamples (seed {comparison.seed}), "
            f"{comparison.confidence:.0%} intervals."
        )
        self.show_current()
        self.draw_h2h()
        self.pview.setEnabled(True)
        self.means_plot.setEnabled(True)

    def stale(self) -> bool:
        """True when the comparison shown is of another measure than the one chosen."""
        c = self.comparison
        return c is not None and c.measure != self.measure.currentData()

    def _measure_changed(self) -> None:
        """The p-values and intervals shown belong to the measure they were
        computed for: marked stale (greyed, said in the status and the plot's
        title) until computed again."""
        stale = self.stale()
        self.pview.setEnabled(not stale)
        self.means_plot.setEnabled(not stale)
        self.means_plot.getPlotItem().setTitle(
            self._means_title() + (" (stale: compute again)" if stale else "")
        )
        c = self.comparison
        if stale:
            self.status.setText(
                f"Shown: {c.label}. The measure is now {self.measure.currentText()}: "
                "press Compute to test it."
            )
        elif c is not None:
            self.set_comparison(c)
        self.draw_h2h()

    def _means_title(self) -> str:
        c = self.comparison
        if c is None:
            return ""
        return f"{c.label}: mean and {c.confidence:.0%} bootstrap interval"

    def show_error(self, message: str) -> None:
        self.status.setText(message)

    def show_current(self) -> None:
        c = self.comparison
        self.pmodel.set_comparison(c, self.test.currentData())
        self.pview.resizeColumnsToContents()
        pi = self.means_plot.getPlotItem()
        pi.clear()
        if c is None:
            self._ranked_names = []
            self._name_runs()
            return
        ranked = c.ranking()
        n = len(ranked)
        y = n - 1 - np.arange(n, dtype=float)  # the best on top
        mean = np.array([r.mean if r.mean is not None else np.nan for r in ranked])
        lo = np.array([r.ci[0] if r.ci else np.nan for r in ranked])
        hi = np.array([r.ci[1] if r.ci else np.nan for r in ranked])
        pi.addItem(
            pg.BarGraphItem(
                x0=np.zeros(n),
                y=y,
                width=np.nan_to_num(mean),
                height=0.6,
                brush=QColor(0, 114, 178, 170),
                pen=pg.mkPen(None),
            )
        )
        pi.addItem(
            pg.ErrorBarItem(
                x=mean,
                y=y,
                left=np.nan_to_num(mean - lo),
                right=np.nan_to_num(hi - mean),
                beam=0.25,
                pen=pg.mkPen("#D55E00", width=2),
            )
        )
        pi.setTitle(self._means_title())
        pi.setLabel("bottom", "mean")
        pi.setLabel("left", "")
        pi.setYRange(-0.6, n - 0.4, padding=0)
        top = np.nanmax(np.concatenate([hi, mean])) if n else 1.0
        pi.setXRange(0, max(float(np.nan_to_num(top)), 1e-9) * 1.05, padding=0)
        self._ranked_names = [r.name for r in ranked]
        self._name_runs()

    def _name_runs(self) -> None:
        """The run names down the left, each on its row, whole (a name wider
        than NAME_SHARE of the plot cut in the middle; means_tip tells it
        whole); the plot a line and a half a run tall, at least."""
        pi = self.means_plot.getPlotItem()
        left = pi.getAxis("left")
        fm = QFontMetricsF(left.style["tickFont"] or self.means_plot.font())
        room = max(self.means_scroll.viewport().width(), 300) * NAME_SHARE
        names = [
            n
            if fm.horizontalAdvance(n) <= room
            else fm.elidedText(n, Qt.TextElideMode.ElideMiddle, room)
            for n in self._ranked_names
        ]
        n = len(names)
        left.setTicks([[(n - 1 - i, t) for i, t in enumerate(names)], []])
        left.setWidth(int(max((fm.horizontalAdvance(t) for t in names), default=20) + 16))
        title = pi.titleLabel.boundingRect().height() if pi.titleLabel.isVisible() else 0
        rows = max(n, 1) * fm.height() * ROW_LINES
        self.means_plot.setMinimumHeight(int(rows + title + pi.getAxis("bottom").height() + 24))

    def means_tip(self, scene_pos) -> str:
        """Run, mean and interval of the row under a scene position ("" elsewhere)."""
        c = self.comparison
        pi = self.means_plot.getPlotItem()
        if c is None or not self._ranked_names:
            return ""
        box = pi.vb.sceneBoundingRect()
        left = pi.getAxis("left").sceneBoundingRect()
        if not (box.contains(scene_pos) or left.contains(scene_pos)):
            return ""
        row = round(pi.vb.mapSceneToView(scene_pos).y())
        n = len(self._ranked_names)
        if not 0 <= n - 1 - row < n:
            return ""
        r = c.ranking()[n - 1 - row]
        if r.mean is None:
            return f"{r.name}: no mean (the measure is undefined for every {c.unit})"
        ci = f", {c.confidence:.0%} interval [{r.ci[0]:.4f}, {r.ci[1]:.4f}]" if r.ci else ""
        return f"{r.name}: mean {r.mean:.4f}{ci}"

    def h2h_values(self):
        """(a values, b values, query ids) of the head-to-head pair, both defined."""
        a, b = self.run_a.currentText(), self.run_b.currentText()
        ra, rb = self.results.get(a), self.results.get(b)
        key = self.measure.currentData()
        if ra is None or rb is None or key is None or key not in ra.keys:
            return None
        va, vb = ra.column(key), rb.column(key)
        ok = ~np.isnan(va) & ~np.isnan(vb)
        return va[ok], vb[ok], [q for q, k in zip(ra.query_ids, ok) if k]

    def _clicked(self, points) -> None:
        if len(points):
            self.querySelected.emit(str(points[0].data()))

    def draw_h2h(self) -> None:
        pi = self.h2h_plot.getPlotItem()
        pi.clear()
        got = self.h2h_values()
        if got is None:
            self.h2h_label.setText("")
            return
        va, vb, qids = got
        a, b = self.run_a.currentText(), self.run_b.currentText()
        lo = float(min(va.min(initial=0), vb.min(initial=0)))
        hi = float(max(va.max(initial=1), vb.max(initial=1)))
        pi.plot([lo, hi], [lo, hi], pen=pg.mkPen("#888888", width=1, style=Qt.PenStyle.DashLine))
        points = pi.plot(
            va,
            vb,
            pen=None,
            symbol="o",
            symbolSize=8,
            symbolBrush=QColor(0, 114, 178, 180),
            symbolPen=None,
            data=list(qids),
        )
        points.sigPointsClicked.connect(lambda _item, pts, _ev: self._clicked(pts))
        pi.setLabel("bottom", a)
        pi.setLabel("left", b)
        pi.setTitle(f"Per query: {self.measure.currentData()}")
        pad = 0.03 * (hi - lo or 1.0)
        pi.setXRange(lo - pad, hi + pad, padding=0)
        pi.setYRange(lo - pad, hi + pad, padding=0)
        higher = self._higher.get(self.measure.currentData(), True)
        better, worse = (va > vb, va < vb) if higher else (va < vb, va > vb)
        wins, ties, losses = int(better.sum()), int((va == vb).sum()), int(worse.sum())
        side = "below" if higher else "above"
        text = (
            f"{a} better on {wins} queries, tied on {ties}, worse on {losses} "
            f"(points {side} the diagonal: {a} better"
            + ("" if higher else f"; lower {self.measure.currentData()} is better")
            + ")."
        )
        c = self.comparison
        if (
            c is not None
            and c.measure == self.measure.currentData()
            and a != b
            and {a, b} <= {r.name for r in c.runs}
        ):
            p = c.pair(a, b).p_corrected.get(self.test.currentData())
            if p is not None:
                text += f" Corrected p = {p:.4g} ({self.test.currentText()})."
        self.h2h_label.setText(text)
