"""Export report from the app: the folder ``shrec-eval evaluate --report``
writes (summary.csv, per_query.csv, summary.md, summary.tex, index.html, and
per_class.csv where there are classes), plus the figures: precision-recall
(mean over queries) and the SHREC measure bars, each as PNG, SVG and PDF.

The figures are painted on the GUI thread (pyqtgraph items live there; painting
a few hundred items takes well under a second); building the report's text and
writing the folder run on a file thread (``write_app_report``)."""

from __future__ import annotations

from dataclasses import replace

from shrec_eval.atomic import write_folder
from shrec_eval.commands import default_table
from shrec_eval.gallery import gallery_files, run_lists
from shrec_eval.profiles import get_profile
from shrec_eval.report import REPORT_FILES, report_files
from shrec_eval.thumbnails import ThumbnailCache

from .figures import FORMATS, FigureSettings, figure_bytes
from .plots import BARS, CurvesWidget

#: figure name -> kind on the Curves tab
REPORT_FIGURES = {"precision_recall": "pr", "measure_bars": BARS}
FIGURE_FILES = tuple(f"{name}.{fmt}" for name in REPORT_FIGURES for fmt in FORMATS)


def report_figures(entries, settings: FigureSettings) -> dict[str, bytes]:
    """File name -> bytes of the report's figures; ``entries`` are (name,
    colour, RunResult) as the Curves tab shows them.  GUI thread."""
    view = CurvesWidget()  # never shown: the same plots as the tab's, in a known state
    try:
        view.set_entries(entries)
        out = {}
        for name, kind in REPORT_FIGURES.items():
            view.kind.setCurrentIndex(view.kind.findData(kind))
            view.select_query(None)
            for fmt in FORMATS:
                out[f"{name}.{fmt}"] = figure_bytes(view.plot_item, replace(settings, fmt=fmt))
        return out
    finally:
        view.deleteLater()


def write_app_report(
    folder, assessment, results, options, figures: dict[str, bytes], shapes=None
) -> list:
    """The report folder with the figures, written whole (atomically, an
    earlier report replaced, any other folder refused); with ``shapes``
    (shapes source, query shapes source, the results' RunSources) the gallery
    of ``shrec-eval evaluate --report`` too.  File thread."""
    keys, rank_key = default_table(assessment, options)
    files = {**report_files(assessment, results, keys=keys, rank_key=rank_key), **figures}
    if shapes is not None:
        files.update(_gallery(assessment, results, options, keys, rank_key, *shapes))
    return write_folder(folder, files, replaces=REPORT_FILES + FIGURE_FILES)


def _gallery(assessment, results, options, keys, rank_key, shapes, query_shapes, sources):
    """gallery.html and thumbs/ (every query, top 10, 128 px), as the command line's."""
    reader = get_profile(options.profile).reader
    runs = [source.load(assessment, **reader) for source in sources]
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
