"""``--native DIR``: the files an official evaluator writes, from the
profile's writer; one folder per run when several runs are scored.

Every file and folder name of these outputs is made here, once
(:func:`native_names`): a profile's writer gives its fixed names as they
are (``table.txt``) and a name made from the data as a pattern of its
``native_files`` and the name (``("table_*.txt", class name)``), never as a
path."""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from ..errors import NativeError, OutputError
from ..model.assessment import Assessment
from ..profiles import listed
from .atomic import check_folder, check_outputs, safe_name, write_text

__all__ = [
    "NativeError",
    "check_native",
    "native_files",
    "native_holds",
    "native_names",
    "native_plan",
    "write_native",
]

#: names Windows gives to devices, with any extension (``CON.txt`` is CON)
_RESERVED = frozenset(
    ["CON", "PRN", "AUX", "NUL"]
    + [f"{port}{n}" for port in ("COM", "LPT") for n in "0123456789\u00b9\u00b2\u00b3"]
)


def check_native(profile) -> None:
    """A NativeError when the profile (a Profile) writes no native files,
    naming those that do (from the registry)."""
    if profile.native is None:
        raise NativeError(
            f"the {profile.name} profile has no native output files; --native needs "
            f"--profile {' or '.join(p.name for p in listed() if p.native)}"
        )


def _reserved(name: str) -> bool:
    """A name Windows takes for a device (``CON``, ``nul.txt``, ``COM1.a.b``)."""
    return name.split(".")[0].rstrip(" ").upper() in _RESERVED


def _fold(name: str) -> str:
    """What a file system that ignores case and Unicode forms (macOS,
    Windows) sees of a name."""
    return unicodedata.normalize("NFC", name).casefold()


def _compose(key, hashed: bool = False) -> str:
    if isinstance(key, str):
        return key
    pattern, value = key
    head, _, tail = pattern.partition("*")
    stem = safe_name(value, hashed=hashed)
    if hashed and _reserved(head + stem + tail):
        stem = "_" + stem
    return head + stem + tail


def native_names(keys: Sequence) -> list[str]:
    """The file (or folder) name of each key a native writer gives, in
    order: a fixed name (``"table.txt"``) as it is; ``(pattern, name)`` the
    pattern's ``*`` replaced by the name made one safe file name
    (:func:`~shrec_eval.outputs.atomic.safe_name`: ``/``, ``\\``, ``..``,
    control characters never leave the folder; over 120 bytes cut).  Names
    that one file system would take for the same file (``Vase`` and
    ``vase`` on macOS and Windows) and names Windows reserves (``CON``)
    get ``~`` and a hash of the name each, so that none replaces another
    wherever the folder is copied.  A NativeError if two still meet."""
    names = [_compose(k) for k in keys]
    folds = Counter(_fold(n) for n in names)
    names = [
        _compose(k, hashed=True)
        if not isinstance(k, str) and (folds[_fold(n)] > 1 or _reserved(n))
        else n
        for k, n in zip(keys, names)
    ]
    seen: set[str] = set()
    for n in names:
        if _fold(n) in seen:
            raise NativeError(
                f"two native files would be the same file {n!r}; give the runs or classes "
                "names that differ by more than case"
            )
        seen.add(_fold(n))
    return names


def native_holds(profile) -> tuple[str, ...]:
    """What a ``--native`` folder may hold before it is written (an earlier
    output of the profile, for one run or for several): its ``native_files``
    (patterns where a name from the data goes), at the top and in a run's
    folder.  Anything else there is refused before scoring."""
    files = profile.native_files
    return tuple(files) + tuple(f"*/{f}" for f in files)


def native_files(results, assessment: Assessment) -> dict[str, str]:
    """``{file name: text}`` of the evaluator's own output for one run (a
    result), or for the results of one group (shapenet17: a method's
    datasets); the names made by :func:`native_names`."""
    group = list(results) if isinstance(results, (list, tuple)) else [results]
    profile = group[0].options.rules
    check_native(profile)
    files = profile.native(group, assessment)
    for key in files:
        declared = key if isinstance(key, str) else key[0]
        if declared not in profile.native_files:  # the gate would refuse it in the folder
            raise ValueError(
                f"the {profile.name} profile's native writer names {declared!r}, which its "
                "native_files does not list"
            )
    return dict(zip(native_names(list(files)), files.values()))


def native_plan(profile, groups: Sequence[str | None]) -> tuple[str, ...]:
    """The files ``--native DIR`` will hold (relative to DIR) for the
    profile's groups (runs; a shapenet17 method) whose names are known
    before scoring: its fixed names, in a run's folder when there are
    several runs.  A group whose name is only known once read (a TREC run's
    tag) is None, and names made from the data (a class's table) are
    planned when written."""
    if profile.native is None:
        return ()
    own = [f for f in profile.native_files if "*" not in f]
    if len(groups) <= 1:
        return tuple(own)
    known = [g for g in groups if g is not None]
    folders = native_names([("*", g) for g in known])
    return tuple(f"{d}/{f}" for d in folders for f in own)


def write_native(
    folder, assessment: Assessment, results: Sequence, *, inputs: Sequence = ()
) -> list[Path]:
    """Write every run's native files: into ``folder`` for one run, into
    ``folder/<run name>/`` for several (runs = the profile's groups: a
    shapenet17 method's datasets are one run), every name made by
    :func:`native_names`.  As the gate does before scoring, a folder holding
    other files than the profile's native files is refused, and every file
    is checked against ``inputs`` (never written through a link to one),
    all of them before the first is written.  Returns the paths written."""
    folder = Path(folder)
    if not results:
        return []
    profile = results[0].options.rules
    groups: dict[str, list] = {}
    for r in results:
        groups.setdefault(profile.group(r), []).append(r)
    subs = native_names([("*", g) for g in groups]) if len(groups) > 1 else [""]
    planned: dict[str, str] = {}
    for sub, group in zip(subs, groups.values()):
        for name, text in native_files(group, assessment).items():
            planned[f"{sub}/{name}" if sub else name] = text
    if folder.is_dir():
        check_folder(folder, planned, native_holds(profile))
    for sub in subs:
        where = folder / sub
        if where.exists() and not where.is_dir():
            raise OutputError(where, "this is a file; --native writes a folder here")
    paths = [folder / name for name in planned]
    check_outputs([("--native", p, "file") for p in paths if p.parent.is_dir()], inputs)
    for sub in subs:
        (folder / sub).mkdir(parents=True, exist_ok=True)
    for path, text in zip(paths, planned.values()):
        write_text(path, text)
    return paths
