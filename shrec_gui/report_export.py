"""Export report from the app: the folder ``shrec-eval evaluate --report``
writes for the same runs (summary.csv, per_query.csv, summary.md, the LaTeX
tables, index.html, per_class.csv where there are classes) with its figures
under figures/, written by the same core code (shrec_eval.report.write_report;
the figures drawn from the results by shrec_eval.figures, in the runs'
colours of the app), on a file thread."""

from __future__ import annotations

from shrec_eval.commands import default_table
from shrec_eval.report import write_report


def report_preset(settings) -> str:
    """The report's figure preset: the export dialog's print preset, else
    the column (as ``shrec-eval evaluate --report``)."""
    preset = settings.checked().preset
    return preset if preset != "custom" else "column"


def write_app_report(
    folder, assessment, results, options, preset: str, colours: dict, shown=()
) -> list:
    """The report folder with the figures, written whole (atomically, an
    earlier report replaced, any other folder refused).  File thread.  The
    tables' columns are the Summary's (``shown``; in the command line's order
    when they are its columns)."""
    keys, rank_key = default_table(assessment, options)
    if shown and set(shown) != set(keys):
        keys = list(shown)
    return write_report(
        folder,
        assessment,
        results,
        keys=keys,
        rank_key=rank_key,
        figure_preset=preset,
        colours=colours,
    )
