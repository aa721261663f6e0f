"""The main window and what it alone uses: the menu bar, the File menu's
dialogs, the other dialogs, Help, and the preferences and themes."""

from __future__ import annotations

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication


def main_window(settings: QSettings | None = None):
    """A new main window (:class:`.main.MainWindow`, not shown) keeping its
    preferences in ``settings`` (None: the user's), with the app's icon set
    for every window and dialog: what the app, its smoke test and its
    headless export open."""
    # late: the window (pyqtgraph, the tabs) is imported once a window is
    # wanted, so that shrec-gui's --help, --version and bad options answer at once
    from .main import MainWindow, app_icon

    QApplication.instance().setWindowIcon(app_icon())
    return MainWindow(settings)
