"""How the app ends (issue 31): no process left behind when it is killed
(SIGKILL, SIGTERM, a crash, Ctrl-C in its terminal), SIGINT and SIGTERM
closing it as its close button does (the unsaved-changes question with a
window, quietly without), no temporary folder left by the headless export,
and a session saved from the app keeping every field of its contest file."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from guitools import answer_questions, wait_idle  # noqa: E402
from PySide6.QtCore import QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication, QMessageBox  # noqa: E402
from shrec_eval.contest import Contest  # noqa: E402
from shrec_eval.resources import demo_manifest  # noqa: E402

LINUX = sys.platform.startswith("linux")


# -- processes -------------------------------------------------------------------------------
def _stat(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()
    except OSError:
        return None


def descendants(pid: int) -> list[int]:
    """Every process under ``pid`` (Linux /proc)."""
    children: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            st = _stat(int(d))
            if st is not None:
                children.setdefault(int(st[1]), []).append(int(d))
    out, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def alive(pid: int) -> bool:
    st = _stat(pid)
    return st is not None and st[0] != "Z"  # a zombie has ended (its parent has not reaped it)


def command(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def app_env(tmp_path: Path) -> dict:
    """The app of a child process with its own settings, data, cache and temp folders."""
    for d in ("config", "data", "cache", "tmp"):
        (tmp_path / d).mkdir(exist_ok=True)
    return dict(
        os.environ,
        QT_QPA_PLATFORM="offscreen",
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        SHREC_GUI_DATA_DIR=str(tmp_path / "data"),
        SHREC_EVAL_CACHE_DIR=str(tmp_path / "cache"),
        TMPDIR=str(tmp_path / "tmp"),
    )


def start_demo_app(tmp_path: Path, *more: str):
    """``shrec-gui --demo`` in a process group of its own, once its thumbnail
    processes and multiprocessing's resource tracker run; (process, helpers)."""
    p = subprocess.Popen(
        [sys.executable, "-m", "shrec_gui", "--demo", *more],
        env=app_env(tmp_path),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        helpers = descendants(p.pid)
        cmds = [command(h) for h in helpers]
        if any("spawn_main" in c for c in cmds) and any("resource_tracker" in c for c in cmds):
            time.sleep(1.0)  # the helpers at work (their watch set up)
            return p, descendants(p.pid)
        if p.poll() is not None:
            break
        time.sleep(0.1)
    p.kill()
    pytest.fail(f"the app's helper processes did not start: {p.stderr.read().decode()[-2000:]}")


def assert_none_left(helpers: list[int], timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(alive(h) for h in helpers):
        time.sleep(0.05)
    left = [(h, command(h)[:100]) for h in helpers if alive(h)]
    for h, _ in left:  # not to leave them to the next tests either
        os.kill(h, signal.SIGKILL)
    assert not left, f"processes left behind: {left}"


@pytest.mark.skipif(not LINUX, reason="reads /proc")
@pytest.mark.parametrize(
    "how",
    ["SIGKILL", "SIGTERM", "ctrl-c", pytest.param("SIGSEGV", marks=pytest.mark.slow)],
)
def test_killing_the_app_leaves_no_process(tmp_path, how):
    p, helpers = start_demo_app(tmp_path)
    assert len(helpers) >= 2, [command(h) for h in helpers]
    if how == "ctrl-c":  # the terminal sends SIGINT to its whole foreground group
        os.killpg(p.pid, signal.SIGINT)
    else:
        p.send_signal(getattr(signal, how))
    try:
        status = p.wait(60)
    except subprocess.TimeoutExpired:
        p.kill()
        pytest.fail(f"{how}: the app did not end")
    assert_none_left(helpers)
    err = p.stderr.read().decode(errors="replace")
    if how in ("SIGTERM", "ctrl-c"):  # closed as its close button closes it (nothing unsaved)
        assert status == 0, err[-2000:]
        assert "Traceback" not in err and "KeyboardInterrupt" not in err, err[-2000:]
        # the autosave folder of a closed app goes with it
        assert list((tmp_path / "data" / "autosave").iterdir()) == []
    else:
        assert status == -getattr(signal, how)
    assert list((tmp_path / "tmp").iterdir()) == []


# -- signals in the window -------------------------------------------------------------------
@pytest.fixture
def closer_win(win, qtbot):
    """The demo scored in a shown window with the app's signal handling; one
    run removed (an unsaved change).  ``quits`` records QApplication.quit."""
    from shrec_gui.lifecycle import SignalCloser

    win.open_demo()
    wait_idle(qtbot, win, 7, timeout=60000)
    win.controller.remove([next(iter(win.controller.entries))])
    closer = SignalCloser(win)
    yield win, closer
    closer.uninstall()


def _signal_soon(signum: int, ms: int = 0) -> None:
    QTimer.singleShot(ms, lambda: os.kill(os.getpid(), signum))


@pytest.mark.skipif(not hasattr(signal, "SIGTERM") or os.name != "posix", reason="POSIX signals")
def test_sigint_asks_the_unsaved_question_and_cancel_keeps_the_app(closer_win, qtbot, monkeypatch):
    win, closer = closer_win
    asked: list[str] = []
    answer = [QMessageBox.StandardButton.Cancel]
    answer_questions(monkeypatch, answer, asked)
    _signal_soon(signal.SIGINT)
    qtbot.waitUntil(lambda: asked == ["Unsaved changes"], timeout=5000)
    qtbot.wait(50)
    assert win.isVisible() and not closer.forced  # Cancel: the app goes on
    answer[0] = QMessageBox.StandardButton.Discard
    _signal_soon(signal.SIGTERM)
    qtbot.waitUntil(lambda: not win.isVisible(), timeout=5000)
    assert asked == ["Unsaved changes"] * 2 and not closer.forced


@pytest.mark.skipif(os.name != "posix", reason="POSIX signals")
def test_a_second_signal_while_asking_closes_without_asking(closer_win, qtbot, monkeypatch):
    win, closer = closer_win
    quits = []
    monkeypatch.setattr(QApplication, "quit", lambda *a: quits.append(1))
    shown = []

    def second_signal():  # once the real question box is open (modal): Ctrl-C again
        box = QApplication.activeModalWidget()
        if box is not None and not shown:
            shown.append(box.windowTitle())
            os.kill(os.getpid(), signal.SIGINT)

    watch = QTimer()
    watch.timeout.connect(second_signal)
    watch.start(20)
    _signal_soon(signal.SIGINT)
    qtbot.waitUntil(lambda: not win.isVisible(), timeout=10000)
    watch.stop()
    assert shown == ["Unsaved changes"]
    assert closer.forced and quits
    assert QApplication.activeModalWidget() is None


@pytest.mark.skipif(os.name != "posix", reason="POSIX signals")
def test_a_signal_closes_the_dialog_open_first(win, qtbot):
    """Nothing unsaved, the options dialog open: SIGTERM closes it (Cancel)
    and then the window, without a question."""
    from shrec_gui.lifecycle import SignalCloser

    closer = SignalCloser(win)
    try:
        _signal_soon(signal.SIGTERM, 200)
        win.options_dialog()  # its exec() returns when the signal closes it
        qtbot.waitUntil(lambda: not win.isVisible(), timeout=5000)
        assert not closer.forced
    finally:
        closer.uninstall()


@pytest.mark.skipif(os.name != "posix", reason="POSIX signals")
def test_without_a_window_a_signal_is_handed_on_quietly(qtbot):
    from shrec_gui.lifecycle import SignalCloser, exit_status

    got = []
    closer = SignalCloser(None, on_signal=got.append)
    try:
        os.kill(os.getpid(), signal.SIGTERM)
        qtbot.waitUntil(lambda: got == [signal.SIGTERM], timeout=5000)
    finally:
        closer.uninstall()
    assert signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None) or callable(
        signal.getsignal(signal.SIGTERM)
    )
    assert exit_status(signal.SIGINT) == 130 and exit_status(signal.SIGTERM) == 143


# -- the headless export ---------------------------------------------------------------------
_WINDOWS: list = []  # headless windows, kept to the end (see guitools.retire)


@pytest.mark.figure_server
def test_the_headless_export_leaves_no_temporary_folder(qapp, tmp_path, monkeypatch):
    import tempfile

    from shrec_gui.headless import export

    # a short folder: a Unix socket's path has at most 107 bytes (in an xdist
    # worker's tmp_path the drawers' server could not bind its socket, and
    # the figures were drawn in this process)
    temp = Path(tempfile.mkdtemp(prefix="headless-", dir="/tmp"))
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    said: list[str] = []
    status = export(
        [], report=str(tmp_path / "report"), demo=True, say=said.append, windows=_WINDOWS
    )
    assert status == 0, said
    assert (tmp_path / "report" / "summary.csv").is_file()
    assert list(temp.iterdir()) == []
    temp.rmdir()


@pytest.mark.skipif(not LINUX, reason="reads /proc")
def test_sigterm_ends_the_headless_export_quietly(tmp_path):
    # once its thumbnail processes run, the contest is open and being scored
    p, helpers = start_demo_app(tmp_path, "--export-report", str(tmp_path / "r"))
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=120)
    err = err.decode(errors="replace")
    assert p.returncode in (143, 0), err  # 0: it had finished already
    if p.returncode == 143:
        assert "shrec-gui: terminated" in err and "Traceback" not in err, err
    assert_none_left(helpers)
    assert list((tmp_path / "tmp").iterdir()) == []
    # the report folder is whole or absent, never half written
    r = tmp_path / "r"
    assert not r.exists() or (r / "summary.csv").is_file()
    assert [x.name for x in tmp_path.iterdir() if x.name.startswith(".r")] == []


