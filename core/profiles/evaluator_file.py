"""Evaluator files: a contest's evaluator described as data (TOML, read with
the standard library's ``tomllib``), from which its :class:`Profile` is
made.  The built-in profiles are such files (``builtin/NAME.toml``); an
organiser writes one for a new track (docs/evaluators.md says how, key by
key).  What is code (psbTable's float32 arithmetic, the ShapeNet
evaluator's reading of its folders, trec_eval's text output) is named from
the file, from the closed table of :mod:`shrec_eval.profiles.hooks`: a file
never imports Python.

Every problem of a file is said with its line (:mod:`.toml_lines` finds the
line of a key: ``tomllib`` gives none for a value the program cannot use)
and the key's name: ``shrec-eval profiles check FILE`` lists them all.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path

from ..choices import RUN_FORMATS
from ..errors import FileAccessError, FormatError
from ..options import AVERAGES, check_field
from ..reading.formats.rules import RULES
from ..reading.formats.source import open_source
from ..scoring import measures as registry  # read when a file is checked
from ..scoring.base_measures import Alias, Bound, Measure
from ..scoring.curves import CURVES
from ..scoring.family import UnknownMeasureError
from ..scoring.params import is_family_name
from .base import (
    LeastRelevant,
    Profile,
    all_included,
    answered_queries,
    contest_group,
    each_run,
    no_queries_left_out,
    one_group,
    run_groups,
)
from .file_sections import (
    AVERAGES_KEYS,
    CURVES_KEYS,
    EVALUATOR_KEYS,
    FIXABLE,
    HOOK_KINDS,
    NATIVE_KEYS,
    QUERIES_KEYS,
    TABLE_KEYS,
    TOP_KEYS,
    Checker,
    Problem,
    checked_aliases,
    checked_hook,
    checked_measures,
    checked_native_files,
    checked_overrides,
    checked_rule_value,
    shown_value,
)
from .layouts import RUN_NAMES, RUN_ORDERS, NativeTables
from .own_options import own_options

__all__ = [
    "FORMAT",
    "EvaluatorFileError",
    "Problem",
    "build",
    "check_text",
    "load_file",
    "parse_text",
]

#: the version of the evaluator file format this module reads
FORMAT = 1
#: the most an evaluator file may hold
FILE_LIMIT = 1 << 20
_NAME = re.compile(r"[a-z][a-z0-9_]{0,39}")


class EvaluatorFileError(FormatError):
    """An evaluator file that cannot be used: the first problem, with its
    line; ``problems`` holds every one."""

    def __init__(self, path, problems: list[Problem]) -> None:
        # in the file's order (a problem without a line last)
        self.problems = sorted(problems, key=lambda p: (p.line is None, p.line or 0))
        first = self.problems[0]
        more = len(self.problems) - 1
        message = first.message
        if more:
            message += f" (and {more} more: shrec-eval profiles check {path})"
        super().__init__(path, message, line=first.line)


def read_text(path) -> str:
    """An evaluator file's text through the readers' input gate (a pipe
    read once, a device or folder refused)."""
    src = open_source(path, "evaluator file (TOML)", limit=FILE_LIMIT)
    if src.kind == "folder":
        raise FileAccessError(src.path, "this is a folder; an evaluator file (.toml) was expected")
    data = src.read()
    if len(data) > FILE_LIMIT:
        raise FormatError(src.path, f"{len(data)} bytes is more than an evaluator file holds")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise FormatError(
            src.path, "not a UTF-8 text file; an evaluator file (TOML) was expected"
        ) from None


def parse_text(text: str, source) -> dict:
    """The TOML of an evaluator file as data; an EvaluatorFileError with the
    line tomllib names when it is not TOML."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        line = int(m.group(1)) if m else None
        what = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        raise EvaluatorFileError(source, [Problem(line, f"not TOML: {what}")]) from None


def load_file(path, origin: str = "evaluator file") -> Profile:  # noqa: F821
    """The profile an evaluator file describes; an EvaluatorFileError naming
    the file, the line and what was expected when it cannot be one."""
    text = read_text(path)
    return build(parse_text(text, path), text=text, source=path, origin=origin, path=path)


def check_text(text: str, source) -> list[Problem]:
    """Every problem of an evaluator file's text (none: it is usable)."""
    try:
        build(parse_text(text, source), text=text, source=source)
    except EvaluatorFileError as exc:
        return exc.problems
    return []


