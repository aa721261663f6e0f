"""The app's file tasks: short jobs that open files (telling dropped files
apart, reading a session, writing an export or a session) off the GUI
thread.  With the scoring thread (scoring.py) they are the app's two ways
to run work in the background: scoring is one long job at a time that can
be cancelled between blocks of queries; a file task is short, and many may
run at once (a FIFO or a slow share blocks its own thread only)."""

from __future__ import annotations

import threading

from PySide6.QtCore import QObject, Signal
from shrec_eval.service import user_message

from .scoring import collect_garbage_on_the_gui_thread


class FileTasks(QObject):
    """Short file jobs of the GUI (telling dropped files apart, reading a
    session) on a daemon thread each, so that the GUI thread never opens a
    file: a FIFO or a slow network share blocks that thread, not the window,
    and does not hold up closing.  Answers are queued to the GUI thread."""

    done = Signal(int, object)  # request, value
    failed = Signal(int, str)  # request, message for the user

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        collect_garbage_on_the_gui_thread()
        self._requests = 0
        #: False: a task runs in the thread that starts it, answered before start()
        #: returns (the headless export: SIGINT and SIGTERM then reach the writing)
        self.threaded = True

    def start(self, fn, *args) -> int:
        self._requests += 1
        request = self._requests
        if not self.threaded:
            self._run(request, fn, args)
            return request
        threading.Thread(
            target=self._run, args=(request, fn, args), name="shrec-files", daemon=True
        ).start()
        return request

    def _run(self, request: int, fn, args) -> None:
        try:
            try:
                value = fn(*args)
            except Exception as exc:  # noqa: BLE001 - reported to the user
                self.failed.emit(request, user_message(exc))
                return
            self.done.emit(request, value)
        except RuntimeError:  # the window (and this object) went away meanwhile
            pass
