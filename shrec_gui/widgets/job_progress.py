"""The status bar's progress of a job: the bar that follows a job's steps."""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QProgressBar


class JobProgress(QProgressBar):
    """A job's progress, 0 to 1000, hidden while no job runs.

    It moves at most every :attr:`MOVE_MS`, to the latest step: Qt's
    ``setValue`` repaints the bar at once (not at the next paint), and a
    job's steps, up to 30 a second, took a fifth of the GUI thread's time
    while the demo was scored."""

    #: the least time between two moves of the bar (ms)
    MOVE_MS = 100

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setMaximumWidth(260)
        self.setRange(0, 1000)
        self.setVisible(False)
        self._latest = 0
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(self.MOVE_MS)
        self._timer.timeout.connect(self._move)

    def show_step(self, value: int) -> None:
        """A job's step (0 to 1000): the first at once, then the latest when
        :attr:`MOVE_MS` has passed; -1, the job's end: hidden and reset at once."""
        self.setVisible(value >= 0)
        self._latest = max(value, 0)
        if value < 0:
            self._timer.stop()
            self._move()
        elif not self._timer.isActive():
            self._move()
            self._timer.start()

    def _move(self) -> None:
        self.setValue(self._latest)


__all__ = ["JobProgress"]
