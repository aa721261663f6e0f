"""``--native DIR``: the files an official evaluator writes, from the
profile's writer; one folder per run when several runs are scored."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..atomic import write_text
from ..errors import ShrecEvalError
from ..model import Assessment
from . import get_profile

__all__ = ["NativeError", "native_files", "write_native"]


class NativeError(ShrecEvalError, ValueError):
    """Native files asked of a profile that has none, or an unusable folder."""


def native_files(results, assessment: Assessment) -> dict[str, str]:
    """``{file name: text}`` of the evaluator's own output for one run (a
    result), or for the results of one group (shapenet17: a method's
    datasets)."""
    group = list(results) if isinstance(results, (list, tuple)) else [results]
    profile = get_profile(group[0].profile)
    if profile.native is None:
        raise NativeError(
            f"the {profile.name} profile has no native output files; "
            "--native needs --profile boli, psbtable or shapenet17"
        )
    return profile.native(group, assessment)


def _folder_name(name: str) -> str:
    safe = "".join(c if c.isalnum() or c in "-_.+ " else "_" for c in name).strip(" .")
    return safe or "run"


def write_native(folder, assessment: Assessment, results: Sequence) -> list[Path]:
    """Write every run's native files: into ``folder`` for one run, into
    ``folder/<run name>/`` for several (runs = the profile's groups: a
    shapenet17 method's datasets are one run).  Returns the paths written."""
    folder = Path(folder)
    if not results:
        return []
    profile = get_profile(results[0].profile)
    groups: dict[str, list] = {}
    for r in results:
        groups.setdefault(profile.group(r), []).append(r)
    several = len(groups) > 1
    names = [_folder_name(g) for g in groups]
    if several and len(set(names)) != len(names):
        raise NativeError("two runs have the same name; give them distinct names (--names)")
    written = []
    for name, group in zip(names, groups.values()):
        files = native_files(group, assessment)
        where = folder / name if several else folder
        where.mkdir(parents=True, exist_ok=True)
        for fname, text in files.items():
            write_text(where / fname, text)
            written.append(where / fname)
    return written
