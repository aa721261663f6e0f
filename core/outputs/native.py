"""``--native DIR``: the files an official evaluator writes, from the
profile's writer; one folder per run when several runs are scored."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..errors import NativeError
from ..model.assessment import Assessment
from ..profiles import REGISTRY, get_profile
from .atomic import checked_write, safe_name

__all__ = ["NativeError", "check_native", "native_files", "native_plan", "write_native"]


def check_native(profile) -> None:
    """A NativeError when the profile writes no native files, naming those
    that do (from the registry)."""
    profile = get_profile(profile)
    if profile.native is None:
        raise NativeError(
            f"the {profile.name} profile has no native output files; --native needs "
            f"--profile {' or '.join(p.name for p in REGISTRY.values() if p.native)}"
        )


def native_files(results, assessment: Assessment) -> dict[str, str]:
    """``{file name: text}`` of the evaluator's own output for one run (a
    result), or for the results of one group (shapenet17: a method's
    datasets)."""
    group = list(results) if isinstance(results, (list, tuple)) else [results]
    profile = get_profile(group[0].profile)
    check_native(profile)
    return profile.native(group, assessment)


def native_plan(profile, groups: Sequence[str | None]) -> tuple[str, ...]:
    """The files ``--native DIR`` will hold (relative to DIR) for the
    profile's groups (runs; a shapenet17 method), when known before
    scoring: a group whose name is only known once read (a TREC run's tag)
    is None, and its files are checked as they are written."""
    profile = get_profile(profile)
    if profile.native is None:
        return ()
    several = len(groups) > 1
    out: list[str] = []
    for g in groups:
        if g is None and (several or not profile.native_files):
            continue
        own = profile.native_files or tuple(
            f"{safe_name(g)}{ext}" for ext in (".summary.csv", ".pr.csv")
        )
        out += [f"{safe_name(g)}/{f}" if several else f for f in own]
    return tuple(out)


def write_native(
    folder, assessment: Assessment, results: Sequence, *, inputs: Sequence = ()
) -> list[Path]:
    """Write every run's native files: into ``folder`` for one run, into
    ``folder/<run name>/`` for several (runs = the profile's groups: a
    shapenet17 method's datasets are one run; the name made a file name by
    :func:`~shrec_eval.outputs.atomic.safe_name`, distinct for distinct runs).
    Each file is checked against ``inputs`` as it is written (never written
    through a link to one).  Returns the paths written."""
    folder = Path(folder)
    if not results:
        return []
    profile = get_profile(results[0].profile)
    groups: dict[str, list] = {}
    for r in results:
        groups.setdefault(profile.group(r), []).append(r)
    several = len(groups) > 1
    names = [safe_name(g) for g in groups]
    if several and len(set(names)) != len(names):  # a hash clash: never seen
        raise NativeError("two runs have the same name; give them distinct names (--names)")
    planned = []
    for name, group in zip(names, groups.values()):
        where = folder / name if several else folder
        planned += [(where, where / f, t) for f, t in native_files(group, assessment).items()]
    written = []
    for where, path, text in planned:
        where.mkdir(parents=True, exist_ok=True)
        checked_write(path, text, inputs, "--native")
        written.append(path)
    return written
