"""Export report from the app: the folder ``shrec-eval evaluate --report``
writes for the same runs (summary.csv, per_query.csv, summary.md, the LaTeX
tables, index.html, per_class.csv where there are classes) with its figures
under figures/, written by the same core code (shrec_eval.outputs.report.write_report;
the figures drawn from the results by shrec_eval.outputs.figures, each run in
its look, the same as the command line's), on a file thread."""

from __future__ import annotations

from functools import partial

from shrec_eval.outputs.gallery import gallery_files, run_lists
from shrec_eval.outputs.report import start_report_figures, write_report
from shrec_eval.shapes.thumbnails import ThumbnailCache


def report_preset(settings) -> str:
    """The report's figure preset: the export dialog's print preset, else
    the column (as ``shrec-eval evaluate --report``)."""
    preset = settings.checked().preset
    return preset if preset != "custom" else "column"


def write_app_report(
    folder,
    assessment,
    results,
    options,
    preset: str,
    looks: dict,
    shown=(),
    shapes=None,
    drawers=None,
) -> list:
    """The report folder with the figures, written whole (atomically, an
    earlier report replaced, any other folder refused).  File thread.  The
    tables' columns are the Summary's (``shown``; in the command line's order
    when they are its columns); with ``shapes`` (shapes source, query shapes
    source, the runs scored) the gallery of ``shrec-eval evaluate --report``
    too, made while ``drawers`` (FigureDrawers, kept: the caller ends them;
    None: this process) draw the figures."""
    keys, rank_key = options.rules.table(assessment, options)
    if shown and set(shown) != set(keys):
        keys = list(shown)
    extra = None
    if shapes is not None:
        extra = partial(_gallery, assessment, results, options, keys, rank_key, *shapes)
    return write_report(
        folder,
        assessment,
        results,
        keys=keys,
        rank_key=rank_key,
        figure_preset=preset,
        looks=looks,
        extra=extra,
        drawers=drawers,
    )


def start_app_report_figures(drawers, assessment, results, options, preset: str, looks: dict):
    """The figures of :func:`write_app_report` started in ``drawers`` before
    the folder is known (Export report's dialog): drawn once, the export
    then finds them (a FigureDrawers draws a figure of the same results once)."""
    _, rank_key = options.rules.table(assessment, options)
    start_report_figures(results, rank_key=rank_key, preset=preset, looks=looks, drawers=drawers)


def _gallery(assessment, results, options, keys, rank_key, shapes, query_shapes, runs):
    """gallery.html and thumbs/ (every query, top 10, 128 px), as the command
    line's, from the ranked lists of the runs the scoring service read."""
    files, _ = gallery_files(
        assessment,
        results,
        run_lists(assessment, runs, options),
        shapes.index() if shapes is not None else None,
        query_shapes.index() if query_shapes is not None else None,
        keys=keys,
        rank_key=rank_key,
        cache=ThumbnailCache(),
    )
    return files
