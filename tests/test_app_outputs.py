"""The app's exports pass the same output gate as the command line (issue
24): a tab's CSV, a plot and the report folder are never written over an
input of what is open, nor through a link to one."""

import csv
import os
import shutil
import signal
import sys
from dataclasses import replace
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")


import numpy as np  # noqa: E402
from guitools import wait_idle  # noqa: E402
from PySide6.QtCore import QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication, QDialog, QFileDialog  # noqa: E402
from shrec_eval.contest import AssessmentSource, Contest, RunSource  # noqa: E402
from shrec_eval.resources import demo_manifest, resources_dir  # noqa: E402

from shrec_gui.window import settings  # noqa: E402
from shrec_gui.window.file_dialogs import OutputFolderDialog  # noqa: E402
from shrec_gui.window.main import MainWindow, app_settings  # noqa: E402

CLA = "PSB 1\n2 6\n\na 0 3\n0\n1\n2\n\nb 0 3\n3\n4\n5\n"


@pytest.fixture
def opened(qtbot, tmp_path):
    (tmp_path / "a.cla").write_text(CLA)
    lab = np.repeat([0, 1], 3)
    m = np.random.default_rng(0).uniform(1, 2, (6, 6)) - (lab[:, None] == lab[None, :]) * 0.5
    np.fill_diagonal(m, 0)
    np.savetxt(tmp_path / "m.txt", m, fmt="%.4f")
    Contest(AssessmentSource(tmp_path / "a.cla"), (RunSource(tmp_path / "m.txt"),)).write(
        tmp_path / "s.json"
    )
    w = MainWindow(app_settings())
    qtbot.addWidget(w)
    w.quiet = True
    w.show()
    w.controller.open_session(str(tmp_path / "s.json"))
    wait_idle(qtbot, w, 1)
    return w


def test_exports_never_replace_an_input(opened, qtbot, tmp_path):
    w = opened
    before = {p: p.read_bytes() for p in (tmp_path / "a.cla", tmp_path / "m.txt")}
    (tmp_path / "link.csv").symlink_to(tmp_path / "a.cla")
    for target in (tmp_path / "a.cla", tmp_path / "link.csv"):
        w.exports.export_tab(w.summary, str(target))
        assert "would replace an input" in w.errors[-1]
    w.exports.export_plot(str(tmp_path / "m.txt"), "csv")
    assert "would replace an input" in w.errors[-1]
    w.exports.export_report(str(tmp_path))  # the folder holding the inputs
    assert "holds the input" in w.errors[-1]
    assert {p: p.read_bytes() for p in before} == before
    # a fresh path is written
    w.exports.export_tab(w.summary, str(tmp_path / "summary.csv"))
    head, row = csv.reader((tmp_path / "summary.csv").read_text().splitlines())
    got = dict(zip(head, row))  # the columns in the command line's order
    assert row[:2] == ["m", "1"] and got["Average Precision (trec, relevant)"] == "0.7778"


def test_exports_refuse_a_folder_of_other_files_before_scoring(opened, qtbot, tmp_path):
    """Export native files and Export report after a profile change (the
    runs not scored under it yet): a folder of the user's is refused at once,
    as the command line refuses it, before a scoring job starts; the folder
    and the results shown stay as they were."""
    w, c = opened, opened.controller
    c.set_options(replace(c.options, profile="psbtable"))
    assert c.stale_entries() and not c.busy
    paper = tmp_path / "paper"
    paper.mkdir()
    (paper / "class.txt").write_text("the lab's class list, not a copy\n")
    (paper / "notes.txt").write_text("notes\n")
    done = []
    w.exports.folderDone.connect(lambda what, folder, err: done.append((what, folder, err)))
    for export, said in (
        (w.exports.export_native, "(notes.txt)"),
        (w.exports.export_report, "(class.txt, notes.txt)"),
    ):
        export(str(paper))
        assert not c.busy and c.stale_entries()  # no job started
        assert w.errors[-1] == (
            f"{paper}: the folder holds other files than this output writes {said}; "
            "choose a new or empty folder"
        )
    assert [(what, folder) for what, folder, _ in done] == [
        ("native", str(paper)),
        ("report", str(paper)),
    ]
    assert sorted(os.listdir(paper)) == ["class.txt", "notes.txt"]
    assert (paper / "class.txt").read_text() == "the lab's class list, not a copy\n"


