"""Significance tab: corrected p-values, run means with bootstrap
intervals, head to head (plots/significance.py's SignificanceWidget); the comparison
runs in the worker."""

from __future__ import annotations

import math

from ..exports.writers import csv_text
from ..plots.curves import set_widget_theme
from ..plots.significance import SignificanceWidget
from ..widgets.table_view import CopyTable
from . import Tab


class SignificanceTab(SignificanceWidget, Tab):
    title = "Significance"

    def __init__(self, controller, parent=None) -> None:
        super().__init__(CopyTable, parent)
        self.controller = controller
        self.set_measures(controller.options.ranks, "ap_trec_r")
        self.computeRequested.connect(controller.compare)
        controller.comparisonReady.connect(self.set_comparison)
        controller.comparisonFailed.connect(self.show_error)
        controller.optionsChanged.connect(self._options_changed)
        controller.changed.connect(self.on_changed)

    def _options_changed(self, options) -> None:
        self.set_measures(options.ranks, "ap_trec_r")

    def refresh(self) -> None:
        self.set_results({e.name: e.result for e in self.controller.readable_entries() if e.result})

    def table(self) -> CopyTable:
        return self.pview

    def export_name(self) -> str | None:
        if self.comparison is None:
            return None
        return f"p-values-{self.comparison.measure}.csv"

    def export_text(self) -> str:
        """The corrected p-values of the test shown, runs ranked by their mean."""
        m = self.pmodel
        rows = [["run"] + list(m.names)]
        for i, a in enumerate(m.names):
            p = [float(v) for v in m.p[i]]
            rows.append([a] + ["" if i == j or math.isnan(v) else repr(v) for j, v in enumerate(p)])
        return csv_text(rows)

    def plot_items(self) -> dict:
        return {"means": self.plot_item("means"), "h2h": self.plot_item("h2h")}

    def set_dark(self, dark: bool) -> None:
        for pw in (self.means_plot, self.h2h_plot):
            set_widget_theme(pw, dark)
