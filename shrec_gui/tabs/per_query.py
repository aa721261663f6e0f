"""Per-query tab: one run (queries x measures: the measures ticked in the
Columns chooser, shared with the Summary) or one measure (queries x runs,
with each query's ranking of the runs); each query's class, and a filter to
one class (set from the Per-class tab)."""

from __future__ import annotations

from PySide6.QtCore import QSortFilterProxyModel
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)
from shrec_eval.scoring.measures import columns

from ..models.per_query import PerQueryModel
from ..models.tables import SortProxy
from ..widgets.table_view import CopyTable
from ..widgets.thumbnails import QueryShapePanel
from . import Tab


class ClassFilterProxy(SortProxy):
    """The sort proxy, showing only the queries of one class when set."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.query_class: str | None = None

    def set_class(self, name: str | None) -> None:
        if hasattr(self, "beginFilterChange"):  # Qt >= 6.9 (invalidateFilter deprecated)
            self.beginFilterChange()
            self.query_class = name
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        else:
            self.query_class = name
            self.invalidateRowsFilter()

    def filterAcceptsRow(self, row, parent) -> bool:
        if self.query_class is None:
            return True
        classes = self.sourceModel().query_classes
        return classes is not None and classes[row] == self.query_class


class PerQueryTab(QWidget, Tab):
    title = "Per query"

    def __init__(self, controller, columns, parent=None) -> None:
        """``columns``: the Columns chooser (the Summary tab: its ``keys``,
        ``columns_menu`` and ``columnsChanged``), which one-run mode follows."""
        super().__init__(parent)
        self.controller = controller
        self.columns = columns
        self.model = PerQueryModel(self)
        self.proxy = ClassFilterProxy(self)
        self.proxy.setSourceModel(self.model)
        self.view = CopyTable()
        self.view.setModel(self.proxy)
        # each column as wide as its values (the ranking: _fit_ranking)
        self.view.horizontalHeader().setStretchLastSection(False)
        self.view.resized.connect(self._resized)
        self.mode = QComboBox()
        self.mode.addItem("One run: queries x measures", "run")
        self.mode.addItem("One measure: queries x runs, with each query's ranking", "measure")
        self.choice = QComboBox()
        self.choice.setMinimumContentsLength(16)
        self.mode.currentIndexChanged.connect(self._mode_changed)
        self.choice.currentIndexChanged.connect(self._choice_changed)
        self.columns_button = QToolButton()  # the Summary's chooser, here too
        self.columns_button.setText("Columns")
        self.columns_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.columns_button.setMenu(columns.columns_menu)
        bar = QHBoxLayout()
        bar.addWidget(self.mode)
        bar.addWidget(self.choice, 1)
        bar.addWidget(self.columns_button)
        self.filter_label = QLabel("")
        self.clear_filter = QPushButton("Show all classes")
        self.clear_filter.clicked.connect(lambda: self.set_class_filter(None))
        bar.addWidget(self.filter_label)
        bar.addWidget(self.clear_filter)
        self.set_class_filter(None)
        lay = QVBoxLayout(self)
        lay.addLayout(bar)
        # the current row's query shape beside the table (contests with shapes)
        self.shape = QueryShapePanel(controller.shapes)
        row = QHBoxLayout()
        row.addWidget(self.view, 1)
        row.addWidget(self.shape)
        lay.addLayout(row, 1)
        self.view.selectionModel().currentRowChanged.connect(self._row_picked)
        controller.changed.connect(self.on_changed)
        controller.optionsChanged.connect(self.refresh)
        columns.columnsChanged.connect(self._columns_changed)

    def _scored(self) -> list[tuple]:
        return [(e.key, e.name, e.result) for e in self.controller.readable_entries() if e.result]

    def refresh(self) -> None:
        """Refill the run or measure list (keeping the choice), then the table."""
        mode = self.mode.currentData()
        default = self.controller.default_rank_key()
        self.choice.blockSignals(True)
        cur = self.choice.currentData()
        self.choice.clear()
        if mode == "run":
            for _, name, _ in self._scored():
                self.choice.addItem(name, name)
        else:
            o = self.controller.options
            for m in columns(o):
                self.choice.addItem(f"{m.label} [{m.key}]", m.key)
        i = self.choice.findData(cur)
        if i < 0 and mode == "measure":
            i = self.choice.findData(default)
        self.choice.setCurrentIndex(max(i, 0))
        self.choice.blockSignals(False)
        self._choice_changed()

    def _mode_changed(self) -> None:
        """Other columns: shown from the first (the query) again."""
        self.refresh()
        self.view.horizontalScrollBar().setValue(0)

    def _columns_changed(self) -> None:
        if self.mode.currentData() == "run":
            self._choice_changed()

    def _choice_changed(self) -> None:
        """Fill the table for the run or measure chosen; the sort stays on
        its column (a measure, a run, the query...) while that column is shown."""
        entries = self._scored()
        choice = self.choice.currentData()
        ranks = self.controller.options.ranks
        run_mode = self.mode.currentData() == "run"
        self.columns_button.setVisible(run_mode)
        sort = self.view.sort_state()
        if run_mode:
            names = [n for _, n, _ in entries]
            self.model.configure(
                entries,
                mode="run",
                run_index=names.index(choice) if choice in names else 0,
                keys=self.columns.keys,
                ranks=ranks,
            )
        else:
            measure = choice or self.controller.default_rank_key()
            self.model.configure(entries, mode="measure", measure=measure, ranks=ranks)
        if not self.view.restore_sort(sort):
            self.view.clear_sort()  # the queries in file order, and no arrow saying otherwise
        self.view.fit_columns()
        self._fit_headers()
        self._fit_ranking()

    def _fit_headers(self) -> None:
        """One run's measures: the headers wrapped where the columns would not
        fit the width (as the Summary's); one measure's runs: one line (the
        ranking column scrolls sideways instead)."""
        if self.mode.currentData() == "run":
            self.view.fit_to_width()
        else:
            self.view._header_lines(1)

    def _fit_ranking(self) -> None:
        """The ranking of runs at most as wide as the table (the whole
        ranking is its tooltip), so that its header is seen with its start."""
        n = self.proxy.columnCount()
        if (
            self.mode.currentData() == "measure"
            and n
            and self.view.viewport().width() > 100
            and not self.view.waits_to_be_shown()  # fitted when shown (its resized signal)
        ):
            v = self.view
            natural = max(v.sizeHintForColumn(n - 1), v.horizontalHeader().sectionSizeHint(n - 1))
            v.setColumnWidth(n - 1, min(natural, v.viewport().width()))

    def _resized(self) -> None:
        """The table resized (once shown, when resized while hidden): the
        headers and the ranking for its width."""
        self._fit_headers()
        self._fit_ranking()

    def _row_picked(self, current, _previous) -> None:
        if current.isValid():
            row = self.proxy.mapToSource(current).row()
            qids = self.model.query_ids
            self.shape.show_query(qids[row] if 0 <= row < len(qids) else None)

    def set_class_filter(self, name: str | None) -> None:
        """Show only the queries of class ``name`` (None: every query)."""
        self.proxy.set_class(name)
        self.filter_label.setText(f"Class: {name}" if name else "")
        self.filter_label.setVisible(name is not None)
        self.clear_filter.setVisible(name is not None)

    def table(self) -> CopyTable:
        return self.view

    def export_name(self) -> str:
        return "per-query.csv"

    def set_dark(self, dark: bool) -> None:
        self.model.dark = dark
        self.view.viewport().update()
