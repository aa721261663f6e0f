"""Measures with parameters: their syntax, in the style of ir_measures
(``nDCG(dcg='exp-log2')@10``, ``P(rel=2)@5``), read by one parser.

A measure *family* (:class:`Family`: ``ndcg``, ``ap``, ``ft``...) declares its
parameters once (:class:`Param`: the allowed values and the default) and
whether it takes a cutoff after ``@`` (a rank K, ``R`` = the query's number
of relevant items, or nothing = the whole list).  A *binding* is a family
with every parameter's value and its cutoff: one measure.  It is written

    FAMILY[(PARAM=VALUE,...)][@K | @R]       ndcg(gain=exp2,discount=log2_from_1)@10

and its canonical name (:meth:`Binding.name`) lists the parameters in the
family's order, the defaults left out, so that it can be a column key of
the CSV and JSON files.  :func:`parse` reads any spelling (spaces, quoted
values, parameters in any order) and says what is wrong with a name (the
parameter or value, and the allowed ones); :func:`split_names` cuts a
comma-separated list of names (``--columns``) outside the parentheses.

The families and their compute functions are declared in
:mod:`shrec_eval.scoring.families`; the registry's measures
(:mod:`shrec_eval.scoring.base_measures`, the profiles' own) are bindings
of them under stable keys (``ft_psb`` is ``ft``, ``ap_r`` is
``ap(divide=found)``); :func:`shrec_eval.scoring.measures.resolve` maps a
binding to its registry key.  What a family and a parameter are is
:mod:`shrec_eval.scoring.family`.
"""

from __future__ import annotations

import difflib
import re
import textwrap
from dataclasses import dataclass, field

from ..model.limits import MAX_RANK
from .families import BY_NAME
from .family import Family, MeasureNameError, Param, UnknownMeasureError

__all__ = [
    "Binding",
    "Family",
    "MeasureNameError",
    "Param",
    "UnknownMeasureError",
    "family_lines",
    "is_family_name",
    "parse",
    "split_names",
]

#: a cutoff still to be filled (the registry's templates: ``ndcg@{k}``)
TEMPLATE = "{k}"


@dataclass(frozen=True)
class Binding:
    """One measure: a family, the value of each of its parameters (in the
    family's order) and its cutoff (an int K, ``"R"``, None for the whole
    list, or ``"{k}"`` in a registry template).  ``written``: the parameters
    the name wrote (a label shows them)."""

    family: Family
    values: tuple[tuple[str, str], ...]
    at: int | str | None = None
    written: frozenset = field(default=frozenset(), compare=False)

    @property
    def params(self) -> dict[str, str]:
        return dict(self.values)

    def name(self, full: bool = False) -> str:
        """The canonical name: the parameters that are not at their default
        (``full``: every one) in the family's order, then the cutoff."""
        shown = [
            f"{p.name}={v}"
            for p, (_, v) in zip(self.family.params, self.values)
            if full or v != p.default
        ]
        text = self.family.name + (f"({','.join(shown)})" if shown else "")
        return text + ("" if self.at is None else f"@{self.at}")

    def shape(self, template: bool = False) -> tuple:
        """What identifies the measure; ``template``: whatever its rank K (a
        registry template ``ndcg@{k}`` has the shape of every binding at a
        rank K)."""
        at = TEMPLATE if template and isinstance(self.at, int) else self.at
        return (self.family.name, self.values, at)

    def at_rank(self, k: int | None) -> Binding:
        """The binding with its template cutoff ``{k}`` filled."""
        if self.at != TEMPLATE:
            return self
        assert k is not None  # a measure at rank K is given its K
        return Binding(self.family, self.values, int(k), self.written)

    def label(self) -> str:
        """The family's label, its cutoff and the parameters the name wrote."""
        at = "" if self.at is None else f"@{self.at}"
        shown = [f"{k}={v}" for k, v in self.values if k in self.written]
        return f"{self.family.label}{at}" + (f" ({', '.join(shown)})" if shown else "")

    def definition(self) -> str:
        """The family's definition with this binding's parameters spelled out."""
        parts = [
            f"{k}={v}: {p.values.get(v, 'grade >= ' + v)}"
            for p, (k, v) in zip(self.family.params, self.values)
        ]
        depths: dict[int | str | None, str] = {
            None: "the whole list",
            "R": "the first R (the query's relevant items)",
        }
        depth = depths.get(self.at, f"the first {self.at}")
        cut = f"; over {depth}" if self.family.at else ""
        return self.family.definition + cut + ("; " + "; ".join(parts) if parts else "")

    def compute(self, ctx):
        return self.family.compute(ctx, self.params, self.at)


def _families() -> dict[str, Family]:
    return BY_NAME


_NAME = re.compile(r"\s*([a-z][a-z0-9_]*)\s*(.*?)\s*\Z", re.S)


