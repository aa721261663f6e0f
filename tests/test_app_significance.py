"""The Significance tab (M7 of review day, round 3): it pairs the runs as
the contest averages (per class under macro, per query under micro) and
says which, as ``shrec-eval compare`` does under the same average; its
p-value matrix names its rows and columns, and every run name is shown
whole (the means: a row per run, named on the left).

Before, the tab paired queries under a macro contest (its means were not
the Summary's) without a word, its matrix had no row labels and the bar
labels were cut to "R…t"."""

from __future__ import annotations

import io
import json
import time

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from contest_files import write_many_runs  # noqa: E402
from guitools import retire, settled  # noqa: E402
from PySide6.QtCore import QSettings, Qt  # noqa: E402
from shrec_eval.cli.parser import main as cli_main  # noqa: E402
from test_app_many_runs import drawn_texts  # noqa: E402

from shrec_gui.window.main import MainWindow  # noqa: E402

NAMES = [f"Participant {i} (ResNet-50, multi-view, run {i})" for i in range(8)]


def _contest(folder, average: str):
    path = write_many_runs(folder, 8, names=NAMES)
    doc = json.loads(path.read_text())
    doc["options"] = {"average": average}
    path.write_text(json.dumps(doc))
    return path


def _window(qapp, tmp_path, path):
    w = MainWindow(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    w.quiet = True
    w.resize(1280, 720)
    w.show()
    w.controller.open_session(str(path))
    deadline = time.monotonic() + 120
    while not settled(w, 8):
        assert time.monotonic() < deadline, w.errors
        qapp.processEvents()
        time.sleep(0.005)
    return w


def _compute(qapp, w, measure: str):
    sig = w.significance
    w.tabs.setCurrentWidget(sig)
    sig.measure.setCurrentIndex(sig.measure.findData(measure))
    sig.resamples.setValue(300)
    sig.request()
    deadline = time.monotonic() + 120
    while sig.comparison is None or sig.comparison.measure != measure:
        assert time.monotonic() < deadline, sig.status.text()
        qapp.processEvents()
        time.sleep(0.01)
    for _ in range(20):
        qapp.processEvents()
    return sig


@pytest.mark.parametrize("average, unit", [("macro", "class"), ("micro", "query")])
def test_the_tab_pairs_as_the_contest_averages_as_compare_does(qapp, tmp_path, average, unit):
    path = _contest(tmp_path, average)
    w = _window(qapp, tmp_path, path)
    try:
        sig = _compute(qapp, w, "nn")
        c = sig.comparison
        assert c.unit == unit
        # the means are the Summary's: the contest's average
        summary = {e.name: e.result.mean("nn") for e in w.controller.entries.values()}
        assert {r.name: r.mean for r in c.runs} == pytest.approx(summary, abs=1e-12)
        # and it says so
        assert sig.average.text().startswith(f"The contest's {average} average")
        assert ("class means paired" in sig.average.text()) == (unit == "class")
        # `shrec-eval compare` under the same average: the same comparison
        out = io.StringIO()
        argv = ["compare", str(path), "--measure", "nn", "--resamples", "300"]
        assert cli_main([*argv, "--json", str(tmp_path / "c.json")], out=out) == 0
        cli = json.loads((tmp_path / "c.json").read_text())["comparison"]
        assert cli == json.loads(json.dumps(c.to_dict()))
        if average == "macro":
            assert f"the contest's {average} average" in out.getvalue()
    finally:
        retire(w)


def test_the_p_values_name_their_rows_and_columns_and_every_name_is_whole(qapp, tmp_path):
    w = _window(qapp, tmp_path, _contest(tmp_path, "micro"))
    try:
        sig = _compute(qapp, w, "ap_trec_r")
        ranked = [r.name for r in sig.comparison.ranking()]
        view, model = sig.pview, sig.pmodel
        assert view.verticalHeader().isVisible()
        rows = [model.headerData(i, Qt.Orientation.Vertical) for i in range(model.rowCount())]
        cols = [model.headerData(j, Qt.Orientation.Horizontal) for j in range(model.columnCount())]
        assert rows == cols == ranked
        fm = view.horizontalHeader().fontMetrics()
        widest = max(fm.horizontalAdvance(n) for n in ranked)
        assert view.verticalHeader().width() >= widest
        for j, name in enumerate(ranked):
            assert view.columnWidth(j) >= fm.horizontalAdvance(name), name
        # the means: a row per run, best on top, each named whole and drawn
        left = sig.means_plot.getPlotItem().getAxis("left")
        ticks = sorted(left._tickLevels[0], reverse=True)
        assert [t for _, t in ticks] == ranked
        assert sorted(drawn_texts(left)) == sorted(ranked)
        pi = sig.means_plot.getPlotItem()
        pitch = pi.vb.boundingRect().height() / len(ranked)
        assert pitch >= sig.fontMetrics().height()
        # each row tells its run, mean and interval
        from PySide6.QtCore import QPointF

        best = sig.comparison.ranking()[0]
        tip = sig.means_tip(pi.vb.mapViewToScene(QPointF(0.01, len(ranked) - 1)))
        assert tip.startswith(f"{best.name}: mean {best.mean:.4f}")
        bars = [i for i in pi.items if i.__class__.__name__ == "BarGraphItem"][0]
        widths = np.asarray(bars.opts["width"])
        assert widths == pytest.approx([r.mean for r in sig.comparison.ranking()])
    finally:
        retire(w)
