"""The evaluators the project reproduces, one small module each
(docs/profiles.md): ``shrec`` (measures.md, the default),
``boli``, ``psbtable``, ``shapenet17`` and ``trec_eval``."""

from __future__ import annotations

from ..options import PROFILES, OptionsError
from . import boli, psbtable, shapenet17, shrec, trec_eval
from .base import Profile

__all__ = ["Profile", "get_profile", "REGISTRY"]

REGISTRY: dict[str, Profile] = {
    p.name: p
    for p in (shrec.PROFILE, boli.PROFILE, psbtable.PROFILE, shapenet17.PROFILE, trec_eval.PROFILE)
}
assert tuple(REGISTRY) == PROFILES


def get_profile(name: str) -> Profile:
    try:
        return REGISTRY[name]
    except KeyError:
        raise OptionsError(
            f"unknown profile {name!r}; expected one of {', '.join(REGISTRY)}"
        ) from None
