"""Where the keyboard goes, shown: a ring in the theme's highlight colour
around the widget that has the focus, in the dialogs (the Options dialog's
fields, check boxes, buttons) and the main window alike.  Fusion's own mark
of a focused field (its border a shade bluer, a check box's text faintly
framed after a Tab) was not seen, in the dark theme least of all.

The ring is Qt's :class:`QFocusFrame` (a frame around a widget, outside it,
that follows it as it moves), painted by :class:`FocusStyle`."""

from __future__ import annotations

import shiboken6
from PySide6.QtGui import QPalette, QRegion
from PySide6.QtWidgets import (
    QApplication,
    QFocusFrame,
    QProxyStyle,
    QStyle,
    QStyleHintReturnMask,
    QWidget,
)

RING_PX = 2  # the ring's width, outside the widget


class FocusStyle(QProxyStyle):
    """Fusion, its focus frame (QFocusFrame's) filled with the highlight colour."""

    def __init__(self) -> None:
        super().__init__("Fusion")

    def drawControl(self, element, option, painter, widget=None) -> None:
        if element == QStyle.ControlElement.CE_FocusFrame:
            painter.fillRect(option.rect, option.palette.color(QPalette.ColorRole.Highlight))
            return
        super().drawControl(element, option, painter, widget)

    def pixelMetric(self, metric, option=None, widget=None) -> int:
        if metric in (
            QStyle.PixelMetric.PM_FocusFrameHMargin,
            QStyle.PixelMetric.PM_FocusFrameVMargin,
        ):
            return RING_PX  # the ring just outside the widget
        return super().pixelMetric(metric, option, widget)

    def styleHint(self, hint, option=None, widget=None, returnData=None) -> int:
        if hint == QStyle.StyleHint.SH_FocusFrame_Mask and option is not None:
            if isinstance(returnData, QStyleHintReturnMask):  # the ring's shape
                r = option.rect
                inner = r.adjusted(RING_PX, RING_PX, -RING_PX, -RING_PX)
                returnData.region = QRegion(r).subtracted(QRegion(inner))
            return 1
        return super().styleHint(hint, option, widget, returnData)


class FocusRing:
    """One ring for the application, moved to each widget that takes the
    focus (a new one when the dialog that held the last is gone)."""

    def __init__(self, app: QApplication) -> None:
        self.frame: QFocusFrame | None = None
        app.focusChanged.connect(self._moved)

    def _moved(self, _old, new) -> None:
        target = _framed(new)
        frame = self.frame if self.frame is not None and shiboken6.isValid(self.frame) else None
        if target is None:
            if frame is not None:
                frame.setWidget(None)
            return
        if frame is None:
            frame = self.frame = QFocusFrame()
        frame.setWidget(target)


def _framed(widget) -> QWidget | None:
    """The widget the ring goes around: the one with the focus, or the
    widget it stands in for (a spin box's or an editable list's text field);
    None for a window, a menu or a widget gone."""
    if widget is None or not shiboken6.isValid(widget) or widget.isWindow():
        return None
    parent = widget.parentWidget()
    while parent is not None and not parent.isWindow() and parent.focusProxy() is widget:
        widget, parent = parent, parent.parentWidget()
    return None if widget.isWindow() or widget.parentWidget() is None else widget


def show_focus(app: QApplication) -> None:
    """The ring, once per application (the theme may be applied again)."""
    if getattr(app, "_focus_ring", None) is None:
        app._focus_ring = FocusRing(app)