# -- quitting under the command line's profile ----------------------------------------------
QUITTING_APP = """
import sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
import shrec_gui.app as app

opened = app.open_window


def open_window(args, settings=None):  # the user: (a change,) then File > Quit
    win, closer, autosave = opened(args, settings)
    c = win.controller

    def scored():
        if not (len(c.entries) == 7 and c.idle() and all(e.result for e in c.entries.values())):
            QTimer.singleShot(50, scored)
            return
        if CHANGE:
            c.remove([next(iter(c.entries))])
        print("quitting", flush=True)
        QTimer.singleShot(0, win.quit_action)
        QTimer.singleShot(50, asked)

    def asked():
        box = QApplication.activeModalWidget()
        if box is None:
            QTimer.singleShot(50, asked)
        else:
            print("asked", box.windowTitle(), flush=True)

    QTimer.singleShot(50, scored)
    return win, closer, autosave


app.open_window = open_window
sys.exit(app.main(["--demo", "--profile", "psbtable"]))
"""


def _quitting_app(tmp_path, change: bool):
    return subprocess.Popen(
        [sys.executable, "-c", f"CHANGE = {change}\n" + QUITTING_APP],
        env=app_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_quitting_the_demo_untouched_under_a_profile_asks_nothing(tmp_path):
    """The command line's --profile is how this launch reads the contest,
    not a change of the user's: quitting asks nothing, keeps no autosave."""
    p = _quitting_app(tmp_path, change=False)
    try:
        out, err = p.communicate(timeout=180)
    finally:
        p.kill()  # (a question left open: not to leave the process behind)
    assert p.returncode == 0, err[-2000:]
    assert out.splitlines() == ["quitting"]  # no question
    assert list((tmp_path / "data" / "autosave").iterdir()) == []


@pytest.mark.skipif(os.name != "posix", reason="SIGTERM")
def test_sigterm_while_the_quit_question_is_open_ends_the_app_keeping_the_work(tmp_path):
    """The user quits with a change unsaved; while the unsaved-changes
    question is open a SIGTERM comes (a logout): the app ends, not asking
    again, and the autosave keeps the change for the next start."""
    p = _quitting_app(tmp_path, change=True)
    try:
        assert p.stdout.readline().strip() == "quitting", p.stderr.read()[-2000:]
        assert p.stdout.readline().strip() == "asked Unsaved changes"
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=60)
    finally:
        p.kill()
    assert p.returncode == 0, err[-2000:]
    assert "Traceback" not in err, err[-2000:]
    (folder,) = (tmp_path / "data" / "autosave").iterdir()
    copy = Contest.read(folder / "session.json")
    assert len(copy.runs) == 6 and copy.options.profile == "psbtable"


