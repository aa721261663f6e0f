"""The LaTeX layout engine of the report's tables: text widths in Computer
Modern, escaping of participants' text for LaTeX, and tex_table, which picks
a font size, column breaks and turned headers so that a table fits a column
or the page."""

from __future__ import annotations

import math
from dataclasses import dataclass

from .. import __version__
from ..errors import shown

TOOL = "shrec-eval"

#: \columnwidth and \textwidth of \documentclass[twocolumn]{article} (the
#: narrowest of the usual: IEEE 252 / 516 pt, ACM and Eurographics 241 / 506 pt)
COLUMN_PT = 229.5
PAGE_PT = 469.0
TEXT_HEIGHT_PT = 550.0
#: (command, size, baseline) in pt, largest first, none under 7 pt, and how much
#: wider the small optical sizes are than cmr10 scaled (cmr8, cmr7: measured)
TEX_SIZES = ((r"\footnotesize", 8.0, 9.5, 1.07), (r"\scriptsize", 7.0, 8.0, 1.15))
TEX_DIGITS = 3  # printed tables: three decimals, as the SHREC track papers print them
#: the advance widths of Computer Modern (cmr10), in em, of the letters, digits
#: and signs a cell's width is estimated from (other fonts of papers are no wider
#: by more than the margin kept)
_CM = dict(
    zip(
        "abcdefghijklmnopqrstuvwxyz",
        (
            0.5,
            0.556,
            0.444,
            0.556,
            0.444,
            0.306,
            0.5,
            0.556,
            0.278,
            0.306,
            0.528,
            0.278,
            0.833,
            0.556,
            0.5,
            0.556,
            0.528,
            0.392,
            0.394,
            0.389,
            0.556,
            0.528,
            0.722,
            0.528,
            0.528,
            0.444,
        ),
    )
)
_CM.update(
    zip(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
        (
            0.75,
            0.708,
            0.722,
            0.764,
            0.681,
            0.653,
            0.785,
            0.75,
            0.361,
            0.514,
            0.778,
            0.625,
            0.917,
            0.75,
            0.778,
            0.681,
            0.778,
            0.736,
            0.556,
            0.722,
            0.75,
            0.75,
            1.028,
            0.75,
            0.75,
            0.611,
        ),
    )
)
_CM.update({c: 0.5 for c in "0123456789"})
_CM.update({".": 0.278, ",": 0.278, "-": 0.333, " ": 0.333, "(": 0.389, ")": 0.389})
_CM.update({"_": 0.5, "@": 0.778, "*": 0.5, "#": 0.833, "&": 0.778, "%": 0.833, "/": 0.5})


def tex_width(text: str, size: float, bold: bool = False) -> float:
    """Estimated width in pt of plain ``text`` (before escaping) at ``size``
    pt in Computer Modern (bold 15% wider; unknown characters as an M)."""
    em = sum(_CM.get(c, 0.917) for c in tex_plain(text))
    return em * size * (1.15 if bold else 1.0)


_TEX = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
}


#: characters beyond ASCII that pdflatex sets with LaTeX's default fonts
#: and no package (\documentclass{article}: OT1, and the UTF-8 input LaTeX
#: reads by default): Latin-1 and most of Latin Extended-A, dashes, quotes,
#: arrows (tests/test_outputs_hostile_names.py compiles every one)
_TEX_SET = (
    (0xA0, 0xAA), (0xAC, 0xBA), (0xBC, 0xCF), (0xD1, 0xDD), (0xDF, 0xEF), (0xF1, 0xFD),
    (0xFF, 0x103), (0x106, 0x10F), (0x112, 0x117), (0x11A, 0x125), (0x128, 0x12D),
    (0x130, 0x137), (0x139, 0x13E), (0x141, 0x148), (0x14C, 0x165), (0x168, 0x171),
    (0x174, 0x17E), (0x2010, 0x2016), (0x2018, 0x2019), (0x201C, 0x201D), (0x2020, 0x2022),
    (0x2026, 0x2026), (0x2030, 0x2031), (0x2190, 0x2193),
)  # fmt: skip
_TEX_CHARS = frozenset(chr(c) for a, b in _TEX_SET for c in range(a, b + 1))
#: Greek letters as math symbols (the capitals that look Latin as Latin letters)
_GREEK = dict(
    zip(
        "αβγδεζηθικλμνξοπρςστυφχψωΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩ",
        (
            r"\alpha \beta \gamma \delta \epsilon \zeta \eta \theta \iota \kappa \lambda \mu "
            r"\nu \xi o \pi \rho \varsigma \sigma \tau \upsilon \phi \chi \psi \omega "
            r"A B \Gamma \Delta E Z H \Theta I K \Lambda M N \Xi O \Pi P \Sigma T \Upsilon "
            r"\Phi X \Psi \Omega"
        ).split(),
    )
)


