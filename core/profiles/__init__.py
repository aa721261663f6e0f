"""The evaluators the project reproduces, one small module each (see
docs/profiles.md): ``shrec`` (the default), ``boli``, ``psbtable``,
``shapenet17`` and ``trec_eval``.

This is the one list of profiles: the command line's choices, the app's
Options dialog, contest files and the engine all read it.  A new profile is
its module (defining ``PROFILE``) and one line in :data:`NAMES` and in
:func:`_load`.  The names are known without importing numpy (``shrec-eval
--help``); the profiles themselves are loaded on first use.
"""

from __future__ import annotations

from functools import cache

from ..errors import OptionsError

__all__ = ["DEFAULT", "Profile", "get_profile", "load_assessment", "load_run", "REGISTRY", "NAMES"]

#: every profile, in the order the command line and the app list them
NAMES: tuple[str, ...] = ("shrec", "boli", "psbtable", "shapenet17", "trec_eval")
#: the profile of a contest that names none
DEFAULT = "shrec"


@cache
def _load() -> dict:
    # literal imports, so that freezing tools (PyInstaller) see the modules
    from . import boli, psbtable, shapenet17, shrec, trec_eval

    modules = (shrec, boli, psbtable, shapenet17, trec_eval)
    registry = {m.PROFILE.name: m.PROFILE for m in modules}
    if tuple(registry) != NAMES:
        raise RuntimeError(f"the profile modules {tuple(registry)} differ from NAMES {NAMES}")
    return registry


def __getattr__(name: str):
    """``REGISTRY`` (name -> Profile) and ``Profile``, loaded on first use."""
    if name == "REGISTRY":
        return _load()
    if name == "Profile":
        from .base import Profile

        return Profile
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def get_profile(name):
    """The profile of that name (an OptionsError naming the others if none);
    a profile given is returned as it is."""
    if not isinstance(name, str):
        return name
    try:
        return _load()[name]
    except KeyError:
        raise OptionsError(
            f"unknown profile {name!r}; expected one of {', '.join(NAMES)}"
        ) from None


def load_assessment(path, *, profile=DEFAULT, **settings):
    """Read an assessment file by the rules of ``profile`` (a name or a
    Profile): what the command line reads under ``--profile``.  ``settings``
    are the reader's (format, queries, graded, collection, normalize_ids,
    matrix_order...: :func:`shrec_eval.readers.load_assessment`)."""
    return get_profile(profile).load_assessment(path, **settings)


def load_run(path, assessment, *, profile=None, **settings):
    """Read a run against an assessment by the rules of ``profile``; None:
    those of the profile the assessment was read under.  ``settings`` are
    the reader's (format, name, metric, ids, top_k...:
    :func:`shrec_eval.readers.load_run`)."""
    if profile is None:
        from ..readers import load_run as read

        return read(path, assessment, **settings)
    return get_profile(profile).load_run(path, assessment, **settings)
