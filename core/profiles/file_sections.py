"""The sections of an evaluator file checked key by key (docs/evaluators.md):
each problem said at its key's line, with what was expected
(:mod:`.evaluator_file` makes the profile from what passes).

For evaluator_file: Checker (the problems found, each at its key's line),
the keys each section may hold (TOP_KEYS, EVALUATOR_KEYS, QUERIES_KEYS,
TABLE_KEYS, AVERAGES_KEYS, CURVES_KEYS, NATIVE_KEYS), HOOK_KINDS, FIXABLE,
and the checks of the sections' values (checked_rule_value, checked_hook,
checked_measures, checked_overrides, checked_aliases, checked_native_files,
shown_value)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from ..reading.formats.rules import RULES
from ..scoring.base_measures import BASE_MEASURES
from ..scoring.params import MeasureNameError
from . import hooks as hook_table
from .layouts import CLASS_ORDERS, LAYOUTS, SUMS, Layout, misspelt_fields
from .toml_lines import key_line


@dataclass(frozen=True)
class Problem:
    """What is wrong in an evaluator file: where (its line, None when the
    file has no text: a table embedded in a contest file) and what."""

    line: int | None
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}" if self.line else self.message


class Checker:
    """The problems of one document, each placed at its key's line."""

    def __init__(self, doc: Mapping, text: str | None) -> None:
        self.doc, self.text = doc, text
        self.problems: list[Problem] = []

    def add(self, path: tuple, message: str) -> None:
        line = key_line(self.text, path) if self.text else None
        where = ".".join(str(p) if isinstance(p, str) else f"[{p + 1}]" for p in path)
        where = where.replace(".[", "[")
        self.problems.append(Problem(line, f"{where}: {message}" if where else message))

    def table(self, path: tuple, value, known: Mapping[str, object]) -> dict:
        """``value`` as a table whose keys are all ``known`` (key -> what it
        is); a problem per unknown key."""
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.add(path, f"a table was expected, not {shown_value(value)}")
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
            self.add(path, f"{what} was expected, not {shown_value(value)}")
            return None
        if pattern is not None and not pattern.fullmatch(value):
            self.add(path, f"{what} was expected, not {shown_value(value)}")
            return None
        return value

    def one_of(self, path, value, choices, default):
        if value is None:
            return default
        if value not in choices:
            self.add(
                path,
                f"one of {', '.join(map(shown_value, choices))} was expected, "
                f"not {shown_value(value)}",
            )
            return default
        return value

    def flag(self, path, value, default=False):
        if value is None:
            return default
        if not isinstance(value, bool):
            self.add(path, f"true or false was expected, not {shown_value(value)}")
            return default
        return value

    def strings(self, path, value) -> tuple[str, ...]:
        if value is None:
            return ()
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.add(path, f"a list of strings was expected, not {shown_value(value)}")
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
                "a printf format of one number was expected (%.4f, %12.3f), "
                f"not {shown_value(value)}",
            )
            return default
        return value


def shown_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, dict):
        return "a table"
    return repr(value)


def _where(path: tuple) -> str:
    return f"[{'.'.join(str(p) for p in path)}]" if path else "the file"


TOP_KEYS = {
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
EVALUATOR_KEYS = {
    "name": "the --profile name",
    "label": "what it is, in a few words",
    "source": "the program read (repository, file)",
    "help": "one line for a person choosing a profile",
    "why": "why it fixes its options",
    "program": "its program's name, as messages say it",
    "position": "where it comes in lists",
}
QUERIES_KEYS = {"averaged": "all or answered", "undefined": "undefined or zero"}
_MEASURE = {
    "key": "its key",
    "binding": "the measure with parameters it is",
    "label": "its label",
    "definition": "what it is",
    "family": "its group in the measures list",
    "short": "its short column head",
}
_ALIAS = {"name": "", "key": "", "tool": "", "note": "", "strict": ""}
TABLE_KEYS = {"columns": "", "headings": "", "rank_by": "", "legend": ""}
AVERAGES_KEYS = {"names": "", "number_format": ""}
CURVES_KEYS = {"pr_least_relevant": "", "empty_levels_zero": ""}
NATIVE_KEYS = {"group": "", "run_name": "", "run_order": "", "files": ""}
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
HOOK_KINDS = {k: v for k, v in hook_table.KINDS.items() if k != "native"}
#: the options an evaluator may fix (EvalOptions fields)
FIXABLE = (
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


def checked_rule_value(c: Checker, name: str, value):
    rule = RULES[name]
    path = ("reading", name)
    if isinstance(rule.default, bool):
        return c.flag(path, value, rule.default)
    if isinstance(rule.default, tuple):
        return c.strings(path, value)
    return c.one_of(path, value, tuple(rule.words), rule.default)


def checked_hook(c: Checker, path, name, kind):
    if not isinstance(name, str):
        c.add(path, f"a hook's name was expected, not {shown_value(name)}")
        return None
    try:
        return hook_table.hook(name, kind)
    except KeyError as exc:
        c.add(path, str(exc.args[0]))
        return None


def checked_measures(c: Checker, value, Measure, Bound) -> list:

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


def checked_overrides(c: Checker, value, Bound) -> dict:

    table = c.table(("overrides",), value, {m.key: "" for m in BASE_MEASURES})
    out = {}
    for key, binding in table.items():
        if not any(m.key == key for m in BASE_MEASURES):
            continue
        if not isinstance(binding, str):
            c.add(
                ("overrides", key),
                f"a measure with parameters was expected, not {shown_value(binding)}",
            )
            continue
        try:
            out[key] = Bound(binding)
        except MeasureNameError as exc:
            c.add(("overrides", key), str(exc))
    return out


def checked_aliases(c: Checker, value, Alias) -> tuple:
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


def checked_native_files(c: Checker, value, columns, headings, number_format, curve_keys):
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
            h = checked_hook(c, path + ("hook",), f["hook"], "native")
            if h is not None:
                out.append(h)
            continue
        layout = _native_layout(c, path, f, columns, headings, number_format, curve_keys)
        if layout is not None:
            out.append(layout)
    return out


def _native_layout(c: Checker, path, f, columns, headings, number_format, curve_keys):
    """One [[native.files]] table given by a layout: its file name, layout,
    columns and how its values are written; None when it has a problem
    that leaves no table."""
    file = c.text_of(
        path + ("file",),
        f.get("file"),
        required=True,
        pattern=re.compile(r"[^/\\]+"),
        what="a file name (no folder; * where a class's name goes)",
    )
    if file is not None and (file in (".", "..") or file.count("*") > 1):
        c.add(path + ("file",), f"a file name was expected, not {shown_value(file)}")
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
    if layout is not None:
        for key in ("header", "row", "footer"):
            for message in misspelt_fields(entry[key], layout):
                c.add(path + (key,), message)
    if layout is not None and file is not None:
        return Layout(**entry)
    return None
