"""The evaluators the project reproduces, one small module each (see
docs/profiles.md): ``shrec`` (the default), ``boli``, ``psbtable``,
``shapenet17``, ``trec_eval`` and ``sipiran21``.

This is the one list of profiles: the command line's choices, the app's
Options dialog, contest files, the measure registry and the engine all read
it, and no code outside this package compares a profile's name.  A profile
is an object that owns its rules (:class:`~shrec_eval.profiles.base.Profile`:
how files are read under it, the options it fixes, its measures, columns and
ranking measure, its native files and text output).  A new profile is its
module (defining ``PROFILE``) and its name in :data:`NAMES`.  The names are
known without importing numpy (``shrec-eval --help``); the profiles
themselves are loaded on first use.
"""

from __future__ import annotations

import importlib
from functools import cache

from ..choices import DEFAULT_PROFILE, PROFILE_NAMES
from ..errors import OptionsError

__all__ = [
    "DEFAULT",
    "Profile",
    "get_profile",
    "load_assessment",
    "load_run",
    "REGISTRY",
    "NAMES",
    "options_given",
]

#: every profile, in the order the command line and the app list them
NAMES: tuple[str, ...] = PROFILE_NAMES
#: the profile of a contest that names none
DEFAULT = DEFAULT_PROFILE


@cache
def _load() -> dict:
    # every module of NAMES (a freezing tool collects this package's modules:
    # packaging/shrec-gui.spec)
    registry = {}
    for name in NAMES:
        profile = importlib.import_module(f"{__name__}.{name}").PROFILE
        if profile.name != name:
            raise RuntimeError(f"the module {name} defines the profile {profile.name!r}")
        registry[name] = profile
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
    matrix_order...: :func:`shrec_eval.reading.readers.load_assessment`)."""
    return get_profile(profile).load_assessment(path, **settings)


def load_run(path, assessment, *, profile=None, **settings):
    """Read a run against an assessment by the rules of ``profile``; None:
    those of the profile the assessment was read under.  ``settings`` are
    the reader's (format, name, metric, ids, top_k...:
    :func:`shrec_eval.reading.readers.load_run`)."""
    if profile is None:
        from ..reading.readers import load_run as read

        return read(path, assessment, **settings)
    return get_profile(profile).load_run(path, assessment, **settings)


def options_given(base, given, names, spell=None):
    """``base`` (a contest file's options, the app's) with the options a
    command line wrote (``names``: EvalOptions fields, their values those of
    ``given``) over it; a profile written there resets the options that
    belong to other profiles (trec_eval's -c), as switching to it does.  An
    option written that the profile (the file's, or the one written) fixes
    otherwise is an OptionsError naming both values (``spell(field,
    value)``: how the command line wrote it).  The command line and the app
    open a contest file under ``--profile`` with this one function."""
    from dataclasses import replace

    names = set(names)
    merged = replace(base, **{f: getattr(given, f) for f in names})
    profile = get_profile(merged.profile)
    profile.refuse_others({f: getattr(given, f) for f in names}, spell)
    if "profile" in names:
        merged = profile.fit(merged)
    return merged