def _take_the_folder_offered(shots: list, path: str = "") -> None:
    """The user presses Enter in the folder dialog open (its picture saved
    to ``path``); a dialog that opened the folder instead of taking it is
    cancelled."""
    dialog = QApplication.activeModalWidget()
    shots.append(dialog)
    if path:
        dialog.grab().save(path)
    dialog.accept()
    if dialog.isVisible():
        dialog.reject()


def test_the_folder_dialogs_take_an_existing_empty_folder(opened, monkeypatch, tmp_path):
    """Export native files (and Export report) offer their folder in the
    contest's folder: an existing empty folder (or an earlier export's) is
    taken as it is, a new name is taken too (a save dialog opened every
    existing folder instead: an empty one could never be chosen)."""
    w = opened
    chosen: list[str] = []
    monkeypatch.setattr(w.exports, "export_native", chosen.append)
    monkeypatch.setattr(w.exports, "export_report", chosen.append)
    (tmp_path / "native").mkdir()
    shots: list = []
    QTimer.singleShot(0, lambda: _take_the_folder_offered(shots, "/tmp/native_folder_dialog.png"))
    w.exports.export_native_dialog()
    assert chosen == [str(tmp_path / "native")] and len(shots) == 1
    QTimer.singleShot(0, lambda: _take_the_folder_offered(shots))  # "report": a new folder
    w.exports.export_report_dialog()
    assert chosen[1:] == [str(tmp_path / "report")] and not (tmp_path / "report").exists()


DEMO = demo_manifest().parent


def demo_window(win, qtbot, width=1200):
    win.resize(width, 760)
    win.open_demo()
    wait_idle(qtbot, win, 7)
    return win


def save_dialog_starts(monkeypatch) -> list[str]:
    """Where each save dialog (and each output folder's) opens (the dialog
    itself answers Cancel)."""
    starts = []

    def fake(parent, title, start, filters, *a, **k):
        starts.append(start)
        return "", ""

    def folder(dialog):
        starts.append(dialog.selectedFiles()[0])
        return QDialog.DialogCode.Rejected

    monkeypatch.setattr(QFileDialog, "getSaveFileName", fake)
    monkeypatch.setattr(OutputFolderDialog, "exec", folder)
    return starts


def inside(path, folder) -> bool:
    path, folder = Path(path).resolve(), Path(folder).resolve()
    return path == folder or folder in path.parents


def contest_copy(tmp_path) -> Path:
    """The demo contest copied to a folder of the user's (writable)."""
    folder = tmp_path / "my contest"
    shutil.copytree(DEMO, folder)
    return folder / "contest.json"


# -- default output folders --------------------------------------------------------


def test_outputs_of_the_demo_default_to_the_documents_folder(win, qtbot, monkeypatch):
    """The demo lives in the installation: the report, figure, CSV and
    session dialogs open in the documents folder, never there."""
    demo_window(win, qtbot)
    starts = save_dialog_starts(monkeypatch)
    win.exports.export_report_dialog()
    win.exports.export_tab_dialog()
    win.exports.export_plot_dialog("csv", "curves")
    win.dialogs.save_session_dialog()
    assert len(starts) == 4
    docs = settings.documents_folder()
    for start in starts:
        assert Path(start).parent == Path(docs)
        assert not inside(start, resources_dir())
    assert Path(starts[0]).name == "report" and Path(starts[3]).name == "session.json"


def test_outputs_of_a_contest_default_to_its_folder(win, qtbot, monkeypatch, tmp_path):
    manifest = contest_copy(tmp_path)
    win.controller.open_session(str(manifest))
    wait_idle(qtbot, win, 7)
    starts = save_dialog_starts(monkeypatch)
    win.prefs.remember_folder(str(tmp_path))  # another folder used last: not for outputs
    win.exports.export_report_dialog()
    win.dialogs.save_session_dialog()
    assert [Path(s).parent for s in starts] == [manifest.parent] * 2


