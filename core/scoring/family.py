"""What a family of measures is (:class:`Family`: ``ndcg``, ``ap``, ``ft``...)
and its parameters (:class:`Param`: the allowed values and the default), and
the errors of a measure's name (UnknownMeasureError, MeasureNameError).  The
families themselves are :mod:`shrec_eval.scoring.families`; their syntax
and its parser, :mod:`shrec_eval.scoring.params`.  No numpy here."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ..errors import OptionsError
from ..model.limits import MAX_GRADE

__all__ = ["Family", "MeasureNameError", "Param", "UnknownMeasureError"]


class UnknownMeasureError(OptionsError):
    """A measure name that is neither a registry key nor an alias, or that the
    chosen profile does not compute; the text suggests the nearest names."""


class MeasureNameError(UnknownMeasureError):
    """A measure name with parameters that the families do not take: the
    message names the bad part and lists what is allowed."""


@dataclass(frozen=True)
class Param:
    """One parameter of a family: its allowed values (``values``: value ->
    what it means, the default first or not), the default, and whether any
    grade (a whole number from 1) is allowed too (``rel=2``)."""

    name: str
    values: dict[str, str]
    default: str
    desc: str
    grade: bool = False

    def read(self, text: str, family: str) -> str:
        """The value ``text`` stands for (a grade as its number), or a MeasureNameError."""
        if text in self.values:
            return text
        if self.grade and re.fullmatch(r"[0-9]+", text):
            value = int(text)
            if 1 <= value <= MAX_GRADE:
                return str(value)
        raise MeasureNameError(
            f"{family}: {self.name}={text!r} is not allowed; expected {self.allowed()}"
        )

    def allowed(self) -> str:
        """The allowed values as a person reads them (the default marked)."""
        names = [f"{v} (default)" if v == self.default else v for v in self.values]
        if self.grade:
            names.append("a grade 1, 2, 3, ...")
        return ", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else names[0]


@dataclass(frozen=True)
class Family:
    """A measure family: its name in the syntax, label, the registry family
    its measures are listed under (``group``: a key of ``FAMILIES``), a
    definition, its parameters in their canonical order, its cutoff
    (``at``: ``""`` none, ``"optional"`` K, R or the whole list,
    ``"required"`` K or R) and ``compute(ctx, values, at)`` (``values``:
    parameter -> value, ``at``: an int K, ``"R"`` or None)."""

    name: str
    label: str
    group: str
    definition: str
    params: tuple[Param, ...]
    at: str
    compute: Callable = field(compare=False, repr=False)
    higher_is_better: bool = True
    is_count: bool = False

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        known = [p.name for p in self.params]
        near = difflib.get_close_matches(name, known, n=1)
        hint = f" (did you mean {near[0]!r}?)" if near else ""
        what = f"its parameters: {', '.join(known)}" if known else "it takes no parameters"
        raise MeasureNameError(f"{self.name} has no parameter {name!r}{hint}; {what}")

    def cutoffs(self) -> str:
        """The cutoffs it takes, as a person reads them."""
        return {
            "": "none",
            "optional": "@K, @R or none (the whole list)",
            "required": "@K or @R",
        }[self.at]