def is_family_name(text: str) -> bool:
    """Whether ``text`` starts as a family's measure does (its name, then
    ``(``, ``@`` or nothing): what :func:`parse` is asked to read."""
    m = _NAME.match(text)
    if not m or m.group(1) not in _families():
        return False
    rest = m.group(2)
    return not rest or rest[0] in "(@"


def _syntax(text: str, why: str) -> MeasureNameError:
    return MeasureNameError(
        f"measure {text!r}: {why}; a measure with parameters is written "
        "FAMILY(PARAM=VALUE,...)@K, e.g. ndcg(gain=exp2,discount=log2_from_1)@10 "
        "('shrec-eval measures --params' lists the families)"
    )


def parse(text: str) -> Binding:
    """The binding a name stands for (``ndcg(gain=exp2)@10``, ``ap@R``,
    ``ft(tier=C-1)``; a registry template's cutoff may be ``{k}``), or a
    :class:`MeasureNameError` that says what is wrong and what is allowed."""
    if not isinstance(text, str):
        raise MeasureNameError(f"a measure name is text, not {type(text).__name__}")
    m = _NAME.match(text)
    families = _families()
    if not m or m.group(1) not in families:
        head = m.group(1) if m else text.strip()
        near = difflib.get_close_matches(head, list(families), n=1)
        hint = f" (did you mean {near[0]!r}?)" if near else ""
        known = ", ".join(families)
        raise _syntax(text.strip(), f"no family {head!r}{hint}; the families: {known}")
    family, rest = families[m.group(1)], m.group(2)
    given: dict[str, str] = {}
    if rest.startswith("("):
        close = rest.find(")")
        if close < 0:
            raise _syntax(text.strip(), "the parenthesis is not closed")
        inside, rest = rest[1:close], rest[close + 1 :].strip()
        for piece in inside.split(","):
            if not piece.strip() and inside.strip() == "":
                continue
            name, eq, value = piece.partition("=")
            name, value = name.strip(), value.strip()
            if not eq or not name or not value:
                raise _syntax(text.strip(), f"{piece.strip()!r} is not PARAM=VALUE")
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1].strip()
            param = family.param(name)
            if name in given:
                raise MeasureNameError(f"{family.name}: the parameter {name} is given twice")
            given[name] = param.read(value, family.name)
    at = _cutoff(family, rest, text.strip())
    values = tuple((p.name, given.get(p.name, p.default)) for p in family.params)
    return Binding(family, values, at, frozenset(given))


def _cutoff(family: Family, rest: str, text: str) -> int | str | None:
    """The cutoff after ``@`` (an int, ``"R"``, ``"{k}"``), None without one."""
    if not rest:
        if family.at == "required":
            raise MeasureNameError(
                f"{family.name} needs a cutoff: {family.name}@K (a rank) or {family.name}@R"
            )
        return None
    if not rest.startswith("@"):
        raise _syntax(text, f"{rest!r} after the family and its parameters")
    value = rest[1:].strip()
    if not family.at:
        raise MeasureNameError(
            f"{family.name} takes no @ cutoff: its depth is one of its parameters "
            f"({', '.join(p.name for p in family.params)})"
        )
    if value in ("R", "r"):
        return "R"
    if value == TEMPLATE:
        return TEMPLATE
    if re.fullmatch(r"[0-9]+", value) and 1 <= int(value) <= MAX_RANK:
        return int(value)
    raise MeasureNameError(
        f"{text}: the cutoff after @ is a rank K from 1 to {MAX_RANK} or R (the query's "
        f"relevant items), not {value!r}"
    )


def split_names(text: str) -> list[str]:
    """The names of a comma-separated list (``--columns``), cut at the
    commas outside parentheses: ``ndcg(gain=exp2,ideal=retrieved)@10,map``
    is two names.  Empty names are left out."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(depth - 1, 0)
        elif ch == "," and depth == 0:
            out.append(text[start:i])
            start = i + 1
    out.append(text[start:])
    return [n.strip() for n in out if n.strip()]


def family_lines(width: int = 100) -> list[str]:
    """Every family with its cutoff, definition and parameters (each value
    with its meaning, the default marked): what ``shrec-eval measures
    --params`` prints."""

    def wrap(text: str, first: int, rest: int) -> list[str]:
        return textwrap.wrap(text, width, initial_indent=" " * first, subsequent_indent=" " * rest)

    out = []
    for f in _families().values():
        out.append(f"{f.name}: {f.label}; cutoff {f.cutoffs()}")
        out += wrap(f.definition, 4, 4)
        for p in f.params:
            out += wrap(f"{p.name}: {p.desc}", 2, 4)
            for value, meaning in p.values.items():
                mark = " (default)" if value == p.default else ""
                out += wrap(f"{value}{mark}: {meaning}", 6, 8)
            if p.grade:
                out += wrap("2, 3, ...: grade >= that number", 6, 8)
    return out
