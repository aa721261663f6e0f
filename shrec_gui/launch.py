"""The ``shrec-gui`` command: the app, or where its Qt libraries are missing
(the library alone was installed: ``pip install shrec-eval``) how to get them."""

from __future__ import annotations

import importlib.util
import sys

INSTALL_HINT = (
    "shrec-gui: the desktop app needs Qt (PySide6) and pyqtgraph, which are not installed: "
    "pip install 'shrec-eval[app]'\n"
)


def main(argv=None) -> int:
    if any(importlib.util.find_spec(m) is None for m in ("PySide6", "pyqtgraph")):
        sys.stderr.write(INSTALL_HINT)
        return 1
    from .app import main as app_main

    return app_main(argv)
