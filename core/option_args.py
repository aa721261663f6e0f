"""The scoring options as a command line spells them, for ``shrec-eval`` and
``shrec-gui`` alike: the measures' and the evaluator profile's option
groups (argparse parent parsers: one definition of their names, defaults,
types and help), the options a command line wrote (told from those left at
their defaults: a contest file's settings give way to the former only), and
the :class:`~shrec_eval.options.EvalOptions` they make.

Light, as the command line's --help is: no numpy (the option values are
read by :mod:`shrec_eval.model.number_text`); the profiles are imported
when the options are made.
"""

from __future__ import annotations

import argparse
import difflib
from collections.abc import Iterable, Sequence
from dataclasses import fields
from typing import Any

from .choices import DEFAULT_PROFILE, builtin_profile_names
from .errors import OptionsError
from .model import number_text
from .option_schema import OPTIONS, Option, by_name
from .options import EvalOptions


def _argument_type(name: str):
    """An argparse ``type`` from a parser of :mod:`shrec_eval.model.number_text`."""
    convert = bounded_arg(name)
    convert.__name__ = name
    return convert


def bounded_arg(name: str, *bounds, **kw):
    """An argparse ``type`` for a number in a range (the error names the option)."""

    def convert(text: str):
        try:
            return getattr(number_text, name)(text, *bounds, **kw)
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


def profile_arg(text: str) -> str:
    """``--profile``'s value: a profile's name (built in, in the config
    folder, of an installed package) or an evaluator file (``.toml``, a
    path); read when the options are made."""
    from .profiles import is_file_name, names  # late: the profiles need numpy, --help does not

    if text in builtin_profile_names() or is_file_name(text):
        return text  # a built-in's name (from their files) or a file: nothing else looked for
    known = names()  # the config folder's and the installed packages' evaluators too
    if text in known:
        return text
    near = difflib.get_close_matches(text, known, n=1, cutoff=0.6)
    raise argparse.ArgumentTypeError(
        f"unknown profile {text!r}: the profiles are {', '.join(known)}, or an evaluator "
        "file (NAME.toml)" + (f"; did you mean {near[0]}?" if near else "")
    )


profile_arg.__name__ = "profile"

#: the defaults of the options (the dataclass's, without making one)
DEFAULTS = {f.name: f.default for f in fields(EvalOptions)}


def _type(o: Option):
    """The argparse ``type`` of an option of the schema."""
    if o.kind == "ranks":
        return _argument_type("parse_ranks")
    if o.kind == "real":
        return bounded_arg("parse_real", o.least, o.most)
    if o.kind == "whole" and o.zero:
        return _not_zero(bounded_arg("parse_whole", 0, int(o.most)), o.zero)
    if o.kind == "whole":
        return bounded_arg("parse_whole", int(o.least), int(o.most))
    return None


#: the value types of the command line's options (option_groups uses them too)
ranks_arg = _type(by_name("ranks"))
rank_arg = _type(by_name("curve_length"))
_beta = _type(by_name("f_beta"))
_level = _type(by_name("relevance_level"))
_max_rank = _type(by_name("max_rank"))


PROFILE_HELP = (
    "follow the rules of an official evaluator: its list handling, definitions, "
    "averages, table columns and ranking measure: a profile's name (default shrec; "
    "'shrec-eval profiles' lists them) or an evaluator file (FILE.toml: 'shrec-eval "
    "profiles show shrec' prints one); 'shrec-eval measures --profile NAME' shows what it "
    "computes"
)


def add_option(group, name: str, **changes) -> None:
    """The command-line option of the scoring option ``name``, as the schema
    (:data:`shrec_eval.option_schema.OPTIONS`) defines it."""
    o = by_name(name)
    kw: dict = {"help": o.help}
    if o.kind == "flag":
        kw["action"] = "store_true"
    elif o.kind == "profile":
        kw.update(type=profile_arg, default=DEFAULT_PROFILE, metavar="NAME|FILE.toml")
        kw["help"] = PROFILE_HELP
    else:
        if o.kind == "choice" or (o.kind == "whole" and o.choices):
            kw["choices"] = o.choices
            kw["type"] = int if o.kind == "whole" else None
        else:
            kw["type"] = _type(o)
        if DEFAULTS[o.name] is not None:
            kw["default"] = DEFAULTS[o.name]
        if o.metavar:
            kw["metavar"] = o.metavar
    if o.dest:
        kw["dest"] = o.dest
    kw.update(changes)
    group.add_argument(*o.flags, **{k: v for k, v in kw.items() if v is not None})


