"""Tables of a contest and their files: summary and per-query tables (from
the measure registry), JSON, CSV, Markdown, LaTeX and a self-contained HTML
page.  Text that came from participants' files (run names, ids) is escaped
for HTML and LaTeX, and CSV cells that a spreadsheet would run as a formula
are neutralised.  Every file is written atomically."""

from __future__ import annotations

import csv
import html
import io
import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import islice
from pathlib import Path

import numpy as np
import orjson

from .. import __version__
from ..errors import shown
from ..model.assessment import Assessment
from ..model.values import nullable, text_grid
from ..profiles import DEFAULT as DEFAULT_PROFILE
from ..profiles.base import HEADLINE
from ..scoring.engine import RunResult
from ..scoring.measures import ConcreteMeasure, measure_by_key
from .atomic import check_folder, write_folder, write_pieces
from .palette import FIGURE_FORMATS, PALETTE, REPORT_FIGURES

TOOL = "shrec-eval"
AVERAGE_TEXT = {
    "micro": "mean over queries (micro)",
    "macro": "mean over classes of the class means (macro)",
    "proportional": "mean over queries weighted by their relevant items (proportional)",
    "reciprocal": "mean over queries weighted by 1 / their relevant items (reciprocal)",
}


def _headline(keys: Sequence[str]) -> list[str]:
    """The headline measures among ``keys`` (a report's columns when none are given)."""
    return [k for k in HEADLINE if k in keys]


# -- values -------------------------------------------------------------------


def fmt(value: float | None, measure: ConcreteMeasure | None = None, digits: int = 4) -> str:
    value = nullable(value)
    if value is None:
        return ""
    if measure is not None and measure.is_count:
        return f"{value:.2f}".rstrip("0").rstrip(".")
    return f"{value:.{digits}f}"


@dataclass
class Summary:
    """Runs x measures, ranked by one measure (best first).  ``marks`` puts
    a significance marker after some values of one measure."""

    keys: list[str]
    measures: list[ConcreteMeasure]
    rank_key: str
    results: list[RunResult]
    marks: dict = None  # run name -> marker, on the column ``marks_key``
    marks_key: str | None = None
    legend: str = ""

    def cell(self, r: RunResult, key: str, m: ConcreteMeasure) -> str:
        t = fmt(r.mean(key), m)
        if t and self.marks and key == self.marks_key:
            t += self.marks.get(r.run_name, "")
        return t

    def mark_significance(self, comparison, test: str) -> None:
        """Mark, on the compared measure, every run that differs
        significantly from the best run (corrected p < alpha)."""
        best = comparison.ranking()[0].name
        self.marks_key = comparison.measure
        self.marks = {
            r.name: "*"
            for r in comparison.runs
            if r.name != best and comparison.significant(r.name, best, test)
        }
        from ..scoring.stats import CORRECTIONS, TESTS

        self.legend = (
            f"* {comparison.label}: significantly different from the best run "
            f"({best}), {TESTS[test]}, {CORRECTIONS[comparison.correction]} "
            f"correction over {len(comparison.pairs)} pairs, alpha = "
            f"{comparison.alpha}."
        )

    @classmethod
    def build(
        cls,
        results: Sequence[RunResult],
        keys: Sequence[str] | None = None,
        rank_key: str | None = None,
    ) -> Summary:
        if not results:
            raise ValueError("no run to summarise")
        ranks = results[0].options.ranks
        keys = list(keys or results[0].keys)
        measures = [measure_by_key(k, ranks) for k in keys]
        rank_key = rank_key or keys[0]
        m = measure_by_key(rank_key, ranks)
        sign = -1 if m.higher_is_better else 1

        def order(r: RunResult):
            v = r.mean(rank_key)
            return (v is None, sign * v if v is not None else 0.0)

        return cls(keys, measures, rank_key, sorted(results, key=order))

    def best(self, key: str) -> float | None:
        m = measure_by_key(key, self.results[0].options.ranks)
        vals = [v for v in (r.mean(key) for r in self.results) if v is not None]
        if not vals:
            return None
        return max(vals) if m.higher_is_better else min(vals)

    def is_best(self, result: RunResult, key: str) -> bool:
        v, b = result.mean(key), self.best(key)
        return v is not None and b is not None and abs(v - b) <= 1e-12 * max(1.0, abs(b))

    def how(self) -> str:
        """The profile and the average behind the means, for every table."""
        o = self.results[0].options
        return f"profile {o.profile}, {AVERAGE_TEXT[o.average]}"

    def text(self) -> str:
        """A plain-text table for a terminal."""
        head = ["Rank", "Run"] + [m.key for m in self.measures]
        rows = [
            [str(i), r.run_name] + [fmt(r.mean(k), m) for k, m in zip(self.keys, self.measures)]
            for i, r in enumerate(self.results, start=1)
        ]
        out = text_grid([head] + rows, rule=True)
        ranks = self.results[0].options.ranks
        shown_key = "" if self.rank_key in self.keys else ", not a column of this table"
        out.append(
            f"ranked by {self.rank_key} ({measure_by_key(self.rank_key, ranks).label}"
            f"{shown_key}); {self.how()}; empty = undefined for every query"
        )
        return "\n".join(out)


