"""The app's file tasks: short jobs that open files (telling dropped files
apart, reading a session, writing an export or a session) off the GUI
thread.  With the scoring thread (scoring.py) they are the app's two ways
to run work in the background: scoring is one long job at a time that can
be cancelled between blocks of queries; a file task is short, and many may
run at once (a FIFO or a slow share blocks its own thread only)."""

from __future__ import annotations

import threading

from PySide6.QtCore import QEventLoop, QObject, Signal, Slot
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
        self._running: dict[int, threading.Thread] = {}  # request -> its thread
        #: False: a task runs in the thread that starts it, answered before start()
        #: returns (the headless export: SIGINT and SIGTERM then reach the writing)
        self.threaded = True

    def start(self, fn, *args) -> int:
        self._requests += 1
        request = self._requests
        if not self.threaded:
            self._run(request, fn, args)
            return request
        thread = threading.Thread(
            target=self._run, args=(request, fn, args), name="shrec-files", daemon=True
        )
        self._running[request] = thread
        thread.start()
        return request

    def busy(self) -> bool:
        """A task started here is still running."""
        return any(t.is_alive() for t in list(self._running.values()))

    def wait(self, timeout: float = 10.0) -> None:
        """Until the tasks started so far are done (at most ``timeout``
        seconds each): a write that must end before the app does."""
        for thread in list(self._running.values()):
            thread.join(timeout)

    def run(self, fn, *args):
        """``fn(*args)`` on a file thread, its value returned here once it
        is done (or its exception raised here, as the call would have).  The
        GUI thread waits in an event loop of its own meanwhile: the window
        repaints, timers and the scoring thread's answers go on; the user's
        input waits (no second export or close starts during the write)."""
        if not self.threaded:
            return fn(*args)
        raised: list[BaseException] = []

        def call():
            try:
                return fn(*args)
            except BaseException as exc:
                raised.append(exc)
                raise

        waiter = _Waiter()
        self.done.connect(waiter.answer)
        self.failed.connect(waiter.answer)
        try:
            waiter.request = self.start(call)
            if not waiter.answered:
                waiter.loop.exec(QEventLoop.ProcessEventsFlag.ExcludeUserInputEvents)
        finally:
            self.done.disconnect(waiter.answer)
            self.failed.disconnect(waiter.answer)
        if raised:
            raise raised[0]
        return waiter.value

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
        finally:
            self._running.pop(request, None)


class _Waiter(QObject):
    """The answer FileTasks.run waits for (its slot runs on the GUI thread)."""

    def __init__(self) -> None:
        super().__init__()
        self.loop = QEventLoop()
        self.request = 0
        self.answered = False
        self.value = None

    @Slot(int, object)
    def answer(self, request: int, value) -> None:
        if request == self.request:
            self.answered, self.value = True, value
            self.loop.quit()
