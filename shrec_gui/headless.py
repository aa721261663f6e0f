"""``shrec-gui CONTEST.json --export-report DIR``: the app without a window.

Opens a contest file (or an assessment and runs) in a main window that is
never shown, scores it through the app's own controller and worker, writes
exactly what File > Export report writes (and, with ``--native DIR``, what
File > Export native files writes), and exits: 0, or 1 with the reader's or
writer's message on stderr.  Organisers script it; the parity tests use it
to hold the app to the command line's numbers.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication


def _settings() -> QSettings:
    """Preferences of this run only: a headless export leaves the user's
    recent files, folders and window state as they were."""
    folder = Path(tempfile.mkdtemp(prefix="shrec-headless-"))
    return QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat)


def _wait(app: QApplication, done, deadline: float) -> bool:
    while time.monotonic() < deadline:
        app.processEvents()
        if done():
            return True
        time.sleep(0.005)
    app.processEvents()
    return done()


def export(
    files: list[str],
    *,
    report: str | None,
    native: str | None = None,
    demo: bool = False,
    say=print,
    timeout_s: float = 3600.0,
    windows: list | None = None,
) -> int:
    """Open ``files`` (a contest file, or an assessment and runs; ``demo``:
    the bundled demo), score, write ``report`` and ``native`` folders.
    ``say(line)`` tells the user (stderr in the command); ``windows`` (tests)
    keeps the closed window alive to the end of the process."""
    from shrec_eval.resources import demo_manifest

    from .mainwindow import MainWindow

    app = QApplication.instance()
    win = MainWindow(_settings())
    win.quiet = True  # no dialog: every problem is recorded in win.errors
    if windows is not None:
        windows.append(win)
    c = win.controller
    deadline = time.monotonic() + timeout_s
    status = 1
    try:
        if demo:
            c.open_session(str(demo_manifest()))
        else:
            c.open_files(files)

        def opened() -> bool:
            return bool(win.errors) or (
                c.assessment is not None
                and c.idle()
                and all(e.result is not None or e.error is not None for e in c.entries.values())
            )

        if not _wait(app, opened, deadline):
            say(f"shrec-gui: error: the contest was not scored within {timeout_s:.0f} s")
            return 1
        failed = [e for e in c.entries.values() if e.error is not None]
        if win.errors or failed:
            # a run's own message (the reader's, as the command line says it),
            # not the window's words around it ("The other results are kept.")
            for message in [e.error for e in failed] or win.errors:
                say(f"shrec-gui: error: {message}")
            return 1
        if not c.entries:
            say("shrec-gui: error: the contest has no runs to score")
            return 1
        written: dict[str, str] = {}
        win.exports.folderDone.connect(lambda what, _folder, err: written.__setitem__(what, err))
        for what, folder, start in (
            ("report", report, win.exports.export_report),
            ("native", native, win.exports.export_native),
        ):
            if not folder:
                continue
            start(folder)
            if not _wait(app, lambda w=what: w in written or bool(win.errors), deadline):
                say(f"shrec-gui: error: the {what} was not written within {timeout_s:.0f} s")
                return 1
            if written.get(what) or win.errors:
                say(f"shrec-gui: error: {written.get(what) or win.errors[-1]}")
                return 1
            say(f"shrec-gui: wrote {folder}")
        status = 0
    finally:
        win.close()  # not a user's close: nothing is asked; its threads stop
        app.processEvents()
    return status
