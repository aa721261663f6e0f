"""The scoring options as a command line spells them, for ``shrec-eval`` and
``shrec-gui`` alike: the measures' and the evaluator profile's option
groups (argparse parent parsers: one definition of their names, defaults,
types and help), the options a command line wrote (told from those left at
their defaults: a contest file's settings give way to the former only), and
the :class:`~shrec_eval.options.EvalOptions` they make.

Light, as the command line's --help is: numpy is imported when a value is
read, the profiles when the options are made.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Sequence

from .choices import DEFAULT_PROFILE
from .choices import PROFILE_NAMES as PROFILES
from .errors import OptionsError
from .options import AVERAGES, MAX_BETA, MAX_RANK, PR_INTERPOLATIONS, EvalOptions


def _argument_type(name: str):
    """An argparse ``type`` from a parser of :mod:`shrec_eval.model.values`
    (imported when an option is read: values needs numpy)."""

    def convert(text: str):
        from .model import values

        try:
            return getattr(values, name)(text)
        except OptionsError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    convert.__name__ = name
    return convert


def _bounded(name: str, *bounds, **kw):
    """An argparse ``type`` for a number in a range (the error names the option)."""

    def convert(text: str):
        from .model import values

        try:
            return getattr(values, name)(text, *bounds, **kw)
        except OptionsError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    convert.__name__ = "number"
    return convert


def _not_zero(convert, why: str):
    """``convert`` (a whole number from 0 up) refusing 0 with ``why``: what
    trec_eval makes of 0 for the option, and why shrec-eval does not take it."""

    def checked(text: str):
        value = convert(text)
        if value == 0:
            raise argparse.ArgumentTypeError(f"0 is not taken: {why}")
        return value

    checked.__name__ = "number"
    return checked


_ranks = _argument_type("parse_ranks")
_rank = _bounded("parse_whole", 1, MAX_RANK)
_level = _not_zero(
    _bounded("parse_whole", 0, 2**31 - 1),
    "trec_eval -l 0 counts every judged document relevant, grade-0 lines too, while "
    "shrec-eval keeps grade 0 for 'judged not relevant'; for trec_eval's default measures, "
    "raise the qrels' grade 0 to 1 and give -l 1 (the same numbers)",
)
_max_rank = _not_zero(
    _bounded("parse_whole", 0, MAX_RANK),
    "trec_eval -M 0 keeps no document of any list (every value 0, and its "
    "iprec_at_recall printed as -nan); give -M 1 or more",
)
_beta = _bounded("parse_real", 0.0, MAX_BETA)


def engine_parser() -> argparse.ArgumentParser:
    """The engine options (evaluate, compare, demo)."""
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("measures")
    g.add_argument(
        "--ranks",
        type=_ranks,
        default=EvalOptions().ranks,
        metavar="K1,K2,...",
        help="the K of p@K, r@K, (n)(d)cg@K (default 5,10,25,50,100)",
    )
    g.add_argument(
        "--curve-length",
        type=_rank,
        default=100,
        metavar="N",
        help="ranks of the (N)(D)CG and F curves (default 100)",
    )
    g.add_argument(
        "--pr-levels",
        type=int,
        choices=(11, 21),
        default=21,
        help="recall levels of the precision-recall curve (default 21)",
    )
    g.add_argument(
        "--pr-interpolation",
        choices=PR_INTERPOLATIONS,
        default="max",
        help="max: P(r) = max precision at recall >= r; psb: psbPlot/SHREC MATLAB; "
        "psbplot: psbPlot's own curve (the query counted as relevant, float32)",
    )
    g.add_argument(
        "--keep-self",
        action="store_true",
        help="do not remove a query from its own ranked list (leave-one-out)",
    )
    g.add_argument(
        "--psb-cutoff",
        action="store_true",
        help="leave queries of classes with at most 2 members out of the means",
    )
    g.add_argument("--f-beta", type=_beta, default=1.0, help="weight of the F-measure curve")
    return p


def profile_parser() -> argparse.ArgumentParser:
    """The evaluator profile and the averaging (evaluate, check, compare, demo)."""
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("evaluator profile and averaging")
    g.add_argument(
        "--profile",
        choices=PROFILES,
        default=DEFAULT_PROFILE,
        help="follow the rules of an official evaluator: its list handling, definitions, "
        "averages, table columns and ranking measure (default shrec; 'shrec-eval measures "
        "--profile NAME' shows what it computes)",
    )
    g.add_argument(
        "--average",
        choices=AVERAGES,
        default="micro",
        help="what the run mean is: micro (over queries), macro (over classes), "
        "proportional or reciprocal (queries weighted by n_q or 1/n_q)",
    )
    g.add_argument(
        "--native",
        metavar="DIR",
        help="write the evaluator's own output files (DIR/<run name>/ with several runs)",
    )
    g.add_argument(
        "--max-rank",
        "-M",
        type=_max_rank,
        metavar="N",
        help="only the first N entries of each list count (trec_eval -M)",
    )
    g.add_argument(
        "--relevance-level",
        "-l",
        type=_level,
        default=1,
        metavar="L",
        help="judgments below grade L count as not relevant (trec_eval -l; default 1)",
    )
    g.add_argument(
        "--complete-queries",
        "-c",
        action="store_true",
        help="trec_eval profile: average over every query of the qrels, a missing one "
        "scoring 0 (trec_eval -c; -N is --collection-size)",
    )
    return p


def scoring_parsers() -> list[argparse.ArgumentParser]:
    """The measures' and the profile's options, as parent parsers: what
    ``shrec-gui`` takes of ``shrec-eval demo``'s options."""
    return [engine_parser(), profile_parser()]


