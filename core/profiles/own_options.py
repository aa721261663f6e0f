"""The options that belong to one profile (trec_eval's ``-c``), declared
here without loading the registry: :class:`~shrec_eval.options.EvalOptions`
refuses them under another profile as it is made, and each profile lists
its own (``Profile.own_options``) from this table."""

from __future__ import annotations

from ..errors import OptionsError

#: option -> the profile it belongs to
OWN_OPTIONS = {"complete_queries": "trec_eval"}


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
