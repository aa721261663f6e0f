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


def native_files(result, assessment: Assessment) -> dict[str, str]:
    """``{file name: text}`` of the evaluator's own output for one run."""
    profile = get_profile(result.profile)
    if profile.native is None:
        raise NativeError(
            f"the {profile.name} profile has no native output files; "
            "--native needs --profile boli, psbtable or shapenet17"
        )
    return profile.native(result, assessment)


def _folder_name(name: str) -> str:
    safe = "".join(c if c.isalnum() or c in "-_.+ " else "_" for c in name).strip(" .")
    return safe or "run"


def write_native(folder, assessment: Assessment, results: Sequence) -> list[Path]:
    """Write every run's native files: into ``folder`` for one run, into
    ``folder/<run name>/`` for several.  Returns the paths written."""
    folder = Path(folder)
    written = []
    several = len(results) > 1
    names = [_folder_name(r.run_name) for r in results]
    if several and len(set(names)) != len(names):
        raise NativeError("two runs have the same name; give them distinct names (--names)")
    for r, name in zip(results, names):
        files = native_files(r, assessment)
        where = folder / name if several else folder
        where.mkdir(parents=True, exist_ok=True)
        for fname, text in files.items():
            write_text(where / fname, text)
            written.append(where / fname)
    return written
