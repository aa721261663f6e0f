"""Where evaluator files are found besides ``--profile FILE.toml``: the
user's config folder (``$XDG_CONFIG_HOME/shrec-eval/evaluators/*.toml`` and
the other platforms' equivalents) and installed packages, through the
entry-point group ``shrec_eval.evaluators`` (docs/evaluators.md).

An entry point names, by the name of the profile, an object of its package:
the path of its evaluator file (a ``str``, a ``pathlib.Path`` or an
``importlib.resources`` file) or the file's table as a dict::

    [project.entry-points."shrec_eval.evaluators"]
    mytrack = "mytrack_eval:EVALUATOR"    # EVALUATOR = files(__package__) / "mytrack.toml"

Nothing here is read before a profile is looked up or listed.
"""

from __future__ import annotations

import functools
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only
    from importlib.metadata import EntryPoint

__all__ = ["GROUP", "Found", "config_folder", "found"]

#: the entry-point group of evaluators installed with a package
GROUP = "shrec_eval.evaluators"
#: overrides the config folder (tests, a shared install)
CONFIG_ENV = "SHREC_EVAL_CONFIG_DIR"


def config_folder() -> Path:
    """The user's folder of evaluator files: ``$SHREC_EVAL_CONFIG_DIR/evaluators``
    when set, else ``$XDG_CONFIG_HOME/shrec-eval/evaluators`` (``~/.config``),
    ``%APPDATA%\\shrec-eval\\evaluators`` on Windows and
    ``~/Library/Application Support/shrec-eval/evaluators`` on macOS.
    Hand-written, as the thumbnails' cache folder is
    (:func:`shrec_eval.shapes.thumbnails.default_cache_dir`): the three
    platforms' rules are a few lines, not worth a dependency."""
    env = os.environ.get(CONFIG_ENV)
    if env:
        return Path(env) / "evaluators"
    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
        return base / "shrec-eval" / "evaluators"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "shrec-eval" / "evaluators"
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "shrec-eval" / "evaluators"


@dataclass(frozen=True)
class Found:
    """An evaluator found: the name it is listed under (its file's stem, or
    its entry point's name), where it was found, and how to read it
    (``path`` of a file, or ``load()`` of an entry point)."""

    name: str
    origin: str
    path: str | None = None
    entry_point: EntryPoint | None = None

    def read(self):
        """(text or None, its data or None, the path to name in messages):
        an entry point's object read as its file, or as its table."""
        if self.entry_point is None:
            return None, None, self.path
        obj = self.entry_point.load()
        if isinstance(obj, dict):
            return None, obj, f"{self.origin}: {self.entry_point.value}"
        if hasattr(obj, "read_text") and not isinstance(obj, (str, os.PathLike)):
            return obj.read_text(encoding="utf-8"), None, str(obj)
        return None, None, os.fspath(obj)


def found() -> list[Found]:
    """Every evaluator of the config folder (``*.toml``, by name) and of
    the installed packages' entry points, in that order (looked for again
    when the folder or the import path changes)."""
    folder = config_folder()
    try:
        changed = folder.stat().st_mtime_ns  # a file added or removed
    except OSError:
        changed = None
    return list(_found(folder, changed, tuple(sys.path)))


@functools.lru_cache(maxsize=8)
def _found(folder: Path, changed, path: tuple) -> tuple[Found, ...]:
    out = []
    try:
        files = sorted(p for p in folder.glob("*.toml") if p.is_file())
    except OSError:
        files = []
    out += [Found(p.stem, "config folder", str(p)) for p in files]
    from importlib.metadata import entry_points

    for ep in sorted(entry_points(group=GROUP), key=lambda e: e.name):
        dist = getattr(ep, "dist", None)
        origin = f"package {dist.name}" if dist is not None else "a package"
        out.append(Found(ep.name, origin, entry_point=ep))
    return tuple(out)
