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
from .figure_data import FigureJob, FigureRun
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
    hex_colour,
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
    p = preset.checked()
    curve = next((c for c in CURVES if c.key == key), None)
    if curve is None:
        raise OptionsError(f"unknown curve {key!r}; known: {', '.join(c.key for c in CURVES)}")
    names, looks = names_looks(results, names, looks, p)
    if query_class is not None and title is None:
        title = f"{curve.label}, class {figure_names([query_class], p)[0]}"
    with rc_context(p):
        fig = new_figure(p)
        ax = fig.add_subplot()
        style_axes(ax, p)
        handles = []
        top = 0.0
        for i, r in enumerate(results):
            c = r.curves.get(key)
            if c is None:
                continue
            x, y = np.asarray(c.x, float), np.asarray(c.mean, float)
            if query_class is not None:
                g = r.classes
                if query_class not in g.names:
                    continue
                y = np.asarray(g.means(c.per_query)[g.names.index(query_class)], float)
            first, every = looks[i].marks(len(x))
            (line,) = ax.plot(
                x,
                y,
                linewidth=p.line_pt,
                markersize=p.font_pt * 0.45,
                markevery=(first, every) if every > 1 else None,
                markeredgewidth=p.thin_pt,
                # the limits hold every point: a marker on them drawn whole, not
                # half cut by the axes
                clip_on=False,
                **run_style(looks[i]),
            )
            handles.append((line, names[i]))
            if np.isfinite(y).any():
                top = max(top, float(np.nanmax(y)))
        ax.set_xlabel(curve.x_label)
        ax.set_ylabel(curve.y_label)
        if title:
            ax.set_title(wrap_text(title, p.size_pt[0] - 2 * p.font_pt, p))
        if key == "pr" or curve.y_label.startswith("N") or key == "f":
            ax.set_ylim(0, 1.02)
        else:
            ax.set_ylim(0, top * 1.05 if top > 0 else 1)
        if key == "pr":
            ax.set_xlim(0, 1)
        elif len(results) and key in results[0].curves:
            xs = np.asarray(results[0].curves[key].x, float)
            ax.set_xlim(xs.min() if key.endswith("recall") else 0, xs.max())
        if handles:
            place_legend(fig, ax, [h for h, _ in handles], [n for _, n in handles], p)
        freeze_layout(fig)
    return fig


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
    p = preset.checked()
    names, _ = names_looks(results, names, None, p)
    ranks = results[0].options.ranks if results else (5, 10, 25, 50, 100)
    keys = [k for k in keys if results and all(k in r.keys for r in results)]
    measures = [measure_by_key(k, ranks) for k in keys]
    vals = np.array(
        [[np.nan if r.mean(k) is None else r.mean(k) for k in keys] for r in results], float
    ).reshape(len(results), len(keys))
    with rc_context(p):
        fig = new_figure(p)
        ax = fig.add_subplot()
        style_axes(ax, p)
        ax.grid(False, axis="x")
        n = max(len(keys), 1)
        width = 0.8 / n
        x = np.arange(len(results), dtype=float)
        hatches = ("", "///", "...", "\\\\\\", "xx", "--", "++")
        handles = []
        for j, m in enumerate(measures):
            ok = np.isfinite(vals[:, j])
            bars = ax.bar(
                x[ok] + (j - (n - 1) / 2) * width,
                vals[ok, j],
                width=width * 0.92,
                color=BAR_COLOURS[j % len(BAR_COLOURS)],
                hatch=hatches[j % len(hatches)] or None,
                edgecolor="white",
                linewidth=p.thin_pt * 0.5,
            )
            handles.append((bars, m.short or m.label))
        ax.set_xticks(x, names)
        ax.set_xlim(-0.5, len(results) - 0.5)
        counts = any(m.is_count for m in measures)
        top = np.nanmax(vals) if np.isfinite(vals).any() else 1.0
        ax.set_ylim(0, max(1.0, float(top)) * (1.0 if counts else 1.02))
        ax.set_ylabel("Mean over queries" if not counts else "Mean over queries (counts too)")
        if title:
            ax.set_title(title)
        turn_overlapping(fig, ax)
        if handles:
            place_legend(fig, ax, [h for h, _ in handles], [t for _, t in handles], p)
            turn_overlapping(fig, ax)
        freeze_layout(fig)
    return fig


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


