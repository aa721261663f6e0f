"""The one resource locator: finds the bundled files (demo contest, icons)
the same way in a source checkout, an editable install, an installed wheel
(``importlib.resources``: the files are the package data of
``shrec_eval._resources``) and a frozen (PyInstaller) bundle."""

from __future__ import annotations

import sys
from importlib.resources import files
from pathlib import Path


def resources_dir() -> Path:
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen:
        return Path(frozen) / "resources"
    # installed as a regular folder (wheel or editable), so a real path
    return Path(str(files("shrec_eval._resources")))


def resource_path(*parts: str) -> Path:
    return resources_dir().joinpath(*parts)


def demo_manifest() -> Path:
    return resource_path("demo", "contest.json")
