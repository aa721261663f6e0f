"""Polish of the app (issue 14): the profile, averaging and F-beta in
Scoring > Options, carried by sessions and named in the Summary."""

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from guitools import wait_idle  # noqa: E402
from PySide6.QtWidgets import QDialog, QMessageBox  # noqa: E402
from shrec_eval.contest import Contest  # noqa: E402
from shrec_eval.options import EvalOptions  # noqa: E402

from shrec_gui.dialogs import OptionsDialog  # noqa: E402
from shrec_gui.mainwindow import MainWindow, app_settings  # noqa: E402


@pytest.fixture
def dialogs(monkeypatch):
    seen = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *a, **k: seen.append(a[1:3]))
    return seen


@pytest.fixture
def win(qtbot, dialogs):
    w = MainWindow(app_settings())
    qtbot.addWidget(w)
    w.show()
    yield w
    w.close()


def test_options_dialog_sets_profile_average_and_beta(qtbot):
    start = EvalOptions(profile="trec_eval", complete_queries=True, f_beta=2.0)
    d = OptionsDialog(start)
    qtbot.addWidget(d)
    assert d.options() == start  # shown as they are
    assert d.profile.currentData() == "trec_eval" and d.f_beta.value() == 2.0
    d.profile.setCurrentIndex(d.profile.findData("psbtable"))
    d.average.setCurrentIndex(d.average.findData("macro"))
    d.f_beta.setValue(0.5)
    o = d.options()
    assert (o.profile, o.average, o.f_beta) == ("psbtable", "macro", 0.5)
    assert not o.complete_queries  # trec_eval's -c does not follow to another profile
    assert [d.profile.itemData(i) for i in range(d.profile.count())] == [
        "shrec",
        "boli",
        "psbtable",
        "shapenet17",
        "trec_eval",
    ]
    assert [d.average.itemData(i) for i in range(d.average.count())] == [
        "micro",
        "macro",
        "proportional",
        "reciprocal",
    ]


def test_profile_is_scored_named_and_saved(win, qtbot, monkeypatch, tmp_path):
    win.open_demo()
    wait_idle(qtbot, win, 7)
    assert "profile <b>shrec</b>" in win.summary.rank_label.text()
    before = {e.name: e.result.mean("ft_psb") for e in win.controller.entries.values()}

    def fill(self):
        self.profile.setCurrentIndex(self.profile.findData("psbtable"))
        self.average.setCurrentIndex(self.average.findData("macro"))
        self.f_beta.setValue(2.0)
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(OptionsDialog, "exec", fill)
    win.options_dialog()
    qtbot.waitUntil(
        lambda: all(
            e.result is not None and e.result.options.profile == "psbtable"
            for e in win.controller.entries.values()
        ),
        timeout=30000,
    )
    wait_idle(qtbot, win, 7)
    after = {e.name: e.result.mean("ft_psb") for e in win.controller.entries.values()}
    assert after != before  # macro averaging over the demo's unequal classes moves FT
    text = win.summary.rank_label.text()
    assert "profile <b>psbtable</b>" in text and "--average macro" in text
    win.summary.grab().save("/tmp/polish/summary_profile.png")
    path = tmp_path / "s.json"
    assert win.controller.save_session(str(path))
    o = Contest.read(path).options
    assert (o.profile, o.average, o.f_beta) == ("psbtable", "macro", 2.0)
