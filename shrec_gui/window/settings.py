"""Preferences (QSettings: an INI file in the user's config folder; tests
point QSettings' user path at a temporary folder) and the light and dark
themes."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import shrec_eval
from PySide6.QtCore import QRect, QSettings, QSize, QStandardPaths, Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication
from shrec_eval.resources import demo_manifest, resources_dir

from .. import __file__ as gui_init
from ..figures.settings import FigureSettings
from ..widgets.focus import FocusStyle, show_focus

ORG, APP = "shrec-eval", "shrec-gui"
MAX_RECENT = 10

DARK_PALETTE = {
    QPalette.ColorRole.Window: "#2b2b2b",
    QPalette.ColorRole.WindowText: "#e8e8e8",
    QPalette.ColorRole.Base: "#1f1f1f",
    QPalette.ColorRole.AlternateBase: "#2a2a2a",
    QPalette.ColorRole.Text: "#e8e8e8",
    QPalette.ColorRole.Button: "#353535",
    QPalette.ColorRole.ButtonText: "#e8e8e8",
    QPalette.ColorRole.Highlight: "#2f6fb2",
    QPalette.ColorRole.HighlightedText: "#ffffff",
    QPalette.ColorRole.ToolTipBase: "#353535",
    QPalette.ColorRole.ToolTipText: "#e8e8e8",
    QPalette.ColorRole.PlaceholderText: "#9a9a9a",  # Fusion's default was dark on dark
}


def installation_folders() -> list[Path]:
    """Where the app is installed: its packages, their resources (the demo),
    the Python environment and the frozen bundle: no output is written there."""
    folders = [Path(shrec_eval.__file__).parent, Path(gui_init).parent, resources_dir()]
    folders += [Path(sys.prefix), Path(sys.base_prefix)]
    if getattr(sys, "_MEIPASS", None):
        folders.append(Path(sys._MEIPASS).parent)  # the bundle's folder
    return [f.resolve() for f in folders]


def documents_folder() -> str:
    """The user's documents folder (the home folder where there is none)."""
    docs = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    return docs if docs and os.path.isdir(docs) else str(Path.home())


def output_folder(contest_folder: str | Path | None) -> str:
    """Where an output (a report, a figure, a session) is offered by default:
    the contest's own folder when it is writable and not inside the
    installation (the demo's), else the user's documents folder."""
    if contest_folder:
        folder = Path(contest_folder).resolve()
        inside = any(folder == f or f in folder.parents for f in installation_folders())
        if folder.is_dir() and os.access(folder, os.W_OK) and not inside:
            return str(folder)
    return documents_folder()


def same_contest(path: str) -> str:
    """The recent file ``path`` (resolved) stands for: itself, or for the
    bundled demo of any installation of the app (a source checkout's
    ``resources/``, a wheel's ``shrec_eval/_resources/``, a bundle's), this
    app's demo: one entry, not one per installation ever used."""
    p = Path(path)
    demo = p.name == "contest.json" and p.parent.name == "demo"
    if demo and p.parent.parent.name in ("resources", "_resources"):
        return str(demo_manifest().resolve())
    return path


def app_settings() -> QSettings:
    return QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, ORG, APP)


def _strings(value) -> list[str]:
    """A QSettings list (an INI file gives one string for a list of one)."""
    if not value:
        return []
    return [value] if isinstance(value, str) else [str(x) for x in value]


class Preferences:
    """What the app remembers between launches, by name."""

    def __init__(self, settings: QSettings | None = None) -> None:
        self.qsettings = settings or app_settings()
        self._placed: QSize | None = None  # the size restore_window gave the window

    # folders and recent files
    def last_folder(self) -> str:
        return str(self.qsettings.value("files/lastFolder", str(Path.home())))

    def remember_folder(self, path: str) -> None:
        """The folder of ``path`` (itself when a folder), stored absolute: a
        relative one would follow the working folder of the next launch."""
        p = Path(path).absolute()
        self.qsettings.setValue("files/lastFolder", str(p if p.is_dir() else p.parent))

    def recent(self) -> list[str]:
        """The recent files, newest first, each contest once (same_contest)."""
        items = [same_contest(x) for x in _strings(self.qsettings.value("files/recent", []))]
        return list(dict.fromkeys(items))

    def remember_recent(self, path: str) -> None:
        path = same_contest(str(Path(path).resolve()))
        items = [path] + [x for x in self.recent() if x != path]
        self.qsettings.setValue("files/recent", items[:MAX_RECENT])

    def forget_recent(self, path: str) -> None:
        self.qsettings.setValue("files/recent", [x for x in self.recent() if x != path])

    # view
    def dark(self) -> bool:
        return self.qsettings.value("view/dark", False, type=bool)

    def set_dark(self, dark: bool) -> None:
        self.qsettings.setValue("view/dark", bool(dark))

    def summary_columns(self) -> list[str]:
        return _strings(self.qsettings.value("summary/columns", []))

    def set_summary_columns(self, keys) -> None:
        self.qsettings.setValue("summary/columns", list(keys))

    def figure(self) -> FigureSettings:
        """The last answers of the figure export dialog (figure/...)."""
        return FigureSettings.load(self.qsettings)

    def set_figure(self, settings: FigureSettings) -> None:
        settings.save(self.qsettings)

    # window
    def restore_window(self, window) -> None:
        """The window's last place and size where they fit the screen's free
        area and are of use; else the default size (DEFAULT_SIZE, bounded by
        that area) in the middle of the screen: a geometry saved on a larger
        screen, or a window once shrunk to a strip (331 x 508), does not come
        back."""
        geo = self.qsettings.value("window/geometry")
        # the size saved (restoreGeometry itself shrinks one larger than the screen)
        saved = self.qsettings.value("window/size")
        restored = geo is not None and window.restoreGeometry(geo)
        if not restored or not usable_size(window, saved if saved is not None else window.size()):
            default_geometry(window)
        fit_to_screen(window)
        self._placed = window.size()
        state = self.qsettings.value("window/state")
        if state is not None:
            window.restoreState(state)

    def fit_placed_window(self, window) -> None:
        """Shown: a window as restore_window sized it (not resized since)
        into the screen again, with the frame the window manager gave it
        where it is known by now (restore_window could only guess it)."""
        if self._placed == window.size():
            fit_to_screen(window)
        self._placed = None

    def save_window(self, window) -> None:
        self.qsettings.setValue("window/geometry", window.saveGeometry())
        normal = window.normalGeometry() if window.isMaximized() else window.geometry()
        self.qsettings.setValue("window/size", normal.size())
        self.qsettings.setValue("window/state", window.saveState())
        self.qsettings.sync()


