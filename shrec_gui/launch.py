"""The ``shrec-gui`` command: the app, or where its Qt libraries are missing
(the library alone was installed: ``pip install .``) how to get them, with
the command that works from where shrec-eval was installed (its clone, folder
or wheel: :func:`shrec_eval.installed.pip_install`)."""

from __future__ import annotations

import importlib.util
import sys

# the app imports it too (the hint of --dask without Dask): nothing more to load
from shrec_eval.installed import pip_install

# the standard library only: the drawers' server started before the app's import
from shrec_eval.outputs.figure_start import server_started


def install_hint() -> str:
    return (
        "shrec-gui: the desktop app needs Qt (PySide6) and pyqtgraph, which are not installed; "
        f"add them with:\n  {pip_install('app')}\n"
    )


def main(argv=None) -> int:
    if any(importlib.util.find_spec(m) is None for m in ("PySide6", "pyqtgraph")):
        sys.stderr.write(install_hint())
        return 1
    args = sys.argv[1:] if argv is None else list(argv)
    # --export-report: the server of the report's drawing processes first, its
    # import of matplotlib running while the app is imported and the contest
    # read and scored (the export's drawers are forked from it); it ends with
    # them, or with this (shrec_eval.outputs.figure_start)
    report = any(a == "--export-report" or a.startswith("--export-report=") for a in args)
    with server_started(report):
        # late: the app imports Qt, which is only known to be there now
        from .app import main as app_main

        return app_main(argv)
