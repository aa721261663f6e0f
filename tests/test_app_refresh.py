"""What the GUI thread does when results arrive (issue 12's stall figure):
a run arriving adds its curve and keeps the others, and tabs hidden during a
job catch up one per pass of the event loop once it ends."""

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from guitools import wait_idle  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from shrec_eval import EvalOptions  # noqa: E402
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


def test_a_hidden_tab_catches_up_when_shown_during_a_job(win, qtbot, monkeypatch):
    import time

    import numpy as np
    import shrec_eval.service as service  # the app scores through the service

    win.open_demo()
    wait_idle(qtbot, win, 7)
    real = service.evaluate

    def slow(a, run, options, progress=None, should_stop=None):
        time.sleep(0.2)
        return real(a, run, options, progress=progress, should_stop=should_stop)

    monkeypatch.setattr(service, "evaluate", slow)
    c, pq = win.controller, win.per_query
    c.set_options(EvalOptions(ranks=(7,)))
    pq.mode.setCurrentIndex(1)
    pq.choice.setCurrentIndex(pq.choice.findData("p@7"))

    def runs_with_p7() -> int:  # columns of the per-query table with values
        m = pq.model
        return sum(not np.all(np.isnan(col)) for col in m._arrays)

    assert runs_with_p7() == 0  # nothing scored with the new ranks yet
    win.tabs.setCurrentWidget(win.summary)
    c.score()
    qtbot.waitUntil(
        lambda: sum(e.result.options.ranks == (7,) for e in c.entries.values()) >= 2, timeout=10000
    )
    qtbot.wait(200)  # the coalesced refresh: the Summary shown, Per query hidden
    assert c.busy and runs_with_p7() == 0
    rescored = sum(e.result.options.ranks == (7,) for e in c.entries.values())
    win.tabs.setCurrentWidget(pq)  # shown: it catches up with what is scored so far
    assert runs_with_p7() == rescored >= 2
    wait_idle(qtbot, win)
    assert all(e.result.options.ranks == (7,) for e in c.entries.values())
    assert runs_with_p7() == 7


def test_a_hidden_tab_is_filled_and_sized_for_its_texts_when_shown(win, qtbot):
    """A tab hidden while the runs are scored catches up its model (what it
    gives when asked), and sizes its table's columns only once it is shown,
    then wide enough for every text (Per query, Data checks)."""
    win.resize(1280, 800)
    win.open_demo()
    wait_idle(qtbot, win, 7)  # the Summary shown
    pq, checks = win.per_query, win.checks
    assert not pq.isVisible() and not checks.isVisible()
    assert pq.model.rowCount() == 30 and checks.model.rowCount() > 0  # filled while hidden
    default = pq.view.horizontalHeader().defaultSectionSize()
    # not sized while nobody sees it (before: every column measured at each catch-up)
    assert {pq.view.columnWidth(c) for c in range(pq.proxy.columnCount())} == {default}
    for tab in (pq, checks):
        win.tabs.setCurrentWidget(tab)
        qtbot.wait(20)
        view, proxy = tab.view, tab.proxy
        fm = view.fontMetrics()
        for c in (0, 1):  # query and class; run and check code: never cut
            widest = max(
                fm.horizontalAdvance(proxy.index(r, c).data()) for r in range(proxy.rowCount())
            )
            assert view.columnWidth(c) >= widest, (tab.title, c)
    heads = [
        pq.proxy.headerData(c, Qt.Orientation.Horizontal) for c in range(pq.proxy.columnCount())
    ]
    win.tabs.setCurrentWidget(pq)
    qtbot.wait(20)
    for c, text in enumerate(heads):  # the measures' headers wrapped to fit their columns
        words = pq.view.horizontalHeader().fontMetrics()
        assert pq.view.columnWidth(c) >= max(words.horizontalAdvance(w) for w in text.split())


def test_a_run_removed_and_brought_back_while_a_tab_is_hidden_is_sized_when_shown(win, qtbot):
    """A run's column gone and back (removed, then undone) while the Per
    class tab is hidden: shown again, the column is sized for its header
    and values, not left at Qt's default width for a new section (before:
    the table's recorded shape was the same as before the change, so it
    was not sized again)."""
    win.resize(1200, 800)
    win.open_demo()
    wait_idle(qtbot, win, 7)
    pc = win.per_class
    win.tabs.setCurrentWidget(pc)
    qtbot.wait(20)
    before = [pc.view.columnWidth(c) for c in range(pc.proxy.columnCount())]
    win.tabs.setCurrentWidget(win.summary)
    qtbot.wait(20)
    win.controller.remove(list(win.controller.entries)[-1:])
    wait_idle(qtbot, win)
    assert pc.proxy.columnCount() == len(before) - 1
    win.controller.history.undo()
    wait_idle(qtbot, win)
    win.tabs.setCurrentWidget(pc)
    qtbot.wait(20)
    after = [pc.view.columnWidth(c) for c in range(pc.proxy.columnCount())]
    assert after == before
    head = pc.view.horizontalHeader()
    last = pc.proxy.columnCount() - 1
    text = pc.proxy.headerData(last, Qt.Orientation.Horizontal)
    assert after[last] >= head.fontMetrics().horizontalAdvance(text), (text, after[last])
