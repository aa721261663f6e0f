"""The app's exports pass the same output gate as the command line (issue
24): a tab's CSV, a plot and the report folder are never written over an
input of what is open, nor through a link to one."""

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

import numpy as np  # noqa: E402
from guitools import wait_idle  # noqa: E402
from shrec_eval.contest import AssessmentSource, Contest, RunSource  # noqa: E402

from shrec_gui.mainwindow import MainWindow, app_settings  # noqa: E402

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
    assert (tmp_path / "summary.csv").read_text().splitlines()[1].startswith("m,1,0.7778")
