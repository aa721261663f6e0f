"""The print figures' toolkit: the size presets (FigurePreset: column, page,
slide), matplotlib's settings for them, legends placed where they cover
least, run styles, names shortened to fit, and figure_bytes, which draws a
figure into PNG, SVG or PDF bytes without dates (the same bytes every run).
The colours of text on a cell are the palette's (text_colour).

For figures: new_figure, style_axes, rc_context, run_style, names_looks,
place_legend, turn_overlapping, wrap_text, text_width, renderer_of and
freeze_layout."""

from __future__ import annotations

import io
import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cache, lru_cache

import numpy as np

from ..errors import OptionsError, shown
from ..model.names import shortened
from .figure_fonts import subsets_from_base
from .figure_lookups import settings_kept
from .palette import FIGURE_FORMATS as FORMATS
from .palette import MARKERS, RunLook, run_looks  # noqa: F401 - MARKERS read from here

CM = 1 / 2.54  # inches
MIN_FONT_PT = 7.0
#: the measures of the SHREC track reports' bar charts
SHREC_BARS = ("nn", "ft_psb", "st_psb", "e_measure", "dcg_psb")
#: bar colours (one per measure; Okabe-Ito, readable in grey too with the hatches)
BAR_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#882255")
UNDEFINED_CELL = "#d9d9d9"  # a class where no query defines the measure


@dataclass(frozen=True)
class FigurePreset:
    """Size and text of a print figure: width and height in cm, every text
    item at ``font_pt`` points (never under 7), lines in points scaled with
    the text, PNG at ``dpi``."""

    name: str
    width_cm: float
    height_cm: float
    font_pt: float
    dpi: int = 300

    LIMITS = {"width_cm": (3.0, 100.0), "height_cm": (2.0, 100.0), "font_pt": (7.0, 48.0)}

    def checked(self) -> FigurePreset:
        """The preset with every number in its range (7 pt text at least)."""
        fix: dict = {}
        for key, (lo, hi) in self.LIMITS.items():
            v = float(getattr(self, key))
            if not math.isfinite(v):
                raise OptionsError(f"figure {key} must be a number, not {v}")
            fix[key] = min(max(v, lo), hi)
        return replace(self, dpi=int(min(max(int(self.dpi), 72), 1200)), **fix)

    @property
    def size_in(self) -> tuple[float, float]:
        return self.width_cm * CM, self.height_cm * CM

    @property
    def size_pt(self) -> tuple[float, float]:
        return self.width_cm * CM * 72, self.height_cm * CM * 72

    @property
    def line_pt(self) -> float:
        """Data lines: 1 pt at 8 pt text."""
        return self.font_pt / 8

    @property
    def thin_pt(self) -> float:
        """Axes, ticks and grid: 0.6 pt at 8 pt text."""
        return 0.6 * self.font_pt / 8


#: preset name -> preset (``custom`` is a starting point for one's own size)
PRESETS = {
    "column": FigurePreset("column", 8.5, 6.4, 8),
    "two-columns": FigurePreset("two-columns", 17.5, 8.0, 8),
    # PowerPoint / Keynote widescreen, 13.33 x 7.5 in
    "slide": FigurePreset("slide", 33.867, 19.05, 14),
    "custom": FigurePreset("custom", 12.0, 8.0, 9),
}
PRESET_TEXT = {
    "column": "one column of a two-column paper (8.5 cm, 8 pt)",
    "two-columns": "page width of a two-column paper (17.5 cm, 8 pt)",
    "slide": "a 16:9 slide (33.9 x 19.1 cm, 14 pt)",
    "custom": "custom size",
}


def preset_by_name(name: str) -> FigurePreset:
    try:
        return PRESETS[name]
    except KeyError:
        raise OptionsError(f"unknown figure preset {name!r}; known: {', '.join(PRESETS)}") from None


