"""The window's tabs made when first shown or read (shrec_gui/window/tab_pages.py):
a new window makes three tabs, with every tab's title in the tab bar;
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
from shrec_gui.window.main import MainWindow, app_settings  # noqa: E402
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


def test_a_new_window_makes_three_tabs_and_no_plot_tab(win):
    """Every tab's title in the bar, the Summary shown; the Summary, Per
    query and Per class made (their choices are kept from the window's
    first options), the other tabs and their plots not (they were half of a
    window's making)."""
    assert titles(win) == TITLES
    pages = [win.tabs.widget(i) for i in range(win.tabs.count())]
    assert isinstance(pages[0], SummaryTab) and win.tabs.currentIndex() == 0
    assert [isinstance(p, TabSlot) for p in pages] == [False] * 3 + [True] * 4
    assert [p.title for p in pages] == TITLES  # what a session's view state reads
    plots = set(win.findChildren(pg.PlotWidget))
    assert plots == {pages[2].plot, pages[2].heat}  # Per class's
    assert win.tab_pages.made_tabs() == pages[:3]
    assert win.caught_up()  # a tab not made misses nothing
    assert "curves" in win.named_tabs() and win.findChildren(CurvesTab) == []  # asked, not made


def test_the_view_state_is_the_same_with_the_tabs_made_late(win, qtbot):
    """The choices a session keeps (Per class's measure, Per query's run,
    Significance's measure, the curve kind) are those of a window that made
    every tab at once, after the demo opened in both."""
    early = MainWindow(app_settings())
    qtbot.addWidget(early)
    early.quiet = True
    early.show()
    early.all_tabs()
    for w in (early, win):
        w.open_demo()
        wait_idle(qtbot, w, 7)
    assert win.dialogs.host.view() == early.dialogs.host.view()
    assert win.per_class.measure.currentData() == early.per_class.measure.currentData()
    early.close()


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
    assert made == {"SummaryTab", "PerQueryTab", "PerClassTab", "SignificanceTab"}
    assert win.dialogs.host.view()["tab"] == "Summary"
    win.set_dark(False)
    assert sig.means_plot.backgroundBrush().color().name() == "#ffffff"


def test_a_tab_made_late_shows_no_window_of_its_own(win, qtbot):
    """The Ranked list made once the demo (a contest with shapes) is open:
    its thumbnails' strip, shown for the shapes, was shown before it had a
    parent, as a window of its own (the window lost the keyboard's focus)."""
    from PySide6.QtCore import QEvent, QObject
    from PySide6.QtWidgets import QApplication, QWidget

    win.open_demo()
    wait_idle(qtbot, win, 7)
    assert win.controller.shapes.active
    win.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is win, timeout=3000)
    windows = []

    class Shown(QObject):
        def eventFilter(self, obj, event):
            if event.type() == QEvent.Type.Show and isinstance(obj, QWidget) and obj.isWindow():
                windows.append(type(obj).__name__)
            return False

    spy = Shown()
    QApplication.instance().installEventFilter(spy)
    try:
        ranked = win.ranked
        qtbot.wait(50)
    finally:
        QApplication.instance().removeEventFilter(spy)
    assert windows == []
    assert ranked.thumbs.parentWidget() is not None and QApplication.activeWindow() is win