# -- sessions keep the contest file's fields -------------------------------------------------
def test_a_saved_session_keeps_every_field_of_its_contest_file(win, qtbot, tmp_path):
    from dataclasses import replace

    demo = Contest.read(demo_manifest())
    path = tmp_path / "contest.json"
    # the demo's files, in a contest file of our own that says more about itself
    replace(demo, name="Ours", description="Our contest: what it scores, for whom").write(path)
    win.quiet = True
    win.controller.open_session(str(path))
    wait_idle(qtbot, win, 7, timeout=60000)
    win.controller.remove([next(iter(win.controller.entries))])  # an edit, then saved
    assert win.dialogs.save_session_action()
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert saved["description"] == "Our contest: what it scores, for whom"
    assert saved["name"] == "Ours" and len(saved["runs"]) == 6
    back = Contest.read(path)
    assert back.shapes == demo.shapes and back.query_shapes == demo.query_shapes
    # the runs as they were read (the app adds the colours it shows them in)
    assert [replace(r, colour=None) for r in back.runs] == list(demo.runs[1:])
    # and Save as, to another file
    other = tmp_path / "other.json"
    assert win.dialogs.save_session_to(str(other))
    assert Contest.read(other).description == "Our contest: what it scores, for whom"


# -- what the window keeps -------------------------------------------------------------------
def _deferred_deletes() -> None:
    from PySide6.QtCore import QCoreApplication, QEvent

    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    QApplication.processEvents()


