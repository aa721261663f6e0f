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
from dataclasses import dataclass
from pathlib import Path

from ..choices import RUN_FORMATS
from ..errors import FormatError
from ..reading.formats.rules import RULES
from . import hooks as hook_table
from .layouts import CLASS_ORDERS, LAYOUTS, RUN_NAMES, RUN_ORDERS, SUMS, Layout, NativeTables
from .own_options import own_options
from .toml_lines import key_line

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


@dataclass(frozen=True)
class Problem:
    """What is wrong in an evaluator file: where (its line, None when the
    file has no text: a table embedded in a contest file) and what."""

    line: int | None
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}" if self.line else self.message


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
    from ..errors import FileAccessError
    from ..reading.formats.source import open_source

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


class _Checker:
    """The problems of one document, each placed at its key's line."""

    def __init__(self, doc: Mapping, text: str | None) -> None:
        self.doc, self.text = doc, text
        self.problems: list[Problem] = []

    def add(self, path: tuple, message: str) -> None:
        line = key_line(self.text, path) if self.text else None
        where = ".".join(str(p) if isinstance(p, str) else f"[{p + 1}]" for p in path)
        where = where.replace(".[", "[")
        self.problems.append(Problem(line, f"{where}: {message}" if where else message))

    def table(self, path: tuple, value, known: Mapping[str, str]) -> dict:
        """``value`` as a table whose keys are all ``known`` (key -> what it
        is); a problem per unknown key."""
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.add(path, f"a table was expected, not {_shown(value)}")
            return {}
        for key in value:
            if key not in known:
                self.add(
                    path + (key,), f"unknown key; {_where(path)} takes {', '.join(sorted(known))}"
                )
        return value

    def text_of(self, path, value, *, required=False, pattern=None, what="a string"):
        if value is None:
            if required:
                self.add(path, f"missing: {what} is required")
            return None
        if not isinstance(value, str) or (required and not value.strip()):
            self.add(path, f"{what} was expected, not {_shown(value)}")
            return None
        if pattern is not None and not pattern.fullmatch(value):
            self.add(path, f"{what} was expected, not {_shown(value)}")
            return None
        return value

    def one_of(self, path, value, choices, default):
        if value is None:
            return default
        if value not in choices:
            self.add(
                path, f"one of {', '.join(map(_shown, choices))} was expected, not {_shown(value)}"
            )
            return default
        return value

    def flag(self, path, value, default=False):
        if value is None:
            return default
        if not isinstance(value, bool):
            self.add(path, f"true or false was expected, not {_shown(value)}")
            return default
        return value

    def strings(self, path, value) -> tuple[str, ...]:
        if value is None:
            return ()
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.add(path, f"a list of strings was expected, not {_shown(value)}")
            return ()
        return tuple(value)

    def printf(self, path, value, default):
        if value is None:
            return default
        try:
            if not isinstance(value, str):
                raise TypeError
            value % 1.5
        except (TypeError, ValueError):
            self.add(
                path,
                f"a printf format of one number was expected (%.4f, %12.3f), not {_shown(value)}",
            )
            return default
        return value


def _shown(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, dict):
        return "a table"
    return repr(value)


def _where(path: tuple) -> str:
    return f"[{'.'.join(str(p) for p in path)}]" if path else "the file"


