"""Per-class tab: classes x runs of any measure (table or heatmap, the
engine's class means and averages), one class's precision-recall curves
(all runs), and which classes fill that class's first tiers in one run."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)
from shrec_eval.scoring.confusion import item_classes
from shrec_eval.scoring.measures import CURVES, columns

from ..models.per_class import CLASS_ROLE, ConfusionModel, PerClassModel, PerClassProxy
from ..models.tables import SortProxy
from ..plots.class_heatmap import ClassHeatmap
from ..plots.curves import (
    LEGEND_BRUSH,
    UNIT_PADDING,
    RunCurve,
    RunSample,
    export_buttons,
    numeric_axes,
    set_widget_theme,
)
from ..plots.legend_place import LegendPlacer
from ..plots.plot_view import PlotView
from ..widgets.table_view import CopyTable
from ..widgets.thumbnails import ClassShapesRow
from . import Tab


def _queries(n: int) -> str:
    return f"{n} {'query' if n == 1 else 'queries'}"


class PerClassTab(QWidget, Tab):
    title = "Per class"

    classSelected = Signal(str)  # a class clicked in the table
    classActivated = Signal(str)  # a class double-clicked: show its queries
    exportRequested = Signal(str, str)  # plot ("class_pr", "class_heatmap"), "figure" or "csv"

    def __init__(self, controller, parent=None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.model = PerClassModel(self)
        self.proxy = PerClassProxy(self)
        self.proxy.setSourceModel(self.model)
        self.view = CopyTable()
        self.view.setModel(self.proxy)
        self.view.horizontalHeader().setStretchLastSection(False)  # a run's column as the others
        self.measure = QComboBox()
        self.measure.setMinimumContentsLength(16)
        self.heatmap = QCheckBox("Heatmap")
        self.heatmap.setToolTip("colour the cells by value (brighter = better)")
        self.heatmap.toggled.connect(self.model.set_heatmap)
        self.measure.currentIndexChanged.connect(self._fill_table)
        self.note = QLabel("")
        bar = QHBoxLayout()
        bar.addWidget(QLabel("Measure:"))
        bar.addWidget(self.measure, 1)
        bar.addWidget(self.heatmap)
        bar.addWidget(self.note, 1)
        # one class: its PR curves and its first tiers
        self.class_label = QLabel("Click a class in the table.")
        self.class_label.setWordWrap(True)
        self.plot = PlotView()
        self.plot.showGrid(x=True, y=True, alpha=0.25)
        self.plot.addLegend(
            offset=(-10, 10), brush=pg.mkBrush(LEGEND_BRUSH[False]), sampleType=RunSample
        )
        self.legend_place = LegendPlacer(self.plot.getPlotItem())
        numeric_axes(self.plot)
        spec = next(c for c in CURVES if c.key == "pr")
        self.plot.setLabel("bottom", spec.x_label)
        self.plot.setLabel("left", spec.y_label)
        # no class picked yet: the plot says what it will show, not empty axes
        self.empty_note = pg.TextItem(
            "Click a class in the table:\nits precision-recall curves show here",
            color="#808080",
            anchor=(0.5, 0.5),
        )
        self.empty_note.setPos(0.5, 0.5)
        self.plot.addItem(self.empty_note)
        self.run = QComboBox()
        self.run.currentIndexChanged.connect(self._ask_confusion)
        self.confusion = ConfusionModel(self)
        cproxy = SortProxy(self)
        cproxy.setSourceModel(self.confusion)
        self.confusion_view = CopyTable()
        self.confusion_view.setModel(cproxy)
        self.confusion_view.sortByColumn(1, Qt.SortOrder.DescendingOrder)  # most items first
        self.view.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.confusion_view.fit_columns()  # the header whole before any class is clicked
        self.confusion_note = QLabel("")
        # long class names wrap, never widen the pane (and narrow the table)
        self.confusion_note.setWordWrap(True)
        plot_bar = QHBoxLayout()
        plot_bar.addWidget(self.class_label, 1)
        self.heat = ClassHeatmap()
        for b in export_buttons(
            lambda kind: self.exportRequested.emit(self.shown_plot(), kind),
            plots=(self.plot, self.heat),
        ):
            plot_bar.addWidget(b)
        # as large as every class's and run's name needs: scrolls where the tab is smaller
        self.heat_scroll = QScrollArea()
        self.heat_scroll.setWidget(self.heat)
        self.heat_scroll.setWidgetResizable(True)
        self.heat_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.plots = QTabWidget()
        self.plots.addTab(self.plot, "Class precision-recall")
        self.plots.addTab(self.heat_scroll, "Heatmap (all classes)")
        run_bar = QHBoxLayout()
        run_bar.addWidget(QLabel("First tier in run:"))
        run_bar.addWidget(self.run, 1)
        top = QWidget()
        tl = QVBoxLayout(top)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.addLayout(plot_bar)
        # the clicked class's shapes (contests with shapes)
        self.class_shapes = ClassShapesRow(controller.shapes, self)  # never a window of its own
        tl.addWidget(self.class_shapes)
        tl.addWidget(self.plots, 1)
        tiers = QWidget()
        bl = QVBoxLayout(tiers)
        bl.setContentsMargins(0, 0, 0, 0)
        bl.addLayout(run_bar)
        bl.addWidget(self.confusion_note)
        bl.addWidget(self.confusion_view, 1)
        # the plots above the first-tier table, the share of each the user's
        # (the plot first: its legend needs the height)
        right = QSplitter(Qt.Orientation.Vertical)
        right.setChildrenCollapsible(False)
        right.addWidget(top)
        right.addWidget(tiers)
        right.setStretchFactor(0, 3)
        right.setStretchFactor(1, 1)
        right.setSizes([600, 250])
        self.right_split = right
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.view)
        split.addWidget(right)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)
        split.setSizes([700, 600])
        lay = QVBoxLayout(self)
        lay.addLayout(bar)
        lay.addWidget(split, 1)
        self.current_class: str | None = None
        self._curves: list = []
        self.view.clicked.connect(self._clicked)
        self.view.doubleClicked.connect(self._double_clicked)
        controller.changed.connect(self.on_changed)
        controller.optionsChanged.connect(self.refresh)
        controller.confusionReady.connect(self.show_confusion)
        controller.confusionFailed.connect(self.show_confusion_error)

    def _scored(self) -> list[tuple]:
        return [(e.key, e.name, e.result) for e in self.controller.readable_entries() if e.result]

    def refresh(self) -> None:
        """Refill the measure and run lists (keeping the choices), then the views."""
        cur = self.measure.currentData() or self.controller.default_rank_key()
        self.measure.blockSignals(True)
        self.measure.clear()
        o = self.controller.options
        for m in columns(o):  # the measures the options compute
            self.measure.addItem(f"{m.label} [{m.key}]", m.key)
        self.measure.setCurrentIndex(max(self.measure.findData(cur), 0))
        self.measure.blockSignals(False)
        run = self.run.currentData()
        self.run.blockSignals(True)
        self.run.clear()
        for key, name, _ in self._scored():
            self.run.addItem(name, key)
        self.run.setCurrentIndex(max(self.run.findData(run), 0))
        self.run.blockSignals(False)
        self._fill_table()
        if self.current_class not in self.model.classes:
            self.current_class = None
        self.show_class(self.current_class)

    def _fill_table(self) -> None:
        scored = self._scored()
        self.model.configure(
            scored, self.measure.currentData() or "", self.controller.options.ranks
        )
        with_classes = bool(self.model.entries)
        self.note.setText(
            ""
            if with_classes or not scored
            else "This assessment has no query classes: nothing to show per class."
        )
        self.heat.set_model(self.model)
        self.view.fit_columns()

    def shown_plot(self) -> str:
        """Which plot the export buttons export: the one shown."""
        return "class_heatmap" if self.plots.currentWidget() is self.heat_scroll else "class_pr"

    # -- one class ------------------------------------------------------------------------
    def _clicked(self, index) -> None:
        c = index.data(CLASS_ROLE)
        if c is not None:
            self.show_class(c)
            self.classSelected.emit(c)

    def _double_clicked(self, index) -> None:
        c = index.data(CLASS_ROLE)
        if c is not None:
            self.classActivated.emit(c)

    def select_class(self, name: str) -> None:
        """Select a class's row and show it (as a click does)."""
        for r in range(self.proxy.rowCount()):
            if self.proxy.index(r, 0).data(CLASS_ROLE) == name:
                self.view.selectRow(r)
                self._clicked(self.proxy.index(r, 0))
                return

    def show_class(self, name: str | None) -> None:
        self.current_class = name
        n = self.model.counts[self.model.classes.index(name)] if name else 0
        self.class_label.setText(
            f"Class {name} ({_queries(n)}): precision-recall, mean over its queries"
            if name
            else "Click a class in the table."
        )
        self._draw_curves()
        self._ask_confusion()
        self._show_class_shapes(name)

    def _show_class_shapes(self, name: str | None) -> None:
        a = self.controller.assessment
        scored = self._scored()
        if name is None or a is None or not scored:
            self.class_shapes.show_examples((), ())
            return
        r = scored[0][2]
        queries = [q for q, c in zip(r.query_ids, r.query_classes or ()) if c == name]
        items = [i for i, c in zip(a.item_ids, item_classes(a)) if c == name]
        self.class_shapes.show_examples(queries, items)

    def class_curves(self) -> list[tuple]:
        """(run name, look, recall, precision) of the class shown: the
        engine's per-class mean (ClassGroups.means, as for the measures) of
        each run's per-query PR curves; a cheap reduction of results held."""
        out = []
        if self.current_class is None:
            return out
        looks = self.controller.looks()
        for key, name, res in self.model.entries:
            g = res.classes
            if self.current_class not in g.names:
                continue
            c = res.curves["pr"]
            y = g.means(c.per_query)[g.names.index(self.current_class)]
            ok = ~np.isnan(y)
            out.append((name, looks[key], c.x[ok], y[ok]))
        return out

    def _draw_curves(self) -> None:
        pi = self.plot.getPlotItem()
        for item in self._curves:
            pi.removeItem(item)
            if pi.legend is not None:
                pi.legend.removeItem(item)
        self._curves = []
        for name, look, x, y in self.class_curves():
            curve = RunCurve(look, name)
            curve.setData(x, y)
            pi.addItem(curve)  # named: in the legend
            self._curves.append(curve)
        pi.setTitle(f"Precision-recall — class {self.current_class}" if self.current_class else "")
        self.empty_note.setVisible(self.current_class is None)
        pi.setXRange(0, 1, padding=UNIT_PADDING)
        pi.setYRange(0, 1, padding=UNIT_PADDING)

    def _ask_confusion(self) -> None:
        key = self.run.currentData()
        self.confusion.set_confusion(None)
        if self.current_class is None or key is None:
            self.confusion_note.setText("")
            return
        self.confusion_note.setText("Counting…")
        self.controller.request_confusion(key, self.current_class)

    def show_confusion(self, key: int, query_class: str, confusion) -> None:
        if key != self.run.currentData() or query_class != self.current_class:
            return  # an answer to an older question
        self.confusion.set_confusion(confusion)
        own = confusion.counts.get(query_class, 0)
        share = f"{100 * own / confusion.slots:.1f} %" if confusion.slots else "—"
        self.confusion_note.setText(
            f"{_queries(confusion.queries)} of {query_class}, {confusion.slots} first-tier "
            f"places (R = relevant items per query): {share} hold {query_class}"
        )
        self.confusion_view.fit_columns()

    def show_confusion_error(self, key: int, query_class: str, message: str) -> None:
        if key == self.run.currentData() and query_class == self.current_class:
            self.confusion_note.setText(message)

    # -- Tab ------------------------------------------------------------------------------
    def table(self) -> CopyTable:
        return self.view

    def export_name(self) -> str:
        return f"per-class-{self.measure.currentData()}.csv"

    def plot_items(self) -> dict:
        return {"class_pr": self.plot.getPlotItem(), "class_heatmap": self.heat.getPlotItem()}

    def set_dark(self, dark: bool) -> None:
        self.model.dark = self.confusion.dark = dark
        set_widget_theme(self.plot, dark)
        set_widget_theme(self.heat, dark)
        self.heat.set_dark(dark)
        self.view.viewport().update()
        self.confusion_view.viewport().update()
