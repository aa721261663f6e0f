"""The options that belong to one profile (trec_eval's ``-c``): the option
schema says which (:data:`shrec_eval.option_schema.OPTIONS`, ``owner``);
each profile lists its own (``Profile.own_options``) from it, and
:class:`~shrec_eval.options.EvalOptions` refuses them under another."""

from __future__ import annotations

from ..errors import OptionsError
from ..option_schema import owned

#: option -> the profile it belongs to
OWN_OPTIONS = owned()


def own_options(profile: str) -> tuple[str, ...]:
    """The options that belong to ``profile`` (a profile's name)."""
    return tuple(o for o, p in OWN_OPTIONS.items() if p == profile)


def check_own_options(options) -> None:
    """An OptionsError for an option that belongs to one profile set under another."""
    for name, profile in OWN_OPTIONS.items():
        if profile != options.profile and getattr(options, name):
            raise OptionsError(
                f"{name.replace('_', ' ')} belongs to the {profile} profile; "
                "the other profiles always average over every query"
            )