_TOP = {
    "format": "the version of the evaluator file format (1)",
    "evaluator": "who it is",
    "reading": "the reading rules it fixes",
    "options": "the scoring options it fixes",
    "queries": "which queries its averages take",
    "measures": "its own measures",
    "overrides": "measures it computes otherwise",
    "aliases": "its names of measures",
    "table": "its columns and ranking measure",
    "averages": "its averages and number format",
    "curves": "its curves",
    "native": "its own output files",
    "hooks": "what it does that is code",
}
_EVALUATOR = {
    "name": "the --profile name",
    "label": "what it is, in a few words",
    "source": "the program read (repository, file)",
    "help": "one line for a person choosing a profile",
    "why": "why it fixes its options",
    "program": "its program's name, as messages say it",
    "position": "where it comes in lists",
}
_QUERIES = {"averaged": "all or answered", "undefined": "undefined or zero"}
_MEASURE = {
    "key": "its key",
    "binding": "the measure with parameters it is",
    "label": "its label",
    "definition": "what it is",
    "family": "its group in the measures list",
    "short": "its short column head",
}
_ALIAS = {"name": "", "key": "", "tool": "", "note": "", "strict": ""}
_TABLE = {"columns": "", "headings": "", "rank_by": "", "legend": ""}
_AVERAGES = {"names": "", "number_format": ""}
_CURVES = {"pr_least_relevant": "", "empty_levels_zero": ""}
_NATIVE = {"group": "", "run_name": "", "run_order": "", "files": ""}
_FILE = {
    "file": "",
    "layout": "",
    "hook": "",
    "columns": "",
    "headings": "",
    "header": "",
    "row": "",
    "footer": "",
    "value": "",
    "sep": "",
    "nan": "",
    "sum": "",
    "queries": "",
    "rows": "",
    "classes": "",
    "class_sep": "",
    "curve": "",
    "per": "",
    "refuse_undefined": "",
}
_HOOK_KINDS = {k: v for k, v in hook_table.KINDS.items() if k != "native"}
#: the options an evaluator may fix (EvalOptions fields)
_FIXABLE = (
    "ranks",
    "curve_length",
    "pr_levels",
    "pr_interpolation",
    "remove_self",
    "psb_class_cutoff",
    "collection_size",
    "f_beta",
    "average",
    "max_rank",
    "relevance_level",
)


def _rule_value(c: _Checker, name: str, value):
    rule = RULES[name]
    path = ("reading", name)
    if isinstance(rule.default, bool):
        return c.flag(path, value, rule.default)
    if isinstance(rule.default, tuple):
        return c.strings(path, value)
    return c.one_of(path, value, tuple(rule.words), rule.default)