# -- JSON ---------------------------------------------------------------------------


def to_json(
    assessment: Assessment,
    results: Sequence[RunResult],
    *,
    assessment_path=None,
    run_paths: Sequence | None = None,
    curves: bool = True,
    assessment_reader: dict | None = None,
    run_readers: Sequence[dict] | None = None,
) -> dict:
    """The documented JSON document (README: "JSON output"), to be written
    with :func:`write_json`: per-query values are floats and curves numpy
    arrays, NaN where a value is undefined (written as null).  The reader
    settings (``AssessmentSource.to_dict`` without the path,
    ``RunSource.reader_dict``) go with the assessment and each run."""
    opts = results[0].options.to_dict() if results else {}
    runs = []
    for i, r in enumerate(results):
        rows = map(dict, map(partial(zip, r.keys), r.values.tolist()))  # C loops, no generator
        per_query = dict(zip(r.query_ids, rows))
        runs.append(
            {
                "name": r.run_name,
                "path": str(run_paths[i]) if run_paths else r.run_source,
                "format": r.run_format,
                **({"reader": run_readers[i]} if run_readers else {}),
                "mean": {k: nullable(v) for k, v in r.means.items()},
                "averages": r.averages,
                "per_class": r.per_class,
                "undefined": {k: r.n_undefined(k) for k in r.keys if r.n_undefined(k)},
                "per_query": per_query,
                "curves": {k: c.to_dict(r.query_ids) for k, c in r.curves.items()}
                if curves
                else {},
                "warnings": [w.to_dict() for w in r.warnings],
            }
        )
    return {
        "tool": {"name": TOOL, "version": __version__},
        "profile": results[0].profile if results else opts.get("profile", DEFAULT_PROFILE),
        "assessment": {
            "path": str(assessment_path) if assessment_path is not None else assessment.source,
            "kind": assessment.kind,
            "queries": assessment.n_queries,
            "collection_size": results[0].options.collection_size or assessment.collection_size
            if results
            else assessment.collection_size,
            "top_grade": assessment.top_grade,
            **({"reader": assessment_reader} if assessment_reader is not None else {}),
        },
        "options": opts,
        "runs": runs,
    }


def write_json(path, doc) -> None:
    """Write a JSON document atomically (orjson: numpy arrays converted
    whole, NaN and infinities written as null; compact: indentation doubled
    the size of a large contest's file and the time to write it), in pieces
    (:func:`json_pieces`) that the disk flushes while the next are made."""
    write_pieces(path, json_pieces(doc))


_JSON = orjson.OPT_SERIALIZE_NUMPY
#: entries of a large object (per-query values, per-query curves) per piece
_JSON_GROUP = 512
#: values above which a part of the document is written in pieces
_JSON_HEAVY = 1 << 16


def json_pieces(doc) -> Iterator[bytes]:
    """``orjson.dumps(doc)`` and a newline, byte for byte, in pieces: the
    objects holding more than :data:`_JSON_HEAVY` values (numpy arrays
    counted by size) are written a member, or :data:`_JSON_GROUP` members,
    at a time."""
    yield from _json_pieces(doc)
    yield b"\n"


