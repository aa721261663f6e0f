"""What the GUI thread does when results arrive (issue 12's stall figure):
a run arriving adds its curve and keeps the others, and tabs hidden during a
job catch up one per pass of the event loop once it ends."""

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from guitools import wait_idle  # noqa: E402
from shrec_eval.contest import Contest  # noqa: E402
from shrec_eval.resources import demo_manifest  # noqa: E402


def _legend_items(w) -> list:
    return [sample.item for sample, _ in w.curves.plot_item.legend.items]


def test_a_run_arriving_keeps_the_other_curves(win, qtbot):
    demo = Contest.read(demo_manifest())
    win.tabs.setCurrentWidget(win.curves)
    win.controller.open_assessment(demo.assessment, runs=list(demo.runs[:2]))
    wait_idle(qtbot, win, 2)
    before = {name: item for name, _, item in win.curves._items}
    assert _legend_items(win) == list(before.values())
    win.controller.add_runs([demo.runs[2]])
    wait_idle(qtbot, win, 3)
    after = {name: item for name, _, item in win.curves._items}
    assert len(after) == 3
    for name, item in before.items():
        assert after[name] is item  # the same item, not a new one
    assert _legend_items(win) == [item for _, _, item in win.curves._items]
    entry = list(win.controller.entries.values())[2]
    new = after[entry.name]
    pr = entry.result.curves["pr"]
    ok = ~np.isnan(pr.mean)
    np.testing.assert_allclose(new.yData, pr.mean[ok])
    np.testing.assert_allclose(new.xData, pr.x[ok])


def test_hidden_tabs_catch_up_one_per_pass_once_the_job_ends(win, qtbot):
    win.tabs.setCurrentWidget(win.curves)
    win.open_demo()
    wait_idle(qtbot, win, 7)  # also waits for every tab to catch up
    # never shown, and up to date: the Summary lists the seven runs
    assert not win.summary.isVisible()
    assert win.summary.model.rowCount() == 7
    # two tabs that missed changes: one pass refreshes one of them
    win.summary._stale = win.per_class._stale = True
    assert not win.caught_up()
    win.catch_up()
    assert [win.summary.missed_changes, win.per_class.missed_changes].count(True) == 1
    qtbot.waitUntil(win.caught_up, timeout=5000)
    # a shown tab is refreshed at once, not left to catch up
    win.curves.on_changed()
    assert not win.curves.missed_changes
