"""The evaluators the project reproduces, and those an organiser describes
(see docs/profiles.md and docs/evaluators.md).

Every profile is an evaluator file (TOML, :mod:`.evaluator_file`): the
built-in ones are this package's ``builtin/NAME.toml`` (``shrec``, the
default, ``boli``, ``psbtable``, ``shapenet17``, ``trec_eval`` and
``sipiran21``), and more are found in the user's config folder and in
installed packages (:mod:`.discovery`) or given by path (``--profile
FILE.toml``).  What an evaluator does that is code is named from its file
(:mod:`.hooks`).

This is the one registry of profiles: the command line's choices, the app's
Options dialog, contest files, the measure registry and the engine all read
it, and no code outside this package compares a profile's name.  A profile
is an object that owns its rules (:class:`~shrec_eval.profiles.base.Profile`:
how files are read under it, the options it fixes, its measures, columns and
ranking measure, its native files and text output); it is resolved once (an
:class:`~shrec_eval.options.EvalOptions` holds it) and travels with the
options, to a Dask worker too.  The built-ins' names are known without
importing numpy (``shrec-eval --help``); the profiles themselves are made on
first use.
"""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

from ..choices import DEFAULT_PROFILE, PROFILE_NAMES, builtin_files
from ..errors import OptionsError
from ..reading.readers import load_run as read_run
from .base import Profile
from .discovery import found
from .evaluator_file import EvaluatorFileError, Problem, build, parse_text
from .evaluator_file import load_file as read_file
from .own_options import check_own_options

__all__ = [
    "DEFAULT",
    "Profile",
    "get_profile",
    "listed",
    "load_assessment",
    "load_run",
    "REGISTRY",
    "NAMES",
    "options_given",
    "options_profile",
    "check_own_options",
]

#: the built-in profiles, in the order the command line and the app list them
NAMES: tuple[str, ...] = PROFILE_NAMES
#: the profile of a contest that names none
DEFAULT = DEFAULT_PROFILE

#: name -> profile: the built-ins, then those found or loaded in this process
_KNOWN: dict = {}
#: "builtins": the built-ins are all in _KNOWN; "building": this thread (the
#: one holding _LOCK) is making them, and its own look-ups see those made
_STATE = {"builtins": False, "building": False}
#: what was found (config folder, packages) but could not be made: name -> error
_BROKEN: dict = {}
#: held while the registry changes: the built-ins made (once, by the first
#: thread to ask; the others wait for the whole registry instead of seeing it
#: half made), a profile registered, the loaded ones forgotten.  Reentrant: a
#: built-in being made looks up those made before it (name_taken)
_LOCK = threading.RLock()


def _builtins() -> dict:
    """The built-in profiles, made from their files once (in the order of
    their ``position``; each one known as soon as it is made, for the next
    ones' checks), by one thread while any other that asks waits."""
    if _STATE["builtins"]:  # made: no lock taken (every look-up of a profile comes here)
        return _KNOWN
    with _LOCK:
        if not _STATE["builtins"] and not _STATE["building"]:
            _STATE["building"] = True
            try:
                _make_builtins()
            finally:
                _STATE["building"] = False
            _STATE["builtins"] = True  # only once every built-in is known
    return _KNOWN


def _make_builtins() -> None:
    # the files as the built-ins' names were read from them (parsed once)
    docs = [
        (doc.get("evaluator", {}).get("position", 1000), path, text, doc)
        for path, text, doc in builtin_files()
    ]
    for _, path, text, doc in sorted(docs, key=lambda d: (d[0], d[1].name)):
        profile = build(doc, text=text, source=path, origin="built in", path=path)
        _KNOWN[profile.name] = profile


def __getattr__(name: str):
    """``REGISTRY`` (name -> Profile: the built-ins and those loaded), made
    on first use."""
    if name == "REGISTRY":
        return _builtins()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def is_file_name(text: str) -> bool:
    """Whether a ``--profile`` value names an evaluator file (``.toml``, or
    a path), not a profile."""
    return text.lower().endswith(".toml") or os.sep in text or "/" in text


def name_taken(profile) -> str | None:
    """Why ``profile`` cannot be known by its name: a built-in's with other
    rules; None when it can.  A built-in's name may be taken only by a copy
    of it (``shrec-eval profiles show NAME > file``); another evaluator's
    name is taken over (the file loaded last is the profile of that name,
    as a file edited and loaded again)."""
    known = _builtins().get(profile.name)
    if known is None or known is profile or known.origin != "built in" or profile == known:
        return None
    return (
        f"its profile is named {profile.name!r}, the name of a built-in profile with other "
        "rules; give it another name ([evaluator] name)"
    )


#: what is made from the registry and made again when it changes (the measure
#: registry's lists: shrec_eval.scoring.measures registers its forget_profiles)
_ON_CHANGE: list = []


def on_change(forget) -> None:
    """Call ``forget()`` whenever a profile is added to the registry or the
    loaded ones are forgotten."""
    _ON_CHANGE.append(forget)


def _changed() -> None:
    for forget in _ON_CHANGE:
        forget()


def register(profile):
    """Know ``profile`` by its name in this process (an evaluator file
    loaded, one found); an OptionsError when the name is another profile's
    (:func:`name_taken`).  A copy of a built-in is returned as it is."""
    with _LOCK:
        why = name_taken(profile)
        if why is not None:
            raise OptionsError(f"{profile.path or 'this evaluator'}: {why}")
        known = _KNOWN.get(profile.name)
        if known is not None and known.origin == "built in":
            return profile  # a copy of a built-in: the built-in stays the registry's
        _KNOWN[profile.name] = profile
        _changed()
        return profile


