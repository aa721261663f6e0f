"""The runs' looks (colour, marker and dash) shared by the app's plots and
the print figures, the grade colours of ranked results (gallery, figures,
the app's shape views), the report's figures (names and formats), and the
colours of text on a coloured cell (text_colour: black or white, whichever
contrasts more; contrast_ratio, hex_colour)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: colour-blind-safe palette (Okabe-Ito without its yellow and black, then Tol's
#: muted), readable on white and on dark
PALETTE = [
    "#0072B2",
    "#D55E00",
    "#009E73",
    "#CC79A7",
    "#E69F00",
    "#56B4E9",
    "#882255",
    "#117733",
    "#332288",
    "#999933",
    "#44AA99",
    "#AA4499",
    "#88CCEE",
    "#DDCC77",
    "#CC6677",
    "#661100",
    "#6699CC",
    "#888888",
]

#: the runs' markers (matplotlib's names; the app draws the same shapes)
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "*")
#: the runs' line styles (matplotlib's names), one more each time the colours start again
DASHES = ("solid", "dashed", "dotted", "dashdot")


#: markers along a curve, about
MARKS = 10


@dataclass(frozen=True)
class RunLook:
    """How a run is drawn: its colour (``#rrggbb``), marker and line style
    (matplotlib's names, see MARKERS and DASHES), and its place in the
    contest (where its markers sit along a curve, :meth:`marks`)."""

    colour: str
    marker: str
    dash: str
    place: int = 0

    def marks(self, n: int) -> tuple[int, int]:
        """(first, step): the points of a curve of ``n`` that carry the
        marker (matplotlib's ``markevery``): every k-th, about MARKS of
        them, from an offset that follows the run's place, so that the
        runs' markers do not pile up on the same points."""
        every = max(1, n // MARKS)
        return self.place % every, every


def run_look(position: int, colour: str | None = None) -> RunLook:
    """The look of the run at ``position`` (from 0) in its contest, in the
    app and in every figure: the colour cycles through PALETTE (18), the
    marker through MARKERS (10), and the line style changes each time the
    colours start again (solid for the first 18 runs, then dashed, dotted,
    dash-dotted).  No two of the first 72 runs share colour and line style,
    none of the first 90 colour and marker.  ``colour``: the run's own (a
    contest file's ``"colour"``) instead of the palette's."""
    n = len(PALETTE)
    return RunLook(
        colour or PALETTE[position % n],
        MARKERS[position % len(MARKERS)],
        DASHES[position // n % len(DASHES)],
        position,
    )


def run_looks(colours: Sequence[str | None]) -> list[RunLook]:
    """The looks of a contest's runs, in its order; ``colours``: each run's
    own colour, or None for the palette's (:func:`run_look`)."""
    return [run_look(i, c) for i, c in enumerate(colours)]


def result_looks(results, colours: Sequence[str | None] = ()) -> dict[str, RunLook]:
    """Run name -> the look of each result (RunResult), by its place among
    ``results`` (a contest's, in its order), in its run's own colour
    (``colours``: a contest's runs' ``colour``, as the app draws them; not
    used unless one per result: shapenet17 gives a result per dataset)."""
    own = list(colours) if len(colours) == len(results) else [None] * len(results)
    return dict(zip((r.run_name for r in results), run_looks(own)))


#: the report's figures (shrec_eval.outputs.figures draws them) and their formats;
#: here, so that the report's file list is known without importing matplotlib
REPORT_FIGURES = {
    "precision_recall": "precision-recall curves (mean over queries)",
    "ndcg": "NDCG vs rank (mean over queries)",
    "measure_bars": "the SHREC measure bars (NN, FT, ST, E, DCG) per run",
    "class_heatmap": "the ranking measure per class and run (with query classes)",
}
FIGURE_FORMATS = ("pdf", "svg", "png")

#: the frame of a result by grade: not relevant, relevant below the top grade,
#: top grade (the colours of the app's ranked-list strips)
GRADE_COLOURS = {0: (225, 225, 225), 1: (140, 200, 120), 2: (20, 110, 50)}


def grade_colour(grade: int, top_grade: int) -> tuple[int, int, int]:
    if grade <= 0:
        return GRADE_COLOURS[0]
    return GRADE_COLOURS[2] if grade >= max(top_grade, 1) else GRADE_COLOURS[1]


def grade_words(grade: int, top_grade: int) -> str:
    if grade <= 0:
        return "not relevant"
    if top_grade <= 1:
        return "relevant"
    if top_grade == 2:
        return "highly relevant" if grade >= 2 else "marginally relevant"
    return f"grade {grade}"


def _luminance(rgb) -> float:
    """WCAG 2 relative luminance of an sRGB colour (components 0..1)."""
    c = np.asarray(rgb, float)[:3]
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return float(lin @ np.array([0.2126, 0.7152, 0.0722]))


def contrast_ratio(a, b) -> float:
    """WCAG 2 contrast ratio of two sRGB colours (components 0..1)."""
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def text_colour(background) -> tuple[float, float, float]:
    """Black or white, whichever contrasts more with ``background`` (the
    better of the two is always at least 4.58:1)."""
    black, white = (0.0, 0.0, 0.0), (1.0, 1.0, 1.0)
    return (
        black if contrast_ratio(background, black) >= contrast_ratio(background, white) else white
    )


def hex_colour(colour: str) -> tuple[float, float, float]:
    h = colour.lstrip("#")
    r, g, b = (int(h[i : i + 2], 16) / 255 for i in (0, 2, 4))
    return r, g, b
