"""The one resource locator: finds the bundled files (demo contest, icons)
the same way in a source checkout, an editable install and a frozen
(PyInstaller) bundle."""

from __future__ import annotations

import sys
from pathlib import Path


def resources_dir() -> Path:
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen:
        return Path(frozen) / "resources"
    return Path(__file__).resolve().parent.parent / "resources"


def resource_path(*parts: str) -> Path:
    return resources_dir().joinpath(*parts)


def demo_manifest() -> Path:
    return resource_path("demo", "contest.json")