def _hook(c: _Checker, path, name, kind):
    if not isinstance(name, str):
        c.add(path, f"a hook's name was expected, not {_shown(name)}")
        return None
    try:
        return hook_table.hook(name, kind)
    except KeyError as exc:
        c.add(path, str(exc.args[0]))
        return None


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
    from ..scoring.base_measures import Alias, Bound, Measure
    from .base import (
        LeastRelevant,
        Profile,
        _all_included,
        _no_queries_left_out,
        answered_queries,
        contest_group,
        each_run,
        one_group,
        run_groups,
    )

    c = _Checker(doc, text)
    if not isinstance(doc, dict):
        raise EvaluatorFileError(source, [Problem(None, "an evaluator file is a TOML table")])
    c.table((), doc, _TOP)
    version = doc.get("format", FORMAT)
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        c.add(("format",), f"a whole number was expected, not {_shown(version)}")
    elif version > FORMAT:
        c.add(
            ("format",),
            f"this evaluator file is of format {version}, newer than this shrec-eval reads "
            f"({FORMAT}); update shrec-eval",
        )
    ev = c.table(("evaluator",), doc.get("evaluator"), _EVALUATOR)
    if "evaluator" not in doc:
        c.add(("evaluator",), "missing: the [evaluator] table (name, label, source, help)")
    name = c.text_of(
        ("evaluator", "name"),
        ev.get("name"),
        required="evaluator" in doc,
        pattern=_NAME,
        what="a name of lower-case letters, digits and _ (at most 40)",
    )
    label = c.text_of(("evaluator", "label"), ev.get("label"), required="evaluator" in doc)
    src = c.text_of(("evaluator", "source"), ev.get("source"), required="evaluator" in doc)
    help_ = c.text_of(("evaluator", "help"), ev.get("help"), required="evaluator" in doc)
    why = c.text_of(("evaluator", "why"), ev.get("why")) or ""
    program = c.text_of(("evaluator", "program"), ev.get("program")) or ""
    position = ev.get("position", 1000)
    if not isinstance(position, int) or isinstance(position, bool):
        c.add(("evaluator", "position"), f"a whole number was expected, not {_shown(position)}")
        position = 1000

    # -- reading rules and options
    reading_doc = c.table(("reading",), doc.get("reading"), {**RULES, "run_formats": ""})
    reading = {}
    for rule in reading_doc:  # in the file's order (how the app says them)
        if rule in RULES:
            reading[rule] = _rule_value(c, rule, reading_doc[rule])
    run_formats = c.strings(("reading", "run_formats"), reading_doc.get("run_formats"))
    for fmt in run_formats:
        if fmt not in RUN_FORMATS:
            c.add(
                ("reading", "run_formats"),
                f"unknown run format {_shown(fmt)}; the formats are {', '.join(RUN_FORMATS)}",
            )
    options_doc = c.table(("options",), doc.get("options"), dict.fromkeys(_FIXABLE, ""))
    options = {}
    for key, value in options_doc.items():
        if key not in _FIXABLE:
            continue
        from ..options import check_field

        try:
            options[key] = check_field(key, tuple(value) if isinstance(value, list) else value)
        except ValueError as exc:
            c.add(("options", key), str(exc))
    if options and not why:
        c.add(("evaluator", "why"), "missing: say why the evaluator fixes its [options]")

    queries = c.table(("queries",), doc.get("queries"), _QUERIES)
    averaged = c.one_of(
        ("queries", "averaged"), queries.get("averaged"), ("all", "answered"), "all"
    )
    undefined = c.one_of(
        ("queries", "undefined"), queries.get("undefined"), ("undefined", "zero"), "undefined"
    )

    # -- hooks
    hooks_doc = c.table(("hooks",), doc.get("hooks"), _HOOK_KINDS)
    hooked = {
        kind: _hook(c, ("hooks", kind), hooks_doc[kind], kind)
        for kind in _HOOK_KINDS
        if kind in hooks_doc
    }

    # -- measures, overrides, aliases
    measures = list(hooked.get("measures") or ())
    overrides: dict[str, Callable] = dict(hooked.get("overrides") or {})
    measures += _measures(c, doc.get("measures"), Measure, Bound)
    overrides.update(_overrides(c, doc.get("overrides"), Bound))
    aliases = _aliases(c, doc.get("aliases"), Alias)

    # -- the table, averages, curves
    table = c.table(("table",), doc.get("table"), _TABLE)
    columns = c.strings(("table", "columns"), table.get("columns"))
    headings = c.strings(("table", "headings"), table.get("headings"))
    if headings and len(headings) != len(columns):
        c.add(
            ("table", "headings"),
            f"{len(headings)} headings for {len(columns)} columns; give one per column",
        )
    rank_by = c.text_of(("table", "rank_by"), table.get("rank_by"))
    legend = c.text_of(("table", "legend"), table.get("legend"))
    averages_doc = c.table(("averages",), doc.get("averages"), _AVERAGES)
    names_doc = c.table(("averages", "names"), averages_doc.get("names"), _average_kinds())
    averages = {}
    for k, v in names_doc.items():
        if k in _average_kinds():
            averages[k] = c.text_of(("averages", "names", k), v) or k
    number_format = c.printf(("averages", "number_format"), averages_doc.get("number_format"), "")
    curves_doc = c.table(("curves",), doc.get("curves"), _CURVES)
    least = curves_doc.get("pr_least_relevant", 0)
    if not isinstance(least, int) or isinstance(least, bool) or least < 0:
        c.add(
            ("curves", "pr_least_relevant"),
            f"a whole number from 0 was expected, not {_shown(least)}",
        )
        least = 0
    own_curves = tuple(hooked.get("curves") or ())
    curve_keys = _curve_keys() + tuple(cv.key for cv in own_curves)
    empty_zero = c.strings(("curves", "empty_levels_zero"), curves_doc.get("empty_levels_zero"))
    for key in empty_zero:
        if key not in curve_keys:
            c.add(
                ("curves", "empty_levels_zero"),
                f"unknown curve {_shown(key)}; the curves are {', '.join(curve_keys)}",
            )

    # -- native files
    native_doc = c.table(("native",), doc.get("native"), _NATIVE)
    reader = hooked.get("contest_reader")
    group_kind = c.one_of(("native", "group"), native_doc.get("group"), ("run", "contest"), "run")
    tables = NativeTables(
        tuple(
            _native_files(
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
    text_output = hooked.get("text_output")

    profile = Profile(  # made even with problems: its columns are checked too
        name=name or "",
        label=label or "",
        source=src or "",
        help=help_ or "",
        why=why,
        options=options,
        reading=reading,
        scored=hooked.get("scored") or _no_queries_left_out,
        included=answered_queries if averaged == "answered" else _all_included,
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
        position=position,
    )
    return _with_columns(c, profile, source)


def _average_kinds() -> dict:
    from ..options import AVERAGES

    return dict.fromkeys(AVERAGES, "")


def _curve_keys() -> tuple[str, ...]:
    from ..scoring.curves import CURVES

    return tuple(cv.key for cv in CURVES)


def _measures(c: _Checker, value, Measure, Bound) -> list:
    from ..scoring.base_measures import BASE_MEASURES
    from ..scoring.params import MeasureNameError

    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        c.add(("measures",), "an array of tables ([[measures]]) was expected")
        return []
    base = {m.key for m in BASE_MEASURES}
    out, seen = [], set()
    for i, m in enumerate(value):
        path = ("measures", i)
        c.table(path, m, _MEASURE)
        key = c.text_of(
            path + ("key",),
            m.get("key"),
            required=True,
            pattern=re.compile(r"[a-z][a-z0-9_.@{}-]*"),
            what="a key of lower-case letters, digits and _ . @ - ({k}: at each rank)",
        )
        binding = c.text_of(path + ("binding",), m.get("binding"), required=True)
        label = c.text_of(path + ("label",), m.get("label"), required=True)
        definition = c.text_of(path + ("definition",), m.get("definition"), required=True)
        family = c.text_of(path + ("family",), m.get("family")) or "evaluator"
        short = c.text_of(path + ("short",), m.get("short")) or ""
        if key is not None and key in base:
            c.add(
                path + ("key",),
                f"{key} is a measure of every profile; give this measure a key of its own",
            )
            key = None
        if key is not None and key in seen:
            c.add(path + ("key",), f"{key} is declared twice")
            key = None
        bound = None
        if binding is not None:
            try:
                bound = Bound(binding)
            except MeasureNameError as exc:
                c.add(path + ("binding",), str(exc))
        if None not in (key, bound, label, definition):
            seen.add(key)
            out.append(Measure(key, label, family, definition, bound, short=short))
    return out


def _overrides(c: _Checker, value, Bound) -> dict:
    from ..scoring.base_measures import BASE_MEASURES
    from ..scoring.params import MeasureNameError

    table = c.table(("overrides",), value, {m.key: "" for m in BASE_MEASURES})
    out = {}
    for key, binding in table.items():
        if not any(m.key == key for m in BASE_MEASURES):
            continue
        if not isinstance(binding, str):
            c.add(
                ("overrides", key), f"a measure with parameters was expected, not {_shown(binding)}"
            )
            continue
        try:
            out[key] = Bound(binding)
        except MeasureNameError as exc:
            c.add(("overrides", key), str(exc))
    return out


def _aliases(c: _Checker, value, Alias) -> tuple:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        c.add(("aliases",), "an array of tables ([[aliases]]) was expected")
        return ()
    out = []
    for i, a in enumerate(value):
        path = ("aliases", i)
        c.table(path, a, _ALIAS)
        got = [c.text_of(path + (k,), a.get(k), required=True) for k in ("name", "key", "tool")]
        note = c.text_of(path + ("note",), a.get("note")) or ""
        strict = c.flag(path + ("strict",), a.get("strict"))
        if None not in got:
            out.append(Alias(*got, strict=strict, note=note))
    return tuple(out)


def _native_files(c: _Checker, value, columns, headings, number_format, curve_keys):
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        c.add(("native", "files"), "an array of tables ([[native.files]]) was expected")
        return []
    out = []
    for i, f in enumerate(value):
        path = ("native", "files", i)
        c.table(path, f, _FILE)
        if ("layout" in f) == ("hook" in f):
            c.add(path, "give either a layout (a table of the data) or a hook (code), one of them")
            continue
        if "hook" in f:
            h = _hook(c, path + ("hook",), f["hook"], "native")
            if h is not None:
                out.append(h)
            continue
        file = c.text_of(
            path + ("file",),
            f.get("file"),
            required=True,
            pattern=re.compile(r"[^/\\]+"),
            what="a file name (no folder; * where a class's name goes)",
        )
        if file is not None and (file in (".", "..") or file.count("*") > 1):
            c.add(path + ("file",), f"a file name was expected, not {_shown(file)}")
            file = None
        layout = c.one_of(path + ("layout",), f.get("layout"), tuple(LAYOUTS), None)
        cols = c.strings(path + ("columns",), f.get("columns")) or columns
        heads = c.strings(path + ("headings",), f.get("headings")) or (
            headings if cols == columns else ()
        )
        per = c.one_of(path + ("per",), f.get("per"), ("average", "class"), "average")
        if file is not None and ("*" in file) != (per == "class"):
            c.add(
                path + ("file",),
                "a table per class is named with a * where the class's name goes "
                '(table_*.txt, per = "class"); only such a table has one',
            )
        if layout not in (None, "curve") and not cols:
            c.add(path + ("columns",), "missing: the columns of the table ([table] columns)")
        entry = dict(
            layout=layout,
            file=file,
            columns=cols,
            headings=heads,
            header=c.text_of(path + ("header",), f.get("header")) or "",
            row=c.text_of(path + ("row",), f.get("row")) or "{values}\n",
            footer=c.text_of(path + ("footer",), f.get("footer")) or "",
            value=c.printf(path + ("value",), f.get("value"), number_format),
            sep=c.text_of(path + ("sep",), f.get("sep")) if "sep" in f else " ",
            nan=c.text_of(path + ("nan",), f.get("nan")),
            sum=c.one_of(path + ("sum",), f.get("sum"), SUMS, "engine"),
            queries=c.one_of(path + ("queries",), f.get("queries"), ("all", "included"), "all"),
            rows=c.one_of(path + ("rows",), f.get("rows"), ("all", "defined"), "all"),
            classes=c.one_of(path + ("classes",), f.get("classes"), CLASS_ORDERS, "first"),
            class_sep=c.text_of(path + ("class_sep",), f.get("class_sep")) or "/",
            curve=c.one_of(path + ("curve",), f.get("curve"), curve_keys, "pr"),
            per=per,
            refuse_undefined=c.flag(path + ("refuse_undefined",), f.get("refuse_undefined")),
        )
        if entry["sep"] is None:
            entry["sep"] = " "
        if layout is not None and file is not None:
            out.append(Layout(**entry))
    return out


def _with_columns(c: _Checker, profile, source):
    """The profile with its columns checked: registry keys of its measures,
    or measures with parameters (computed with its columns: those no key
    names are ``params_columns``)."""
    from dataclasses import replace

    from ..scoring.measures import UnknownMeasureError, is_registry_key, resolve
    from ..scoring.params import is_family_name

    def is_key(key: str) -> bool:
        """A registry key, or a key of the profile's own measures (no measure
        with parameters that no key names)."""
        return is_registry_key(key) or not is_family_name(key)

    def key_of(path, name: str) -> str | None:
        try:
            key = resolve(name, profile, (5, 10, 25, 50, 100))
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
