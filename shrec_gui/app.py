"""``shrec-gui``: the desktop application.

    shrec-gui [FILES...]          an assessment and runs, or a session (.json)
    shrec-gui --demo              the bundled demo contest
    ... --profile NAME ...        shrec-eval's scoring options, over the contest's
    shrec-gui CONTEST.json --export-report DIR [--native DIR]
                                  headless: score through the app, write what
                                  File > Export report (native files) writes
    shrec-gui --smoke-test OUT.png
                                  open the window, score the demo, export its
                                  precision-recall plot, exit (0 = it all worked)

Nothing here assumes a console: in a windowed (frozen) build sys.stdout and
sys.stderr may be None.
"""

from __future__ import annotations

import argparse
import os
import sys

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication
from shrec_eval import __version__
from shrec_eval.errors import ShrecEvalError
from shrec_eval.option_args import eval_options, given_fields, given_options, scoring_parsers
from shrec_eval.scoring.memory import keep_freed_blocks

from .headless import export, private_settings
from .lifecycle import SignalCloser
from .state.autosave import Autosave, AutosaveHost
from .window import main_window


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="shrec-gui",
        description="Score 3D shape retrieval contests in a desktop app. The measures' and "
        "the profile's options are those of shrec-eval; written here they go over the "
        "contest's own (a contest file's settings, the app's Scoring > Options).",
        parents=scoring_parsers(),
    )
    p.add_argument("files", nargs="*", help="an assessment and runs, or a session (.json)")
    p.add_argument("--demo", action="store_true", help="open the bundled demo contest")
    p.add_argument(
        "--smoke-test",
        metavar="OUT.png",
        help="score the demo, export its precision-recall plot to OUT.png, exit",
    )
    p.add_argument(
        "--export-report",
        metavar="DIR",
        help="no window: score the contest (FILES or --demo) as the app does, write what "
        "File > Export report writes to DIR, exit (0, or 1 with the message on stderr)",
    )
    p.add_argument("--version", action="version", version=f"shrec-gui {__version__}")
    return p


def parse_args(argv):
    """The command line; ``args.given``: the scoring options it wrote, as
    (EvalOptions, the fields written) for the contest it opens, or None."""
    argv = list(argv)
    p = build_parser()
    args = p.parse_args(argv)
    if args.native and not args.export_report:
        p.error("--native goes with --export-report (File > Export native files)")
    if args.export_report and not (args.files or args.demo):
        p.error("--export-report needs a contest: CONTEST.json, ASSESSMENT RUN..., or --demo")
    dests = given_options(argv, build_parser())
    names = given_fields(dests)
    args.given = None
    if names:
        if args.smoke_test:
            p.error("--smoke-test scores the demo as it is: no scoring options with it")
        try:
            args.given = (eval_options(args, given=dests), names)
        except ShrecEvalError as exc:
            p.error(str(exc))
    return args


def make_app(argv=None) -> QApplication:
    app = QApplication.instance()
    if app is None:
        QGuiApplication.setHighDpiScaleFactorRoundingPolicy(
            Qt.HighDpiScaleFactorRoundingPolicy.PassThrough
        )
        app = QApplication(list(argv or sys.argv[:1]))
    # the scoring thread is mostly numpy, but where it runs Python it would keep
    # the GIL for the default 5 ms at a time against every GUI callback
    sys.setswitchinterval(0.001)
    app.setApplicationName("shrec-gui")
    app.setOrganizationName("shrec-eval")
    app.setApplicationVersion(__version__)
    if app.platformName() in ("offscreen", "minimal"):
        _quiet_offscreen()
    return app


#: what Qt's screenless platforms say about every window they cannot manage
#: (no window manager there): true, expected, and nothing a user can act on
OFFSCREEN_NOISE = (
    "This plugin does not support propagateSizeHints()",
    "This plugin does not support raise()",
)


def _quiet_offscreen() -> None:
    """Qt's messages as before (on stderr), less OFFSCREEN_NOISE: the smoke
    test and the headless export printed the first one five times."""
    from PySide6.QtCore import qInstallMessageHandler

    def handler(mode, context, message: str) -> None:
        if message in OFFSCREEN_NOISE:
            return
        if previous is not None:
            previous(mode, context, message)
        else:  # Qt's default: the message on stderr
            say(message)

    previous = qInstallMessageHandler(handler)


def say(message: str) -> None:
    """A line for whoever started us, if anybody can see it."""
    stream = sys.stderr or sys.stdout
    if stream is not None:
        try:
            stream.write(message + "\n")
            stream.flush()
        except (OSError, ValueError):
            pass


