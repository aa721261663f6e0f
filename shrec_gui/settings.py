"""Preferences (QSettings: an INI file in the user's config folder; tests
point QSettings' user path at a temporary folder) and the light and dark
themes."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

from .figure_layout import FigureSettings

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
}


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

    # folders and recent files
    def last_folder(self) -> str:
        return str(self.qsettings.value("files/lastFolder", str(Path.home())))

    def remember_folder(self, path: str) -> None:
        p = Path(path)
        self.qsettings.setValue("files/lastFolder", str(p if p.is_dir() else p.parent))

    def recent(self) -> list[str]:
        return _strings(self.qsettings.value("files/recent", []))

    def remember_recent(self, path: str) -> None:
        path = str(Path(path).resolve())
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
        geo = self.qsettings.value("window/geometry")
        if geo is not None:
            window.restoreGeometry(geo)
        else:
            window.resize(1200, 760)
        state = self.qsettings.value("window/state")
        if state is not None:
            window.restoreState(state)

    def save_window(self, window) -> None:
        self.qsettings.setValue("window/geometry", window.saveGeometry())
        self.qsettings.setValue("window/state", window.saveState())
        self.qsettings.sync()


def apply_theme(dark: bool) -> None:
    """Fusion with a dark palette, or the style's own light one."""
    app = QApplication.instance()
    app.setStyle("Fusion")
    if dark:
        pal = QPalette()
        for role, colour in DARK_PALETTE.items():
            pal.setColor(role, QColor(colour))
    else:
        pal = app.style().standardPalette()
    app.setPalette(pal)