def test_rebuilt_menus_and_closed_dialogs_are_not_kept(win, monkeypatch):
    """Each rebuild of the Columns menu and each opening of the options or
    shapes dialog once kept its widgets for the life of the window (125 menus
    after the monkey's 400 actions), and the app crashed at exit deleting them
    ("shared QObject was deleted directly"): they are deleted once done with."""
    from PySide6.QtWidgets import QDialog, QMenu

    from shrec_gui.window.dialogs import OptionsDialog
    from shrec_gui.window.shapes_dialog import ShapesDialog

    summary = win.summary
    summary._rebuild_columns_menu()
    _deferred_deletes()
    first = len(summary.columns_menu.findChildren(QMenu))
    assert first > 0
    for _ in range(5):
        summary._rebuild_columns_menu()
    _deferred_deletes()
    assert len(summary.columns_menu.findChildren(QMenu)) == first
    monkeypatch.setattr(QDialog, "exec", lambda self: QDialog.DialogCode.Rejected)
    for _ in range(3):
        win.options_dialog()
        win.shapes_dialog()
    _deferred_deletes()
    assert win.findChildren(OptionsDialog) == [] and win.findChildren(ShapesDialog) == []


def test_a_legend_placing_asked_for_goes_with_its_plot(qtbot):
    """A plot deleted while its legend's placing waits for the event loop
    takes the placing with it (it ran on the deleted legend: a closed
    window's tab made just before the window closed)."""
    import gc

    import pyqtgraph as pg
    import shiboken6

    from shrec_gui.plots.legend_place import LegendPlacer
    from shrec_gui.plots.plot_view import PlotView

    plot = PlotView()
    plot.addLegend()
    plot.getPlotItem().addItem(pg.PlotDataItem([0, 1], [0, 1], name="a run"))
    placer = LegendPlacer(plot.getPlotItem())
    placer.schedule()
    plot.deleteLater()
    del plot
    _deferred_deletes()  # the event loop runs: nothing placed on the deleted legend
    gc.collect()
    assert not shiboken6.isValid(placer)  # gone with its plot


def open_menus(plots) -> None:
    """Each plot's right-click menu, as a right-click opens it."""
    for plot in plots:
        plot.getPlotItem().vb.getMenu(None)


@pytest.mark.parametrize("scored", [False, True], ids=["empty", "demo scored"])
def test_a_closed_window_leaves_no_widget_behind(qtbot, scored):
    """A window closed and deleted takes every widget it made with it: the
    plots' hover proxies (pyqtgraph's SignalProxy, made without a parent)
    once held their plots through their slots, in a cycle Python's collector
    cannot see, and kept each window's plots, their menus and their frames
    (85 top-level widgets) for the life of the process.  Every tab is made
    and each plot's menu opened first (made when first shown, first opened)."""
    import gc

    import pyqtgraph as pg

    from shrec_gui.window.main import MainWindow, app_settings

    app = QApplication.instance()

    def parentless():  # a popup of a combo box is a top-level widget with a parent
        return {id(x): x for x in app.topLevelWidgets() if x.parentWidget() is None}

    gc.collect()
    before = parentless()
    w = MainWindow(app_settings())
    w.quiet = True
    w.show()
    if scored:
        w.open_demo()
    wait_idle(qtbot, w, 7 if scored else None)
    w.all_tabs()  # every tab made (a tab is made when first shown)
    open_menus(w.findChildren(pg.PlotWidget))
    made = [x for k, x in parentless().items() if k not in before]
    assert "ViewBoxMenu" in {type(x).__name__ for x in made}  # the plots' menus
    w.close()
    w.deleteLater()
    del w, made
    _deferred_deletes()
    gc.collect()
    left = [x for k, x in parentless().items() if k not in before]
    assert [type(x).__name__ for x in left] == []
