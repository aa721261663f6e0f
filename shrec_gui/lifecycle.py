"""How the app ends when it is told to from outside: SIGINT (Ctrl-C in the
terminal that started it) and SIGTERM (a logout, ``kill``, a service manager).

A Python signal handler runs only when the interpreter runs bytecode, and
Qt's event loop waits in C++: a signal arriving while the window waits for
the user would be noticed at the next mouse move.  :class:`SignalCloser`
hands the signal to the event loop the way the ``signal`` module offers
(:func:`signal.set_wakeup_fd` writes a byte to a socket; a QSocketNotifier
on its other end wakes the loop), and then:

* with a window shown, does what the window's close button does: the
  unsaved-changes question (Save, Discard, Cancel: Cancel keeps the app
  running), after closing any dialog the user had open; a signal while
  that question is open (a first signal's, or one the user opened by
  quitting or opening another contest, or the file dialog of its Save)
  closes the app without asking again (the autosave is kept, and offered at
  the next start: nothing is lost);
* without a window (the headless export), quietly: ``on_signal(signum)``.

Helper processes dying with the app is shrec_eval.model.parent_watch's part.
"""

from __future__ import annotations

import signal
import socket

from PySide6.QtCore import QObject, QSocketNotifier, QTimer, Signal
from PySide6.QtWidgets import QApplication, QDialog

#: the signals that close the app (SIGTERM is not sent on Windows)
SIGNALS = tuple(s for s in (getattr(signal, "SIGINT", None), getattr(signal, "SIGTERM", None)) if s)


def exit_status(signum: int) -> int:
    """The exit status of a program ended by ``signum`` (130 SIGINT, 143 SIGTERM)."""
    return 128 + int(signum)


class SignalCloser(QObject):
    """SIGINT and SIGTERM close ``window`` as its close button does (see
    the module's doc); ``forced`` tells, after the app ended, whether it
    closed without the user's answer (a second signal)."""

    received = Signal(int)  # the signal number, in the event loop

    def __init__(self, window=None, *, on_signal=None, parent: QObject | None = None) -> None:
        super().__init__(parent or QApplication.instance())
        self.window = window
        self.on_signal = on_signal
        self.forced = False
        self.asking = False  # the unsaved-changes question of a signal is open
        self._pending: list[int] = []
        self._reader, self._writer = socket.socketpair()
        for s in (self._reader, self._writer):
            s.setblocking(False)
        self._old_fd = signal.set_wakeup_fd(self._writer.fileno(), warn_on_full_buffer=False)
        self._notifier = QSocketNotifier(self._reader.fileno(), QSocketNotifier.Type.Read, self)
        self._notifier.activated.connect(self._wake)
        self._old = {s: signal.signal(s, self._handler) for s in SIGNALS}

    def uninstall(self) -> None:
        """The handlers that were there before (tests; the app's end)."""
        for s, old in self._old.items():
            signal.signal(s, old)
        self._old = {}
        signal.set_wakeup_fd(self._old_fd)
        self._notifier.setEnabled(False)
        self._reader.close()
        self._writer.close()

    def _handler(self, signum, _frame) -> None:
        # runs in the main thread between two bytecodes: only note it; the
        # event loop (woken through the socket) acts on it
        self._pending.append(signum)

    def _wake(self) -> None:
        try:
            while self._reader.recv(512):
                pass
        except OSError:  # drained (BlockingIOError) or closed
            pass
        # Python ran the handler before this slot's first line: act outside of
        # the notifier's own call
        QTimer.singleShot(0, self._act_on_pending)

    def _act_on_pending(self) -> None:
        while self._pending:
            self.act(self._pending.pop(0))

    def act(self, signum: int) -> None:
        """What a signal does (called from the event loop)."""
        self.received.emit(signum)
        w = self.window
        if w is None or not w.isVisible():
            if self.on_signal is not None:
                self.on_signal(signum)
            else:
                QApplication.quit()
            return
        if self.asking or getattr(getattr(w, "dialogs", None), "asking_unsaved", False):
            # the unsaved-changes question open already (a signal's, or the user's
            # own, or its Save's file dialog): asked once, not again; closed, the
            # autosave kept for the next start
            self.forced = True
            self._close_dialogs()
            QTimer.singleShot(0, self._close_now)
            return
        if self._close_dialogs():  # the question once the dialogs' own loops have returned
            QTimer.singleShot(0, lambda: self.act(signum))
            return
        self.asking = True
        try:
            w.quit_action()  # the unsaved-changes question; Cancel keeps the app running
        finally:
            self.asking = False

    def _close_dialogs(self) -> bool:
        """Close the modal dialog open (Cancel), if any; whether there was one."""
        modal = QApplication.activeModalWidget()
        if modal is None or modal is self.window:
            return False
        if isinstance(modal, QDialog):
            modal.reject()
        else:
            modal.close()
        return True

    def _close_now(self) -> None:
        if self._close_dialogs():  # one more left (nested): after its loop returns
            QTimer.singleShot(0, self._close_now)
            return
        if self.window is not None:
            self.window.close()  # not the close button: nothing is asked
        QApplication.quit()
