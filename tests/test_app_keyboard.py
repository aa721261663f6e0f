"""The keyboard (M8 of review day, round 3): Tab reaches every control of
each tab and comes round again (a table no longer keeps it), F9 sorts a
table by the column of its current cell (again: the other way), and the
focus is shown in the dialogs (a ring in the theme's highlight colour)."""

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from guitools import wait_idle  # noqa: E402
from PySide6.QtCore import QPoint, Qt  # noqa: E402
from PySide6.QtGui import QPalette  # noqa: E402
from PySide6.QtWidgets import (  # noqa: E402
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QFocusFrame,
    QWidget,
)
from shrec_eval.scoring.measures import measure_by_key  # noqa: E402

from shrec_gui.models.tables import SORT_ROLE  # noqa: E402
from shrec_gui.window.dialogs import OptionsDialog  # noqa: E402
from shrec_gui.window.help import menu_shortcuts  # noqa: E402

TAB = Qt.FocusPolicy.TabFocus


def controls(root: QWidget) -> list:
    """The controls Tab should stop at: shown, enabled, taking the focus by
    Tab (a spin box's or a list's own text field stands for it)."""
    out = []
    for w in root.findChildren(QWidget):
        inner = isinstance(w.parentWidget(), (QAbstractSpinBox, QComboBox))
        if inner or isinstance(w, QFocusFrame) or not (w.isVisible() and w.isEnabled()):
            continue
        if (w.focusPolicy() & TAB) == TAB and w.focusProxy() is None:
            out.append(w)
    return out


def focused():
    """The widget with the focus, a spin box's or a list's (not its text field)."""
    f = QApplication.focusWidget()
    parent = f.parentWidget() if f is not None else None
    return parent if isinstance(parent, (QAbstractSpinBox, QComboBox)) else f


def walk_tab(qtbot, start: QWidget, limit: int = 80) -> list:
    """The widgets Tab goes through from ``start`` until it is back there."""
    start.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(lambda: focused() is start, timeout=2000)
    seen = []
    for _ in range(limit):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        seen.append(focused())
        if seen[-1] is start:
            return seen
    pytest.fail(f"Tab never came back to {start}: {[type(x).__name__ for x in seen[-12:]]}")


def test_tab_reaches_every_control_of_each_tab(demo, qtbot):
    """From each tab's table (where the focus is after a click in it), Tab
    goes through every control of the tab and back to the table; the
    Summary's Add column and Columns among them."""
    w = demo
    w.activateWindow()
    for tab in w.all_tabs():
        w.tabs.setCurrentWidget(tab)
        if tab is w.ranked:
            tab.select_query("q01")
            qtbot.waitUntil(lambda: w.ranked.lists is not None, timeout=10000)
        wait_idle(qtbot, w)
        start = tab.table() if tab.table() is not None else w.tabs.tabBar()
        seen = walk_tab(qtbot, start)
        missed = [type(c).__name__ for c in controls(tab) if c not in seen]
        assert missed == [], tab.title
        assert w.tabs.tabBar() in seen, tab.title  # and out to the tabs and in again
    s = w.summary
    w.tabs.setCurrentWidget(s)
    assert {s.find_column, s.columns_button, s.view} <= set(walk_tab(qtbot, s.view))
    # the Ranked list's order is the tab's, top to bottom: the strips' controls before the summary
    r = w.ranked
    w.tabs.setCurrentWidget(r)
    order = walk_tab(qtbot, r.export_buttons[0])
    assert order.index(r.thumbs.k) < order.index(r.thumbs.scroll) < order.index(r.info_scroll)