# -- checking ---------------------------------------------------------------------------------


def build(
    doc: Mapping,
    *,
    text: str | None = None,
    source=None,
    origin: str = "evaluator file",
    path=None,
):
    """The Profile of an evaluator file's data (``text``: the file, to say
    where a problem is); an EvaluatorFileError listing every problem."""

    c = Checker(doc, text)
    if not isinstance(doc, dict):
        raise EvaluatorFileError(source, [Problem(None, "an evaluator file is a TOML table")])
    c.table((), doc, TOP_KEYS)
    _check_format(c, doc)
    ev = _evaluator_table(c, doc)
    name, program = ev["name"], ev["program"]
    reading, run_formats = _reading_table(c, doc)
    options = _fixed_options(c, doc, ev["why"])
    queries = c.table(("queries",), doc.get("queries"), QUERIES_KEYS)
    averaged = c.one_of(
        ("queries", "averaged"), queries.get("averaged"), ("all", "answered"), "all"
    )
    undefined = c.one_of(
        ("queries", "undefined"), queries.get("undefined"), ("undefined", "zero"), "undefined"
    )

    # -- hooks
    hooks_doc = c.table(("hooks",), doc.get("hooks"), HOOK_KINDS)
    hooked = {
        kind: checked_hook(c, ("hooks", kind), hooks_doc[kind], kind)
        for kind in HOOK_KINDS
        if kind in hooks_doc
    }

    # -- measures, overrides, aliases
    measures = list(hooked.get("measures") or ())
    overrides: dict[str, Callable] = dict(hooked.get("overrides") or {})
    measures += checked_measures(c, doc.get("measures"), Measure, Bound)
    overrides.update(checked_overrides(c, doc.get("overrides"), Bound))
    aliases = checked_aliases(c, doc.get("aliases"), Alias)

    # -- the table, averages, curves
    columns, headings, rank_by, legend = _table_section(c, doc)
    averages, number_format = _averages_section(c, doc)
    least, own_curves, curve_keys, empty_zero = _curves_section(c, doc, hooked)

    tables, group_kind = _native_section(
        c, doc, columns, headings, number_format, curve_keys, program, name, averages
    )
    reader = hooked.get("contest_reader")
    text_output = hooked.get("text_output")

    profile = Profile(  # made even with problems: its columns are checked too
        name=name or "",
        label=ev["label"] or "",
        source=ev["source"] or "",
        help=ev["help"] or "",
        why=ev["why"],
        options=options,
        reading=reading,
        scored=hooked.get("scored") or no_queries_left_out,
        included=answered_queries if averaged == "answered" else all_included,
        overrides=overrides,
        curve_rows={"pr": LeastRelevant(least)} if least else {},
        empty_levels_zero=empty_zero,
        undefined_is_zero=undefined == "zero",
        native=tables if tables.layouts else None,
        curves=own_curves,
        own_options=own_options(name),
        text_format=text_output.format if text_output is not None else None,
        text_writer=text_output.writer if text_output is not None else None,
        text_ranks=text_output.ranks if text_output is not None else (),
        measures=tuple(measures),
        aliases=aliases,
        legend_tool=legend,
        query_data=hooked.get("query_data"),
        group=reader.group
        if reader is not None
        else (one_group if group_kind == "contest" else each_run),
        headline=columns,
        rank_key=rank_by,
        native_files=tables.files,
        contest_reader=reader.read if reader is not None else None,
        contest_usage=reader.usage if reader is not None else "",
        native_groups=reader.groups
        if reader is not None
        else (contest_group if group_kind == "contest" else run_groups),
        headings=headings,
        run_formats=run_formats,
        program=program,
        averages=averages,
        number_format=number_format,
        origin=origin,
        path=str(path) if path is not None else None,
        document=doc,
        position=ev["position"],
    )
    return _with_columns(c, profile, source)


def _check_format(c: Checker, doc: Mapping) -> None:
    """The file's ``format``: a whole number this shrec-eval reads."""
    version = doc.get("format", FORMAT)
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        c.add(("format",), f"a whole number was expected, not {shown_value(version)}")
    elif version > FORMAT:
        c.add(
            ("format",),
            f"this evaluator file is of format {version}, newer than this shrec-eval reads "
            f"({FORMAT}); update shrec-eval",
        )