def tex_plain(text: str) -> str:
    """``text`` with every character pdflatex cannot set without packages
    written as ``[U+XXXX]`` (CJK, symbols such as a check mark, the U+FFFD
    of bytes that are not UTF-8, control characters); ASCII, the characters
    of :data:`_TEX_SET` and Greek letters (set as math symbols) are kept."""
    if text.isascii() and text.isprintable():
        return text
    text = shown(text)  # bytes that are not UTF-8: U+FFFD, as in every other table
    return "".join(
        c
        if (" " <= c <= "~") or c in _TEX_CHARS or c in _GREEK
        else " "
        if c in "\t\n\r"
        else f"[U+{ord(c):04X}]"
        for c in text
    )


def tex_escape(text: str) -> str:
    """Participants' text as LaTeX that pdflatex compiles with booktabs
    alone: LaTeX's special characters escaped, Greek letters as math
    symbols, what it cannot set as ``[U+XXXX]`` (:func:`tex_plain`)."""
    out = []
    for c in tex_plain(text):
        g = _GREEK.get(c)
        if g is None:
            out.append(_TEX.get(c, c))
        else:
            out.append(rf"\ensuremath{{{g}}}" if g.startswith("\\") else g)
    return "".join(out)


def _breakable(text: str) -> str:
    """Escaped text that may break after - _ . / (long run or class names
    in a narrow column)."""
    return "".join(
        tex_escape(c) + (r"\allowbreak{}" if c in "-_./" or tex_plain(c) != c else "") for c in text
    )


@dataclass
class TexCell:
    text: str  # plain text
    bold: bool = False


@dataclass
class TexTable:
    """A table to lay out: a text column (runs or classes) and numeric
    columns, each with its head; what a caption says."""

    first_head: str
    heads: list[str]
    rows: list[tuple[str, list[TexCell]]]
    caption: str
    label: str
    #: heads may be turned upright (run names over narrow numbers)
    turn_heads: bool = False


@dataclass
class _Layout:
    size: tuple[str, float, float]
    sep: float
    blocks: list[list[int]]  # numeric columns of each block
    turned: bool
    first_width: float | None  # a p{} column when the names are too long
    parts: list[list[int]]  # rows of each table (a long table continued)


def _layout(t: TexTable, width: float, height: float) -> _Layout:
    """The largest size, then the widest spacing, at which the table fits
    ``width``; column blocks stacked when no size fits; the rows split over
    continued tables when the result is taller than ``height``."""
    for size in TEX_SIZES:
        for turned in (False, True) if t.turn_heads else (False,):
            for sep in (4.0, 3.0, 2.0):
                lay = _try_layout(t, width, height, size, sep, turned)
                if lay is not None:
                    return lay
    size = TEX_SIZES[-1]
    return _try_layout(t, width, height, size, 2.0, t.turn_heads, split=True)


def _col_widths(t: TexTable, f: float, turned: bool) -> list[float]:
    out = []
    for j, head in enumerate(t.heads):
        w = max((tex_width(cells[j].text, f, cells[j].bold) for _, cells in t.rows), default=0)
        out.append(max(w, f * 1.2 if turned else tex_width(head, f)))
    return out


