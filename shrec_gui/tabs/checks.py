"""Data checks tab: every run's warnings, and the runs that could not be
read (which can be removed from here)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from ..models import SortProxy, WarningsModel
from ..tables import CopyTable
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
        self.view.sortByColumn(2, Qt.SortOrder.DescendingOrder)  # "problem" before "note"
        self.remove_button = QPushButton("Remove the selected runs")
        self.remove_button.setToolTip("Take the runs of the selected rows out of the contest (Del)")
        self.remove_button.clicked.connect(self.remove_selected)
        bar = QHBoxLayout()
        bar.addWidget(
            QLabel(
                "Data checks of every run: problems first (what makes shrec-eval check fail), "
                "then notes; unreadable runs are listed here."
            ),
            1,
        )
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
