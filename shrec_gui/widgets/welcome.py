"""The welcome page: what the main window shows while no contest is open.
Three large buttons (the demo, an assessment, a session) and the recent
files (QSettings), the missing ones greyed and removable.  The page only
asks (signals); the window opens, after its unsaved-changes question."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QPointF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QIcon, QKeySequence, QPainter, QPalette, QPixmap, QPolygonF
from PySide6.QtWidgets import (
    QApplication,
    QCommandLinkButton,
    QFrame,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

PATH_ROLE = Qt.ItemDataRole.UserRole
#: recent files the list shows at least before it scrolls (the rest of the
#: page keeps its room: a list of ten files never pushes the buttons away)
RECENT_ROWS_SHOWN = 2


def missing_files(paths: list[str]) -> list[str]:
    """The paths that no longer exist (run on a file thread: a stat of a
    network folder may take long)."""
    return [p for p in paths if not os.path.exists(p)]


def _arrow(colour: QColor, size: int = 20) -> QIcon:
    """The command buttons' arrow in the theme's text colour (the style's own
    is black, unseen on a dark background)."""
    pm = QPixmap(size, size)
    pm.fill(Qt.GlobalColor.transparent)
    p = QPainter(pm)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(colour)
    p.drawPolygon(
        QPolygonF(
            [
                QPointF(size * 0.3, size * 0.2),
                QPointF(size * 0.8, size * 0.5),
                QPointF(size * 0.3, size * 0.8),
            ]
        )
    )
    p.end()
    return QIcon(pm)


def _mix(a: QColor, b: QColor) -> QColor:
    return QColor(
        (a.red() + b.red()) // 2, (a.green() + b.green()) // 2, (a.blue() + b.blue()) // 2
    )


def _kind(path: str) -> str:
    return "session" if path.lower().endswith(".json") else "assessment"


class RecentList(QListWidget):
    """The recent files: as tall as its rows where the page has room, else
    a few rows and a scroll bar; its size hint is that least height, so that
    the page asks only for the room it needs and gives the list the rest."""

    def sizeHint(self) -> QSize:
        return QSize(super().sizeHint().width(), self.minimumHeight())


class WelcomePage(QWidget):
    demoRequested = Signal()
    assessmentRequested = Signal()
    sessionRequested = Signal()
    recentActivated = Signal(str)  # a recent file to open
    recentRemoved = Signal(str)  # a recent file to take off the list

    def __init__(self, icon: QIcon | None = None, parent=None) -> None:
        super().__init__(parent)
        self.missing: set[str] = set()
        logo = QLabel()
        if icon is not None:
            logo.setPixmap(icon.pixmap(48, 48))
        title = QLabel("SHREC evaluation")
        font = QFont(title.font())
        font.setPointSizeF(font.pointSizeF() * 2.0)
        font.setBold(True)
        title.setFont(font)
        intro = QLabel(
            "Score 3D shape retrieval contests: an assessment (a PSB .cla or a TREC qrels "
            "file) and the participants' runs. Start here, or drop files on this window."
        )
        intro.setWordWrap(True)
        self.demo_button = self._button(
            "Open the &demo contest",
            "Seven runs of a synthetic SHREC contest in every run format, scored at once (Ctrl+D)",
            self.demoRequested,
        )
        self.assessment_button = self._button(
            "Open an &assessment…",
            "A PSB .cla or TREC qrels file; then add the runs (Ctrl+O, then Ctrl+R)",
            self.assessmentRequested,
        )
        self.session_button = self._button(
            "&Open a session…",
            "A session or contest file (.json) saved earlier (Ctrl+Shift+O)",
            self.sessionRequested,
        )
        self.recent_label = QLabel("&Recent sessions and assessments")
        bold = QFont(self.recent_label.font())
        bold.setBold(True)
        self.recent_label.setFont(bold)
        self.recent = RecentList()
        self.recent.setAlternatingRowColors(True)
        self.recent.setWordWrap(True)
        self.recent.setSpacing(2)
        self.recent_label.setBuddy(self.recent)
        self.recent.itemActivated.connect(self._activated)
        self.recent.currentItemChanged.connect(self._current_changed)
        self.none_label = QLabel("No recent files yet: a session you save or open shows here.")
        self.note = QLabel("Enter or double-click opens the file; Del takes it off the list.")
        self.note.setWordWrap(True)
        self.remove_button = QPushButton("Re&move from the list")
        self.remove_button.clicked.connect(self.remove_current)
        self.remove_button.setEnabled(False)
        below = QHBoxLayout()
        below.addWidget(self.note, 1)
        below.addWidget(self.remove_button)

        heading = QHBoxLayout()
        heading.addWidget(logo)
        heading.addWidget(title, 1)
        column = QVBoxLayout()
        column.addStretch(0)
        column.addLayout(heading)
        column.addWidget(intro)
        column.addSpacing(12)
        for b in (self.demo_button, self.assessment_button, self.session_button):
            column.addWidget(b)
        column.addSpacing(16)
        column.addWidget(self.recent_label)
        column.addWidget(self.none_label)
        column.addWidget(self.recent, 1)  # the room left goes to the list first, then around
        column.addLayout(below)
        column.addStretch(0)
        inner = QWidget()
        inner.setLayout(column)
        inner.setMaximumWidth(760)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(inner, 4)
        row.addStretch(1)
        # laid out, never placed: a window too small for the page scrolls it
        # (the wrapped texts' heights included), nothing is drawn over the rest
        self.page = QWidget()
        self.page.setLayout(row)
        self.scroll = QScrollArea()
        self.scroll.setWidget(self.page)
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # Tab goes to the buttons
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.scroll)
        self.setTabOrder(self.demo_button, self.assessment_button)
        self.setTabOrder(self.assessment_button, self.session_button)
        self.setTabOrder(self.session_button, self.recent)
        self.setTabOrder(self.recent, self.remove_button)
        self.set_recent([])

    def _button(self, text: str, description: str, signal) -> QCommandLinkButton:
        b = QCommandLinkButton(text, description)
        b.setAutoDefault(True)  # Enter presses the button that has the focus
        b.clicked.connect(signal)
        return b

    # -- the recent files -----------------------------------------------------------------
    def set_recent(self, paths: list[str], missing=()) -> None:
        """Show ``paths`` (newest first); ``missing`` are greyed."""
        current = self.current_path()
        self.missing = set(missing)
        self.recent.clear()
        for p in paths:
            item = QListWidgetItem()
            item.setData(PATH_ROLE, p)
            self.recent.addItem(item)
            if p == current:
                self.recent.setCurrentItem(item)
        self._style_items()
        # as tall as its rows where the page has room, else at least a few of
        # them and a scroll bar (the page itself scrolls in a smaller window)
        heights = [
            self.recent.sizeHintForRow(i) + 2 * self.recent.spacing() for i in range(len(paths))
        ]
        edge = 2 * self.recent.frameWidth() + 4
        self.recent.setMaximumHeight(sum(heights) + edge)
        self.recent.setMinimumHeight(sum(heights[:RECENT_ROWS_SHOWN]) + edge)
        self.recent.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.recent.setVisible(bool(paths))
        self.note.setVisible(bool(paths))
        self.remove_button.setVisible(bool(paths))
        self.none_label.setVisible(not paths)

    def set_missing(self, missing) -> None:
        """The files found missing (by :func:`missing_files`, off this thread)."""
        self.missing = set(missing)
        self._style_items()

    def paths(self) -> list[str]:
        return [self.recent.item(i).data(PATH_ROLE) for i in range(self.recent.count())]

    def current_path(self) -> str | None:
        item = self.recent.currentItem()
        return None if item is None else item.data(PATH_ROLE)

    def _style_items(self) -> None:
        """Text and colour of every item: a missing file greyed (between the
        theme's text and background colours, so in light and dark alike)."""
        pal = QApplication.palette()  # the theme's (set_dark runs before widgets follow it)
        grey = _mix(pal.color(QPalette.ColorRole.Text), pal.color(QPalette.ColorRole.Base))
        for i in range(self.recent.count()):
            item = self.recent.item(i)
            p = item.data(PATH_ROLE)
            path = Path(p)
            gone = p in self.missing
            item.setText(
                f"{path.name}   ({_kind(p)}{', missing: moved or deleted' if gone else ''})\n"
                f"{path.parent}"
            )
            item.setToolTip(p)
            font = QFont(self.recent.font())
            font.setItalic(gone)
            item.setFont(font)
            item.setData(Qt.ItemDataRole.ForegroundRole, grey if gone else None)

    def _current_changed(self, item, _previous=None) -> None:
        self.remove_button.setEnabled(item is not None)

    def _activated(self, item) -> None:
        p = item.data(PATH_ROLE)
        if p in self.missing:
            self.note.setText(
                f"{Path(p).name} is no longer in {Path(p).parent} (moved or deleted); "
                "Del takes it off the list."
            )
            return
        self.recentActivated.emit(p)

    def remove_current(self) -> None:
        p = self.current_path()
        if p is not None:
            self.recentRemoved.emit(p)

    def keyPressEvent(self, event) -> None:
        if self.recent.hasFocus() and (
            event.key() in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace)
            or event.matches(QKeySequence.StandardKey.Delete)
        ):
            self.remove_current()
            return
        super().keyPressEvent(event)

    def set_dark(self, dark: bool) -> None:
        """The theme changed: colour the items and the arrows again."""
        self._style_items()
        pal = QApplication.palette()
        arrow = _arrow(pal.color(QPalette.ColorRole.ButtonText))
        line = _mix(pal.color(QPalette.ColorRole.ButtonText), pal.color(QPalette.ColorRole.Window))
        for b in (self.demo_button, self.assessment_button, self.session_button):
            b.setIcon(arrow)
            # framed, so that they read as buttons before the mouse is over them
            b.setStyleSheet(
                f"QCommandLinkButton {{ border: 1px solid {line.name()}; border-radius: 5px; }}"
            )