def since_process_start() -> float | None:
    """Seconds since this process started (Linux), or None."""
    try:
        with open("/proc/self/stat") as fh:
            start_ticks = int(fh.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime") as fh:
            uptime = float(fh.read().split()[0])
        return uptime - start_ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return None


def smoke_test(out: str, *, width: int = 1200, timeout_s: float = 120.0) -> int:
    """Open the main window, score the demo contest, export the
    precision-recall plot; 0 when every step worked."""
    import time
    from contextlib import ExitStack

    from PySide6.QtGui import QImage

    t0 = time.perf_counter()
    keep_freed_blocks()  # reading without refaulting its arrays; given back after each job
    app = make_app()
    cleanup = ExitStack()  # its preferences' folder goes at the end
    settings = cleanup.enter_context(private_settings("shrec-smoke-"))
    win = main_window(settings)
    win.quiet = True  # no modal dialog: failures are reported and end the test
    win.show()
    app.processEvents()
    shown = since_process_start() or (time.perf_counter() - t0)
    win.open_demo()
    deadline = time.monotonic() + timeout_s
    c = win.controller
    while time.monotonic() < deadline:
        app.processEvents()
        done = c.entries and c.idle() and all(e.result is not None for e in c.entries.values())
        if done or win.errors:
            break
        time.sleep(0.01)
    status = 1
    try:
        if win.errors:
            say(f"smoke test: {win.errors[0]}")
        elif not c.entries or any(e.result is None for e in c.entries.values()):
            say(f"smoke test: the demo contest was not scored within {timeout_s:.0f} s")
        else:
            win.tabs.setCurrentWidget(win.curves)
            win.curves.kind.setCurrentIndex(win.curves.kind.findData("pr"))
            app.processEvents()
            win.exports.export_plot(out, "png", width)
            img = QImage(out)
            if win.errors or img.isNull() or img.width() != width:
                say(
                    f"smoke test: the plot was not exported to {out}"
                    + (f": {win.errors[-1]}" if win.errors else "")
                )
            else:
                say(
                    f"smoke test: window shown {shown:.2f} s after launch; {len(c.entries)} runs "
                    f"scored; wrote {out} ({img.width()} x {img.height()})"
                )
                status = 0
    finally:
        win.close()
        cleanup.close()
    return status


def main(argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.smoke_test:
        if sys.platform.startswith("linux") and not (
            os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
        ):
            os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # a headless check
        try:
            return smoke_test(args.smoke_test)
        except Exception as exc:  # noqa: BLE001 - the smoke test reports, never raises
            say(f"smoke test: unexpected {type(exc).__name__}: {exc}")
            return 1
    keep_freed_blocks()  # reading without refaulting its arrays; given back after each job
    if args.export_report:
        if sys.platform.startswith("linux") and not (
            os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
        ):
            os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # no screen needed
        make_app()
        try:
            return export(
                args.files,
                report=args.export_report,
                native=args.native,
                demo=args.demo,
                given=args.given,
                say=say,
            )
        except Exception as exc:  # noqa: BLE001 - one line for whoever scripted us
            say(f"shrec-gui: error: unexpected {type(exc).__name__}: {exc}")
            return 1
    app = make_app()
    win, closer, autosave = open_window(args)
    # closed already (a signal during the recovery question): no loop to run
    status = app.exec() if win.isVisible() else 0
    if win.isVisible():  # the loop left otherwise: its threads are stopped before the end
        win.close()
    closer.uninstall()
    # closed with the user's answer: the autosave goes; without (a second
    # Ctrl-C): it is kept for the next start
    autosave.finish(keep=closer.forced)
    return status


def open_window(args, settings=None):
    """The main window as ``shrec-gui`` opens it: shown, closed by SIGINT and
    SIGTERM as by its close button (lifecycle.py), autosaved (autosave.py)
    with the autosaves of an app that did not close offered back, then the
    command line's contest.  Returns (window, signal closer, autosave)."""
    win = main_window(settings)
    closer = SignalCloser(win)
    autosave = Autosave(AutosaveHost.of(win))
    win.show()
    if autosave.offer_recovery():  # the work recovered, not replaced by the command line's
        if args.demo or args.files:
            win.status_label.setText(
                "Recovering the unsaved work; the contest of the command line was not opened."
            )
    elif args.demo:
        win.open_demo(given=args.given)
    elif args.files:
        win.open_files(args.files, given=args.given, ordered=True)
    return win, closer, autosave


if __name__ == "__main__":
    sys.exit(main())
