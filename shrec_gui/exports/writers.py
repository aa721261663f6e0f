"""What the tabs show as files: tables as CSV, plots as figures (PNG,
SVG, PDF: figures/printing.py) or the CSV of their data.  The content is
made on the GUI thread, where the tables and plots live; the file is
written by a file task (exports/actions.py), atomically (a temporary file
renamed over the target); text cells a spreadsheet would run as a formula
get a leading quote (run and curve names come from participants' files)."""

from __future__ import annotations

import csv
import io
import itertools
from dataclasses import replace

import numpy as np
import pyqtgraph as pg
import pyqtgraph.exporters as exporters
from shrec_eval.model.number_text import is_number
from shrec_eval.outputs.atomic import write_bytes, write_text
from shrec_eval.outputs.report import csv_text_cell

from ..figures.printing import FORMATS as FIGURE_FORMATS
from ..figures.printing import FigureSettings, figure_bytes

PLOT_FORMATS = {**FIGURE_FORMATS, "csv": "CSV (*.csv)"}


def csv_text(rows) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    for r in rows:
        w.writerow([c if is_number(str(c)) else csv_text_cell(str(c)) for c in r])
    return buf.getvalue()


def plot_csv_text(plot_item) -> str:
    """The plotted data as CSV text (pyqtgraph's CSVExporter gathers the
    data of the live plot, so it runs on the GUI thread; the file is written
    by a file task).  A plot drawn from a table, not from curves (the Per
    class heatmap), gives its own rows (its widget's ``csv_rows``)."""
    widget = plot_item.getViewWidget()
    if hasattr(widget, "csv_rows"):
        return csv_text(widget.csv_rows())
    return csv_text(_PlotRows(plot_item).rows())


def plot_file(plot_item, fmt: str, figure: FigureSettings | None = None) -> bytes | str:
    """What a plot's file holds: a figure's bytes (png, svg, pdf:
    figures/printing.py's figure_bytes with ``figure``'s size, font and legend, default
    FigureSettings) or the CSV text of its data.  Made on the GUI thread
    (plot items are only touched there); the file tasks write it."""
    if fmt in FIGURE_FORMATS:
        return figure_bytes(plot_item, replace(figure or FigureSettings(), fmt=fmt))
    return plot_csv_text(plot_item)


def write_file(path: str, content: bytes | str) -> None:
    """``content`` (bytes, or text as UTF-8) to ``path``, atomically
    (through the output gate's writers); raises OSError."""
    if isinstance(content, str):
        write_text(path, content)
    else:
        write_bytes(path, content)


class _PlotRows(exporters.CSVExporter):
    """The rows pyqtgraph's CSVExporter writes, kept in memory: the same
    header, columns and number format, without opening a file."""

    def rows(self) -> list[list[str]]:
        for item in self.item.items:
            if isinstance(item, pg.ErrorBarItem):
                self._exportErrorBarItem(item)
            elif hasattr(item, "implements") and item.implements("plotData"):
                self._exportPlotDataItem(item)
        columns = [column for dataset in self.data for column in dataset]
        precision = self.params["precision"]
        rows = [list(self.header)]
        for row in itertools.zip_longest(*columns, fillvalue=""):
            rows.append(
                [
                    v if isinstance(v, str) else np.format_float_positional(v, precision=precision)
                    for v in row
                ]
            )
        return rows