def _try_layout(t, width, height, size, sep, turned, split=False):
    _, pt, baseline, wider = size
    f = pt * wider
    cols = _col_widths(t, f, turned)
    names = max([tex_width(t.first_head, f)] + [tex_width(n, f) for n, _ in t.rows])
    first = None
    if names > 0.4 * width:  # long names wrap in a column of 40% of the width
        first, names = 0.4 * width, 0.4 * width
    # @{} at both ends: 2 sep between neighbouring columns
    room = width - names - 0.5  # half a point of rounding
    blocks: list[list[int]] = []
    block: list[int] = []
    used = 0.0
    for j, w in enumerate(cols):
        need = w + 2 * sep
        if block and used + need > room:
            if not split:
                return None
            blocks.append(block)
            block, used = [], 0.0
        block.append(j)
        used += need
    blocks.append(block)
    if not split and len(blocks) > 1:
        return None
    blocks = _balanced(cols, len(blocks), room, sep) or blocks
    head_h = max((tex_width(t.heads[j], f) for j in range(len(cols))), default=0) if turned else 0
    caption_lines = math.ceil(tex_width(t.caption, f) / width) + 1
    per_block = baseline * (1.6 + len(t.rows)) + head_h + 8  # rules and their space
    total = per_block * len(blocks) + caption_lines * baseline + 12
    parts = [list(range(len(t.rows)))]
    if total > height:
        if not split and size != TEX_SIZES[-1]:
            return None
        fixed = (baseline * 1.6 + head_h + 8) * len(blocks) + caption_lines * baseline + 12
        per_part = max(1, int((height - fixed) // (baseline * len(blocks))))
        per_part = math.ceil(len(t.rows) / math.ceil(len(t.rows) / per_part))  # even parts
        parts = [
            list(range(a, min(a + per_part, len(t.rows)))) for a in range(0, len(t.rows), per_part)
        ]
    return _Layout(size, sep, blocks, turned, first, parts)


def _balanced(cols: list[float], n: int, room: float, sep: float) -> list[list[int]] | None:
    """The columns in ``n`` contiguous blocks of about the same number of
    columns that each fit ``room`` (None when such blocks do not fit)."""
    bounds = [round(i * len(cols) / n) for i in range(n + 1)]
    blocks = [list(range(a, b)) for a, b in zip(bounds, bounds[1:])]
    if all(sum(cols[j] + 2 * sep for j in b) <= room for b in blocks):
        return blocks
    return None


def tex_table(t: TexTable, *, wide: bool, note: str = "") -> str:
    """The table as LaTeX (booktabs): a ``table`` float of one column, or
    with ``wide`` a ``table*`` of the page width."""
    width = PAGE_PT if wide else COLUMN_PT
    lay = _layout(t, width, TEXT_HEIGHT_PT)
    env = "table*" if wide else "table"
    cmd = lay.size[0]
    first_col = "l" if lay.first_width is None else rf"p{{{lay.first_width:.0f}pt}}"
    name = _breakable if lay.first_width is not None else tex_escape
    out = [
        r"% generated by "
        + f"{TOOL} {__version__}; needs \\usepackage{{booktabs}}; characters pdflatex "
        + "cannot set without packages are written [U+XXXX]"
        + (r" and \usepackage{graphicx} (turned heads)" if lay.turned else ""),
    ]
    if note:
        out.append("% " + tex_escape(note))
    for n, rows in enumerate(lay.parts):
        out += [
            rf"\begin{{{env}}}[tbp]",
            r"\centering",
            cmd,
            rf"\setlength{{\tabcolsep}}{{{lay.sep:g}pt}}",
        ]
        caption = t.caption if n == 0 else f"{t.caption.split('. ')[0]} (continued)."
        out.append(rf"\caption{{{tex_escape(caption)}}}")
        if n == 0:
            out.append(rf"\label{{{t.label}}}")
        for b, block in enumerate(lay.blocks):
            if b:
                out.append(r"\par\medskip")
            out.append(rf"\begin{{tabular}}{{@{{}}{first_col}{'r' * len(block)}@{{}}}}")
            out.append(r"\toprule")
            heads = [
                rf"\rotatebox{{90}}{{{tex_escape(t.heads[j])}}}"
                if lay.turned
                else tex_escape(t.heads[j])
                for j in block
            ]
            out.append(" & ".join([tex_escape(t.first_head)] + heads) + r" \\")
            out.append(r"\midrule")
            for i in rows:
                label, cells = t.rows[i]
                texts = []
                for j in block:
                    c = cells[j]
                    e = tex_escape(c.text)
                    texts.append(rf"\textbf{{{e}}}" if c.bold and c.text else e)
                prefix = r"\raggedright " if lay.first_width is not None else ""
                out.append(" & ".join([prefix + name(label)] + texts) + r" \\")
            out += [r"\bottomrule", r"\end{tabular}"]
        out.append(rf"\end{{{env}}}")
    return "\n".join(out) + "\n"
