"""Print figures of a contest, drawn from its results (RunResult objects):
precision-recall and (N)(D)CG curves, the SHREC measure bars and the
per-class heatmap, at a size in centimetres with text in points (presets
for a column and the page width of a two-column paper, and for a slide).

Used by ``shrec-eval evaluate --report`` and by the app's Export report and
Export figure, so a figure in a paper is the same whichever made it.  Drawn
with matplotlib (``matplotlib.figure.Figure`` objects rendered by its Agg,
PDF and SVG backends, never pyplot's global figures or a Qt backend: this
module is part of the Qt-free core): Qt's painters give no point sizes, no
embedded fonts in a PDF and a pixel canvas in SVG, and the text layout
(ticks, legends, colour bars, rotated labels that never overlap) would have
to be written again.  Text is DejaVu Sans (shipped with matplotlib), embedded
in PDFs as TrueType (Type 42) and kept as text in SVGs.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import OptionsError
from ..scoring.measures import CURVES, measure_by_key
from .figure_data import FigureAxes, FigureJob, FigureMeasure, FigureRun
from .figure_jobs import FigureDrawers, draw_figures
from .figure_plots import class_matrix, draw_bars, draw_curves, draw_heatmap  # noqa: F401
from .figure_style import (  # noqa: F401
    BAR_COLOURS,
    CM,
    MARKERS,
    MIN_FONT_PT,
    PRESET_TEXT,
    PRESETS,
    SHREC_BARS,
    UNDEFINED_CELL,
    FigurePreset,
    figure_bytes,
    figure_names,
    fmt_range,
    freeze_layout,
    name_limit,
    names_looks,
    new_figure,
    place_legend,
    preset_by_name,
    rc_context,
    renderer_of,
    run_style,
    style_axes,
    text_width,
    turn_overlapping,
    wrap_text,
)
from .palette import FIGURE_FORMATS as FORMATS
from .palette import (
    GRADE_COLOURS,
    REPORT_FIGURES,
    RunLook,
    contrast_ratio,
    grade_colour,
    grade_words,
    text_colour,
)

__all__ = [
    "PRESETS",
    "FigurePreset",
    "MIN_FONT_PT",
    "FORMATS",
    "REPORT_FIGURES",
    "curve_figure",
    "bars_figure",
    "heatmap_figure",
    "ranked_lists_figure",
    "figure_bytes",
    "contrast_ratio",
    "text_colour",
]


# -- matplotlib -----------------------------------------------------------------------------


# -- the figures ----------------------------------------------------------------------------


def curve_axes(key: str) -> FigureAxes:
    """What a figure writes of the registry's curve ``key``."""
    curve = next((c for c in CURVES if c.key == key), None)
    if curve is None:
        raise OptionsError(f"unknown curve {key!r}; known: {', '.join(c.key for c in CURVES)}")
    return FigureAxes.of(curve)


def curve_figure(
    results: Sequence,
    key: str,
    preset: FigurePreset,
    *,
    names: Sequence[str] | None = None,
    looks: Sequence[RunLook] | None = None,
    title: str | None = None,
    query_class: str | None = None,
):
    """One curve of the registry (``pr``, ``ndcg``, ...) for every run:
    the mean over queries (the options' average), or with ``query_class``
    the mean over that class's queries (as the app's Per class tab shows
    it); a line and markers per run in its look (colour, marker and line
    style, readable in grey; ``looks``: each run's, by default by its place
    among ``results``)."""
    return draw_curves(
        results,
        curve_axes(key),
        preset,
        names=names,
        looks=looks,
        title=title,
        query_class=query_class,
    )


def bars_figure(
    results: Sequence,
    preset: FigurePreset,
    keys: Sequence[str] = SHREC_BARS,
    *,
    names: Sequence[str] | None = None,
    title: str | None = None,
):
    """The SHREC summary chart: for each run (in the given order) a group of
    bars, one per measure (short labels in the legend); run names under the
    groups, turned when they would overlap."""
    keys, measures = bar_measures(results, keys)
    return draw_bars(results, preset, keys, measures, names=names, title=title)


def bar_measures(results: Sequence, keys: Sequence[str]) -> tuple[list[str], list[FigureMeasure]]:
    """The ``keys`` of the bars that every run has, and their measures."""
    ranks = results[0].options.ranks if results else (5, 10, 25, 50, 100)
    keys = [k for k in keys if results and all(k in r.keys for r in results)]
    return keys, [FigureMeasure.of(measure_by_key(k, ranks)) for k in keys]


#: the height of a strip in its run's row (the rest is the gap to the next)
STRIP = 0.7


