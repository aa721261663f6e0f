"""The window's tabs made when first shown or read (shrec_gui/window/tab_pages.py):
a new window makes the Summary only, with every tab's title in the tab bar;
a tab made late shows the contest scored before it, in the theme; code that
reads a hidden tab gets what it shows without a tab shown."""

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

pg = pytest.importorskip("pyqtgraph")

from guitools import wait_idle  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402

from shrec_gui.tabs.curves import CurvesTab  # noqa: E402
from shrec_gui.tabs.significance import SignificanceTab  # noqa: E402
from shrec_gui.tabs.summary import SummaryTab  # noqa: E402
from shrec_gui.window.tab_pages import TabSlot  # noqa: E402

TITLES = [
    "Summary",
    "Per query",
    "Per class",
    "Curves",
    "Ranked list",
    "Data checks",
    "Significance",
]


def titles(w) -> list[str]:
    return [w.tabs.tabText(i) for i in range(w.tabs.count())]


def test_a_new_window_makes_the_summary_only(win):
    """Every tab's title in the bar, the Summary shown; no other tab and no
    plot made (they were two thirds of a window's making)."""
    assert titles(win) == TITLES
    pages = [win.tabs.widget(i) for i in range(win.tabs.count())]
    assert isinstance(pages[0], SummaryTab) and win.tabs.currentIndex() == 0
    assert all(isinstance(p, TabSlot) for p in pages[1:])
    assert [p.title for p in pages] == TITLES  # what a session's view state reads
    assert win.findChildren(pg.PlotWidget) == []
    assert win.tab_pages.made_tabs() == [pages[0]]
    assert win.caught_up()  # a tab not made misses nothing


def test_a_tab_made_when_shown_shows_the_scored_contest(win, qtbot):
    """The demo scored with the Summary shown; the Curves tab, clicked, is
    made then, in its place in the bar, with every run's mean curve as the
    engine computed it; the tab bar's titles stay; the tab made once."""
    win.open_demo()
    wait_idle(qtbot, win, 7)
    assert win.findChildren(CurvesTab) == []
    bar = win.tabs.tabBar()
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(3).center())
    tab = win.tabs.currentWidget()
    assert isinstance(tab, CurvesTab) and win.tabs.currentIndex() == 3
    assert tab is win.curves and titles(win) == TITLES
    assert tab.isVisible() and not tab.missed_changes
    entries = list(win.controller.entries.values())
    assert [name for name, _, _ in tab._items] == [e.name for e in entries]
    for (_, _, item), e in zip(tab._items, entries):
        pr = e.result.curves["pr"]
        ok = ~np.isnan(pr.mean)
        np.testing.assert_allclose(item.yData, pr.mean[ok])
    legend = tab.plot.getPlotItem().legend
    assert [label.text for _, label in legend.items] == [e.name for e in entries]
    # shown again later: the same tab, not a new one
    win.tabs.setCurrentIndex(0)
    win.tabs.setCurrentIndex(3)
    assert win.tabs.currentWidget() is tab and len(win.findChildren(CurvesTab)) == 1
    assert win.caught_up()


def test_a_hidden_tab_read_by_code_shows_the_contest_in_the_theme(win, qtbot):
    """Code that reads a tab not made (an export, a test) gets it made,
    showing the scored contest, in the window's theme, without the tab shown
    or another made; a session's view state names the tab shown."""
    win.set_dark(True)
    win.open_demo()
    wait_idle(qtbot, win, 7)
    sig = win.named_tabs()["significance"]
    assert isinstance(sig, SignificanceTab)
    assert win.tabs.currentIndex() == 0 and not sig.isVisible()
    names = [e.name for e in win.controller.entries.values()]
    assert [sig.run_a.itemText(i) for i in range(sig.run_a.count())] == names
    assert (sig.run_a.currentText(), sig.run_b.currentText()) == tuple(names[:2])
    assert sig.status.text() == "7 runs scored: choose the measure and the test, then Compute."
    assert sig.means_plot.backgroundBrush().color().name() == "#202124"  # dark
    made = {type(t).__name__ for t in win.tab_pages.made_tabs()}
    assert made == {"SummaryTab", "SignificanceTab"}
    assert win.dialogs.host.view()["tab"] == "Summary"
    win.set_dark(False)
    assert sig.means_plot.backgroundBrush().color().name() == "#ffffff"
