"""The app's conventions (M1 of "Review day, round 3"): the Summary caption
names the profile, the average and the matrix order; a data check whose
numbers depend on a reading (the matrix order) is a warning banner over the
tabs with both figures and a button that scores the runs in the other
reading (undoable); the matrix order is in Scoring > Options too, greyed at
the profile's value when a profile fixes it; the app's messages speak of its
own controls, never of command-line options.

Before, the reading that turns mAP 0.1715 into 0.6273 was a "note" of count
0 in Data checks quoting ``--matrix-order id``, and the order could be
chosen in the Open dialog only."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from guitools import wait_idle  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QDialog  # noqa: E402
from shrec_eval import EvalOptions, evaluate, load_assessment, load_run  # noqa: E402
from shrec_eval.contest import AssessmentSource, RunSource  # noqa: E402

from shrec_gui.models.tables import app_words  # noqa: E402
from shrec_gui.window.dialogs import OptionsDialog, ReaderDialog  # noqa: E402

N = 15


@pytest.fixture
def by_id(tmp_path) -> tuple[Path, list[Path]]:
    """Ids 0..14 listed by class (out of order), two matrices laid out by id."""
    rng = np.random.default_rng(1)
    labels = rng.integers(0, 3, N)
    lines = ["PSB 1", f"3 {N}", ""]
    for c in range(3):
        members = [str(i) for i in range(N) if labels[i] == c]
        lines += [f"c{c} 0 {len(members)}", *members, ""]
    cla = tmp_path / "t.cla"
    cla.write_text("\n".join(lines))
    runs = []
    for name in ("alpha", "beta"):
        x = rng.random((N, N)) + 1.0
        same = labels[:, None] == labels[None, :]
        x[same] -= 0.8 * rng.random(same.sum())
        np.fill_diagonal(x, 0)
        runs.append(tmp_path / f"{name}.txt")
        np.savetxt(runs[-1], x.astype(np.float32), fmt="%.6g")
    return cla, runs


def _nn(cla, run, order, profile="shrec") -> float:
    a = load_assessment(cla, matrix_order=order)
    return evaluate(a, load_run(run, a), EvalOptions(profile=profile)).mean("nn")


def _open(win, qtbot, cla, runs, options=None):
    win.resize(1280, 720)
    win.controller.open_assessment(
        AssessmentSource(cla), runs=[RunSource(r) for r in runs], options=options
    )
    wait_idle(qtbot, win, len(runs))
    qtbot.wait(20)
    return win


def _nns(win) -> dict[str, float]:
    return {e.name: e.result.mean("nn") for e in win.controller.entries.values()}


def test_the_banner_gives_both_figures_and_applies_the_other_reading_undoably(
    win, qtbot, by_id, tmp_path
):
    cla, runs = by_id
    _open(win, qtbot, cla, runs)
    c, banner = win.controller, win.banner
    listing = {r.stem: _nn(cla, r, "listing") for r in runs}
    ids = {r.stem: _nn(cla, r, "id") for r in runs}
    assert listing != ids and _nns(win) == listing
    assert banner.isVisible() and banner.apply_button.isVisible()
    text = banner.text.text()
    for name in listing:  # both figures of every run, each named by its reading
        assert f"<b>{name}</b> {listing[name]:.4f} read in listing order, " in text
        assert f"{ids[name]:.4f} read by id" in text
    assert "--" not in text and banner.apply_button.text() == "Score the runs read by id"
    # the caption names the profile, the average and the matrix order
    caption = win.summary.rank_label.text()
    assert "profile <b>shrec</b>, micro mean (over queries)" in caption
    assert "matrices read <b>in listing order</b>" in caption and "--" not in caption
    assert win.grab().save(str(tmp_path / "banner_listing.png"))

    assert c.save_session(str(tmp_path / "s.json"))
    qtbot.mouseClick(banner.apply_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: c.assessment.matrix_order == "id", timeout=30000)
    wait_idle(qtbot, win, 2)
    assert _nns(win) == ids and c.assessment_source.matrix_order == "id"
    assert "matrices read <b>by id</b>" in win.summary.rank_label.text()
    assert banner.apply_button.text() == "Score the runs read in listing order"
    assert c.history.stack.undoText() == "Read matrices by id"
    assert c.unsaved_changes() == ["how the assessment is read (matrices by id)"]

    c.history.undo()  # read in listing order again, the runs scored again
    qtbot.waitUntil(lambda: c.assessment.matrix_order == "listing", timeout=30000)
    wait_idle(qtbot, win, 2)
    assert _nns(win) == listing and c.assessment_source.matrix_order in (None, "listing")
    c.history.redo()
    qtbot.waitUntil(lambda: c.assessment.matrix_order == "id", timeout=30000)
    wait_idle(qtbot, win, 2)
    assert _nns(win) == ids


def test_data_checks_call_it_a_warning_in_the_apps_words(win, qtbot, by_id):
    cla, runs = by_id
    _open(win, qtbot, cla, runs)
    m = win.checks.proxy
    rows = [[m.index(r, k).data() for k in range(m.columnCount())] for r in range(m.rowCount())]
    order = [r for r in rows if r[1] == "matrix_order"]
    assert len(order) == 2 and all(r[2] == "warning" and r[3] == "" for r in order)
    assert all("--" not in r[4] and "Scoring > Options > Matrix rows" in r[4] for r in order)
    assert rows[0][1] == "matrix_order"  # warnings before notes
    # another check's command-line words are the app's too
    w = next(w for e in win.controller.scored_entries() for w in e.result.warnings)
    fake = dataclasses.replace(
        w, code="self_match", message="taken out by default, kept with --keep-self",
        advice=", kept with --keep-self",
    )  # fmt: skip
    assert app_words(fake) == (
        "taken out by default, kept when Scoring > Options > Remove a query from its own list "
        "is off"
    )


def test_the_matrix_order_is_in_scoring_options(win, qtbot, by_id, monkeypatch):
    cla, runs = by_id
    _open(win, qtbot, cla, runs)
    c = win.controller
    ids = {r.stem: _nn(cla, r, "id") for r in runs}

    def choose(dialog):
        assert dialog.matrix_order.isEnabled()
        assert dialog.matrix_order.currentData() == "listing"
        dialog.matrix_order.setCurrentIndex(dialog.matrix_order.findData("id"))
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(OptionsDialog, "exec", choose)
    win.options_dialog()
    qtbot.waitUntil(lambda: c.assessment.matrix_order == "id", timeout=30000)
    wait_idle(qtbot, win, 2)
    assert _nns(win) == ids
    assert c.history.stack.undoText() == "Scoring options"
    c.history.undo()
    qtbot.waitUntil(lambda: c.assessment.matrix_order == "listing", timeout=30000)
    wait_idle(qtbot, win, 2)
    assert _nns(win) == {r.stem: _nn(cla, r, "listing") for r in runs}


def test_options_grey_the_matrix_order_a_profile_fixes_and_keep_the_users(qtbot):
    d = OptionsDialog(EvalOptions(), matrix_order="listing")
    qtbot.addWidget(d)
    assert d.matrix_order.isEnabled() and d.chosen_matrix_order() == "listing"
    d.profile.setCurrentIndex(d.profile.findData("sipiran21"))
    assert not d.matrix_order.isEnabled() and d.matrix_order.currentData() == "id"
    assert "sipiran21" in d.matrix_order.toolTip()
    assert d.chosen_matrix_order() == "listing"  # the user's, beneath the profile
    d.profile.setCurrentIndex(d.profile.findData("shrec"))
    assert d.matrix_order.isEnabled() and d.matrix_order.currentData() == "listing"
    # ids that are not 0..N-1: no reading by id; no assessment: nothing to choose
    d = OptionsDialog(EvalOptions(), matrix_order="listing", by_id=False)
    qtbot.addWidget(d)
    assert not d.matrix_order.model().item(d.matrix_order.findData("id")).isEnabled()
    d = OptionsDialog(EvalOptions())
    qtbot.addWidget(d)
    assert not d.matrix_order.isEnabled() and d.chosen_matrix_order() is None
    # the reader dialog under sipiran21: its order shown, greyed, not the user's choice
    from shrec_eval.profiles import REGISTRY

    r = ReaderDialog("cla", "t.cla", profile=REGISTRY["sipiran21"])
    qtbot.addWidget(r)
    assert not r.matrix_order.isEnabled() and r.matrix_order.currentData() == "id"
    assert r.values()["matrix_order"] is None


def test_under_a_profile_that_fixes_the_order_the_banner_names_it(win, qtbot, by_id, tmp_path):
    cla, runs = by_id
    _open(win, qtbot, cla, runs, options=EvalOptions(profile="sipiran21"))
    banner = win.banner
    assert banner.isVisible() and not banner.apply_button.isVisible()
    text = banner.text.text()
    assert "The sipiran21 profile reads so" in text
    # the query kept in its list finds itself first (NN 1 either way): the
    # figures of its nearest other item, those of the default profile with it left out
    assert "NN of each query's nearest other item" in text
    for r in runs:
        want = f"<b>{r.stem}</b> {_nn(cla, r, 'id'):.4f} read by id, "
        assert want + f"{_nn(cla, r, 'listing'):.4f} read in listing order" in text
    assert "matrices read <b>by id</b>" in win.summary.rank_label.text()
    assert win.grab().save(str(tmp_path / "banner_sipiran21.png"))


def test_no_banner_without_another_reading(demo):
    """The demo's ids are not 0..N-1: one reading, no banner."""
    assert not demo.banner.isVisible()
    assert "matrices read <b>in listing order</b>" in demo.summary.rank_label.text()
