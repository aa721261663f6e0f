"""Tables of a contest and their files: summary and per-query tables (from
the measure registry), JSON, CSV, Markdown, LaTeX and a self-contained HTML
page.  Text that came from participants' files (run names, ids) is escaped
for HTML and LaTeX, and CSV cells that a spreadsheet would run as a formula
are neutralised.  Every file is written atomically."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from ..errors import shown
from ..model.assessment import Assessment
from ..profiles.base import HEADLINE  # noqa: F401 - read by the app from here
from ..scoring.engine import RunResult
from . import figures
from .atomic import check_folder, write_folder
from .figure_jobs import draw_figures
from .json_pieces import (  # noqa: F401
    json_pieces,
    to_json,
    write_json,
)
from .palette import RunLook, result_looks
from .summary import (  # noqa: F401
    AVERAGE_TEXT,
    Summary,
    class_table,
    fmt,
    headline_keys,
    source_names,
)
from .tables import (  # noqa: F401
    FORMULA_START,
    REPORT_FILES,
    csv_text_cell,
    cut_names_md,
    md_escape,
    per_class_csv,
    per_class_md,
    per_class_tex,
    per_query_csv,
    summary_csv,
    summary_html,
    summary_md,
    summary_table,
    summary_tex,
    write_csv_dir,
)
from .tex_layout import (  # noqa: F401
    COLUMN_PT,
    PAGE_PT,
    TEX_DIGITS,
    TEX_SIZES,
    TEXT_HEIGHT_PT,
    TOOL,
    TexCell,
    TexTable,
    tex_escape,
    tex_plain,
    tex_table,
    tex_width,
)


def write_report(
    folder,
    assessment: Assessment,
    results: Sequence[RunResult],
    *,
    keys: Sequence[str] | None = None,
    rank_key: str | None = None,
    comparison=None,
    test: str | None = None,
    figure_preset=None,
    figures: bool = True,
    looks: dict[str, RunLook] | None = None,
    extra: dict | Callable[[], dict | None] | None = None,
    drawers=None,
) -> list[Path]:
    """summary.csv, per_query.csv, summary.md, summary.tex, summary-wide.tex,
    index.html (with classes per_class.csv, per_class.tex, per_class-wide.tex)
    and the figures under figures/ (shrec_eval.outputs.figures, at ``figure_preset``:
    a FigurePreset or a preset name, default the column); with a
    ``comparison``, its significance markers and their legend.  ``looks``:
    run name -> the look of its curves (see report_figure_files); ``extra``:
    more files of the folder (the gallery of the shapes: gallery.html,
    thumbs/), or the function that makes them, called while the figures are
    drawn; ``drawers``: the processes that draw them
    (shrec_eval.outputs.figure_jobs.FigureDrawers; None: this one)."""
    drawn = None
    if figures:
        check_folder(folder, REPORT_FILES)  # refused before drawing
        # the figures started first, the tables made while they are drawn
        drawn = start_report_figures(
            results,
            rank_key=rank_key
            or (list(keys or headline_keys(results[0].keys)) or results[0].keys)[0],
            preset=figure_preset,
            looks=looks,
            drawers=drawers,
        )
    cut = figure_cut_names(results, figure_preset) if figures else ()
    files: dict[str, str | bytes] = dict(
        report_files(
            assessment,
            results,
            keys=keys,
            rank_key=rank_key,
            comparison=comparison,
            test=test,
            cut_names=cut,
        )
    )
    files.update((extra() if callable(extra) else extra) or {})
    # the figures written last: the other files go to disk while they are drawn
    return write_folder(folder, files, replaces=REPORT_FILES, later=drawn)


def _preset(preset):

    if preset is None:
        return figures.PRESETS["column"]
    return figures.preset_by_name(preset) if isinstance(preset, str) else preset


def figure_cut_names(results: Sequence[RunResult], preset=None) -> list[tuple[str, str]]:
    """(as drawn, whole name) of every run and class name that the figures
    at ``preset`` draw shortened (shrec_eval.outputs.figures.figure_names): the
    report's tables list them, so that no figure label is a riddle."""
    p = _preset(preset)
    runs = [r.run_name for r in results]
    classes = list(dict.fromkeys(c for r in results for c in r.per_class))
    out = []
    for names in (runs, classes):
        drawn = figures.figure_names(names, p)
        out += [(d, shown(n)) for d, n in zip(drawn, names) if d != shown(n)]
    return out


def report_figure_files(
    results: Sequence[RunResult],
    *,
    rank_key: str | None = None,
    preset=None,
    looks: dict[str, RunLook] | None = None,
    drawers=None,
) -> dict[str, bytes]:
    """``figures/NAME.FMT`` -> bytes: the report's figures, runs in the
    report's ranking (shrec_eval.outputs.figures; matplotlib is imported
    where they are drawn only: in ``drawers``, else here), each in its look:
    ``looks`` (by run name: the contest's, see
    shrec_eval.outputs.palette.run_looks), else that of its place among
    ``results``."""
    return start_report_figures(
        results, rank_key=rank_key, preset=preset, looks=looks, drawers=drawers
    )()


def start_report_figures(
    results: Sequence[RunResult],
    *,
    rank_key: str | None = None,
    preset=None,
    looks: dict[str, RunLook] | None = None,
    drawers=None,
) -> Callable[[], dict[str, bytes]]:
    """:func:`report_figure_files` started in ``drawers`` (None: drawn when
    asked for): the function that gives the files once drawn."""
    preset = _preset(preset)
    # a run without a look given: the look of its place in the contest
    looks = {**result_looks(results), **(looks or {})}
    ranked = Summary.build(results, None, rank_key).results
    jobs = figures.report_figure_jobs(
        ranked,
        preset,
        rank_key=rank_key or results[0].keys[0],
        looks=[looks[r.run_name] for r in ranked],
    )
    return draw_figures(jobs, drawers)


def report_files(
    assessment: Assessment,
    results: Sequence[RunResult],
    *,
    keys: Sequence[str] | None = None,
    rank_key: str | None = None,
    comparison=None,
    test: str | None = None,
    cut_names: Sequence[tuple[str, str]] = (),
) -> dict[str, str]:
    """File name -> text of a report folder's tables (see write_report);
    ``cut_names``: (as drawn, whole) of the names the figures shorten."""
    full = Summary.build(results, None, rank_key)
    keys = list(keys or headline_keys(results[0].keys))
    if comparison is not None and comparison.measure not in keys:
        keys.append(comparison.measure)
    head = Summary.build(results, keys, rank_key)
    if comparison is not None:
        head.mark_significance(comparison, test or comparison.tests[0])
    classes = {}
    if results[0].per_class:
        tex, tex_wide = per_class_tex(head), per_class_tex(head, wide=True)
        assert tex is not None and tex_wide is not None  # None only without classes
        classes = {
            "per_class.csv": per_class_csv(results),
            "per_class.tex": tex,
            "per_class-wide.tex": tex_wide,
        }
    return {
        "summary.csv": summary_csv(full),
        "per_query.csv": per_query_csv(results),
        "summary.md": summary_md(head, cut_names),
        "summary.tex": summary_tex(head),
        "summary-wide.tex": summary_tex(head, wide=True),
        **classes,
        "index.html": summary_html(head, assessment, cut=cut_names),
    }