def _evaluator_table(c: Checker, doc: Mapping) -> dict:
    """The [evaluator] table: name, label, source, help (required), why,
    program and position."""
    ev = c.table(("evaluator",), doc.get("evaluator"), EVALUATOR_KEYS)
    if "evaluator" not in doc:
        c.add(("evaluator",), "missing: the [evaluator] table (name, label, source, help)")
    required = "evaluator" in doc
    out = {
        "name": c.text_of(
            ("evaluator", "name"),
            ev.get("name"),
            required=required,
            pattern=_NAME,
            what="a name of lower-case letters, digits and _ (at most 40)",
        )
    }
    for key in ("label", "source", "help"):
        out[key] = c.text_of(("evaluator", key), ev.get(key), required=required)
    out["why"] = c.text_of(("evaluator", "why"), ev.get("why")) or ""
    out["program"] = c.text_of(("evaluator", "program"), ev.get("program")) or ""
    position = ev.get("position", 1000)
    if not isinstance(position, int) or isinstance(position, bool):
        c.add(
            ("evaluator", "position"), f"a whole number was expected, not {shown_value(position)}"
        )
        position = 1000
    out["position"] = position
    return out


def _reading_table(c: Checker, doc: Mapping) -> tuple[dict, tuple[str, ...]]:
    """The [reading] table: the rules the evaluator fixes (in the file's
    order: how the app says them) and the run formats it takes."""
    reading_doc = c.table(("reading",), doc.get("reading"), {**RULES, "run_formats": ""})
    reading = {}
    for rule in reading_doc:
        if rule in RULES:
            reading[rule] = checked_rule_value(c, rule, reading_doc[rule])
    run_formats = c.strings(("reading", "run_formats"), reading_doc.get("run_formats"))
    for fmt in run_formats:
        if fmt not in RUN_FORMATS:
            c.add(
                ("reading", "run_formats"),
                f"unknown run format {shown_value(fmt)}; the formats are {', '.join(RUN_FORMATS)}",
            )
    return reading, run_formats


def _fixed_options(c: Checker, doc: Mapping, why: str) -> dict:
    """The [options] the evaluator fixes, each checked as the option it is
    (and [evaluator] ``why`` required with them)."""
    options_doc = c.table(("options",), doc.get("options"), dict.fromkeys(FIXABLE, ""))
    options = {}
    for key, value in options_doc.items():
        if key not in FIXABLE:
            continue

        try:
            options[key] = check_field(key, tuple(value) if isinstance(value, list) else value)
        except ValueError as exc:
            c.add(("options", key), str(exc))
    if options and not why:
        c.add(("evaluator", "why"), "missing: say why the evaluator fixes its [options]")
    return options


def _table_section(c: Checker, doc: Mapping) -> tuple:
    """The [table]: its columns, their headings (one per column), the
    ranking measure and the legend's tool name."""
    table = c.table(("table",), doc.get("table"), TABLE_KEYS)
    columns = c.strings(("table", "columns"), table.get("columns"))
    headings = c.strings(("table", "headings"), table.get("headings"))
    if headings and len(headings) != len(columns):
        c.add(
            ("table", "headings"),
            f"{len(headings)} headings for {len(columns)} columns; give one per column",
        )
    rank_by = c.text_of(("table", "rank_by"), table.get("rank_by"))
    legend = c.text_of(("table", "legend"), table.get("legend"))
    return columns, headings, rank_by, legend


def _averages_section(c: Checker, doc: Mapping) -> tuple[dict, str]:
    """The [averages]: the evaluator's names of the averages and its number
    format."""
    averages_doc = c.table(("averages",), doc.get("averages"), AVERAGES_KEYS)
    names_doc = c.table(("averages", "names"), averages_doc.get("names"), _average_kinds())
    averages = {}
    for k, v in names_doc.items():
        if k in _average_kinds():
            averages[k] = c.text_of(("averages", "names", k), v) or k
    number_format = c.printf(("averages", "number_format"), averages_doc.get("number_format"), "")
    return averages, number_format


