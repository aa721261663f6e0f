"""Writers for what the tabs show: tables as CSV, plots as figures (PNG,
SVG, PDF: figures.py) or the CSV of their data.  Every file is written atomically (a temporary file
renamed over the target); text cells a spreadsheet would run as a formula
get a leading quote (run and curve names come from participants' files)."""

from __future__ import annotations

import csv
import io
import os
from dataclasses import replace

from shrec_eval.model.values import is_number
from shrec_eval.outputs.atomic import write_text
from shrec_eval.outputs.report import csv_text_cell

from ..figures.printing import FORMATS as FIGURE_FORMATS
from ..figures.printing import FigureSettings, export_csv, export_figure

PLOT_FORMATS = {**FIGURE_FORMATS, "csv": "CSV (*.csv)"}


def csv_text(rows) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    for r in rows:
        w.writerow([c if is_number(str(c)) else csv_text_cell(str(c)) for c in r])
    return buf.getvalue()


def write_table_csv(path: str, rows) -> None:
    """Rows (header first) as CSV; raises OSError."""
    write_text(path, csv_text(rows))


def write_plot(plot_item, path: str, fmt: str, figure: FigureSettings | None = None) -> None:
    """A plot as a figure (png, svg, pdf: figures.export_figure with
    ``figure``'s size, font and legend, default FigureSettings) or the CSV of
    its data; raises OSError."""
    if fmt in FIGURE_FORMATS:
        export_figure(plot_item, path, replace(figure or FigureSettings(), fmt=fmt))
        return
    tmp = f"{path}.part.{fmt}"
    try:
        export_csv(plot_item, tmp)
        with open(tmp, newline="", encoding="utf-8") as fh:
            rows = list(csv.reader(fh))
        with open(tmp, "w", newline="", encoding="utf-8") as fh:
            fh.write(csv_text(rows))
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
