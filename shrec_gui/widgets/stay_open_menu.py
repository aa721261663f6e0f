"""A menu of check boxes that stays open while they are ticked (the
Columns chooser): several columns in a row, without reopening it."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMenu

_TOGGLE_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space)


class StayOpenMenu(QMenu):
    """QMenu closes when any entry is triggered; here a checkable entry
    toggles and the menu stays (other entries behave as usual)."""

    def _toggle(self, action) -> bool:
        if action is None or not action.isEnabled() or not action.isCheckable():
            return False
        action.trigger()
        return True

    def mouseReleaseEvent(self, event) -> None:
        if not self._toggle(self.actionAt(event.position().toPoint())):
            super().mouseReleaseEvent(event)

    def keyPressEvent(self, event) -> None:
        if not (event.key() in _TOGGLE_KEYS and self._toggle(self.activeAction())):
            super().keyPressEvent(event)