#: command-line option (argparse dest) -> the EvalOptions field it sets
OPTION_FIELDS = {
    "ranks": "ranks",
    "curve_length": "curve_length",
    "pr_levels": "pr_levels",
    "pr_interpolation": "pr_interpolation",
    "keep_self": "remove_self",
    "psb_cutoff": "psb_class_cutoff",
    "f_beta": "f_beta",
    "profile": "profile",
    "average": "average",
    "max_rank": "max_rank",
    "relevance_level": "relevance_level",
    "complete_queries": "complete_queries",
    "collection_size": "collection_size",
}


#: command-line option (argparse dest) -> the reading rule it sets, and its value
_READING_FLAGS = {
    "matrix_order": ("matrix_order", lambda args: args.matrix_order),
    "no_normalize_ids": ("normalize_ids", lambda args: False),
    "trec_order": ("trec_order", lambda args: True),
}


def settings_given(args, given: Iterable[str] | None = None) -> dict:
    """The settings a command line asked for (setting -> value: EvalOptions
    fields and reading rules), from the options it wrote (argparse dests,
    :func:`given_options`; None: the flags that are on), for a profile to
    refuse those it fixes otherwise (:meth:`Profile.refuse_others
    <shrec_eval.profiles.base.Profile.refuse_others>`)."""
    if given is None:
        flags = ("keep_self", "psb_cutoff", "complete_queries", "no_normalize_ids", "trec_order")
        given = {d for d in flags if getattr(args, d, False)}
    out = {}
    for dest in given:
        if dest == "keep_self":
            out["remove_self"] = not args.keep_self
        elif dest in OPTION_FIELDS and hasattr(args, dest):
            out[OPTION_FIELDS[dest]] = getattr(args, dest)
        elif dest in _READING_FLAGS and hasattr(args, dest):
            rule, value = _READING_FLAGS[dest]
            out[rule] = value(args)
    return out


def command_line_words(setting: str, value) -> str:
    """How a command line asks for a setting (``--matrix-order listing``)."""
    if setting == "remove_self":
        return "--keep-self" if not value else "no --keep-self"
    if setting == "normalize_ids":
        return "--no-normalize-ids" if not value else "no --no-normalize-ids"
    dest = {f: d for d, f in OPTION_FIELDS.items()}.get(setting, setting)
    flag = "--" + dest.replace("_", "-")
    if isinstance(value, bool):
        return flag if value else f"no {flag}"
    return f"{flag} {value}"


def given_options(argv: Sequence[str], parser: argparse.ArgumentParser) -> set[str]:
    """The options ``argv`` writes (argparse dests), told from those left at
    their defaults; ``parser``: a new parser of that command line (its
    defaults are changed here), subcommands included."""
    stack = [parser]
    while stack:
        p = stack.pop()
        for action in p._actions:  # argparse keeps no public list of them
            if isinstance(action, argparse._SubParsersAction):
                stack.extend(action.choices.values())
            elif action.dest not in ("help", "version"):
                action.default = argparse.SUPPRESS
    return set(vars(parser.parse_known_args(argv)[0]))


def given_fields(given: Iterable[str]) -> set[str]:
    """The EvalOptions fields of the options a command line wrote (argparse
    dests, :func:`given_options`)."""
    return {OPTION_FIELDS[d] for d in given if d in OPTION_FIELDS}


def profile_options(args) -> dict:
    """The evaluator profile's options (every command that scores has them)."""
    return {
        "profile": args.profile,
        "average": args.average,
        "max_rank": args.max_rank,
        "relevance_level": args.relevance_level,
        "complete_queries": args.complete_queries,
    }


def eval_options(
    args, extra_ranks: Iterable[int] = (), given=None, measures: Sequence[str] = ()
) -> EvalOptions:
    """The options of the measures' and the profile's groups in ``args``,
    with ``extra_ranks`` after those of --ranks and the ``measures`` with
    parameters (the measures a command asks for by name); an OptionsError
    when an option the command line wrote (``given``: argparse dests,
    :func:`given_options`; None: the flags that are on) is one the profile
    fixes otherwise (``--profile psbtable --keep-self``), naming both values."""
    from .profiles import get_profile

    get_profile(args.profile).refuse_others(settings_given(args, given), command_line_words)
    return EvalOptions(
        ranks=tuple(args.ranks) + tuple(sorted(set(extra_ranks) - set(args.ranks))),
        curve_length=args.curve_length,
        pr_levels=args.pr_levels,
        pr_interpolation=args.pr_interpolation,
        remove_self=not args.keep_self,
        psb_class_cutoff=args.psb_cutoff,
        f_beta=args.f_beta,
        measures=tuple(measures),
        **profile_options(args),
    )
