"""Helpers of the GUI tests: waiting for the app to settle, and a window
with the demo contest scored (built once per test module)."""

from __future__ import annotations

import time

# imported once here, before any test starts the worker thread: a hang was
# seen once when the worker (significance tests) and another thread imported
# scipy at the same moment
import scipy.stats  # noqa: F401

from shrec_gui.window.main import MainWindow, app_settings


def settled(w, n_runs=None) -> bool:
    """No job running, no result waiting to be shown, every tab up to date,
    and (``n_runs``) that many runs, all scored."""
    c = w.controller
    return (
        c.idle()
        and w.caught_up()
        and (
            n_runs is None
            or (len(c.entries) == n_runs and all(e.result is not None for e in c.entries.values()))
        )
    )


def wait_idle(qtbot, w, n_runs=None, timeout=30000) -> None:
    qtbot.waitUntil(lambda: settled(w, n_runs), timeout=timeout)


def scored_demo_window(app, timeout_s: float = 60.0) -> MainWindow:
    """A shown window, quiet (problems recorded in ``errors``, no dialog),
    with the demo contest scored; for tests that share it (module scope, so
    no qtbot: the event loop is spun here)."""
    w = MainWindow(app_settings())
    w.quiet = True
    w.show()
    w.open_demo()
    deadline = time.monotonic() + timeout_s
    while not settled(w, 7):
        if time.monotonic() > deadline:
            raise TimeoutError(f"the demo was not scored within {timeout_s} s: {w.errors}")
        app.processEvents()
        time.sleep(0.002)
    return w


#: windows shared by a test module, closed (their threads stopped) but kept
#: alive to the end of the session: deleting a window with pyqtgraph plots
#: while later tests run their event loops crashed PySide6 6.11 now and then
_RETIRED: list = []


def retire(w) -> None:
    """Close a shared window and keep it (see ``_RETIRED``)."""
    w.close()
    _RETIRED.append(w)


def answer_questions(monkeypatch, answer: list, asked: list) -> None:
    """Every QMessageBox shown with exec() (the unsaved-changes question) is
    recorded in ``asked`` (its title) and answered at once with the button of
    ``answer[0]`` (QMessageBox.StandardButton Save, Discard or Cancel: the
    button of that role is clicked)."""
    from PySide6.QtWidgets import QMessageBox

    roles = {
        QMessageBox.StandardButton.Save: QMessageBox.ButtonRole.AcceptRole,
        QMessageBox.StandardButton.Discard: QMessageBox.ButtonRole.DestructiveRole,
        QMessageBox.StandardButton.Cancel: QMessageBox.ButtonRole.RejectRole,
    }

    def exec_(box):
        asked.append(box.windowTitle())
        (button,) = [b for b in box.buttons() if box.buttonRole(b) == roles[answer[0]]]
        button.click()
        return 0

    monkeypatch.setattr(QMessageBox, "exec", exec_)


def select_rows(view, rows) -> None:
    """Select whole rows ``rows`` of a table view (the others cleared)."""
    from PySide6.QtCore import QItemSelectionModel

    sel = view.selectionModel()
    sel.clearSelection()
    for r in rows:
        sel.select(
            view.model().index(r, 0),
            QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows,
        )


def names_of(w) -> list[str]:
    """The names of a window's runs, in the controller's order."""
    return [e.name for e in w.controller.entries.values()]
