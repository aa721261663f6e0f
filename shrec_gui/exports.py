"""Writers for what the tabs show: tables as CSV, plots as PNG, SVG or the
CSV of their data.  Every file is written atomically (a temporary file
renamed over the target); text cells a spreadsheet would run as a formula
get a leading quote (run and curve names come from participants' files)."""

from __future__ import annotations

import csv
import io
import os

from shrec_eval.atomic import write_text
from shrec_eval.report import csv_text_cell
from shrec_eval.values import is_number

from .plots import export_csv, export_png, export_svg

PLOT_FORMATS = {"png": "PNG image (*.png)", "svg": "SVG drawing (*.svg)", "csv": "CSV (*.csv)"}


def csv_text(rows) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    for r in rows:
        w.writerow([c if is_number(str(c)) else csv_text_cell(str(c)) for c in r])
    return buf.getvalue()


def write_table_csv(path: str, rows) -> None:
    """Rows (header first) as CSV; raises OSError."""
    write_text(path, csv_text(rows))


def write_plot(plot_item, path: str, fmt: str, width: int = 1600) -> None:
    """A plot as PNG (``width`` pixels, white background), SVG, or the CSV
    of its data; raises OSError."""
    tmp = f"{path}.part.{fmt}"
    try:
        if fmt == "png":
            export_png(plot_item, tmp, width)
        elif fmt == "svg":
            export_svg(plot_item, tmp)
        else:
            export_csv(plot_item, tmp)
            with open(tmp, newline="", encoding="utf-8") as fh:
                rows = list(csv.reader(fh))
            with open(tmp, "w", newline="", encoding="utf-8") as fh:
                fh.write(csv_text(rows))
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