def test_an_unwritable_or_installed_folder_gives_the_documents_folder(monkeypatch, tmp_path):
    docs = settings.documents_folder()
    assert settings.output_folder(tmp_path) == str(tmp_path.resolve())
    assert settings.output_folder(DEMO) == docs  # inside the installation
    assert settings.output_folder(None) == docs
    assert settings.output_folder(tmp_path / "gone") == docs
    monkeypatch.setattr(os, "access", lambda path, mode: False)  # read-only (tests run as root)
    assert settings.output_folder(tmp_path) == docs


def test_the_last_folder_is_stored_absolute(win, monkeypatch, tmp_path):
    (tmp_path / "runs").mkdir()
    monkeypatch.chdir(tmp_path)
    win.prefs.remember_folder("runs/alice.txt")
    stored = win.prefs.qsettings.value("files/lastFolder")
    assert stored == str(tmp_path / "runs") and Path(stored).is_absolute()
    win.prefs.remember_folder("runs")  # a folder: itself
    assert win.prefs.last_folder() == str(tmp_path / "runs")


@pytest.fixture
def save_as(monkeypatch, tmp_path):
    """File > Save dialogs answer a path in tmp_path (the name offered)."""
    offered = []

    def answer(parent, title, start, filters):
        offered.append(os.path.basename(start))
        return str(tmp_path / os.path.basename(start)), filters

    monkeypatch.setattr(QFileDialog, "getSaveFileName", answer)
    return offered


def read_csv(path) -> list[list[str]]:
    with open(path, newline="") as fh:
        return list(csv.reader(fh))


def test_ctrl_e_exports_the_tab_shown(demo, qtbot, save_as, tmp_path):
    demo.tabs.setCurrentWidget(demo.summary)
    demo.menus.export_action.trigger()  # Ctrl+E
    rows = read_csv(tmp_path / "table.csv")
    assert rows[0][0] == "Run" and len(rows) == 8
    sig = demo.significance
    sig.measure.setCurrentIndex(sig.measure.findData("adr"))
    sig.resamples.setValue(200)
    sig.request()
    qtbot.waitUntil(lambda: sig.comparison is not None, timeout=20000)
    demo.tabs.setCurrentWidget(sig)
    demo.menus.export_action.trigger()
    assert save_as[-1] == "p-values-adr.csv"
    rows = read_csv(tmp_path / "p-values-adr.csv")
    names = sig.pmodel.names
    assert rows[0] == ["run"] + names and [r[0] for r in rows[1:]] == names
    test = sig.test.currentData()
    a, b = names[0], names[-1]
    want = sig.comparison.pair(a, b).p_corrected[test]
    assert float(rows[1][len(names)]) == pytest.approx(want)
    assert rows[1][1] == ""  # a run against itself
    demo.tabs.setCurrentWidget(demo.curves)
    demo.menus.export_action.trigger()
    assert len(read_csv(tmp_path / save_as[-1])[0]) == 14  # x and y of 7 curves
    demo.tabs.setCurrentWidget(demo.per_query)
    demo.per_query.mode.setCurrentIndex(0)
    demo.menus.export_action.trigger()
    rows = read_csv(tmp_path / "per-query.csv")
    assert rows[0][0] == "Query" and len(rows) == 31


def test_export_report_draws_the_figures_while_the_folder_is_chosen(opened, qtbot, tmp_path):
    """File > Export report starts the report's figures (in the drawing
    processes) when its dialog opens: the export, once the folder is chosen,
    writes the figures drawn meanwhile, each drawn once."""
    from shrec_eval.outputs.figure_jobs import FigureDrawers

    w = opened
    asked: list = []  # (job, future) handed to the drawing processes
    submit = FigureDrawers.submit

    def spied(self, job):
        future = submit(self, job)
        asked.append((job.name, future))
        return future

    while_chosen: list = []

    def choose(*_):
        qtbot.waitUntil(lambda: len(asked) == 4, timeout=30000)
        while_chosen.extend(asked)
        return str(tmp_path / "rep")

    done: list = []
    w.exports.folderDone.connect(lambda what, folder, err: done.append(err))
    patch = pytest.MonkeyPatch()
    try:
        patch.setattr(FigureDrawers, "submit", spied)
        patch.setattr(w.dialogs, "ask_output_folder", choose)
        w.exports.export_report_dialog()
        qtbot.waitUntil(lambda: bool(done), timeout=60000)
    finally:
        patch.undo()
    assert done == [""]
    names = ["class_heatmap", "measure_bars", "precision_recall", "ndcg"]
    assert sorted(n for n, _ in while_chosen) == sorted(names)
    # the export's figures are those under way, not drawn again
    assert {n for n, _ in asked[4:]} == set(names)
    assert {id(f) for _, f in asked[4:]} == {id(f) for _, f in while_chosen}
    assert len(list((tmp_path / "rep" / "figures").iterdir())) == 12


