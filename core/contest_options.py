"""The scoring side of a contest file: its ``"options"`` checked by the
option schema's kinds (:data:`shrec_eval.option_schema.OPTIONS`: every option
defined once) and made into :class:`~shrec_eval.options.EvalOptions`, and its
``"evaluator"``: the path of an evaluator file (relative to the contest
file) or the evaluator's table, the profile its options are scored under
(docs/evaluators.md)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from .errors import FormatError, OptionsError
from .option_schema import OPTIONS, contest_kinds
from .options import EvalOptions
from .profiles import get_profile
from .profiles.evaluator_file import EvaluatorFileError, Problem
from .reading.contest_fields import checked_fields, path_of, relative_path

__all__ = []


def profile_of(profile):
    """A Profile, or the one a name (or an evaluator file) names: the one
    place the contest's files look a profile up."""
    return get_profile(profile)


#: what a contest file's "options" may hold: the option schema's (every option once)
OPTION_KINDS = {k: v for k, v in contest_kinds().items() if k != "profile"} | {
    "profile": ("a profile's name", lambda v: isinstance(v, str) and v != ""),
}


#: the options that may be null (not set)
_OPTIONAL = {o.name for o in OPTIONS if o.optional}


def options_from_dict(d, source, profile=None) -> EvalOptions:
    """The options of a contest file (under ``profile``: the profile of its
    "evaluator", which its "profile" names if it names one)."""
    d = checked_fields(d, "scoring", OPTION_KINDS, source, optional=_OPTIONAL)
    values: dict[str, Any] = {k: (tuple(v) if k == "ranks" else v) for k, v in d.items()}
    if profile is not None:
        named = values.get("profile", profile.name)
        if named != profile.name:
            raise FormatError(
                source,
                f'"options": "profile" is {named!r}, but the contest\'s "evaluator" is the '
                f"profile {profile.name!r}",
            )
        values["profile"] = profile
    try:
        return EvalOptions(**values)
    except OptionsError as exc:
        raise FormatError(source, f'"options": {exc}') from None


def evaluator_from(value, base, source):
    """The profile of a contest file's "evaluator": an evaluator file (its
    path, relative to the contest file) or its table; None without one."""
    if value is None:
        return None

    try:
        return profile_of(path_of(value, base) if isinstance(value, str) else value)
    except EvaluatorFileError as exc:
        if isinstance(value, str):
            raise  # names the evaluator file and the line
        raise EvaluatorFileError(  # its table's keys, in the contest file
            source, [Problem(None, f"evaluator.{p.message}") for p in exc.problems]
        ) from None
    except OptionsError as exc:
        raise FormatError(source, f'"evaluator": {exc}') from None


def evaluator_of(profile, base):
    """What a contest file writes of its profile: an evaluator file's path
    (relative to the contest file), the table it embedded, or nothing (a
    built-in, one of the config folder or of a package: its name is enough)."""
    if profile.origin == "evaluator file" and profile.path is not None:
        return relative_path(Path(profile.path), base)
    if profile.origin == "contest file" and profile.document is not None:
        return copy.deepcopy(dict(profile.document))
    return None