def _json_pieces(value) -> Iterator[bytes]:
    if isinstance(value, dict) and value and _heavy(value):
        yield b"{"
        first = True
        for group in _member_groups(list(value.items())):
            comma = b"" if first else b","
            first = False
            if len(group) > 1 or not _heavy(group[0][1]):  # light members, as one object
                yield comma + _dumps(dict(group))[1:-1]
                continue
            k, v = group[0]
            if not isinstance(k, str):  # as orjson refuses it in a whole document
                raise TypeError(f"Dict key must be str, not {type(k).__name__}")
            yield comma + _dumps(k) + b":"
            yield from _json_pieces(v)
        yield b"}"
    elif isinstance(value, list) and value and _heavy(value):
        yield b"["
        for i, v in enumerate(value):
            if i:
                yield b","
            yield from _json_pieces(v)
        yield b"]"
    else:
        yield _dumps(value)


def _dumps(value) -> bytes:
    """``orjson.dumps``; text holding bytes that are not UTF-8 (a run or
    file name from an old archive, kept as surrogates) written with U+FFFD
    (orjson refuses surrogates)."""
    try:
        return orjson.dumps(value, option=_JSON)
    except orjson.JSONEncodeError:
        return orjson.dumps(_shown_text(value), option=_JSON)


def _shown_text(value):
    if isinstance(value, str):
        return shown(value)
    if isinstance(value, dict):
        return {shown(k) if isinstance(k, str) else k: _shown_text(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_shown_text(v) for v in value]
    return value


def _member_groups(items: list) -> Iterator[list]:
    """The members of a heavy object in the groups written as one piece: a
    larger object's (queries) :data:`_JSON_GROUP` or fewer at a time, as many
    as make about :data:`_JSON_HEAVY` values (weighed from a sample); a
    smaller object's (a run, the document) member by member, each heavy one
    alone (written in pieces) and the light ones between them together."""
    if len(items) > _JSON_WHOLE:
        sample = items[:_JSON_SAMPLE]
        member = _weight([v for _, v in sample]) / len(sample)
        step = max(1, min(_JSON_GROUP, int(_JSON_HEAVY // max(member, 1))))
        for at in range(0, len(items), step):
            yield items[at : at + step]
        return
    light: list = []
    for item in items:
        if _heavy(item[1]):
            if light:
                yield light
                light = []
            yield [item]
        else:
            light.append(item)
    if light:
        yield light


def _heavy(value) -> bool:
    """Whether ``value`` holds more than :data:`_JSON_HEAVY` values, as
    estimated from its members (the first :data:`_JSON_SAMPLE` of a larger
    object or list: the document's large parts, queries, are alike
    throughout; the estimate only decides where pieces end, never what they
    hold)."""
    return _weight(value) > _JSON_HEAVY


#: members of a larger object or list that its weight is estimated from;
#: smaller ones (a run, the document) are weighed member by member, so a
#: heavy member anywhere (a run's curves come after its reader settings) counts
_JSON_SAMPLE = 8
_JSON_WHOLE = 64


def _weight(value) -> float:
    if isinstance(value, np.ndarray):
        return value.size
    if isinstance(value, dict | list | tuple):
        if not value:
            return 1
        members = value.values() if isinstance(value, dict) else value
        if len(value) <= _JSON_WHOLE:
            return sum(_weight(v) for v in members)
        first = list(islice(members, _JSON_SAMPLE))
        return sum(_weight(v) for v in first) * len(value) / len(first)
    return 1


# -- CSV ----------------------------------------------------------------------------

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_text_cell(text: str) -> str:
    """A participant-supplied text cell that no spreadsheet will run as a
    formula (OWASP: prefix a quote)."""
    return "'" + text if text.startswith(FORMULA_START) else text


def _csv(rows: list[list]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerows(rows)
    return buf.getvalue()


def summary_csv(s: Summary) -> str:
    head = ["rank", "run"] + s.keys
    rows = [
        [i, csv_text_cell(r.run_name)] + [_csv_num(r.mean(k)) for k in s.keys]
        for i, r in enumerate(s.results, start=1)
    ]
    return _csv([head] + rows)


def per_query_csv(results: Sequence[RunResult]) -> str:
    keys = results[0].keys if results else []
    rows = [["run", "query"] + keys]
    for r in results:
        for q, row in zip(r.query_ids, r.values.tolist()):
            rows.append([csv_text_cell(r.run_name), csv_text_cell(q)] + [_csv_num(v) for v in row])
    return _csv(rows)


def _csv_num(v) -> str:
    v = nullable(v)
    return "" if v is None else repr(v)


# -- Markdown, LaTeX, HTML ---------------------------------------------------------------


#: what makes text Markdown: emphasis, code, links and images, tables,
#: strikethrough (a backslash before each; HTML's < > & as entities)
_MD_SPECIAL = re.compile(r"([\\`*_\[\]()|~!])")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def md_escape(t: str) -> str:
    """Participants' text (run names, class names, ids) as Markdown that
    renders as the text and nothing else: no link, image, code span,
    emphasis, HTML or table cell comes out of a name; control characters
    (a line break would end the table row) are spaces."""
    return _MD_SPECIAL.sub(r"\\\1", html.escape(_CONTROL.sub(" ", t)))


def summary_md(s: Summary, cut: Sequence[tuple[str, str]] = ()) -> str:
    """The summary and the per-class table in Markdown; ``cut``: (as drawn,
    whole) of the names the figures shorten, listed after the tables."""
    esc = md_escape

    head = "| Rank | Run | " + " | ".join(m.label for m in s.measures) + " |"
    sep = "|---:|---|" + "---:|" * len(s.measures)
    rows = []
    for i, r in enumerate(s.results, start=1):
        cells = []
        for k, m in zip(s.keys, s.measures):
            t = s.cell(r, k, m).replace("*", "\\*")
            cells.append(f"**{t}**" if t and s.is_best(r, k) else t)
        rows.append(f"| {i} | {esc(r.run_name)} | " + " | ".join(cells) + " |")
    ranks = s.results[0].options.ranks
    notes = [
        "",
        # the tool's own words (measure labels, the profile) as they are
        f"Ranked by {measure_by_key(s.rank_key, ranks).label}; {s.how()}; "
        "best value per measure in bold.",
    ] + ([esc(s.legend)] if s.legend else [])
    return "\n".join([head, sep] + rows + notes) + "\n" + per_class_md(s) + cut_names_md(cut)


# -- LaTeX tables that fit the page ---------------------------------------------------------
#
# The tables are laid out here, before LaTeX sees them: the width of every
# cell is estimated from the advance widths of Computer Modern (cmr10 / cmbx10,
# in em; other fonts of papers are no wider by more than the margin kept), and
# the font size, the space between columns and the number of column blocks
# are chosen so that the table fits (tests/test_report_tex.py compiles them
# with pdflatex and finds no overfull box).

#: \columnwidth and \textwidth of \documentclass[twocolumn]{article} (the
#: narrowest of the usual: IEEE 252 / 516 pt, ACM and Eurographics 241 / 506 pt)
COLUMN_PT = 229.5
PAGE_PT = 469.0
TEXT_HEIGHT_PT = 550.0
#: (command, size, baseline) in pt, largest first, none under 7 pt, and how much
#: wider the small optical sizes are than cmr10 scaled (cmr8, cmr7: measured)
TEX_SIZES = ((r"\footnotesize", 8.0, 9.5, 1.07), (r"\scriptsize", 7.0, 8.0, 1.15))
TEX_DIGITS = 3  # printed tables: three decimals, as the SHREC track papers print them
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
    blocks, block, used = [], [], 0.0
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


def _measure_key_text(measures) -> str:
    """What each short column head is: "NN: Nearest Neighbour; ..."."""
    return "; ".join(
        f"{m.short}: {m.label}" if m.short != m.label else m.short for m in measures if m.short
    )


def summary_table(s: Summary) -> TexTable:
    ranks = s.results[0].options.ranks
    rank = measure_by_key(s.rank_key, ranks)
    rows = []
    for r in s.results:
        cells = []
        for k, m in zip(s.keys, s.measures):
            t = fmt(r.mean(k), m, TEX_DIGITS)
            if t and s.marks and k == s.marks_key:
                t += s.marks.get(r.run_name, "")
            cells.append(TexCell(t, bool(t) and s.is_best(r, k)))
        rows.append((r.run_name, cells))
    caption = (
        f"Runs ranked by {rank.short or rank.key} (best first); best value per column in bold; "
        f"{s.how()}. {_measure_key_text(s.measures)}." + (f" {s.legend}" if s.legend else "")
    )
    return TexTable("Run", [m.short or m.key for m in s.measures], rows, caption, "tab:summary")


def summary_tex(s: Summary, *, wide: bool = False) -> str:
    """The summary (runs in ranking order x the table's measures, best per
    column bold) as a booktabs table that fits one column of a two-column
    paper, or with ``wide`` the page width."""
    t = summary_table(s)
    if wide:
        t.label = "tab:summary-wide"
    return tex_table(t, wide=wide, note=s.how())


def per_class_tex(s: Summary, *, wide: bool = False) -> str | None:
    """Classes (rows) x runs (ranking order) of the ranking measure, the
    best run per class bold; None without classes."""
    if not s.results[0].per_class:
        return None
    ranks = s.results[0].options.ranks
    m = measure_by_key(s.rank_key, ranks)
    names = list(dict.fromkeys(c for r in s.results for c in r.per_class))
    sign = 1 if m.higher_is_better else -1
    rows = []
    counts = set()
    for c in names:
        vals = [r.per_class.get(c, {}).get(s.rank_key) for r in s.results]
        ok = [sign * v for v in vals if v is not None]
        best = max(ok) if ok else None
        n = max(r.per_class.get(c, {}).get("queries", 0) for r in s.results)
        counts.add(n)
        cells = [TexCell(str(n))] + [
            TexCell(fmt(v, m, TEX_DIGITS), v is not None and abs(sign * v - best) <= 1e-12)
            for v in vals
        ]
        rows.append((c, cells))
    heads = ["Q"] + [r.run_name for r in s.results]
    queries = "Q: queries of the class"
    if len(counts) == 1:  # every class as many queries: said once, no column
        rows = [(c, cells[1:]) for c, cells in rows]
        heads = heads[1:]
        n = counts.pop()
        queries = f"{n} quer{'y' if n == 1 else 'ies'} per class"
    caption = (
        f"{m.short or m.key} ({m.label}) per class: the mean over the queries of each class, "
        f"runs in ranking order, the best run of each class in bold; {queries}; "
        f"profile {s.results[0].profile}."
    )
    t = TexTable(
        "Class",
        heads,
        rows,
        caption,
        "tab:per-class-wide" if wide else "tab:per-class",
        turn_heads=True,
    )
    return tex_table(t, wide=wide, note=s.how())


_CSS = """body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0}th,td{padding:.3em .7em;border-bottom:1px solid #ddd}
th{background:#f3f3f3;text-align:center}td.num{text-align:right;font-variant-numeric:tabular-nums}
td.best{font-weight:bold;background:#e6f4e6}caption{text-align:left;color:#555;margin-bottom:.4em}
.warn{color:#8a5a00}"""


def class_table(s: Summary) -> tuple[list[str], list[list[str]]] | None:
    """Classes x runs for the ranking measure (the class means, with the
    number of queries of the class); None without classes."""
    if not s.results[0].per_class:
        return None
    m = measure_by_key(s.rank_key, s.results[0].options.ranks)
    names = list(dict.fromkeys(c for r in s.results for c in r.per_class))
    head = ["Class", "Queries"] + [r.run_name for r in s.results]
    rows = []
    for c in names:
        n = max(r.per_class.get(c, {}).get("queries", 0) for r in s.results)
        rows.append(
            [c, str(n)] + [fmt(r.per_class.get(c, {}).get(s.rank_key), m) for r in s.results]
        )
    return head, rows


def per_class_md(s: Summary) -> str:
    table = class_table(s)
    if table is None:
        return ""
    head, rows = table
    m = measure_by_key(s.rank_key, s.results[0].options.ranks)
    lines = [
        "",
        f"Per class: {m.label} (class means; profile {s.results[0].profile})",
        "",
        "| " + " | ".join(md_escape(h) for h in head) + " |",
        "|---|---:|" + "---:|" * (len(head) - 2),
    ]
    lines += ["| " + " | ".join(md_escape(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def cut_names_md(cut: Sequence[tuple[str, str]]) -> str:
    """The names the figures draw shortened, each with its whole name."""
    if not cut:
        return ""
    lines = ["", "Names shortened in the figures", "", "| In the figures | Name |", "|---|---|"]
    lines += [f"| {md_escape(a)} | {md_escape(b)} |" for a, b in cut]
    return "\n".join(lines) + "\n"


def _cut_names_html(cut: Sequence[tuple[str, str]]) -> str:
    if not cut:
        return ""
    e = html.escape
    body = "".join(f"<tr><td>{e(a)}</td><td>{e(b)}</td></tr>" for a, b in cut)
    return (
        "<h2>Names shortened in the figures</h2>\n<table><thead><tr><th>In the figures</th>"
        f"<th>Name</th></tr></thead>\n<tbody>{body}</tbody></table>"
    )


def _per_class_html(s: Summary) -> str:
    table = class_table(s)
    if table is None:
        return ""
    e = html.escape
    head, rows = table
    m = measure_by_key(s.rank_key, s.results[0].options.ranks)
    th = "".join(f"<th>{e(h)}</th>" for h in head)
    body = "".join(
        f"<tr><td>{e(r[0])}</td>" + "".join(f'<td class="num">{e(c)}</td>' for c in r[1:]) + "</tr>"
        for r in rows
    )
    return (
        f"<h2>Per class: {e(m.label)}</h2>\n<table><caption>Mean over the queries of each "
        f"class (profile {e(s.results[0].profile)}).</caption>\n<thead><tr>{th}</tr></thead>\n"
        f"<tbody>{body}</tbody></table>"
    )


def per_class_csv(results: Sequence[RunResult]) -> str:
    """run, class, queries and every measure's class mean."""
    keys = results[0].keys if results else []
    rows = [["run", "class", "queries"] + keys]
    for r in results:
        for c, row in r.per_class.items():
            rows.append(
                [csv_text_cell(r.run_name), csv_text_cell(c), row["queries"]]
                + [_csv_num(row[k]) for k in keys]
            )
    return _csv(rows)


def source_names(assessment: Assessment) -> str:
    """The assessment's files by name ("queries.cla + target.cla"): a report
    is shared, and the organiser's folders are nobody's business."""
    return " + ".join(Path(p).name or p for p in str(assessment.source).split(" + "))


def summary_html(
    s: Summary,
    assessment: Assessment,
    *,
    title: str = "Contest results",
    cut: Sequence[tuple[str, str]] = (),
) -> str:
    e = html.escape
    head = "".join(f'<th title="{e(m.definition)}">{e(m.label)}</th>' for m in s.measures)
    body = []
    for i, r in enumerate(s.results, start=1):
        cells = []
        for k, m in zip(s.keys, s.measures):
            t = s.cell(r, k, m)
            best = t and s.is_best(r, k)
            cells.append(f'<td class="num{" best" if best else ""}">{e(t)}</td>')
        body.append(f'<tr><td class="num">{i}</td><td>{e(r.run_name)}</td>{"".join(cells)}</tr>')
    pq_head = "".join(f"<th>{e(r.run_name)}</th>" for r in s.results)
    pq_rows = []
    cols = [r.column(s.rank_key) for r in s.results]
    m = measure_by_key(s.rank_key, s.results[0].options.ranks)
    # runs scored on different query sets (shapenet17 datasets) have no common rows
    shared = all(r.query_ids == s.results[0].query_ids for r in s.results)
    for qi, q in enumerate(s.results[0].query_ids if shared else ()):
        vals = [c[qi] for c in cols]
        ok = [v for v in vals if not math.isnan(v)]
        best = (max(ok) if m.higher_is_better else min(ok)) if ok else None
        tds = "".join(
            f'<td class="num{" best" if best is not None and v == best else ""}">'
            f"{e(fmt(v, m))}</td>"
            for v in vals
        )
        pq_rows.append(f"<tr><td>{e(q)}</td>{tds}</tr>")
    warn = []
    for r in s.results:
        for w in r.warnings:
            warn.append(
                f"<li><b>{e(r.run_name)}</b>: {e(w.message)}: {w.count}"
                + (f" (e.g. {e(', '.join(w.examples))})" if w.examples else "")
                + "</li>"
            )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{e(title)}</title>
<style>{_CSS}</style></head><body>
<h1>{e(title)}</h1>
<p>Assessment: {e(source_names(assessment))} ({e(assessment.kind)}, {assessment.n_queries} queries,
collection of {assessment.collection_size}). Generated by {TOOL} {e(__version__)}.</p>
<table><caption>{e(s.how().capitalize())}, ranked by {e(m.label)};
best value per measure highlighted; empty = undefined for every query.
{("<br>" + e(s.legend)) if s.legend else ""}</caption>
<thead><tr><th>Rank</th><th>Run</th>{head}</tr></thead>
<tbody>{"".join(body)}</tbody></table>
{_per_class_html(s)}
<h2>Per query: {e(m.label)}</h2>
<table><caption>Best run per query highlighted.</caption>
<thead><tr><th>Query</th>{pq_head}</tr></thead>
<tbody>{"".join(pq_rows)}</tbody></table>
<h2>Data checks</h2>
<ul class="warn">{"".join(warn) or "<li>none</li>"}</ul>
{_cut_names_html(cut)}
</body></html>
"""


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
    colours: dict[str, str] | None = None,
    extra: dict | None = None,
) -> list[Path]:
    """summary.csv, per_query.csv, summary.md, summary.tex, summary-wide.tex,
    index.html (with classes per_class.csv, per_class.tex, per_class-wide.tex)
    and the figures under figures/ (shrec_eval.outputs.figures, at ``figure_preset``:
    a FigurePreset or a preset name, default the column); with a
    ``comparison``, its significance markers and their legend.  ``colours``:
    run name -> colour of its curves (the app's); ``extra``: more files of
    the folder (the gallery of the shapes: gallery.html, thumbs/)."""
    cut = figure_cut_names(results, figure_preset) if figures else ()
    files = report_files(
        assessment,
        results,
        keys=keys,
        rank_key=rank_key,
        comparison=comparison,
        test=test,
        cut_names=cut,
    )
    files.update(extra or {})
    if figures:
        check_folder(folder, set(files) | set(REPORT_FILES))  # refused before drawing
        rank_key = rank_key or (list(keys or _headline(results[0].keys)) or results[0].keys)[0]
        files.update(
            report_figure_files(results, rank_key=rank_key, preset=figure_preset, colours=colours)
        )
    return write_folder(folder, files, replaces=REPORT_FILES)


def _preset(preset):
    from . import figures

    if preset is None:
        return figures.PRESETS["column"]
    return figures.preset_by_name(preset) if isinstance(preset, str) else preset


def figure_cut_names(results: Sequence[RunResult], preset=None) -> list[tuple[str, str]]:
    """(as drawn, whole name) of every run and class name that the figures
    at ``preset`` draw shortened (shrec_eval.outputs.figures.figure_names): the
    report's tables list them, so that no figure label is a riddle."""
    from . import figures

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
    colours: dict[str, str] | None = None,
) -> dict[str, bytes]:
    """``figures/NAME.FMT`` -> bytes: the report's figures, runs in the
    report's ranking (shrec_eval.outputs.figures; matplotlib is imported here only),
    each in its ``colours`` (by run name; by default the palette's colour of
    its place among ``results``, as the app colours a contest's runs)."""
    from . import figures

    preset = _preset(preset)
    if colours is None:  # each run the colour the app gives it: its place in the contest
        colours = {r.run_name: PALETTE[i % len(PALETTE)] for i, r in enumerate(results)}
    ranked = Summary.build(results, None, rank_key).results
    return figures.report_figures(
        ranked,
        preset,
        rank_key=rank_key or results[0].keys[0],
        colours=[(colours or {}).get(r.run_name) for r in ranked],
    )


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
    keys = list(keys or _headline(results[0].keys))
    if comparison is not None and comparison.measure not in keys:
        keys.append(comparison.measure)
    head = Summary.build(results, keys, rank_key)
    if comparison is not None:
        head.mark_significance(comparison, test or comparison.tests[0])
    classes = {}
    if results[0].per_class:
        classes = {
            "per_class.csv": per_class_csv(results),
            "per_class.tex": per_class_tex(head),
            "per_class-wide.tex": per_class_tex(head, wide=True),
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


#: every file a report or CSV folder may hold (an earlier one is replaced whole)
REPORT_FILES = (
    "summary.csv",
    "per_query.csv",
    "per_class.csv",
    "summary.md",
    "summary.tex",
    "summary-wide.tex",
    "per_class.tex",
    "per_class-wide.tex",
    "index.html",
    "gallery.html",  # with shapes (shrec_eval.outputs.gallery)
    "thumbs",
) + tuple(f"figures/{name}.{fmt}" for name in REPORT_FIGURES for fmt in FIGURE_FORMATS)


def write_csv_dir(folder, results: Sequence[RunResult], rank_key: str | None = None) -> list[Path]:
    files = {
        "summary.csv": summary_csv(Summary.build(results, None, rank_key)),
        "per_query.csv": per_query_csv(results),
    }
    return write_folder(folder, files, replaces=REPORT_FILES)