def test_f9_sorts_by_the_current_column_and_again_the_other_way(demo, qtbot):
    w = demo
    s = w.summary
    w.tabs.setCurrentWidget(s)
    assert ("View", "Sort by the current column", "F9") in menu_shortcuts(w.menuBar())
    s.toggle_column("fp_r", True)
    for key in ("nn", "fp_r"):  # higher is better; lower is better
        col = s.model.column(key)
        higher = measure_by_key(key).higher_is_better
        s.view.setFocus()
        s.view.setCurrentIndex(s.proxy.index(2, col))
        w.menus.sort_action.trigger()
        first = Qt.SortOrder.DescendingOrder if higher else Qt.SortOrder.AscendingOrder
        assert (s.proxy.sortColumn(), s.proxy.sortOrder()) == (col, first), key
        values = [s.proxy.index(r, col).data(SORT_ROLE) for r in range(s.proxy.rowCount())]
        assert values == sorted(values, reverse=higher), key  # the best run on top
        assert w.status_label.text().startswith(f"Sorted by {measure_by_key(key).label}")
        w.menus.sort_action.trigger()  # again: the other way
        assert s.proxy.sortOrder() != first, key
        values = [s.proxy.index(r, col).data(SORT_ROLE) for r in range(s.proxy.rowCount())]
        assert values == sorted(values, reverse=not higher), key
    # the table with the focus, in a tab of two tables; its key from the keyboard
    pc = w.per_class
    w.tabs.setCurrentWidget(pc)
    pc.view.setFocus()
    qtbot.waitUntil(lambda: pc.view.hasFocus(), timeout=2000)
    pc.view.setCurrentIndex(pc.proxy.index(0, 1))  # the Queries column
    qtbot.keyClick(pc.view, Qt.Key.Key_F9)
    assert pc.proxy.sortColumn() == 1
    # the p-values keep their order (the runs ranked by their mean)
    w.tabs.setCurrentWidget(w.significance)
    w.significance.pview.setFocus()
    w.menus.sort_action.trigger()
    assert "keeps its own order" in w.status_label.text()


def ring_colour(dialog, widget):
    """The colour just left of ``widget`` in a picture of ``dialog``, at its middle."""
    img = dialog.grab().toImage()
    middle = widget.mapTo(dialog, QPoint(0, widget.height() // 2))
    return img.pixelColor(middle.x() - 1, middle.y()).name()


@pytest.mark.parametrize("dark", [False, True])
def test_the_focus_is_shown_in_the_options_dialog(win, qtbot, dark):
    """Every field Tab reaches in Scoring > Options is ringed in the
    highlight colour (the ring follows the focus; nothing there without it)."""
    win.set_dark(dark)
    try:
        d = OptionsDialog(win.controller.options, win)
        qtbot.addWidget(d)
        d.show()
        d.activateWindow()
        qtbot.waitUntil(lambda: d.isActiveWindow(), timeout=2000)
        highlight = QApplication.palette().color(QPalette.ColorRole.Highlight).name()
        before = ring_colour(d, d.ranks)  # not focused yet: the dialog's background
        assert before != highlight
        fields = [d.profile, d.average, d.f_beta, d.ranks, d.curve, d.remove_self]
        seen = walk_tab(qtbot, d.profile)
        for field in fields:
            assert field in seen
            field.setFocus(Qt.FocusReason.TabFocusReason)
            qtbot.waitUntil(lambda f=field: focused() is f, timeout=2000)
            frames = [f for f in d.findChildren(QFocusFrame) if f.isVisible()]
            assert [f.widget() for f in frames] == [field], type(field).__name__
            assert ring_colour(d, field) == highlight, type(field).__name__
        assert ring_colour(d, d.ranks) != highlight  # the ring left it
        # a ring, not a fill: the see-through end of a check box's row shows the dialog
        box = d.remove_self
        box.setFocus(Qt.FocusReason.TabFocusReason)
        qtbot.waitUntil(lambda: focused() is box, timeout=2000)
        end = box.mapTo(d, QPoint(box.width() - 4, box.height() // 2))
        assert d.grab().toImage().pixelColor(end).name() == before
    finally:
        win.set_dark(False)


def test_every_widget_but_the_ring_is_styled_by_qt_alone(win, qtbot):
    """The application's style writes no method of its own in Python (each
    was called for every cell, header and metric of every widget: some
    10,000 calls for a window showing a contest); the ring is drawn by its
    frame's own style, RING_PX wide, in the highlight colour."""
    from PySide6.QtWidgets import QProxyStyle, QStyle

    from shrec_gui.widgets.focus import RING_PX

    style = QApplication.style()
    own = {
        name
        for cls in type(style).__mro__[: type(style).__mro__.index(QProxyStyle)]
        for name in vars(cls)
        if callable(getattr(QProxyStyle, name, None))
    } - {"__init__"}
    assert own == set()  # before: drawControl and pixelMetric, for every widget
    d = OptionsDialog(win.controller.options, win)
    qtbot.addWidget(d)
    d.show()
    d.activateWindow()
    qtbot.waitUntil(lambda: d.isActiveWindow(), timeout=2000)
    d.ranks.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(lambda: focused() is d.ranks, timeout=2000)
    (frame,) = [f for f in d.findChildren(QFocusFrame) if f.isVisible()]
    assert frame.style() is not style
    margin = frame.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin)
    assert margin == RING_PX and frame.width() == d.ranks.width() + 2 * RING_PX
    highlight = QApplication.palette().color(QPalette.ColorRole.Highlight).name()
    assert ring_colour(d, d.ranks) == highlight
