"""Ranked-list tab: where the relevant items of one query landed in one
run's list (plots.RankedListWidget; the detail is computed in the worker)."""

from __future__ import annotations

import numpy as np

from ..exports import write_table_csv
from ..plots import RankedListWidget, set_widget_theme
from . import Tab


class RankedListTab(RankedListWidget, Tab):
    title = "Ranked list"

    def __init__(self, controller, parent=None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.detail = None  # (run name, query id, QueryDetail) shown
        self.detailRequested.connect(controller.request_detail)
        controller.detailReady.connect(self.show_detail)
        controller.detailFailed.connect(self.show_error)
        controller.changed.connect(self.on_changed)

    def refresh(self) -> None:
        c = self.controller
        top = c.assessment.top_grade if c.assessment is not None else 2
        self.item_ids = c.assessment.item_ids if c.assessment is not None else ()
        self.set_entries([(k, e.name, e.result) for k, e in c.entries.items()], top)

    def show_detail(self, key: int, query_id: str, detail) -> None:
        if key == self.run.currentData() and query_id == self.current_query():
            self.detail = (self.run.currentText(), query_id, detail)
        super().show_detail(key, query_id, detail)

    def export_name(self) -> str | None:
        return None if self.detail is None else f"ranked-{self.detail[1]}.csv"

    def export(self, path: str) -> None:
        """The list shown: rank and grade of each item."""
        name, query_id, detail = self.detail
        gains = np.asarray(detail.gains)
        rows = [["run", "query", "rank", "grade"]]
        rows += [[name, query_id, i + 1, int(g)] for i, g in enumerate(gains)]
        write_table_csv(path, rows)

    def plot_items(self) -> dict:
        return {"ranked": self.plot.getPlotItem()}

    def set_dark(self, dark: bool) -> None:
        set_widget_theme(self.plot, dark)
