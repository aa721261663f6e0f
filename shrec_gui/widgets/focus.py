"""Where the keyboard goes, shown: a ring in the theme's highlight colour
around the widget that has the focus, in the dialogs (the Options dialog's
fields, check boxes, buttons) and the main window once Tab is used there.  Fusion's own mark
of a focused field (its border a shade bluer, a check box's text faintly
framed after a Tab) was not seen, in the dark theme least of all.

The ring is Qt's :class:`QFocusFrame` (a frame around a widget, outside it,
that follows it as it moves), painted by :class:`RingStyle`, the frame's own
style: the application's, :class:`FocusStyle`, leaves every widget to Qt."""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QDialog,
    QFocusFrame,
    QProxyStyle,
    QStyle,
    QWidget,
)

RING_PX = 2  # the ring's width, outside the widget


class FocusStyle(QProxyStyle):
    """The application's style: Fusion, every widget's metrics and drawing
    answered by Qt itself.  A method of the style written in Python is
    called for every cell, header and metric of every widget (some 10,000
    calls for a window showing a contest): the ring's are the style of the
    one widget that needs them, :class:`RingStyle`."""

    def __init__(self) -> None:
        super().__init__("Fusion")


class RingStyle(QProxyStyle):
    """The focus frame's own style: Fusion, the frame (QFocusFrame's) a
    ring in the highlight colour, RING_PX wide, just outside its widget."""

    def __init__(self) -> None:
        super().__init__("Fusion")

    def drawControl(self, element, option, painter, widget=None) -> None:
        if element == QStyle.ControlElement.CE_FocusFrame:
            # the ring only: the frame lies under its widget, whose see-through
            # parts (a check box's text, a tab bar's end) show what is drawn here
            r, w = option.rect, RING_PX
            colour = option.palette.color(QPalette.ColorRole.Highlight)
            painter.fillRect(r.x(), r.y(), r.width(), w, colour)
            painter.fillRect(r.x(), r.bottom() + 1 - w, r.width(), w, colour)
            painter.fillRect(r.x(), r.y(), w, r.height(), colour)
            painter.fillRect(r.right() + 1 - w, r.y(), w, r.height(), colour)
            return
        super().drawControl(element, option, painter, widget)

    def pixelMetric(self, metric, option=None, widget=None) -> int:
        if metric in (
            QStyle.PixelMetric.PM_FocusFrameHMargin,
            QStyle.PixelMetric.PM_FocusFrameVMargin,
        ):
            return RING_PX  # the ring just outside the widget
        return super().pixelMetric(metric, option, widget)


class FocusRing:
    """One ring for the application, moved to each widget that takes the
    focus (a new one when the dialog that held the last is gone)."""

    def __init__(self, app: QApplication) -> None:
        self.frame: QFocusFrame | None = None
        self.style = RingStyle()  # kept: a widget does not own the style it is given
        app.focusChanged.connect(self._moved)

    def _moved(self, _old, new) -> None:
        target = _framed(new)
        frame = self.frame if self.frame is not None and shiboken6.isValid(self.frame) else None
        if target is not None and not _keyboard_window(target.window()):
            target = None
        if target is None:
            if frame is not None:
                frame.setWidget(None)
            return
        if frame is None:
            frame = self.frame = QFocusFrame()
            frame.setStyle(self.style)
        frame.setWidget(target)


def _framed(widget) -> QWidget | None:
    """The widget the ring goes around: the one with the focus, or the
    spin box or editable list whose text field has it; None for a window, a
    menu or a widget gone."""
    if widget is None or not shiboken6.isValid(widget) or widget.isWindow():
        return None
    parent = widget.parentWidget()
    if isinstance(parent, (QAbstractSpinBox, QComboBox)):  # its text field
        widget = parent
    return None if widget.parentWidget() is None else widget


def _keyboard_window(window) -> bool:
    """A window where the ring is shown: a dialog (its keys go to one field
    or another), or a window where the keyboard moved the focus (Tab): the
    main window opening shows no ring around what has the focus by default."""
    return isinstance(window, QDialog) or window.testAttribute(
        Qt.WidgetAttribute.WA_KeyboardFocusChange
    )


def show_focus(app: QApplication) -> None:
    """The ring, once per application (the theme may be applied again)."""
    if getattr(app, "_focus_ring", None) is None:
        app._focus_ring = FocusRing(app)
