"""``shrec-gui``: the desktop application.

    shrec-gui [FILES...]          an assessment and runs, or a session (.json)
    shrec-gui --demo              the bundled demo contest
"""

from __future__ import annotations

import argparse
import sys

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

from core import __version__


def parse_args(argv):
    p = argparse.ArgumentParser(prog="shrec-gui", description="Score 3D shape retrieval "
                                "contests in a desktop app.")
    p.add_argument("files", nargs="*", help="an assessment and runs, or a session (.json)")
    p.add_argument("--demo", action="store_true", help="open the bundled demo contest")
    p.add_argument("--version", action="version", version=f"shrec-gui {__version__}")
    return p.parse_args(argv)


def make_app(argv=None) -> QApplication:
    app = QApplication.instance()
    if app is None:
        QGuiApplication.setHighDpiScaleFactorRoundingPolicy(
            Qt.HighDpiScaleFactorRoundingPolicy.PassThrough)
        app = QApplication(list(argv or sys.argv[:1]))
    # the scoring thread is mostly numpy, but where it runs Python it would keep
    # the GIL for the default 5 ms at a time against every GUI callback
    sys.setswitchinterval(0.001)
    app.setApplicationName("shrec-gui")
    app.setOrganizationName("shrec-eval")
    app.setApplicationVersion(__version__)
    return app


def main(argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    app = make_app()
    from .mainwindow import MainWindow, app_icon
    app.setWindowIcon(app_icon())
    win = MainWindow()
    win.show()
    if args.demo:
        win.open_demo()
    elif args.files:
        win.open_files(args.files)
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
