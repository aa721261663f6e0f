"""The scoring options, each defined once: its kind and bounds, its
command-line flag and help, its check and message, the app's widget for it
and the profile it belongs to.  From this one table come the command line's
option groups (:mod:`shrec_eval.option_args`), the checks of
:class:`~shrec_eval.options.EvalOptions` and of contest files
(:mod:`shrec_eval.contest`), what an evaluator file may fix, and the app's
Scoring > Options dialog (``shrec_gui/window/dialogs.py``).

Light, as the command line's --help is: no numpy here.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from .errors import OptionsError
from .model.limits import MAX_BETA, MAX_COLLECTION, MAX_GRADE, MAX_RANK, PR_LEVELS, is_real

__all__ = ["AVERAGES", "OPTIONS", "PR_INTERPOLATIONS", "Option", "Widget", "by_name", "whole"]

PR_INTERPOLATIONS = ("max", "psb", "psbplot")
#: how query values become one run figure (profiles.md, last section)
AVERAGES = ("micro", "macro", "proportional", "reciprocal")


def whole(name: str, value, least: int, most: int) -> int:
    """A whole-number option (not a bool, not a fraction) in its range."""
    name = name.replace("_", " ")
    if not is_real(value) or value != int(value):
        raise OptionsError(f"{name} must be a whole number, not {value!r}")
    if not least <= value <= most:
        what = "positive integers" if name == "ranks" else f"from {least}"
        raise OptionsError(f"{name} must be {what} up to {most}, not {value}")
    return int(value)


@dataclass(frozen=True)
class Widget:
    """How the app's Scoring > Options dialog shows an option: a ``combo``
    (``items``: value -> its words), a ``check`` box, a ``spin`` box (whole
    numbers, ``special``: the text of 0 = none), a ``double`` spin box or a
    ``line`` edit; its label (a check box's text), the dialog's attribute
    holding it and its place in the dialog."""

    kind: str
    label: str
    attr: str
    place: int
    #: a combo's items: (value, its words); "" words: the value itself
    items: tuple = ()
    least: float = 0
    most: float = 0
    special: str = ""
    decimals: int = 0


@dataclass(frozen=True)
class Option:
    """One scoring option (an :class:`~shrec_eval.options.EvalOptions`
    field): ``kind`` is ``ranks``, ``whole``, ``real``, ``flag``,
    ``choice`` or ``names``; ``optional``: None is a value (not set)."""

    name: str
    kind: str
    least: float = 0
    most: float = 0
    choices: tuple = ()
    optional: bool = False
    #: the command line: its flags, the argparse dest (``keep_self`` for
    #: remove_self, whose flag turns it off: ``negated``), its group
    #: (``measures``, ``profile``, ``reading``; None: no flag of its own) and help
    flags: tuple[str, ...] = ()
    dest: str = ""
    negated: bool = False
    group: str | None = None
    help: str = ""
    metavar: str | None = None
    #: why the command line refuses 0 (trec_eval takes it otherwise)
    zero: str = ""
    #: the check of a value, when the kind's is not enough (the value kept)
    check: Callable | None = None
    #: the words of a choice's messages ("precision-recall interpolation")
    what: str = ""
    #: the profile it belongs to (refused under the others)
    owner: str | None = None
    widget: Widget | None = None
    #: an evaluator file may fix it ([options])
    fixable: bool = True

    @property
    def argument(self) -> str:
        """The argparse dest of its flag."""
        return self.dest or self.name


def _ranks(value):
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise OptionsError(f"ranks must be a list of whole numbers, not {value!r}")
    ranks = tuple(sorted({whole("ranks", k, 1, MAX_RANK) for k in value}))
    if not ranks:
        raise OptionsError("ranks must be positive integers, e.g. 5,10,25,50,100")
    return ranks


def _beta(beta):
    if not (is_real(beta) and math.isfinite(beta)):
        raise OptionsError(f"the F-measure weight beta must be a positive number, not {beta!r}")
    if beta > MAX_BETA:
        raise OptionsError(f"the F-measure weight beta must be at most {MAX_BETA:g}")
    if not beta > 0:
        raise OptionsError("the F-measure weight beta must be a positive number")
    return beta


def _levels(value):
    if isinstance(value, bool) or value not in PR_LEVELS:
        raise OptionsError(
            f"the precision-recall curve has {' or '.join(map(str, PR_LEVELS))} "
            f"recall levels, not {value!r}"
        )
    return value


def _measures(names):
    """The canonical names of ``names``, each once, in their order."""
    from .scoring.measures import canonical  # late: the measures need numpy, --help does not

    if isinstance(names, str) or not all(isinstance(n, str) for n in names):
        raise OptionsError(
            f"measures must be a list of measure names (ndcg(gain=exp2)@10), not {names!r}"
        )
    return tuple(dict.fromkeys(canonical(n) for n in names))


#: every scoring option, in the order of the command line's help
OPTIONS: tuple[Option, ...] = (
    Option(
        "ranks",
        "ranks",
        check=_ranks,
        flags=("--ranks",),
        group="measures",
        metavar="K1,K2,...",
        help="the K of p@K, r@K, (n)(d)cg@K (default 5,10,25,50,100)",
        widget=Widget("line", "Ranks K of the @K measures:", "ranks", 4),
    ),
    Option(
        "curve_length",
        "whole",
        least=1,
        most=MAX_RANK,
        flags=("--curve-length",),
        group="measures",
        metavar="N",
        help="ranks of the (N)(D)CG and F curves (default 100)",
        widget=Widget("spin", "Curve length (ranks):", "curve", 5, least=1, most=100000),
    ),
    Option(
        "pr_levels",
        "whole",
        choices=PR_LEVELS,
        check=_levels,
        flags=("--pr-levels",),
        group="measures",
        help="recall levels of the precision-recall curve (default 21)",
        widget=Widget("combo", "Precision-recall levels:", "levels", 6, items=((21, ""), (11, ""))),
    ),
    Option(
        "pr_interpolation",
        "choice",
        choices=PR_INTERPOLATIONS,
        what="precision-recall interpolation",
        flags=("--pr-interpolation",),
        group="measures",
        help="max: P(r) = max precision at recall >= r; psb: psbPlot/SHREC MATLAB; "
        "psbplot: psbPlot's own curve (the query counted as relevant, float32)",
        widget=Widget(
            "combo",
            "Interpolation:",
            "interp",
            7,
            items=(
                ("max", "max: P(r) = max precision at recall >= r"),
                ("psb", "psb: psbPlot / SHREC MATLAB (20 levels, linear)"),
                ("psbplot", "psbplot: psbPlot's own (query counted, float32)"),
            ),
        ),
    ),
    Option(
        "remove_self",
        "flag",
        flags=("--keep-self",),
        dest="keep_self",
        negated=True,
        group="measures",
        help="do not remove a query from its own ranked list (leave-one-out)",
        widget=Widget(
            "check", "Remove a query from its own list (leave-one-out)", "remove_self", 8
        ),
    ),
    Option(
        "psb_class_cutoff",
        "flag",
        flags=("--psb-cutoff",),
        dest="psb_cutoff",
        group="measures",
        help="leave queries of classes with at most 2 members out of the means",
        widget=Widget(
            "check", "Leave classes of at most 2 members out of the means (psbTable)", "cutoff", 9
        ),
    ),
    Option(
        "f_beta",
        "real",
        least=0.0,
        most=MAX_BETA,
        check=_beta,
        flags=("--f-beta",),
        group="measures",
        help="weight of the F-measure curve",
        widget=Widget(
            "double", "F-measure weight beta:", "f_beta", 3, least=0.001, most=MAX_BETA, decimals=3
        ),
    ),
    Option("profile", "profile", flags=("--profile",), group="profile", fixable=False),
    Option(
        "average",
        "choice",
        choices=AVERAGES,
        what="average",
        flags=("--average",),
        group="profile",
        help="what the run mean is: micro (over queries), macro (over classes), "
        "proportional or reciprocal (queries weighted by n_q or 1/n_q)",
        widget=Widget(
            "combo",
            "Run mean (averaging):",
            "average",
            2,
            items=(
                ("micro", "micro: over queries"),
                ("macro", "macro: over classes (mean of class means)"),
                ("proportional", "proportional: queries weighted by their relevant count"),
                ("reciprocal", "reciprocal: queries weighted by 1 / relevant count"),
            ),
        ),
    ),
    Option(
        "max_rank",
        "whole",
        least=1,
        most=MAX_RANK,
        optional=True,
        flags=("--max-rank", "-M"),
        group="profile",
        metavar="N",
        help="only the first N entries of each list count (trec_eval -M)",
        zero="trec_eval -M 0 keeps no document of any list (every value 0, and its "
        "iprec_at_recall printed as -nan); give -M 1 or more",
    ),
    Option(
        "relevance_level",
        "whole",
        least=1,
        most=MAX_GRADE,
        flags=("--relevance-level", "-l"),
        group="profile",
        metavar="L",
        help="judgments below grade L count as not relevant (trec_eval -l; default 1)",
        zero="trec_eval -l 0 counts every judged document relevant, grade-0 lines too, while "
        "shrec-eval keeps grade 0 for 'judged not relevant'; for trec_eval's default measures, "
        "raise the qrels' grade 0 to 1 and give -l 1 (the same numbers)",
    ),
    Option(
        "complete_queries",
        "flag",
        flags=("--complete-queries", "-c"),
        group="profile",
        help="trec_eval profile: average over every query of the qrels, a missing one "
        "scoring 0 (trec_eval -c; -N is --collection-size)",
        owner="trec_eval",
        fixable=False,
    ),
    Option(
        "collection_size",
        "whole",
        least=1,
        most=MAX_COLLECTION,
        optional=True,
        flags=("--collection-size", "-N"),
        group="reading",
        metavar="N",
        help="collection size (TREC qrels do not know it; also changes TN)",
        widget=Widget(
            "spin",
            "Collection size:",
            "collection_size",
            11,
            least=0,
            most=2_000_000_000,
            special="from the assessment",
        ),
    ),
    Option("measures", "names", check=_measures, fixable=False),
)

_BY_NAME = {o.name: o for o in OPTIONS}


def by_name(name: str) -> Option:
    return _BY_NAME[name]


def checked(name: str, value):
    """``value`` of the option ``name`` as the options hold it (ranks sorted,
    measures canonical); an OptionsError saying what is wrong with it."""
    o = _BY_NAME[name]
    if value is None and o.optional:
        return None
    if o.check is not None:
        return o.check(value)
    if o.kind == "whole":
        whole(name, value, int(o.least), int(o.most))
        return value
    if o.kind == "flag":
        if not isinstance(value, bool):
            raise OptionsError(f"{name.replace('_', ' ')} must be true or false, not {value!r}")
        return value
    if o.kind == "choice":
        if value not in o.choices:
            raise OptionsError(
                f"unknown {o.what} {value!r}; expected one of {', '.join(o.choices)}"
            )
        return value
    return value


def owned() -> dict[str, str]:
    """option -> the profile it belongs to."""
    return {o.name: o.owner for o in OPTIONS if o.owner}


def contest_kinds() -> dict[str, tuple[str, Callable]]:
    """What a contest file's ``"options"`` may hold: option -> (what it must
    be, a check of the JSON value's type); the values are then checked as
    EvalOptions checks them."""

    def of(o: Option):
        if o.kind == "ranks":
            return (
                "a list of whole numbers",
                lambda v: (
                    isinstance(v, list)
                    and all(isinstance(k, int) and not isinstance(k, bool) for k in v)
                ),
            )
        if o.kind == "names":
            return (
                "a list of strings",
                lambda v: isinstance(v, list) and all(isinstance(k, str) for k in v),
            )
        if o.kind == "flag":
            return ("true or false", lambda v: isinstance(v, bool))
        if o.kind == "real":
            return ("a number", lambda v: isinstance(v, (int, float)) and not isinstance(v, bool))
        if o.kind == "whole" and not o.choices:
            return ("a whole number", lambda v: isinstance(v, int) and not isinstance(v, bool))
        if o.kind == "whole":
            return ("a whole number", lambda v: isinstance(v, int) and not isinstance(v, bool))
        if o.kind == "choice":
            return (f"one of {', '.join(o.choices)}", lambda v, c=o.choices: v in c)
        return ("a string", lambda v: isinstance(v, str))

    return {o.name: of(o) for o in OPTIONS}