def class_matrix(results: Sequence, key: str) -> tuple[list[str], np.ndarray]:
    """Classes (in the assessment's order) x runs: the class means of
    ``key`` (NaN where no query of the class defines it)."""
    classes = list(dict.fromkeys(c for r in results for c in r.per_class))
    m = np.full((len(classes), len(results)), np.nan)
    for j, r in enumerate(results):
        for i, c in enumerate(classes):
            v = r.per_class.get(c, {}).get(key)
            if v is not None:
                m[i, j] = v
    return classes, m


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
    from matplotlib import colormaps
    from matplotlib.colors import Normalize

    p = preset.checked()
    names, _ = names_looks(results, names, None, p)
    ranks = results[0].options.ranks if results else (5, 10, 25, 50, 100)
    measure = measure_by_key(key, ranks)
    classes, mat = class_matrix(results, key)
    classes = figure_names(classes, p)
    if not classes:
        raise OptionsError("the assessment has no query classes: there is no per-class heatmap")
    ok = np.isfinite(mat)
    lo, hi = (float(mat[ok].min()), float(mat[ok].max())) if ok.any() else (0.0, 1.0)
    if hi - lo < 1e-9:
        lo, hi = lo - 0.5, hi + 0.5
    cmap = colormaps["viridis"] if measure.higher_is_better else colormaps["viridis_r"]
    norm = Normalize(lo, hi)
    rgba = cmap(norm(np.where(ok, mat, lo)))
    rgba[~ok] = (*hex_colour(UNDEFINED_CELL), 1.0)
    line = p.font_pt * 1.5 / 72  # inches per class row
    with rc_context(p):
        # the rows, then the run names (turned), title and colour bar
        longest_run = max((text_width(n, p.font_pt) for n in names), default=0) / 72
        extra = 2.2 * line + min(longest_run, p.size_in[0] * 0.5) + (line if title else 0)
        height = max(p.size_in[1], len(classes) * line + extra)
        fig = new_figure(p, height_cm=height / CM)
        fig._shrec_matrix = mat  # classes x runs, as drawn
        ax = fig.add_subplot()
        ax.imshow(rgba, aspect="auto", interpolation="nearest")
        ax.set_yticks(np.arange(len(classes)), classes)
        ax.set_xticks(np.arange(len(results)), names)
        ax.tick_params(labelsize=p.font_pt, width=p.thin_pt, length=p.font_pt * 0.3)
        ax.xaxis.tick_top()
        for s in ax.spines.values():
            s.set_linewidth(p.thin_pt)
        from matplotlib.cm import ScalarMappable

        bar = fig.colorbar(
            ScalarMappable(norm=norm, cmap=cmap),
            ax=ax,
            location="bottom",
            fraction=0.05,
            aspect=30,
            pad=0.01,
        )
        # the label is centred under the bar, as wide as the cells
        longest_class = max(text_width(c, p.font_pt) for c in classes)
        room = p.size_in[0] * 72 - longest_class - 3 * p.font_pt
        bar.set_label(
            wrap_text(f"{measure.short or measure.key} ({measure.label}), class mean", room, p)
            + "\n"
            + wrap_text(fmt_range(lo, hi, measure.higher_is_better), room, p),
            fontsize=p.font_pt,
        )
        bar.ax.tick_params(labelsize=p.font_pt, width=p.thin_pt, length=p.font_pt * 0.3)
        bar.outline.set_linewidth(p.thin_pt)
        if title:
            ax.set_title(title, fontsize=p.font_pt)
        # turned names take height, not the cells' width; level ones where the
        # widest fits a cell (estimated: the axes span the width left by the
        # class names), checked once laid out
        cell_room = (p.size_in[0] * 72 - longest_class - 3 * p.font_pt) / max(len(results), 1)
        widest = max((text_width(n, p.font_pt) for n in names), default=0.0)
        turn_overlapping(fig, ax, (0, 90) if widest + p.font_pt <= cell_room else (90,))
        # the values in the cells where "0.00" fits the cell at the preset's size
        box = ax.get_window_extent(renderer_of(fig))
        cell_w = box.width / max(len(results), 1) / fig.dpi * 72  # points
        fits = text_width("0.00", p.font_pt) * 1.15 <= cell_w
        if cell_text if cell_text is not None else fits:
            for i in range(len(classes)):
                for j in range(len(results)):
                    if ok[i, j]:
                        ax.text(
                            j,
                            i,
                            f"{mat[i, j]:.2f}",
                            ha="center",
                            va="center",
                            fontsize=p.font_pt,
                            color=text_colour(rgba[i, j]),
                        )
        freeze_layout(fig)
    return fig


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
    formats = tuple(formats)
    curves = {"names": names, "looks": looks}
    jobs = [
        FigureJob("precision_recall", curve_figure, (runs, "pr", preset), curves, formats),
        FigureJob("ndcg", curve_figure, (runs, "ndcg", preset), curves, formats),
        FigureJob(
            "measure_bars",
            bars_figure,
            (runs, preset, [k for k in SHREC_BARS if k in runs[0].keys] or [rank_key]),
            {"names": names},
            formats,
            weight=2,  # names turned and laid out again till they fit
        ),
    ]
    # a profile without a curve has no figure of it
    jobs = [
        j for j in jobs if j.draw is not curve_figure or any(j.args[1] in r.curves for r in runs)
    ]
    if runs[0].per_class:
        jobs.append(
            FigureJob(
                "class_heatmap",
                heatmap_figure,
                (runs, rank_key, preset),
                {"names": names},
                formats,
                # a text per cell; its PNG the largest
                weight=2 + len(runs[0].per_class) * len(runs) / 50,
            )
        )
    return jobs
