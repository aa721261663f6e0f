"""The evaluators the project reproduces, one small module each (see
docs/profiles.md): ``shrec`` (the default), ``boli``, ``psbtable``,
``shapenet17`` and ``trec_eval``.

:data:`REGISTRY` is the one list of profiles: the command line's choices,
the app's Options dialog, contest files and the engine all read it (a new
profile is its module and one entry here).
"""

from __future__ import annotations

from ..errors import OptionsError
from . import boli, psbtable, shapenet17, shrec, trec_eval
from .base import Profile

__all__ = ["Profile", "get_profile", "REGISTRY", "NAMES"]

#: every profile, in the order the command line and the app list them
REGISTRY: dict[str, Profile] = {
    p.name: p
    for p in (
        shrec.PROFILE,
        boli.PROFILE,
        psbtable.PROFILE,
        shapenet17.PROFILE,
        trec_eval.PROFILE,
    )
}
NAMES: tuple[str, ...] = tuple(REGISTRY)


def get_profile(name: str) -> Profile:
    try:
        return REGISTRY[name]
    except KeyError:
        raise OptionsError(
            f"unknown profile {name!r}; expected one of {', '.join(REGISTRY)}"
        ) from None