def engine_parser() -> argparse.ArgumentParser:
    """The engine options (evaluate, compare, demo)."""
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("measures")
    for o in OPTIONS:
        if o.group == "measures":
            add_option(g, o.name)
    return p


def profile_parser() -> argparse.ArgumentParser:
    """The evaluator profile and the averaging (evaluate, check, compare, demo)."""
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("evaluator profile and averaging")
    for o in OPTIONS:
        if o.group != "profile":
            continue
        add_option(g, o.name)
        if o.name == "average":  # an output, not an option of the scoring
            g.add_argument(
                "--native",
                metavar="DIR",
                help="write the evaluator's own output files (DIR/<run name>/ with several runs)",
            )
    return p


def scoring_parsers() -> list[argparse.ArgumentParser]:
    """The measures' and the profile's options, as parent parsers: what
    ``shrec-gui`` takes of ``shrec-eval demo``'s options."""
    return [engine_parser(), profile_parser()]


#: command-line option (argparse dest) -> the EvalOptions field it sets
OPTION_FIELDS = {o.argument: o.name for o in OPTIONS if o.flags}


_BY_ARGUMENT = {o.argument: o for o in OPTIONS if o.flags}

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
        flags = [o.argument for o in OPTIONS if o.kind == "flag" and o.flags]
        flags += ["no_normalize_ids", "trec_order"]
        given = {d for d in flags if getattr(args, d, False)}
    out = {}
    for dest in given:
        o = _BY_ARGUMENT.get(dest)
        if o is not None and o.negated and hasattr(args, dest):
            out[o.name] = not getattr(args, dest)
        elif dest in OPTION_FIELDS and hasattr(args, dest):
            out[OPTION_FIELDS[dest]] = getattr(args, dest)
        elif dest in _READING_FLAGS and hasattr(args, dest):
            rule, value = _READING_FLAGS[dest]
            out[rule] = value(args)
    return out


def command_line_words(setting: str, value) -> str:
    """How a command line asks for a setting (``--matrix-order listing``)."""
    o = next((o for o in OPTIONS if o.name == setting and o.flags), None)
    if o is not None and o.negated:
        return o.flags[0] if not value else f"no {o.flags[0]}"
    if setting == "normalize_ids":
        return "--no-normalize-ids" if not value else "no --no-normalize-ids"
    flag = o.flags[0] if o is not None else "--" + setting.replace("_", "-")
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
    return {o.name: getattr(args, o.argument) for o in OPTIONS if o.group == "profile"}


def eval_options(
    args, extra_ranks: Iterable[int] = (), given=None, measures: Sequence[str] = ()
) -> EvalOptions:
    """The options of the measures' and the profile's groups in ``args``,
    with ``extra_ranks`` after those of --ranks and the ``measures`` with
    parameters (the measures a command asks for by name); an OptionsError
    when an option the command line wrote (``given``: argparse dests,
    :func:`given_options`; None: the flags that are on) is one the profile
    fixes otherwise (``--profile psbtable --keep-self``), naming both values."""
    values: dict[str, Any] = {
        o.name: (not getattr(args, o.argument)) if o.negated else getattr(args, o.argument)
        for o in OPTIONS
        if o.group == "measures"
    }
    values["ranks"] = tuple(args.ranks) + tuple(sorted(set(extra_ranks) - set(args.ranks)))
    options = EvalOptions(**values, measures=tuple(measures), **profile_options(args))
    options.rules.refuse_others(settings_given(args, given), command_line_words)
    return options
