"""The window's tabs made when first shown or read (shrec_gui/window/tab_pages.py):
a new window makes five tabs, with every tab's title in the tab bar;
a tab made late shows the contest scored before it, in the theme; code that
reads a hidden tab gets what it shows without a tab shown."""

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

pg = pytest.importorskip("pyqtgraph")

from guitools import wait_idle  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402

from shrec_gui.tabs.ranked_list import RankedListTab  # noqa: E402
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


def test_a_new_window_makes_five_tabs_and_not_the_ranked_list_or_the_checks(win):
    """Every tab's title in the bar, the Summary shown; the tabs whose
    choices a session keeps made (Summary, Per query, Per class, Curves,
    Significance: their choices are the window's first options'), the
    Ranked list and the Data checks not."""
    assert titles(win) == TITLES
    pages = [win.tabs.widget(i) for i in range(win.tabs.count())]
    assert isinstance(pages[0], SummaryTab) and win.tabs.currentIndex() == 0
    slots = [isinstance(p, TabSlot) for p in pages]
    assert slots == [False, False, False, False, True, True, False]
    assert [p.title for p in pages] == TITLES  # what a session's view state reads
    assert win.tab_pages.made_tabs() == [p for p, slot in zip(pages, slots) if not slot]
    assert win.caught_up()  # a tab not made misses nothing
    assert "ranked" in win.named_tabs()  # asked, not made
    assert isinstance(win.tabs.widget(4), TabSlot)


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
    """The demo scored with the Summary shown; the Ranked list, clicked, is
    made then, in its place in the bar, with every run of the engine and the
    lists of a query asked of the worker; the tab bar's titles stay; the
    tab made once."""
    win.open_demo()
    wait_idle(qtbot, win, 7)
    assert win.findChildren(RankedListTab) == []
    bar = win.tabs.tabBar()
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(4).center())
    tab = win.tabs.currentWidget()
    assert isinstance(tab, RankedListTab) and win.tabs.currentIndex() == 4
    assert tab is win.ranked and titles(win) == TITLES
    assert tab.isVisible() and not tab.missed_changes
    entries = list(win.controller.entries.values())
    qtbot.waitUntil(lambda: bool(tab.shown_runs()), timeout=10000)
    assert [r.name for r in tab.shown_runs()] == [e.name for e in entries]
    # shown again later: the same tab, not a new one
    win.tabs.setCurrentIndex(0)
    win.tabs.setCurrentIndex(4)
    assert win.tabs.currentWidget() is tab and len(win.findChildren(RankedListTab)) == 1
    assert win.caught_up()


def test_a_hidden_tab_read_by_code_shows_the_contest_in_the_theme(win, qtbot):
    """Code that reads a tab not made (an export, a test) gets it made,
    showing the scored contest, in the window's theme, without the tab shown
    or another made; a session's view state names the tab shown."""
    win.set_dark(True)
    win.open_demo()
    wait_idle(qtbot, win, 7)
    ranked = win.named_tabs()["ranked"]
    assert isinstance(ranked, RankedListTab)
    assert win.tabs.currentIndex() == 0 and not ranked.isVisible()
    names = [e.name for e in win.controller.entries.values()]
    qtbot.waitUntil(lambda: bool(ranked.shown_runs()), timeout=10000)
    assert [r.name for r in ranked.shown_runs()] == names
    assert ranked.plot.backgroundBrush().color().name() == "#202124"  # dark
    made = {type(t).__name__ for t in win.tab_pages.made_tabs()}
    assert "RankedListTab" in made and "ChecksTab" not in made
    assert win.dialogs.host.view()["tab"] == "Summary"
    win.set_dark(False)
    assert ranked.plot.backgroundBrush().color().name() == "#ffffff"


def test_the_keyboard_goes_into_a_tab_made_when_ctrl_tab_shows_it(win, qtbot):
    """Ctrl+Tab from a tab whose widget has the focus into a tab not made:
    the focus goes into the tab made (as into a tab made before), not to
    the tab bar, where it stayed for every tab after."""
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    win.open_demo()
    wait_idle(qtbot, win, 7)
    win.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is win, timeout=3000)
    win.tabs.setCurrentIndex(3)  # Curves, made with the window
    win.curves.kind.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is win.curves.kind, timeout=3000)
    seen = []
    for _ in range(3):  # Ranked list, Data checks (both made now), Significance
        QTest.keyClick(
            QApplication.focusWidget(), Qt.Key.Key_Tab, Qt.KeyboardModifier.ControlModifier
        )
        page, focus = win.tabs.currentWidget(), QApplication.focusWidget()
        seen.append((type(page).__name__, focus is not None and page.isAncestorOf(focus)))
    assert seen == [("RankedListTab", True), ("ChecksTab", True), ("SignificanceTab", True)]


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


def test_the_view_state_saved_makes_no_tab(win, qtbot):
    """The autosave reads the view state every few seconds: it makes no tab
    (it made Curves and Significance while they were made late, and the
    window's width jumped with no user action)."""
    win.open_demo()
    wait_idle(qtbot, win, 7)
    before = win.tab_pages.made_tabs()
    win.dialogs.host.view()
    assert win.tab_pages.made_tabs() == before
    assert isinstance(win.tabs.widget(4), TabSlot) and isinstance(win.tabs.widget(5), TabSlot)
