"""``shrec-gui CONTEST.json --export-report DIR``: the app without a window.

Opens a contest file (or an assessment and runs) in a main window that is
never shown, scores it through the app's own controller and worker, writes
exactly what File > Export report writes (and, with ``--native DIR``, what
File > Export native files writes), and exits: 0, or 1 with the reader's or
writer's message on stderr.  Organisers script it; the parity tests use it
to hold the app to the command line's numbers.
"""

from __future__ import annotations

import shutil
import signal
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication
from shrec_eval.outputs.figure_jobs import start_drawers
from shrec_eval.outputs.native import check_native
from shrec_eval.resources import demo_manifest

from .lifecycle import SignalCloser, exit_status
from .window import main_window


@contextmanager
def private_settings(prefix: str = "shrec-headless-"):
    """Preferences of this run only (a headless export, the smoke test): the
    user's recent files, folders and window state stay as they were.  The
    folder holding them is removed at the end (written out first: QSettings
    would otherwise write it again when it goes)."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    settings = QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat)
    try:
        yield settings
    finally:
        settings.sync()
        shutil.rmtree(folder, ignore_errors=True)


def _wait(app: QApplication, done, deadline: float, stop=lambda: False) -> bool:
    while time.monotonic() < deadline and not stop():
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
    given=None,
    say=print,
    timeout_s: float = 3600.0,
    windows: list | None = None,
) -> int:
    """Open ``files`` (a contest file, or an assessment and runs; ``demo``:
    the bundled demo), score, write ``report`` and ``native`` folders.
    ``given``: the command line's scoring options (EvalOptions, the fields
    it wrote), over the contest's own.  ``say(line)`` tells the user (stderr
    in the command); ``windows`` (tests) keeps the closed window alive to the
    end of the process."""
    # SIGINT and SIGTERM end the run quietly (130, 143): while scoring, noted
    # and acted on between two passes of the event loop; while a folder is
    # written (in this thread), raised there as the command line raises them,
    # so that the folder's clean-up runs (nothing half written, nothing left)
    signals: list[int] = []
    closer = SignalCloser(None, on_signal=signals.append)
    # the figures' processes first: they start (their import of matplotlib)
    # while the window is made and the contest read and scored; forked, as the
    # command line's, from a server that imports it once (Linux, not frozen;
    # spawned elsewhere); their close() ends that server and its folder
    drawers = start_drawers(from_server=True) if report else None
    try:
        with private_settings() as settings:
            return _export(
                files,
                settings,
                report,
                native,
                demo,
                given,
                say,
                timeout_s,
                windows,
                drawers,
                signals,
            )
    finally:
        if drawers is not None:
            drawers.close()  # ended with the window already, unless it stopped before
        closer.uninstall()


def _export(
    files, settings, report, native, demo, given, say, timeout_s, windows, drawers, signals
) -> int:
    app = QApplication.instance()
    win = main_window(settings)
    win.quiet = True  # no dialog: every problem is recorded in win.errors
    if windows is not None:
        windows.append(win)
    c = win.controller
    deadline = time.monotonic() + timeout_s
    status = 1
    written: dict[str, str] = {}
    for tasks in (win.exports.report_tasks, win.exports.native_tasks):
        tasks.threaded = False

    def gate(contest) -> None:
        """As the command line: the outputs through the gate before any scoring."""
        if native:
            check_native(contest.profile)
        contest.gate_outputs(report=report, native=native)

    c.before_scoring = gate
    try:
        if report:  # the figures' processes, the export's now
            win.exports.prepare_report(drawers)
        if demo:
            c.open_session(str(demo_manifest()), given=given)
        else:
            c.open_files(files, given=given, ordered=True)  # as shrec-eval evaluate takes them

        def opened() -> bool:
            return bool(win.errors) or (
                c.assessment is not None
                and c.idle()
                and all(e.result is not None or e.error is not None for e in c.entries.values())
            )

        if not _wait(app, opened, deadline, stop=lambda: bool(signals)):
            if signals:
                return _interrupted(say, signals[0])
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
        win.exports.folderDone.connect(lambda what, _folder, err: written.__setitem__(what, err))
        for what, folder, start in (
            ("report", report, win.exports.export_report),
            ("native", native, win.exports.export_native),
        ):
            if not folder:
                continue
            if signals:
                return _interrupted(say, signals[0])
            try:
                with _raised_signals():
                    start(folder)
            except KeyboardInterrupt:
                return _interrupted(say, signal.SIGINT)
            except _Terminated:
                return _interrupted(say, signal.SIGTERM)
            if not _wait(app, lambda w=what: w in written or bool(win.errors), deadline):
                say(f"shrec-gui: error: the {what} was not written within {timeout_s:.0f} s")
                return 1
            if written.get(what) or win.errors:
                say(f"shrec-gui: error: {written.get(what) or win.errors[-1]}")
                return 1
            say(f"shrec-gui: wrote {folder}")
        if signals:
            return _interrupted(say, signals[0])
        status = 0
    finally:
        win.close()  # not a user's close: nothing is asked; its threads and drawers stop
        app.processEvents()
    return status


class _Terminated(BaseException):
    """SIGTERM while a folder is written (as the command line's Terminated)."""


def _terminated(signum, frame) -> None:
    raise _Terminated()


@contextmanager
def _raised_signals():
    """SIGINT and SIGTERM raised where this thread is (KeyboardInterrupt, _Terminated)."""
    old = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _terminated)
    try:
        yield
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)


def _interrupted(say, signum: int) -> int:
    say("shrec-gui: " + ("interrupted" if signum == signal.SIGINT else "terminated"))
    return exit_status(signum)
