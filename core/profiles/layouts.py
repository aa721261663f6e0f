"""The native table writers an evaluator file chooses by name (docs/evaluators.md):
a small set of layouts, each the shape of a table an official program
writes, filled from a run's results.  They are derived from what the
programs reproduced write: psbTable's rows of averages, its class and model
tables (``summary``, ``classes``, ``queries``), the SHREC toolkits' per-query
table with its means and their precision-recall file (``queries``,
``curve``), and SHREC 2021's table of runs in text and LaTeX, one per average
or per class (``runs``).

A layout is data (:class:`Layout`): its file, its columns, text templates
(``header``, ``row``, ``footer``) whose fields (``{values}``, ``{run}``,
``{class_path:<50}``: a Python format spec may follow a field's name) are
filled here, the printf format of a value, and how the means are added
(``sum``): the project's averages (``engine``), in float32 in query order as a
C program's ``float sum`` does (``float32``), or in double in query order as
a script's running sum does (``running``).  Any other text between braces
(LaTeX's ``\\begin{table}``) is written as it is.

The names of files made from the data (a class's table ``table_*.txt``) are
given as a pattern and the name; :mod:`shrec_eval.outputs.native` makes them
safe file names, never a layout.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import NativeError

__all__ = ["LAYOUTS", "FIELDS", "Layout", "NativeTables", "fill"]

F32 = np.float32

#: layout name -> what it writes (docs, ``profiles check``)
LAYOUTS = {
    "queries": "one row per query (its values), with an optional header and footer of means",
    "classes": "one row per query class (its means)",
    "summary": "one row of a run's averages ({micro}, {macro})",
    "curve": "one row per point of a curve: {x} and the curve's micro average {y}",
    "runs": "one row per run (the contest's runs in one table), for the average asked for "
    '(--average) or, with per = "class", one table per query class',
}
#: the fields of each layout's templates
FIELDS = {
    "queries": ("n", "query", "class", "class_path", "values", "headings", "micro", "macro"),
    "classes": ("class", "class_path", "values", "headings", "micro", "macro"),
    "summary": ("values", "headings", "micro", "macro"),
    "curve": ("x", "y", "headings"),
    "runs": ("run", "values", "headings", "class"),
}
#: how the means of a layout are added
SUMS = ("engine", "float32", "running")
#: how a runs table names a run: its name, or the script's METHOD (RUN) of a
#: file named METHOD.RUN.EXT
RUN_NAMES = ("name", "method (run)")
RUN_ORDERS = ("given", "method, file")
#: the order of the query classes: first met among the queries, or as the query
#: classification file lists them
CLASS_ORDERS = ("first", "file")

_FIELD = re.compile(r"\{([a-z_]+)(?::([^{}]*))?\}")
#: what comes before an argument of a LaTeX command: the command or its previous argument
_LATEX_ARGUMENT = re.compile(r"(\\[A-Za-z]+\*?|[}\]])$")


def misspelt_fields(template: str, layout: str) -> list[str]:
    """What is wrong with the fields of ``template`` for ``layout``: each
    ``{name}`` that is no field of the layout yet looks like one (a field of
    another layout, or within a letter or two of one), which :func:`fill`
    would write as it is.  Other text between braces, and any argument of
    a LaTeX command (``\\begin{table}{lrr}``, ``\\textbf{x}``), is not a
    field and passes."""
    own = FIELDS[layout]
    every = sorted({f for fields in FIELDS.values() for f in fields})
    out = []
    for match in _FIELD.finditer(template):
        name = match.group(1)
        if name in own or _LATEX_ARGUMENT.search(template, 0, match.start()):
            continue
        near = difflib.get_close_matches(name, own, n=1, cutoff=0.75)
        if name in every or near:
            out.append(
                f"{match.group(0)} is not a field of the {layout} layout, so it would be "
                f"written as it is"
                + (f"; did you mean {{{near[0]}}}?" if near else "")
                + f" (its fields: {', '.join('{' + f + '}' for f in own)})"
            )
    return out


def fill(template: str, known: Sequence[str], values: Mapping[str, object]) -> str:
    """``template`` with its fields of ``known`` names filled from ``values``
    (``{name}`` or ``{name:spec}``, a Python format spec); any other text
    between braces as it is."""

    def one(match: re.Match) -> str:
        name, spec = match.group(1), match.group(2)
        if name not in known:
            return match.group(0)
        value = values.get(name, "")
        return format(value, spec) if spec else str(value)

    return _FIELD.sub(one, template)


@dataclass(frozen=True)
class Layout:
    """One native file: its layout (:data:`LAYOUTS`) and how it is written."""

    layout: str
    file: str
    columns: tuple[str, ...] = ()
    headings: tuple[str, ...] = ()
    header: str = ""
    row: str = "{values}\n"
    footer: str = ""
    #: printf format of one value, what separates two, and how NaN is written
    #: (None: as printf writes it, ``nan`` in the value's width)
    value: str = "%.4f"
    sep: str = " "
    nan: str | None = None
    sum: str = "engine"
    #: the queries averaged: every one, or those the profile averages
    queries: str = "all"
    #: rows of the queries table: every query, or those whose values are all defined
    rows: str = "all"
    classes: str = "first"
    #: a class's full name in the class file (``parent/child``) with "/" as
    class_sep: str = "/"
    curve: str = "pr"
    #: runs tables: one per average (``--average``) or one per query class
    per: str = "average"
    #: a runs table refuses queries whose first column is undefined (no
    #: relevant target: the script divides by zero there)
    refuse_undefined: bool = False


@dataclass(frozen=True)
class NativeTables:
    """A profile's native writer made of layouts (and named hooks that are
    code): ``(results of one group, assessment) -> {file: text}``, a file
    made from the data as ``(pattern, name)``."""

    layouts: tuple = ()
    #: the evaluator's program, as messages name it (experiments.py)
    program: str = ""
    profile: str = ""
    #: --average -> the program's name of that average (all, avg_class): the
    #: averages its runs tables have; empty: every average
    averages: Mapping[str, str] = field(default_factory=dict)
    run_name: str = "name"
    run_order: str = "given"

    @property
    def files(self) -> tuple[str, ...]:
        out: list[str] = []
        for entry in self.layouts:
            out += [entry.file] if isinstance(entry, Layout) else list(entry.files)
        return tuple(out)

    def __call__(self, results: list, assessment) -> dict:
        out: dict = {}
        for entry in self.layouts:
            if isinstance(entry, Layout):
                out.update(_write(self, entry, results, assessment))
            else:  # a named hook (code): its own files
                out.update(entry(results, assessment))
        return out


# -- the values ---------------------------------------------------------------------------------


def _f32_sum(values: np.ndarray) -> np.float32:
    """A float32 sum in order, as a C loop ``sum += x`` does it."""
    return np.cumsum(values.astype(F32), dtype=F32)[-1] if values.size else F32(0.0)


def _mean(values: np.ndarray, how: str) -> float | np.float32:
    """The mean of ``values`` in their order: float32 (the C programs') or a
    running double sum (the scripts')."""
    if how == "float32":
        with np.errstate(invalid="ignore", divide="ignore"):
            return F32(_f32_sum(values) / F32(values.size))
    total = 0.0
    for v in values:
        total = total + float(v)
    return total / len(values)


def _text(layout: Layout, values) -> str:
    parts = []
    for v in values:
        v = float("nan") if v is None else float(v)
        parts.append(layout.nan if (v != v and layout.nan is not None) else layout.value % v)
    return layout.sep.join(parts)


def _cols(layout: Layout, result) -> np.ndarray:
    cols = np.stack([result.column(k) for k in layout.columns], axis=1)
    return cols.astype(F32) if layout.sum == "float32" else cols


def _selected(layout: Layout, result) -> np.ndarray:
    if layout.queries == "included":
        return np.asarray(result.included, dtype=bool)
    return np.ones(len(result.query_ids), dtype=bool)


def _no_classes(tables: NativeTables, layout: Layout) -> NativeError:
    return NativeError(
        f"the {tables.profile} profile's {layout.file} needs the query classes of a .cla assessment"
    )


def _class_rows(tables: NativeTables, layout: Layout, result, assessment, chosen) -> list:
    """(class name, the places of its queries) in the layout's class order:
    first met among the ``chosen`` queries (their places in query order), or
    as the query classification file lists them (its order of models)."""
    if layout.classes == "file":
        cla = getattr(assessment, "query_classification", None)
        if cla is None:
            raise _no_classes(tables, layout)
        out = []
        for c in cla.classes:
            rows = [assessment.query_index(m) for m in c.models]
            if not rows:
                raise NativeError(
                    f"class {c.name!r} of {cla.path} has no query: "
                    f"{tables.program or 'the program'} divides by zero there (its macro "
                    "average and the class's table)"
                )
            out.append((c.name, rows))
        return out
    if result.query_classes is None:
        raise _no_classes(tables, layout)
    classes = np.asarray(result.query_classes, dtype=object)
    return [
        (name, np.flatnonzero(chosen & (classes == name)))
        for name in dict.fromkeys(classes[chosen].tolist())
    ]


def _averages(tables, layout: Layout, result, assessment) -> dict[str, list]:
    """{micro} and {macro}: the run's averages of the layout's columns, added
    as the layout says."""
    if layout.sum == "engine":
        out = {}
        for kind in ("micro", "macro"):
            avg = result.averages.get(kind) or {}
            out[kind] = [avg.get(result.key_of(k)) for k in layout.columns]
        return out
    cols = _cols(layout, result)
    chosen = _selected(layout, result)
    micro = [_mean(cols[chosen, j], layout.sum) for j in range(cols.shape[1])]
    if result.query_classes is None and getattr(assessment, "query_classification", None) is None:
        return {"micro": micro, "macro": [float("nan")] * cols.shape[1]}
    means = [
        [_mean(cols[np.asarray(rows, dtype=np.int64), j], layout.sum) for j in range(cols.shape[1])]
        for _, rows in _class_rows(tables, layout, result, assessment, chosen)
    ]
    if layout.sum == "float32":
        cm = np.array(means, dtype=F32).reshape(-1, cols.shape[1])
        macro = [_mean(cm[:, j], "float32") for j in range(cols.shape[1])]
    else:
        macro = [_mean(np.array([m[j] for m in means]), "running") for j in range(cols.shape[1])]
    return {"micro": micro, "macro": macro}


def _common(tables, layout: Layout, result, assessment, what: str) -> dict:
    """The fields every template of a layout may use."""
    values = {"headings": layout.sep.join(layout.headings)}
    if what in ("queries", "classes", "summary") and _uses_averages(layout):
        for kind, vals in _averages(tables, layout, result, assessment).items():
            values[kind] = _text(layout, vals)
    return values


def _uses_averages(layout: Layout) -> bool:
    text = layout.header + layout.row + layout.footer
    return "{micro" in text or "{macro" in text


def _class_path(layout: Layout, assessment, name: str) -> str:
    cla = getattr(assessment, "classification", None)
    path = cla.class_path(name) if cla is not None else name
    return path.replace("/", layout.class_sep)


# -- the layouts --------------------------------------------------------------------------------


def _write(tables: NativeTables, layout: Layout, results, assessment) -> dict:
    if layout.layout == "runs":
        return _runs(tables, layout, results, assessment)
    result = results[0]
    known = FIELDS[layout.layout]
    with np.errstate(invalid="ignore", divide="ignore"):
        common = _common(tables, layout, result, assessment, layout.layout)
        body = globals()["_" + layout.layout](tables, layout, result, assessment, common)
    text = fill(layout.header, known, common) + body + fill(layout.footer, known, common)
    return {layout.file: text}


def _queries(tables, layout: Layout, result, assessment, common) -> str:
    cols = _cols(layout, result)
    needs_class = "{class" in layout.row
    if needs_class and result.query_classes is None:
        raise _no_classes(tables, layout)
    lines = []
    defined = ~np.isnan(cols).any(axis=1) if cols.size else np.ones(0, dtype=bool)
    for q in range(cols.shape[0]):
        if layout.rows == "defined" and not defined[q]:
            continue
        fields = dict(common, n=q + 1, query=assessment.query_ids[q], values=_text(layout, cols[q]))
        if needs_class:
            name = result.query_classes[q]
            fields.update({"class": name, "class_path": _class_path(layout, assessment, name)})
        lines.append(fill(layout.row, FIELDS["queries"], fields))
    return "".join(lines)


def _classes(tables, layout: Layout, result, assessment, common) -> str:
    cols = _cols(layout, result)
    chosen = _selected(layout, result)
    lines = []
    for name, rows in _class_rows(tables, layout, result, assessment, chosen):
        rows = np.asarray(rows, dtype=np.int64)
        means = [_mean(cols[rows, j], layout.sum) for j in range(cols.shape[1])]
        fields = dict(
            common,
            values=_text(layout, means),
            **{"class": name, "class_path": _class_path(layout, assessment, name)},
        )
        lines.append(fill(layout.row, FIELDS["classes"], fields))
    return "".join(lines)


def _summary(tables, layout: Layout, result, assessment, common) -> str:
    return fill(layout.row, FIELDS["summary"], common)


def _curve(tables, layout: Layout, result, assessment, common) -> str:
    curve = result.curves[layout.curve]
    ys = curve.averages["micro"]
    return "".join(
        fill(
            layout.row,
            FIELDS["curve"],
            dict(common, x=_text(layout, [x]), y=_text(layout, [y])),
        )
        for x, y in zip(curve.x, ys)
    )


def _method_run(tables: NativeTables, result) -> tuple[str, str]:
    """``METHOD`` and ``RUN`` of a run file ``METHOD.RUN.EXT``, as such a
    script splits its file names."""
    name = Path(result.run_source).name
    parts = name.split(".")
    if len(parts) != 3 or not all(parts):
        raise NativeError(
            f"{name}: {tables.program or 'the program'} reads a run from a file named "
            "METHOD.RUN.EXT (DNE.run1.txt); name the run files so, or score without --native"
        )
    return parts[0], parts[1]


def _run_lines(tables: NativeTables, results) -> list[tuple[str, object]]:
    """The runs of a runs table, named and ordered as the program does."""
    if tables.run_order == "method, file":
        results = sorted(
            results, key=lambda r: (_method_run(tables, r)[0], Path(r.run_source).name)
        )
    if tables.run_name == "method (run)":
        return [("{} ({})".format(*_method_run(tables, r)), r) for r in results]
    return [(r.run_name, r) for r in results]


def _runs(tables: NativeTables, layout: Layout, results, assessment) -> dict:
    """One table of every run (``per = "average"``: for the average asked
    for) or one per query class (``per = "class"``)."""
    average = results[0].options.average
    if tables.averages and average not in tables.averages:
        theirs = " and ".join(f"{n} (--average {k})" for k, n in tables.averages.items())
        raise NativeError(
            f"{tables.program or 'the program'} has no {average} average: its tables are {theirs}"
        )
    if layout.refuse_undefined:
        for r in results:
            empty = [q for q, v in zip(r.query_ids, r.column(layout.columns[0])) if v != v]
            if empty:
                raise NativeError(
                    f"queries without any relevant target ({', '.join(empty[:5])}): "
                    f"{tables.program or 'the program'} divides by zero there"
                )
    lines = _run_lines(tables, results)
    known = FIELDS["runs"]

    def table(rows: list[tuple[str, list]], cls: str = "") -> str:
        common = {"headings": layout.sep.join(layout.headings), "class": cls}
        body = "".join(
            fill(layout.row, known, dict(common, run=name, values=_text(layout, vals)))
            for name, vals in rows
        )
        return fill(layout.header, known, common) + body + fill(layout.footer, known, common)

    def figures(result, rows=None) -> list:
        cols = _cols(layout, result)
        rows = np.arange(cols.shape[0]) if rows is None else np.asarray(rows, dtype=np.int64)
        if layout.sum == "engine":
            avg = result.averages[average] or {}
            return [avg.get(result.key_of(k)) for k in layout.columns]
        return [_mean(cols[rows, j], layout.sum) for j in range(cols.shape[1])]

    first = results[0]
    if layout.per == "class":
        out = {}
        for cls, rows in _class_rows(tables, layout, first, assessment, _selected(layout, first)):
            out[(layout.file, cls)] = table([(n, figures(r, rows)) for n, r in lines], cls)
        return out
    if average == "macro" and layout.sum != "engine":
        classes = _class_rows(tables, layout, first, assessment, _selected(layout, first))
        rows = []
        for n, r in lines:
            per_class = [figures(r, cr) for _, cr in classes]
            rows.append(
                (
                    n,
                    [
                        _mean(np.array([f[j] for f in per_class]), layout.sum)
                        for j in range(len(layout.columns))
                    ],
                )
            )
        return {layout.file: table(rows)}
    if layout.sum != "engine" and average != "micro":
        raise NativeError(
            f"the {tables.profile} profile's {layout.file} adds its means itself: micro or macro "
            f"(--average), not {average}"
        )
    return {layout.file: table([(n, figures(r)) for n, r in lines])}