def _rc(p: FigurePreset) -> dict:
    """Settings applied while a figure is drawn and saved (matplotlib reads
    some of them, the fonts' embedding, only when saving)."""
    return {
        "font.family": "DejaVu Sans",
        "font.size": p.font_pt,
        "axes.titlesize": p.font_pt,
        "axes.labelsize": p.font_pt,
        "xtick.labelsize": p.font_pt,
        "ytick.labelsize": p.font_pt,
        "legend.fontsize": p.font_pt,
        "legend.title_fontsize": p.font_pt,
        "figure.titlesize": p.font_pt,
        "axes.linewidth": p.thin_pt,
        "xtick.major.width": p.thin_pt,
        "ytick.major.width": p.thin_pt,
        "xtick.minor.width": p.thin_pt * 0.8,
        "ytick.minor.width": p.thin_pt * 0.8,
        "xtick.major.size": p.font_pt * 0.4,
        "ytick.major.size": p.font_pt * 0.4,
        "grid.linewidth": p.thin_pt * 0.8,
        "lines.linewidth": p.line_pt,
        "patch.linewidth": p.thin_pt,
        "legend.frameon": False,
        "pdf.fonttype": 42,  # TrueType, embedded
        "ps.fonttype": 42,
        "svg.fonttype": "none",  # text stays text
        "svg.hashsalt": "shrec-eval",  # the same ids on every run
        "axes.unicode_minus": True,
        "mathtext.default": "regular",
        "text.usetex": False,
        # text is drawn as written: a run or class name "$\\x$" or "cost $5 or $10"
        # is a name, not TeX math (mathtext failed on one, dropped the $ of the other)
        "text.parse_math": False,
        # laid out by the figure's own engine, and by none once frozen (freeze_layout)
        "figure.autolayout": False,
        "figure.constrained_layout.use": False,
    }


def new_figure(p: FigurePreset, height_cm: float | None = None):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    w, h = p.size_in
    if height_cm is not None:
        h = height_cm * CM
    fig = Figure(figsize=(w, h), layout="constrained", dpi=p.dpi)
    FigureCanvasAgg(fig)  # measures the text; PDF and SVG are drawn by their own backends
    pad = p.font_pt / 72 * 0.35  # inches
    engine = fig.get_layout_engine()
    assert isinstance(engine, ConstrainedLayoutEngine)  # layout="constrained" above
    engine.set(w_pad=pad, h_pad=pad, wspace=0.02, hspace=0.02)
    fig._shrec_preset = p  # type: ignore[attr-defined]  # read by figure_bytes
    return fig


def style_axes(ax, p: FigurePreset) -> None:
    ax.tick_params(labelsize=p.font_pt, width=p.thin_pt, length=p.font_pt * 0.4)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.grid(True, color="#d0d0d0", linewidth=p.thin_pt * 0.8)
    ax.set_axisbelow(True)


#: times a figure grows (a quarter taller each) when its text leaves the axes no room
_GROW = 6


def _draw(fig) -> None:
    """Lay the figure out (constrained layout) and measure its text.  When
    the text leaves the axes no room (matplotlib's "constrained_layout not
    applied" warning), the figure is made a quarter taller and laid out
    again, a few times at most: a figure with its axes, never a warning."""
    import warnings

    for _ in range(_GROW):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _lay_out(fig)
        collapsed = False
        for w in caught:
            if "constrained_layout not applied" in str(w.message):
                collapsed = True
            else:  # not ours to hide
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        if not collapsed:
            return
        width, height = fig.get_size_inches()
        fig.set_size_inches(width, height * 1.25)


def _lay_out(fig) -> None:
    """What drawing the figure does before its artists are drawn: the axes'
    aspect and locators applied (a colour bar's place), then the layout
    engine run, which measures the text it needs.  Drawing the artists
    themselves (paths, the heatmap's image at the preset's dpi) was half
    of each of these passes, and each file draws them anyway."""
    get_artists = getattr(fig, "_get_draw_artists", None)
    if get_artists is None:  # another matplotlib: the whole drawing, as it lays out
        fig.draw_without_rendering()
        return
    get_artists(renderer_of(fig))
    try:
        fig.get_layout_engine().execute(fig)
    except ValueError:  # as Figure.draw: the layout given up, the figure kept
        pass


