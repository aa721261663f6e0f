"""The runs' looks in the app (M4 of review day, round 3): the Curves tab
draws each run in the look of its place in the contest (colour, marker,
line style: 28 and 40 runs all told apart), the look the command line's
report gives it, and the app's headless export writes the command line's
figures byte for byte (the demo, and 40 runs some of which have their own
colour in the contest file).

Before, the app's curves had colours only (18, then again), without the
markers the report drew, and a contest file's colours were the app's alone:
``shrec-eval evaluate CONTEST.json --report`` drew those runs in the
palette's colours."""

from __future__ import annotations

import io
import time
from dataclasses import replace
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from contest_files import write_many_runs  # noqa: E402
from guitools import retire, settled  # noqa: E402
from PySide6.QtCore import QSettings  # noqa: E402
from shrec_eval.cli.parser import main as cli_main  # noqa: E402
from shrec_eval.contest import Contest  # noqa: E402
from shrec_eval.outputs.palette import result_looks, run_look  # noqa: E402
from shrec_eval.resources import demo_manifest  # noqa: E402

from shrec_gui.headless import export  # noqa: E402
from shrec_gui.plots.curves import DASH_STYLES, SYMBOLS, RunCurve  # noqa: E402
from shrec_gui.window.main import MainWindow  # noqa: E402

_KEEP: list = []  # headless windows, alive to the end of the session (guitools.retire)
#: runs with a colour of their own in the contest file
OWN = {3: "#123456", 20: "#ABCDEF"}


def _opened(qapp, tmp_path, path, n_runs):
    w = MainWindow(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    w.quiet = True
    w.resize(1280, 720)
    w.show()
    w.controller.open_session(str(path))
    deadline = time.monotonic() + 120
    while not settled(w, n_runs):
        assert time.monotonic() < deadline, w.errors
        qapp.processEvents()
        time.sleep(0.005)
    return w


def _drawn(item: RunCurve) -> tuple:
    """(colour, pyqtgraph symbol, Qt pen style) of a curve as drawn."""
    pen = item.opts["pen"]
    return pen.color().name().upper(), item.opts["symbol"], pen.style()


@pytest.mark.parametrize("n_runs", [28, 40])
def test_the_curves_draw_every_run_in_a_look_of_its_own_the_reports(qapp, tmp_path, n_runs):
    path = write_many_runs(tmp_path, n_runs, colours=OWN)
    w = _opened(qapp, tmp_path, path, n_runs)
    try:
        w.tabs.setCurrentWidget(w.curves)
        qapp.processEvents()
        items = w.curves._items
        assert len(items) == n_runs
        drawn = [_drawn(item) for _, _, item in items]
        assert len(set(drawn)) == n_runs  # every run told apart
        # the look of its place in the contest, as the command line's report draws it
        contest = Contest.read(path)
        results = [e.result for e in w.controller.entries.values()]
        report = result_looks(results, [r.colour for r in contest.runs])
        for i, (name, look, item) in enumerate(items):
            want = run_look(i, OWN.get(i))
            assert look == want == report[name]
            assert drawn[i] == (want.colour.upper(), SYMBOLS[want.marker], DASH_STYLES[want.dash])
            # the markers on the points the print figures mark
            first, every = want.marks(len(item.xData))
            assert len(item.scatter.data) == len(item.xData[first::every])
        # the Per class tab's curves of a class: the same looks
        w.per_class.select_class("dog")
        qapp.processEvents()
        curves = [c for c in w.per_class._curves]
        assert [c.look for c in curves] == [look for _, look, _ in items]
    finally:
        retire(w)


def _figures(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((folder / "figures").iterdir())}


@pytest.mark.parametrize("kind", ["demo", "many"])
def test_the_headless_export_writes_the_command_lines_figures_byte_for_byte(qapp, tmp_path, kind):
    """``shrec-gui CONTEST --export-report DIR`` and ``shrec-eval evaluate
    CONTEST --report DIR``: every file under figures/ the same bytes."""
    if kind == "demo":  # without its shapes: the gallery is not the question
        contest = Contest.read(demo_manifest())
        path = tmp_path / "demo.json"
        replace(contest, shapes=None, query_shapes=None).write(path)
    else:
        path = write_many_runs(tmp_path / "many", 28, colours=OWN)
    said: list[str] = []
    status = export([str(path)], report=str(tmp_path / "app"), say=said.append, windows=_KEEP)
    assert status == 0, said
    assert (
        cli_main(["evaluate", str(path), "--report", str(tmp_path / "cli")], out=io.StringIO()) == 0
    )
    app, cli = _figures(tmp_path / "app"), _figures(tmp_path / "cli")
    assert len(cli) == 12 and sorted(app) == sorted(cli)
    for name in cli:
        assert app[name] == cli[name], name
    if kind == "many":  # the runs' own colours are in both
        svg = cli["precision_recall.svg"].decode()
        assert "#123456" in svg and "#abcdef" in svg