#: evaluator files read: (real path, size, time) -> their profile
_FILES: dict = {}


def load_file(path, origin: str = "evaluator file"):
    """The profile of an evaluator file, known by its name from now on (a
    file read again only when it changed: one object for one file)."""
    try:
        st = os.stat(path)
        key = (os.path.realpath(path), st.st_size, st.st_mtime_ns, origin)
    except OSError:
        key = None  # read says why
    if key is not None and stat.S_ISREG(st.st_mode) and key in _FILES:
        return register(_FILES[key])
    profile = register(read_file(path, origin))
    if key is not None and stat.S_ISREG(st.st_mode):
        _FILES[key] = profile
    return profile


def from_table(table, source=None):
    """The profile of an evaluator's table (a contest file embeds one), known
    by its name from now on."""
    return register(build(table, source=source, origin="contest file", path=None))


def _found(name: str):
    """The profile ``name`` of the config folder or a package, made and
    known; None when no such evaluator is found."""
    for f in found():
        if f.name != name:
            continue
        text, table, where = f.read()
        if table is not None:
            profile = build(table, source=where, origin=f.origin)
        elif text is not None:
            profile = build(parse_text(text, where), text=text, source=where, origin=f.origin)
        else:
            profile = read_file(where, f.origin)
        if profile.name != name:
            raise EvaluatorFileError(
                where,
                [
                    _problem(
                        f"it is found as {name!r} ({f.origin}) but names its profile "
                        f"{profile.name!r}; the two must be the same"
                    )
                ],
            )
        return register(profile)
    return None


def _problem(message):
    return Problem(None, message)


def get_profile(name):
    """The profile ``name`` names: a built-in, one already loaded, one of the
    config folder or of an installed package, or an evaluator file
    (``.toml``, a path) or its table (a dict); a profile given is returned
    as it is.  An
    OptionsError naming the known profiles if none; an EvaluatorFileError
    naming the file and the line when its file cannot be one."""
    if not isinstance(name, str):
        if isinstance(name, os.PathLike):
            return load_file(name)
        if isinstance(name, dict):  # an evaluator's table (a contest file embeds one)
            return from_table(name)
        return name
    known = _builtins().get(name)
    if known is not None:
        return known
    if is_file_name(name):
        return load_file(Path(name))
    profile = _found(name)
    if profile is not None:
        return profile
    raise OptionsError(
        f"unknown profile {name!r}; expected one of {', '.join(names())} or an evaluator "
        "file (NAME.toml: 'shrec-eval profiles' lists them)"
    )


def options_profile(profile, rules) -> tuple:
    """(name, Profile) of an EvalOptions' ``profile`` (a name, an evaluator
    file's path or a Profile) and ``rules`` (the Profile it held): the
    Profile kept while it is the one named (an option set copied, or
    received by a Dask worker: nothing is looked up again)."""
    if rules is not None and isinstance(profile, str) and rules.name == profile:
        return profile, rules
    if not isinstance(profile, (str, os.PathLike)) and not hasattr(profile, "native_files"):
        raise OptionsError(
            f"unknown profile {profile!r}; a profile's name or an evaluator file was expected"
        )
    rules = get_profile(profile)
    return rules.name, rules


def names() -> list[str]:
    """The names of the profiles known and found (built-ins first)."""
    out = list(_builtins())
    for f in found():
        if f.name not in out:
            out.append(f.name)
    return out


def listed() -> list:
    """Every profile known: the built-ins, those of the config folder and of
    the installed packages (made now), and those loaded; a found evaluator
    that cannot be made is left out (``shrec-eval profiles`` says why)."""
    _builtins()
    with _LOCK:  # each found evaluator made once, not once by each thread that lists
        for f in found():
            if f.name in _KNOWN or f.name in _BROKEN:
                continue
            try:
                _found(f.name)
            except Exception as exc:  # noqa: BLE001 - said by ``shrec-eval profiles``
                _BROKEN[f.name] = (f, exc)
        return sorted(_KNOWN.values(), key=lambda p: (p.position, p.origin != "built in"))


def broken() -> dict:
    """name -> (where it was found, why it cannot be used) of the evaluators
    found that are not profiles."""
    listed()
    return dict(_BROKEN)


def forget_loaded() -> None:
    """Forget the profiles loaded from evaluator files or found (the
    built-ins stay): the registry as a new process has it; those found are
    found again when asked."""
    with _LOCK:
        for name in [n for n, p in _KNOWN.items() if p.origin != "built in"]:
            del _KNOWN[name]
        _BROKEN.clear()
        _changed()


def load_assessment(path, *, profile=DEFAULT, **settings):
    """Read an assessment file by the rules of ``profile`` (a name, a file or
    a Profile): what the command line reads under ``--profile``.  ``settings``
    are the reader's (format, queries, graded, collection, normalize_ids,
    matrix_order...: :func:`shrec_eval.reading.readers.load_assessment`)."""
    return get_profile(profile).load_assessment(path, **settings)


def load_run(path, assessment, *, profile=None, **settings):
    """Read a run against an assessment by the rules of ``profile``; None:
    those of the profile the assessment was read under.  ``settings`` are
    the reader's (format, name, metric, ids, top_k...:
    :func:`shrec_eval.reading.readers.load_run`)."""
    if profile is None:
        return read_run(path, assessment, **settings)
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
    fields = {f: getattr(given, f) for f in names}
    if "profile" in names:
        fields["profile"] = given.rules
    merged = replace(base, **fields)
    profile = merged.rules
    profile.refuse_others({f: getattr(given, f) for f in names if f != "profile"}, spell)
    if "profile" in names:
        merged = profile.fit(merged)
    return merged
