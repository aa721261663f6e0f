"""The report's figures drawn from what they show: the curves, the SHREC
measure bars and the per-class heatmap of :mod:`.figures`, with the
measures and curves they name given as text (:class:`~.figure_data.FigureMeasure`,
:class:`~.figure_data.FigureAxes`), not looked up in the registry.  What a
drawing process of :mod:`.figure_jobs` imports to draw a report's figures:
matplotlib and these few modules, not the measures, the profiles and the
readers (a third of such a process's import).  :mod:`.figures` names the
measures and calls these."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import OptionsError
from .figure_data import FigureAxes, FigureMeasure
from .figure_style import (
    BAR_COLOURS,
    CM,
    UNDEFINED_CELL,
    FigurePreset,
    figure_names,
    fmt_range,
    freeze_layout,
    names_looks,
    new_figure,
    place_legend,
    rc_context,
    renderer_of,
    run_style,
    style_axes,
    text_width,
    turn_overlapping,
    wrap_text,
)
from .palette import RunLook, hex_colour, text_colour


def draw_curves(
    results: Sequence,
    curve: FigureAxes,
    preset: FigurePreset,
    *,
    names: Sequence[str] | None = None,
    looks: Sequence[RunLook] | None = None,
    title: str | None = None,
    query_class: str | None = None,
):
    """:func:`.figures.curve_figure` of ``curve``."""
    p = preset.checked()
    key = curve.key
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


def draw_bars(
    results: Sequence,
    preset: FigurePreset,
    keys: Sequence[str],
    measures: Sequence[FigureMeasure],
    *,
    names: Sequence[str] | None = None,
    title: str | None = None,
):
    """:func:`.figures.bars_figure` of ``keys`` (each run has them), which
    are ``measures``."""
    p = preset.checked()
    names, _ = names_looks(results, names, None, p)
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


def draw_heatmap(
    results: Sequence,
    key: str,
    measure: FigureMeasure,
    preset: FigurePreset,
    *,
    names: Sequence[str] | None = None,
    title: str | None = None,
    cell_text: bool | None = None,
):
    """:func:`.figures.heatmap_figure` of ``key``, which is ``measure``."""
    from matplotlib import colormaps
    from matplotlib.colors import Normalize

    p = preset.checked()
    names, _ = names_looks(results, names, None, p)
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