def _drawing(w) -> list[int]:
    """The process ids of the window's drawers and of their server."""
    from multiprocessing import forkserver

    d = w.exports.drawers._drawers
    assert d is not None
    assert d.running, (d.start_error, d._broken, getattr(d._pool, "_broken", None))
    for _ in range(2):  # the processes started (their server's import done)
        d._pool.submit(os.getpid).result(timeout=60)
    return [*d._pool._processes, forkserver._forkserver._forkserver_pid]


def _export(w, qtbot, folder) -> bytes:
    done: list = []
    w.exports.folderDone.connect(lambda what, _, err: done.append(err))
    w.exports.export_report(str(folder))
    qtbot.waitUntil(lambda: bool(done), timeout=60000)
    assert done == [""]
    figures = sorted((folder / "figures").iterdir())
    assert len(figures) == 12
    return b"".join(p.read_bytes() for p in figures)


@pytest.mark.figure_server
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forkserver, /proc: Linux")
def test_the_windows_drawers_start_with_its_first_export_serve_every_export_and_end_with_it(
    qtbot, tmp_path, monkeypatch
):
    """Issue 41: the report's drawing processes (forked from a server that
    imports matplotlib once) are not started by scoring, but by the first
    export; every later export uses them (none starts processes again);
    killed, the next export starts new ones and writes the same files;
    another contest and closing the window end them, their server and its
    folder (/tmp/pymp-*)."""
    import tempfile

    from hostile import alive
    from shrec_eval.outputs import figure_start
    from shrec_eval.outputs.figure_jobs import FigureDrawers

    assert figure_start._SERVER_USERS == [0]  # no drawers of another test alive
    # a short folder: a Unix socket's path has at most 107 bytes (an xdist
    # worker's tmp_path and the server's pymp-*/listener-* exceed it)
    temp = Path(tempfile.mkdtemp(prefix="drawers-", dir="/tmp"))
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    started, asked = [], []
    init, submit = FigureDrawers.__init__, FigureDrawers.submit
    monkeypatch.setattr(
        FigureDrawers, "__init__", lambda self, *a, **k: started.append(k) or init(self, *a, **k)
    )
    monkeypatch.setattr(
        FigureDrawers, "submit", lambda self, job: asked.append(job.name) or submit(self, job)
    )
    (tmp_path / "a.cla").write_text(CLA)
    lab = np.repeat([0, 1], 3)
    for i in range(2):
        m = np.random.default_rng(i).uniform(1, 2, (6, 6)) - (lab[:, None] == lab[None, :]) / 2
        np.fill_diagonal(m, 0)
        np.savetxt(tmp_path / f"m{i}.txt", m, fmt="%.4f")
        Contest(AssessmentSource(tmp_path / "a.cla"), (RunSource(tmp_path / f"m{i}.txt"),)).write(
            tmp_path / f"s{i}.json"
        )
    w = MainWindow(app_settings())
    qtbot.addWidget(w)
    w.quiet = True
    w.show()
    assert w.exports.drawers._drawers is None  # not at launch
    w.controller.open_session(str(tmp_path / "s0.json"))
    wait_idle(qtbot, w, 1)
    qtbot.wait(200)
    assert started == [] and asked == []  # scoring starts no process
    files = _export(w, qtbot, tmp_path / "r1")
    first = _drawing(w)
    assert started == [{"from_server": True}]
    assert [p.name[:5] for p in temp.iterdir()] == ["pymp-"]  # the server's folder is here
    assert _export(w, qtbot, tmp_path / "r2") == files
    assert started == [{"from_server": True}] and _drawing(w) == first  # the same processes
    os.kill(first[0], signal.SIGKILL)  # a drawer killed: the next export starts new ones
    qtbot.waitUntil(lambda: not w.exports.drawers._drawers.running, timeout=10000)
    assert _export(w, qtbot, tmp_path / "r3") == files
    assert len(started) == 2 and w.exports.drawers._drawers.running
    again = _drawing(w)
    w.controller.open_session(str(tmp_path / "s1.json"))  # another contest
    wait_idle(qtbot, w, 1)
    qtbot.waitUntil(lambda: not any(alive(p) for p in again), timeout=10000)
    assert w.exports.drawers._drawers is None and len(started) == 2
    assert _export(w, qtbot, tmp_path / "r4") != files  # another contest's report
    last = _drawing(w)
    assert len(started) == 3 and not set(last) & set(again + first)
    w.close()
    qtbot.waitUntil(lambda: not any(alive(p) for p in last), timeout=10000)
    assert list(temp.iterdir()) == [] and figure_start._SERVER_USERS == [0]
    temp.rmdir()


