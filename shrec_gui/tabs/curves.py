"""Curves tab: precision-recall and the other curves of every run, the
mean over queries or one query (the plot is plots/curves.py's CurvesWidget)."""

from __future__ import annotations

from ..exports.writers import plot_csv_text
from ..plots.curves import CurvesWidget, set_widget_theme
from . import Tab


class CurvesTab(CurvesWidget, Tab):
    title = "Curves"

    def __init__(self, controller, parent=None) -> None:
        super().__init__(parent)
        self.controller = controller
        controller.changed.connect(self.on_changed)

    def refresh(self) -> None:
        looks = self.controller.looks()
        entries = self.controller.readable_entries()
        self.set_entries([(e.name, looks[e.key], e.result) for e in entries])

    def plot_items(self) -> dict:
        return {"curves": self.plot_item}

    def export_name(self) -> str:
        return f"{self.kind.currentData()}.csv"

    def export_text(self) -> str:
        """The curves' data as CSV (x and y of each run)."""
        return plot_csv_text(self.plot_item)

    def set_dark(self, dark: bool) -> None:
        for pw in (self.plot, self.bars.plot):
            set_widget_theme(pw, dark)
