"""Data checks tab: every run's warnings, and the runs that could not be
read (which can be removed from here)."""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from ..models.tables import SortProxy, WarningsModel
from ..widgets.table_view import CopyTable
from . import Tab


class ChecksTab(QWidget, Tab):
    title = "Data checks"

    def __init__(self, controller, parent=None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.model = WarningsModel(self)
        self.proxy = SortProxy(self)
        self.proxy.setSourceModel(self.model)
        self.view = CopyTable()
        self.view.setModel(self.proxy)
        # problems, then warnings, then notes
        self.view.sortByColumn(2, Qt.SortOrder.DescendingOrder)
        # the table resized, or shown after changes made while it was hidden:
        # wrap for its width, once it has laid out its viewport (a moment later;
        # the tab's own resize comes before its layout sizes the table)
        self.view.resized.connect(lambda: QTimer.singleShot(0, self._rewrap))
        self.remove_button = QPushButton("Remove the selected runs")
        self.remove_button.setToolTip("Take the runs of the selected rows out of the contest (Del)")
        self.remove_button.clicked.connect(self.remove_selected)
        bar = QHBoxLayout()
        intro = QLabel(
            "Data checks of every run: problems first (what makes shrec-eval check fail), "
            "then warnings (another reading gives other numbers: the banner over the tabs), "
            "then notes; unreadable runs are listed here."
        )
        intro.setWordWrap(True)  # the window may be narrow
        bar.addWidget(intro, 1)
        bar.addWidget(self.remove_button)
        lay = QVBoxLayout(self)
        lay.addLayout(bar)
        lay.addWidget(self.view, 1)
        controller.changed.connect(self.on_changed)

    def refresh(self) -> None:
        c = self.controller
        self.model.set_entries(
            [(e.key, e.name, e.result) for e in c.readable_entries()],
            [(k, e.name, e.error) for k, e in c.entries.items() if e.error is not None],
        )
        self.view.fit_columns()
        if self.view.waits_to_be_shown():
            return  # sized and wrapped once shown (the table's resized signal then)
        self._wrap_long_text()
        QTimer.singleShot(0, self._rewrap)  # again for the viewport's width once laid out

    #: the share of the room left that the examples may take: what a check
    #: means is read first, the examples only show where (often empty)
    EXAMPLES_SHARE = 0.35

    def _wrap_long_text(self) -> None:
        """Run, check, kind and count keep their full width; the two long
        text columns (what, examples) share what is left and wrap, so that a
        1,200 px window shows every column without scrolling sideways: the
        examples at most EXAMPLES_SHARE of it, what the check means the rest."""
        view, n = self.view, self.proxy.columnCount()
        if n < 2:
            return
        fixed = sum(view.columnWidth(i) for i in range(n - 2))
        left = max(view.viewport().width() - fixed - 4, 240)
        for i in (n - 2, n - 1):  # their natural widths again (wrapping shrank them)
            view.resizeColumnToContents(i)
        examples = min(view.columnWidth(n - 1), int(left * self.EXAMPLES_SHARE))
        view.setColumnWidth(n - 2, left - examples)
        view.setColumnWidth(n - 1, examples)
        view.setWordWrap(True)
        view.resizeRowsToContents()

    def _rewrap(self) -> None:
        if not shiboken6.isValid(self.proxy):  # the window deleted since the resize
            return
        if self.proxy.rowCount() and not self.view.waits_to_be_shown():
            self.view.resizeColumnsToContents()
            self._wrap_long_text()

    def remove_selected(self) -> None:
        self.controller.remove(self.selected_run_keys())

    def table(self) -> CopyTable:
        return self.view

    def export_name(self) -> str:
        return "data-checks.csv"

    def selected_run_keys(self) -> list[int]:
        return self.view.selected_run_keys()

    def set_dark(self, dark: bool) -> None:
        self.model.dark = dark
        self.view.viewport().update()