def freeze_layout(fig) -> None:
    """Lay the figure out a last time and keep that layout: the three
    formats are saved from it without laying it out again (no layout engine
    left: matplotlib's savefig draws a figure with one, even a placeholder,
    twice, the first time only to lay it out)."""
    _draw(fig)
    fig.set_layout_engine(None)


def renderer_of(fig):
    return fig.canvas.get_renderer()


def _covered(ax, legend) -> int:
    """How many drawn data points (points along every line, bar tops and
    sides) the legend's box covers, in display coordinates."""
    box = legend.get_window_extent(renderer_of(ax.figure))
    pts = []
    for line in ax.get_lines():
        xy = line.get_xydata()
        xy = xy[np.isfinite(xy).all(axis=1)]
        if len(xy) > 1:  # 20 points along each segment
            t = np.linspace(0, 1, 20)[:, None, None]
            xy = (xy[:-1][None] + t * (xy[1:] - xy[:-1])[None]).reshape(-1, 2)
        if len(xy):
            pts.append(ax.transData.transform(xy))
    for patch in ax.patches:
        b = patch.get_window_extent(renderer_of(ax.figure))
        ys = np.linspace(b.y0, b.y1, 10)
        for x in np.linspace(b.x0, b.x1, 5):
            pts.append(np.column_stack([np.full_like(ys, x), ys]))
    if not pts:
        return 0
    p = np.concatenate(pts)
    inside = (p[:, 0] >= box.x0) & (p[:, 0] <= box.x1) & (p[:, 1] >= box.y0) & (p[:, 1] <= box.y1)
    return int(inside.sum())