def _curves_section(c: Checker, doc: Mapping, hooked: dict) -> tuple:
    """The [curves]: the least relevance level of the precision-recall
    curve, the hooks' own curves, every curve's key, and the curves whose
    empty levels count 0."""
    curves_doc = c.table(("curves",), doc.get("curves"), CURVES_KEYS)
    least = curves_doc.get("pr_least_relevant", 0)
    if not isinstance(least, int) or isinstance(least, bool) or least < 0:
        c.add(
            ("curves", "pr_least_relevant"),
            f"a whole number from 0 was expected, not {shown_value(least)}",
        )
        least = 0
    own_curves = tuple(hooked.get("curves") or ())
    curve_keys = _curve_keys() + tuple(cv.key for cv in own_curves)
    empty_zero = c.strings(("curves", "empty_levels_zero"), curves_doc.get("empty_levels_zero"))
    for key in empty_zero:
        if key not in curve_keys:
            c.add(
                ("curves", "empty_levels_zero"),
                f"unknown curve {shown_value(key)}; the curves are {', '.join(curve_keys)}",
            )
    return least, own_curves, curve_keys, empty_zero


def _native_section(
    c: Checker, doc: Mapping, columns, headings, number_format, curve_keys, program, name, averages
):
    """The [native] files: their tables (checked against the columns,
    headings and curves) and how runs are grouped into them."""
    native_doc = c.table(("native",), doc.get("native"), NATIVE_KEYS)
    group_kind = c.one_of(("native", "group"), native_doc.get("group"), ("run", "contest"), "run")
    tables = NativeTables(
        tuple(
            checked_native_files(
                c, native_doc.get("files"), columns, headings, number_format or "%.4f", curve_keys
            )
        ),
        program=program,
        profile=name or "",
        averages=averages,
        run_name=c.one_of(("native", "run_name"), native_doc.get("run_name"), RUN_NAMES, "name"),
        run_order=c.one_of(
            ("native", "run_order"), native_doc.get("run_order"), RUN_ORDERS, "given"
        ),
    )
    if group_kind == "contest":  # one table of every run: no table of one run beside it
        for i, entry in enumerate(tables.layouts):
            if getattr(entry, "layout", "runs") != "runs":
                c.add(
                    ("native", "files", i, "layout"),
                    f'a table of one run ({entry.layout}) goes with [native] group = "run"; '
                    'with group = "contest" every table is a table of runs (layout = "runs")',
                )
    return tables, group_kind


def _average_kinds() -> dict:
    return dict.fromkeys(AVERAGES, "")


def _curve_keys() -> tuple[str, ...]:
    return tuple(cv.key for cv in CURVES)


def _with_columns(c: Checker, profile, source):
    """The profile with its columns checked: registry keys of its measures,
    or measures with parameters (computed with its columns: those no key
    names are ``params_columns``)."""
    from dataclasses import replace

    def is_key(key: str) -> bool:
        """A registry key, or a key of the profile's own measures (no measure
        with parameters that no key names)."""
        return registry.is_registry_key(key) or not is_family_name(key)

    measures = c.doc.get("measures") if isinstance(c.doc, dict) else None
    # measures the file declares that are not made (their own problem said)
    broken = (
        {m.get("key") for m in measures if isinstance(m, dict)}
        if isinstance(measures, list)
        else set()
    )
    broken -= {m.key for m in profile.measures}

    def key_of(path, name: str) -> str | None:
        if name in broken:
            return None
        try:
            key = registry.resolve(name, profile, (5, 10, 25, 50, 100))
        except UnknownMeasureError as exc:
            c.add(path, str(exc))
            return None
        return key

    headline, params = [], []
    for name in profile.headline:
        key = key_of(("table", "columns"), name)
        if key is None:
            continue
        headline.append(key)
        if not is_key(key):
            params.append(key)
    rank = key_of(("table", "rank_by"), profile.rank_key) if profile.rank_key else None
    if rank is not None and not is_key(rank):
        params.append(rank)
    files = (c.doc.get("native") or {}).get("files") if isinstance(c.doc, dict) else None
    for i, entry in enumerate(files if isinstance(files, list) else []):
        columns = entry.get("columns") if isinstance(entry, dict) else None
        for name in columns if isinstance(columns, list) else []:
            key = key_of(("native", "files", i, "columns"), name) if isinstance(name, str) else None
            if key is not None and not is_key(key):
                params.append(key)
    if c.problems:
        raise EvaluatorFileError(source, c.problems)
    return replace(
        profile,
        headline=tuple(headline),
        rank_key=rank,
        params_columns=tuple(dict.fromkeys(params)),
    )


def builtin_folder() -> Path:
    """The folder of the built-in evaluator files (package data)."""
    return Path(__file__).resolve().parent / "builtin"
