"""The fields of a contest file checked as they are read from JSON (each key's
kind, paths without NUL, plain JSON values), paths kept relative to the
contest file and normalised, and older versions of the file brought to the
current one (CONTEST_VERSION).

For the contest file's readers (contest, contest_options): the kinds of a
field (INT, BOOL, STR, COLOUR, PATH, VIEW: what is expected and its check),
checked_fields, one_of, path_of, relative_path, as_path, path_text and
migrated_contest."""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Set
from pathlib import Path

from .._version import __version__
from ..errors import FormatError

#: the version of the contest file this module writes (and the newest it reads)
CONTEST_VERSION = 3


INT = ("a whole number", lambda v: isinstance(v, int) and not isinstance(v, bool))
BOOL = ("true or false", lambda v: isinstance(v, bool))
STR = ("a string", lambda v: isinstance(v, str))
#: a run's colour, as the app and the figures draw it
COLOUR = (
    'a colour written "#rrggbb" (e.g. "#1f77b4")',
    lambda v: isinstance(v, str) and re.fullmatch(r"#[0-9A-Fa-f]{6}", v) is not None,
)


def path_text(v) -> bool:
    """A path as text a file system takes: no NUL, no lone surrogate."""
    if not isinstance(v, str) or not v or "\x00" in v:
        return False
    try:
        v.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


PATH = ("a string (a file path: no NUL, no invalid character)", path_text)
_NUMBER = (
    "a number",
    lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
)
_INTS = (
    "a list of whole numbers",
    lambda v: isinstance(v, list) and all(INT[1](k) for k in v),
)
_STRS = ("a list of strings", lambda v: isinstance(v, list) and all(STR[1](k) for k in v))


def _plain(value) -> bool:
    """Whether ``value`` is JSON data: objects with string keys, lists,
    strings, booleans, whole or finite numbers, null."""
    if value is None or isinstance(value, (str, bool, int)):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_plain(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v) for k, v in value.items())
    return False


VIEW = ("an object of JSON values", lambda v: isinstance(v, dict) and _plain(v))


def checked_fields(d, what: str, kinds: dict, source, *, optional: Set[str] = frozenset()) -> dict:
    """``d`` if it is an object whose keys are all known and whose values
    have their kinds (None allowed for ``optional`` keys); else a
    FormatError naming ``source``."""
    if not isinstance(d, dict):
        raise FormatError(source, f"{what} must be an object, not {json.dumps(d)}")
    extra = set(d) - set(kinds)
    if extra:
        raise FormatError(
            source,
            f"unknown {what} setting(s) {', '.join(sorted(extra))}; "
            f"known: {', '.join(sorted(kinds))}",
        )
    for key, value in d.items():
        expected, ok = kinds[key]
        if not (ok(value) or (value is None and key in optional)):
            raise FormatError(
                source, f"{what} setting {key!r} must be {expected}, not {json.dumps(value)}"
            )
    return d


def one_of(value, known, what: str, source) -> None:
    if value is not None and value not in known:
        raise FormatError(
            source, f"unknown {what} {value!r}; expected one of {', '.join(sorted(known))}"
        )


def path_of(value, base) -> Path:
    """A path as a contest file in ``base`` writes it: relative ones joined
    to ``base``, and those that climb (``..``, as :func:`relative_path` writes a
    file outside the folder) canonical, as the path was before it was
    written (one file, one spelling: the app compares a session's paths with
    its contest's, the messages name the file as the library names it)."""
    p = Path(value)
    if base is None or p.is_absolute():
        return p
    return _canonical(Path(base) / p) if ".." in p.parts else Path(base) / p


def _canonical(path: Path) -> Path:
    """``path`` absolute with its folders' symbolic links and ``..`` resolved
    (the last part kept as named: a run that is a link stays the link)."""
    p = Path(path).absolute()
    if p.name in ("", ".", ".."):
        return p.resolve()
    return p.parent.resolve() / p.name


def relative_path(path: Path | None, base) -> str | None:
    """``path`` as written in a file kept in ``base``: relative to it with
    forward slashes and no more ``..`` than needed; absolute when the two
    share nothing below the root (another drive, another top folder)."""
    if path is None:
        return None
    if base is None:
        return path.as_posix()
    target, folder = _canonical(path), Path(base).resolve()
    try:
        common = Path(os.path.commonpath([target, folder]))
    except ValueError:  # another drive (Windows)
        return target.as_posix()
    if common == Path(common.anchor):
        return target.as_posix()
    return Path(os.path.relpath(target, folder)).as_posix()


def as_path(obj, name: str) -> None:
    value = getattr(obj, name)
    if value is not None and not isinstance(value, Path):
        object.__setattr__(obj, name, Path(value))


def _from_version_1(d: dict, source) -> dict:
    """A version-1 contest as version 2: a run's colour was ``"color"``, and
    there was no ``"view"``."""
    if "view" in d:
        raise FormatError(source, 'a version-1 contest file has no "view" (version 2 has)')
    runs = d.get("runs")
    if isinstance(runs, list):
        moved = []
        for r in runs:
            if isinstance(r, dict):
                if "colour" in r:
                    raise FormatError(
                        source,
                        "unknown run setting(s) colour in a version-1 contest file (version 1 "
                        'spells it "color"; version 2 "colour")',
                    )
                r = {("colour" if k == "color" else k): v for k, v in r.items()}
            moved.append(r)
        d = {**d, "runs": moved}
    return {**d, "version": 2}


def _from_version_2(d: dict, source) -> dict:
    """A version-2 contest as version 3 (which added the shapes folders)."""
    for key in ("shapes", "query_shapes"):
        if key in d:
            raise FormatError(
                source, f'a version-2 contest file has no "{key}" (version 3 has); fix "version"'
            )
    return {**d, "version": 3}


#: version -> the function reading a dict of that version as the next version
_MIGRATIONS = {1: _from_version_1, 2: _from_version_2}


def migrated_contest(d: dict, source) -> dict:
    """``d`` (a contest file of any version this module knows) as a dict of
    :data:`CONTEST_VERSION`; a FormatError for an unknown or newer version."""
    version = d.get("version", 1)
    if not INT[1](version):
        raise FormatError(source, f"contest setting 'version' must be {INT[0]}, not {version!r}")
    if version > CONTEST_VERSION:
        raise FormatError(
            source,
            f"this contest file is of version {version}, newer than this "
            f"shrec-eval {__version__} understands ({CONTEST_VERSION}); update shrec-eval",
        )
    if version < 1:
        raise FormatError(source, f"unknown contest file version {version}")
    while version < CONTEST_VERSION:
        d = _MIGRATIONS[version](d, source)
        version = d["version"]
    return d


def is_contest_file(path) -> bool:
    """A contest file (a session saved by the app, the demo's contest.json)
    is told by its name: ``.json``."""
    return os.fspath(path).lower().endswith(".json")


def contest_roles(paths) -> tuple[str | None, str | None, list[str]]:
    """What each file a command line names is, as ``shrec-eval evaluate`` and
    ``shrec-gui`` take them: a contest file (``.json``) named alone, else the
    assessment first and the runs after it (whatever their content looks
    like: an integer matrix of four columns reads as qrels, yet after the
    assessment it is a run).  Returns (contest file, assessment, runs); one
    of the first two is None; no path is left out."""
    paths = [os.fspath(p) for p in paths]
    if not paths:
        return None, None, []
    if len(paths) == 1 and is_contest_file(paths[0]):
        return paths[0], None, []
    return None, paths[0], paths[1:]
