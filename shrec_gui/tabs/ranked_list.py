"""Ranked-list tab: where the relevant items of one query landed in every
run's list, stacked by run and aligned by rank (plots/ranked_strips.py's RankedListsWidget;
the lists, item ids and classes are made in the worker)."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from ..exports.writers import csv_text
from ..plots.curves import set_widget_theme
from ..plots.ranked_strips import RankedListsWidget
from ..widgets.thumbnails import ThumbStrips
from . import Tab


class RankedListTab(RankedListsWidget, Tab):
    title = "Ranked list"

    def __init__(self, controller, parent=None) -> None:
        super().__init__(parent)
        self.controller = controller
        # the shapes of the lists shown (hidden while the contest has no shapes)
        self.thumbs = ThumbStrips(controller.shapes, self)  # never a window of its own
        self.layout().insertWidget(self.layout().indexOf(self.info_scroll), self.thumbs, 2)
        # Tab as the tab reads, top to bottom: the strips' controls before the summary below them
        t = self.thumbs
        order = [*self.export_buttons, t.k, t.cancel, t.scroll, self.info_scroll]
        for a, b in zip(order, order[1:]):
            QWidget.setTabOrder(a, b)
        self.listsRequested.connect(controller.request_lists)
        controller.listsReady.connect(self.show_lists)
        controller.changed.connect(self.on_changed)

    def draw(self) -> None:
        super().draw()
        if hasattr(self, "thumbs"):  # drawn once by the base class before the strips exist
            q = self.lists.query_id if self.lists is not None else None
            self.thumbs.show_runs(self.shown_runs(), q, self.top_grade)

    def refresh(self) -> None:
        c = self.controller
        top = c.assessment.top_grade if c.assessment is not None else 2
        self.set_entries([(k, e.name, e.result) for k, e in c.entries.items()], top)

    def export_name(self) -> str | None:
        return None if not self.shown_runs() else f"ranked-{self.lists.query_id}.csv"

    def export_text(self) -> str:
        """The lists shown: run, rank, item id, class and grade of each item."""
        q = self.lists.query_id
        rows = [["run", "query", "rank", "item", "class", "grade"]]
        for run in self.shown_runs():
            classes = run.classes or ("",) * len(run)
            rows += [
                [run.name, q, r + 1, item, c, int(g)]
                for r, (item, c, g) in enumerate(zip(run.items, classes, run.gains))
            ]
        return csv_text(rows)

    def plot_items(self) -> dict:
        return {"ranked": self.plot.getPlotItem()}

    def set_dark(self, dark: bool) -> None:
        set_widget_theme(self.plot, dark)