@pytest.fixture
def gui_thread_opens(monkeypatch):
    """Every file the process opens, written or read, by thread: the GUI's
    opens are listed in ``gui``, the others' in ``elsewhere`` (builtins' and
    io's open, os.open under tempfile's atomic writes, Path's writers)."""
    import builtins
    import io
    import threading

    seen = {"gui": [], "elsewhere": []}

    def watch(name, real):
        def opened(*args, **kwargs):
            where = "gui" if threading.current_thread() is threading.main_thread() else "elsewhere"
            seen[where].append((name, str(args[0]) if args else ""))
            return real(*args, **kwargs)

        return opened

    monkeypatch.setattr(builtins, "open", watch("open", builtins.open))
    monkeypatch.setattr(io, "open", watch("io.open", io.open))
    monkeypatch.setattr(os, "open", watch("os.open", os.open))
    for name in ("write_text", "write_bytes", "open"):
        monkeypatch.setattr(Path, name, watch(f"Path.{name}", getattr(Path, name)))
    return seen


def test_the_gui_thread_never_opens_a_file_to_save_or_export(
    opened, qtbot, tmp_path, gui_thread_opens
):
    """Save session, a tab's CSV (Ctrl+E), a plot's CSV and a plot copied
    from the screen as PNG and SVG: each file written, by a file task, none
    opened on the GUI thread (a FIFO or a slow share would freeze the window)."""
    w = opened
    out = tmp_path / "out"
    out.mkdir()
    assert w.controller.save_session(str(out / "s.json"))
    w.exports.export_tab(w.summary, str(out / "summary.csv"))
    w.exports.export_tab(w.curves, str(out / "curves.csv"))
    w.exports.export_plot(str(out / "curves_data.csv"), "csv")
    for fmt in ("png", "svg"):
        w.exports.export_plot(str(out / f"ranked.{fmt}"), fmt, 600, "ranked")
    gui = list(gui_thread_opens["gui"])
    written = {Path(p).name for _, p in gui_thread_opens["elsewhere"]}
    assert w.errors == []
    assert gui == []
    names = ("s.json", "summary.csv", "curves.csv", "curves_data.csv", "ranked.png", "ranked.svg")
    for name in names:
        assert (out / name).stat().st_size > 0, name
        assert any(n.startswith(f".{name}.") for n in written), name  # its temporary file
    assert Contest.read(out / "s.json").runs[0].path == (tmp_path / "m.txt")
    assert (out / "ranked.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    head, *rows = csv.reader((out / "curves_data.csv").read_text().splitlines())
    assert head[:2] and len(rows) > 1
    assert (out / "curves.csv").read_text() == (out / "curves_data.csv").read_text()


def test_an_export_that_cannot_be_written_is_told_and_the_app_goes_on(opened, tmp_path):
    """A file task's failure comes back to the window: the problem names
    the file, nothing is left behind, and the next export is written."""
    w = opened
    bad = tmp_path / "gone" / "summary.csv"
    w.exports.export_tab(w.summary, str(bad))
    assert str(bad) in w.errors[-1]
    assert not bad.parent.exists()
    w.exports.export_plot(str(tmp_path / "curves.csv"), "csv")
    head, *rows = csv.reader((tmp_path / "curves.csv").read_text().splitlines())
    assert len(head) == 2 and head[1].startswith("m") and len(rows) > 1, head