def place_legend(fig, ax, handles, labels, p: FigurePreset, title: str | None = None) -> str:
    """The legend inside the axes (matplotlib's emptiest place) when it
    covers no data there and takes at most a third of the axes; else below
    the axes, in as many columns as the width holds.  Returns where it went."""
    kw = dict(
        fontsize=p.font_pt,
        title=title,
        title_fontsize=p.font_pt,
        handlelength=2.2,
        borderaxespad=0.4,
        handletextpad=0.5,
        columnspacing=1.2,
        labelspacing=0.3,
    )
    leg = ax.legend(handles, labels, loc="best", frameon=True, framealpha=0.9, **kw)
    leg.get_frame().set_linewidth(p.thin_pt)
    leg.get_frame().set_edgecolor("#b0b0b0")
    _draw(fig)
    axbox = ax.get_window_extent(renderer_of(fig))
    lbox = leg.get_window_extent(renderer_of(fig))
    if _covered(ax, leg) == 0 and lbox.width * lbox.height <= axbox.width * axbox.height / 3:
        return "inside"
    leg.remove()
    # a column: handle, gap, label and spacing, in points
    widest = max((text_width(t, p.font_pt) for t in labels), default=0.0)
    column = widest + p.font_pt * (2.2 + 0.5 + 1.2)
    room = fig.get_figwidth() * 72 - 2 * p.font_pt
    ncol = max(1, min(len(labels), int(room // max(column, 1))))
    if ncol > 1:  # the same number of rows in fewer columns: fuller columns
        rows = math.ceil(len(labels) / ncol)
        ncol = math.ceil(len(labels) / rows)
    fig.legend(handles, labels, loc="outside lower center", ncols=ncol, **kw)
    return "below"


@lru_cache(maxsize=4096)
def text_width(text: str, size: float) -> float:
    """Width of ``text`` at ``size`` points, in points (before layout): the
    extent of its outline (matplotlib's ``TextPath(...).get_extents()``,
    :func:`_ink_width`), kept for the names measured again."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextPath

    if not text.strip():  # no outline to measure (matplotlib fails on an empty path)
        return 0.318 * size * len(text)  # DejaVu Sans's space
    return _ink_width(TextPath((0, 0), text, size=size, prop=FontProperties(family="DejaVu Sans")))


def _ink_width(path) -> float:
    """``path.get_extents().width``, the same number in a fraction of the
    time.  matplotlib's extents take every end of the outline's segments
    and, for each curve, the points where its tangent is level or upright,
    found in Python for every curve of every glyph (a few ms a name; most
    of a report's text measuring).  A curve lies in the hull of its
    control points: one whose control points all lie well inside the ends'
    horizontal range (by a millionth of it, far more than rounding) adds no
    point at either side of it and is passed over; the others are evaluated
    as matplotlib evaluates them.  The segments are walked as
    ``Path.iter_bezier`` walks them."""
    from matplotlib.bezier import BezierSegment
    from matplotlib.path import Path

    # the path as Path.iter_segments cleans it by default
    clean = path.cleaned(remove_nans=True, simplify=None, curves=True)
    v, codes = clean.vertices, clean.codes.tolist()
    size = Path.NUM_VERTICES_FOR_CODE
    ends: list[int] = []  # vertices that end a segment (points of the extents as they are)
    curves: dict[int, list[list[int]]] = {3: [], 4: []}  # control points of each curve
    first = prev = i = 0
    while i < len(codes):
        code = codes[i]
        if code == Path.STOP:
            break
        last = i + size[code] - 1
        if code == Path.MOVETO:
            first = i
            ends.append(i)
        elif code == Path.LINETO:
            ends += [prev, i]
        elif code == Path.CLOSEPOLY:
            ends += [prev, first]
        else:  # CURVE3, CURVE4
            curves[code].append([prev, *range(i, last + 1)])
            ends += [prev, last]
        prev, i = last, last + 1
    if not ends:
        return path.get_extents().width
    x = v[ends, 0]
    lo, hi = x.min(), x.max()
    margin = 1e-6 * max(hi - lo, abs(lo), abs(hi), 1e-300)
    for rows in curves.values():
        if not rows:
            continue
        points = v[np.asarray(rows)]  # curves x control points x 2
        px = points[:, :, 0]
        near = (px.min(axis=1) <= lo + margin) | (px.max(axis=1) >= hi - margin)
        for p in points[near]:
            curve = BezierSegment(p)
            _, roots = curve.axis_aligned_extrema()
            xs = curve([0, *roots, 1])[:, 0]
            lo, hi = min(lo, xs.min()), max(hi, xs.max())
    return float(hi - lo)


def run_style(look: RunLook) -> dict:
    """matplotlib's line settings for a run's look."""
    return {"color": look.colour, "marker": look.marker, "linestyle": look.dash}


def name_limit(preset: FigurePreset) -> int:
    """The most characters of a run or class name drawn in a figure of
    ``preset`` (a longer one is cut in the middle with an ellipsis,
    :func:`figure_names`): about 40% of the figure's width in DejaVu Sans
    at its text size, never under 12."""
    p = preset.checked()
    return max(12, int(0.4 * p.size_pt[0] / (0.6 * p.font_pt)))


def figure_names(names: Sequence[str], preset: FigurePreset) -> list[str]:
    """Names as a figure of ``preset`` draws them: bytes that are not UTF-8
    as U+FFFD, as printed; characters the font lacks as ``[U+XXXX]``;
    longer than :func:`name_limit` cut in the middle with an ellipsis
    (distinct names stay distinct; the report lists the whole names beside
    the cut ones)."""
    return shortened([_drawable(shown(n)) for n in names], name_limit(preset))


@cache
def _font():
    from matplotlib.font_manager import findfont, get_font

    return get_font(findfont("DejaVu Sans"))


def _drawable(text: str) -> str:
    """``text`` with the characters the figures' font has no glyph for (CJK,
    most symbols) written ``[U+XXXX]``, as the LaTeX tables write them:
    never an empty box, never matplotlib's "Glyph missing" warning."""
    if text.isascii():
        return text
    font = _font()
    return "".join(c if font.get_char_index(ord(c)) else f"[U+{ord(c):04X}]" for c in text)


def names_looks(results, names, looks, preset: FigurePreset):
    """The names as drawn, and each run's look (by default: by its place
    among ``results``, shrec_eval.outputs.palette.run_looks)."""
    names = figure_names(names if names is not None else [r.run_name for r in results], preset)
    looks = list(looks) if looks is not None else run_looks([None] * len(results))
    return names, looks


def turn_overlapping(fig, ax, angles=(0, 30, 90)) -> None:
    """Turn the x tick labels (run names) by 30 (45), then 90 degrees while
    any two neighbours overlap (labels on top of the axes turn upwards)."""
    top = ax.xaxis.get_ticks_position() == "top"
    for angle in angles:
        for t in ax.get_xticklabels():
            t.set_rotation(angle)
            t.set_ha("center" if angle in (0, 90) else ("left" if top else "right"))
            t.set_rotation_mode("default" if angle in (0, 90) else "anchor")
        _draw(fig)
        if not _overlapping(fig, ax.get_xticklabels()):
            return


def _overlapping(fig, texts) -> bool:
    """Whether neighbouring labels overlap: level ones by their boxes,
    turned ones (parallel lines of text) by the distance between their lines."""
    texts = [t for t in texts if t.get_text()]
    if len(texts) < 2:
        return False
    angle = texts[0].get_rotation() % 180
    if angle == 0:
        boxes = sorted((t.get_window_extent(renderer_of(fig)) for t in texts), key=lambda b: b.x0)
        return any(a.x1 > b.x0 - 1 for a, b in zip(boxes, boxes[1:]))
    pos = sorted(t.get_transform().transform(t.get_position())[0] for t in texts)
    step = min(b - a for a, b in zip(pos, pos[1:]))
    line = texts[0].get_fontsize() / 72 * fig.dpi * 1.15
    return step * math.sin(math.radians(angle)) < line


def wrap_text(text: str, width_pt: float, p: FigurePreset) -> str:
    """``text`` in lines no wider than ``width_pt`` at the preset's size
    (broken between words)."""
    lines: list[str] = []
    for word in text.split(" "):
        if lines and text_width(f"{lines[-1]} {word}", p.font_pt) <= width_pt:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return "\n".join(lines)


def fmt_range(lo: float, hi: float, higher_is_better: bool = True) -> str:
    """The colour bar's range: worst to best, dark to bright."""
    if higher_is_better:
        return f"from {lo:.3f} (dark) to {hi:.3f} (bright)"
    return f"from {hi:.3f} (dark) to {lo:.3f} (bright); lower is better"


#: one figure drawn or saved at a time in this process: matplotlib's settings
#: (rcParams) and font objects are shared by every thread, and the app draws
#: figures on worker threads (Export figure, Export report)
_DRAWING = threading.RLock()


class rc_context:
    """matplotlib.rc_context for this figure's settings (the fonts' size and
    embedding), its font lookups kept (:mod:`.figure_lookups`); held again
    while saving (see figure_bytes).  Holds the drawing lock while it lasts."""

    def __init__(self, p: FigurePreset) -> None:
        self._ctx = settings_kept(_rc(p))

    def __enter__(self):
        _DRAWING.acquire()
        try:
            return self._ctx.__enter__()
        except BaseException:
            _DRAWING.release()
            raise

    def __exit__(self, *exc):
        try:
            return self._ctx.__exit__(*exc)
        finally:
            _DRAWING.release()


def figure_bytes(fig, fmt: str, dpi: int | None = None) -> bytes:
    """The file content of a figure of this module in ``fmt`` (pdf, svg,
    png): PDF fonts embedded (Type 42, subset by :mod:`.figure_fonts`), SVG
    text as text, PNG at the preset's dpi (300 unless set).  No date in the
    files: the same figure gives the same bytes."""
    if fmt not in FORMATS:
        raise OptionsError(f"unknown figure format {fmt!r}; known: {', '.join(FORMATS)}")
    p = fig._shrec_preset
    buf = io.BytesIO()
    meta = {
        "pdf": {"Creator": "shrec-eval", "Producer": None, "CreationDate": None},
        "svg": {"Creator": "shrec-eval", "Date": None},
        "png": {"Software": "shrec-eval"},
    }[fmt]
    with rc_context(p), subsets_from_base(fmt == "pdf"):  # a PDF's fonts: figure_fonts
        fig.savefig(buf, format=fmt, dpi=dpi or p.dpi, metadata=meta, facecolor="white")
    return buf.getvalue()