#: room kept for the window manager's title bar and frame, not known before
#: the window is first shown
DECORATION_PX = 32
#: a first window's size (and a window's whose saved size is of no use),
#: smaller on a smaller screen
DEFAULT_SIZE = QSize(1200, 760)
#: the least saved size restored (or the screen's whole free area, when
#: smaller): every tab is whole in it
USABLE_SIZE = QSize(800, 500)


def available_area(window) -> QRect | None:
    """The free area (without panels and task bars) of the window's screen."""
    screen = window.screen() or QGuiApplication.primaryScreen()
    return screen.availableGeometry() if screen is not None else None


def _room(window, area: QRect) -> QSize:
    """The most a window's inside may take of ``area`` (its frame, or
    DECORATION_PX of title bar before the first showing, left out)."""
    geo, frame = window.geometry(), window.frameGeometry()
    extra_w = max(frame.width() - geo.width(), 0)
    extra_h = max(frame.height() - geo.height(), 0) or DECORATION_PX
    return QSize(area.width() - extra_w, area.height() - extra_h)


def usable_size(window, size: QSize) -> bool:
    """A saved size fits the window's screen and is of use there (at least
    USABLE_SIZE, or the whole room of a smaller screen)."""
    area = available_area(window)
    if area is None or area.isEmpty():
        return True
    room = _room(window, area)
    least = USABLE_SIZE.boundedTo(room)
    return (
        least.width() <= size.width() <= room.width()
        and least.height() <= size.height() <= room.height()
    )


def default_geometry(window) -> None:
    """DEFAULT_SIZE, bounded by the screen's free area, in its middle."""
    area = available_area(window)
    state = window.windowState()  # a maximised one (restored) shown in a window
    window.setWindowState(
        state & ~(Qt.WindowState.WindowMaximized | Qt.WindowState.WindowFullScreen)
    )
    if area is None or area.isEmpty():
        window.resize(DEFAULT_SIZE)
        return
    size = DEFAULT_SIZE.boundedTo(_room(window, area))
    window.resize(size)
    frame = window.frameGeometry()
    centre = area.center()
    window.move(centre.x() - frame.width() // 2, centre.y() - frame.height() // 2)


def fit_to_screen(window) -> None:
    """Shrink and move a top-level window into its screen's free area, its
    frame included."""
    area = available_area(window)
    if area is None or area.isEmpty():
        return
    geo, frame = window.geometry(), window.frameGeometry()
    extra_w = max(frame.width() - geo.width(), 0)
    extra_h = max(frame.height() - geo.height(), 0) or DECORATION_PX
    w = min(geo.width(), area.width() - extra_w)
    h = min(geo.height(), area.height() - extra_h)
    if (w, h) != (geo.width(), geo.height()):
        window.resize(w, h)
    x = min(max(frame.x(), area.x()), area.right() + 1 - w - extra_w)
    y = min(max(frame.y(), area.y()), area.bottom() + 1 - h - extra_h)
    if (x, y) != (frame.x(), frame.y()):
        window.move(x, y)


def apply_theme(dark: bool) -> None:
    """Fusion with a dark palette, or the style's own light one; the focus
    shown by a ring in the highlight colour (focus.py).  The style and the
    palette are set only when they change: setting either re-polishes every
    widget of every window, so each new window paid for all the others
    (windows made one after another in one process: a second and more each,
    after a few dozen)."""
    app = QApplication.instance()
    if not isinstance(app.style(), FocusStyle):
        app.setStyle(FocusStyle())
    show_focus(app)
    if dark:
        pal = QPalette()
        for role, colour in DARK_PALETTE.items():
            pal.setColor(role, QColor(colour))
    else:
        pal = app.style().standardPalette()
    if app.palette() != pal:
        app.setPalette(pal)