def ranked_lists_figure(
    lists: Sequence[tuple[str, Sequence[int]]],
    top_grade: int,
    preset: FigurePreset,
    *,
    ranks: tuple[int, int] | None = None,
    title: str | None = None,
):
    """One query's ranked lists, as the app's Ranked list tab draws them: a
    strip per run (``lists``: run name and the grade of each rank, top to
    bottom), each rank coloured by its item's grade (the gallery's colours),
    the runs named on the left, ``ranks`` (first, last; default: all) along
    the bottom and the colours' key below.  The figure is the preset's
    width and grows downwards with the runs (a line and a half each), so
    that names never overlap."""
    from matplotlib.patches import Patch

    p = preset.checked()
    names = figure_names([n for n, _ in lists], p)
    gains = [np.asarray(g, dtype=np.int64) for _, g in lists]
    n = len(lists)
    longest = max((len(g) for g in gains), default=0)
    lo, hi = ranks if ranks is not None else (1, max(longest, 1))
    lo, hi = max(int(lo), 1), max(int(hi), int(lo) + 1)
    key = [(grade_colour(max(top_grade, 1), top_grade), grade_words(max(top_grade, 1), top_grade))]
    if top_grade >= 2:
        key.append((grade_colour(1, top_grade), grade_words(1, top_grade)))
    key.append((GRADE_COLOURS[0], "not relevant"))
    line = p.font_pt * 1.5 / 72  # inches per run
    with rc_context(p):
        # the runs, then title, rank axis and the key below
        height = max(p.size_in[1], n * line + (7 if title else 5.5) * line)
        fig = new_figure(p, height_cm=height / CM)
        ax = fig.add_subplot()
        for i, g in enumerate(gains):
            if not len(g):
                continue
            rgb = np.empty((1, len(g), 3))
            rgb[:] = np.asarray(GRADE_COLOURS[0]) / 255
            for grade in (1, max(top_grade, 1)):
                rgb[0, g >= grade] = np.asarray(grade_colour(grade, top_grade)) / 255
            y = n - 1 - i + (1 - STRIP) / 2
            ax.imshow(
                rgb,
                aspect="auto",
                interpolation="nearest",
                extent=(0.5, len(g) + 0.5, y, y + STRIP),
            )
        ax.set_xlim(lo - 0.5, hi + 0.5)
        ax.set_ylim(0, max(n, 1))
        ax.set_yticks([n - 1 - i + 0.5 for i in range(n)], names)
        ax.tick_params(axis="y", length=0, labelsize=p.font_pt)
        ax.tick_params(axis="x", labelsize=p.font_pt, width=p.thin_pt, length=p.font_pt * 0.4)
        for side in ("top", "right", "left"):
            ax.spines[side].set_visible(False)
        ax.spines["bottom"].set_linewidth(p.thin_pt)
        ax.set_xlabel("Rank")
        if title:  # over the whole width (the names take the left of it)
            fig.suptitle(wrap_text(title, p.size_pt[0] - 2 * p.font_pt, p), fontsize=p.font_pt)
        handles = [
            Patch(facecolor=np.asarray(c) / 255, edgecolor="none")  # type: ignore[arg-type]  # an RGB array, as matplotlib takes
            for c, _ in key
        ]
        labels = [w for _, w in key]
        column = max(text_width(t, p.font_pt) for t in labels) + p.font_pt * (1.4 + 0.5 + 1.5)
        ncol = max(1, min(len(labels), int((p.size_pt[0] - 2 * p.font_pt) // column)))
        fig.legend(
            handles,
            labels,
            loc="outside lower center",
            ncols=ncol,
            fontsize=p.font_pt,
            handlelength=1.4,
            handletextpad=0.5,
            columnspacing=1.5,
        )
        freeze_layout(fig)
    return fig


def heatmap_figure(
    results: Sequence,
    key: str,
    preset: FigurePreset,
    *,
    names: Sequence[str] | None = None,
    title: str | None = None,
    cell_text: bool | None = None,
):
    """Classes (rows, as the assessment lists them) x runs (columns, in the
    given order): each cell the class mean of ``key`` (viridis, brighter =
    better), a labelled colour bar with the measure and its range, the value
    in the cell where it fits (black or white text from the cell's
    luminance).  The figure is the preset's width and grows downwards with
    the classes: one text line and a half per class, so labels never overlap."""
    ranks = results[0].options.ranks if results else (5, 10, 25, 50, 100)
    measure = FigureMeasure.of(measure_by_key(key, ranks))
    return draw_heatmap(
        results, key, measure, preset, names=names, title=title, cell_text=cell_text
    )


def report_figure_jobs(
    results: Sequence,
    preset: FigurePreset,
    *,
    rank_key: str,
    names: Sequence[str] | None = None,
    looks: Sequence[RunLook] | None = None,
    formats: Sequence[str] = FORMATS,
) -> list[FigureJob]:
    """The report's figures as jobs (shrec_eval.outputs.figure_jobs), runs
    in the given order (the report's ranking), each in its look (``looks``,
    in the same order): drawn from what they show of the results."""
    runs = [FigureRun.of(r) for r in results]
    ranks = results[0].options.ranks
    formats = tuple(formats)
    curves = {"names": names, "looks": looks}
    # a profile without a curve has no figure of it
    jobs = [
        FigureJob(name, draw_curves, (runs, curve_axes(key), preset), curves, formats)
        for name, key in (("precision_recall", "pr"), ("ndcg", "ndcg"))
        if any(key in r.curves for r in runs)
    ]
    bars = bar_measures(results, [k for k in SHREC_BARS if k in runs[0].keys] or [rank_key])
    jobs.append(
        FigureJob(
            "measure_bars",
            draw_bars,
            (runs, preset, *bars),
            {"names": names},
            formats,
            weight=2,  # names turned and laid out again till they fit
        )
    )
    if runs[0].per_class:
        measure = FigureMeasure.of(measure_by_key(rank_key, ranks))
        jobs.append(
            FigureJob(
                "class_heatmap",
                draw_heatmap,
                (runs, rank_key, measure, preset),
                {"names": names},
                formats,
                # a text per cell; its PNG the largest
                weight=2 + len(runs[0].per_class) * len(runs) / 50,
            )
        )
    return jobs


def report_figures(
    results: Sequence,
    preset: FigurePreset,
    *,
    rank_key: str,
    names: Sequence[str] | None = None,
    looks: Sequence[RunLook] | None = None,
    formats: Sequence[str] = FORMATS,
    drawers: FigureDrawers | None = None,
) -> dict[str, bytes]:
    """File name (``figures/NAME.FMT``) -> bytes of the report's figures
    (:func:`report_figure_jobs`), drawn by ``drawers`` when given, else here."""
    jobs = report_figure_jobs(
        results, preset, rank_key=rank_key, names=names, looks=looks, formats=formats
    )
    return draw_figures(jobs, drawers)()
