"""``shrec-eval examples DIR``: the example contests the documentation's
commands run on (package data, ``resources/examples/`` of the repository),
copied out of the installed package into a folder of the user's, so that
the same commands run from a clone, a wheel or the frozen app."""

from __future__ import annotations

from pathlib import Path

from ..resources import resource_path
from .atomic import Output, gate_outputs, write_folder


def example_files() -> dict[str, bytes]:
    """Every example file by its path relative to the examples folder."""
    root = resource_path("examples")
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def write_examples(folder, option: str = "DIR") -> list[Path]:
    """The example files written to ``folder`` as a whole (a new folder, or
    one holding an earlier copy only: anything else there is refused,
    never replaced), through the output gate."""
    files = example_files()
    gate_outputs([Output(option, folder, "folder", holds=tuple(files))], [resource_path()])
    return write_folder(folder, files)
