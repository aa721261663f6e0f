"""Per query and Ranked list tabs on the scored demo (issue 14): the
one-measure table's columns fit their text, one-run mode follows the Columns
chooser, adding a column keeps the sort and the menu open."""

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from guitools import retire, scored_demo_window  # noqa: E402
from PySide6.QtCore import QPoint, Qt  # noqa: E402
from PySide6.QtGui import QStandardItem, QStandardItemModel  # noqa: E402
from PySide6.QtWidgets import QStyle  # noqa: E402
from shrec_eval.measures import measure_by_key  # noqa: E402

from shrec_gui.models import COLUMN_ROLE, SORT_ROLE  # noqa: E402
from shrec_gui.tables import MAX_COLUMN_CHARS, CopyTable  # noqa: E402

H = Qt.Orientation.Horizontal


@pytest.fixture(scope="module")
def demo(qapp):
    w = scored_demo_window(qapp)
    w.resize(1600, 900)
    yield w
    retire(w)


def _cell_room(view, col: int) -> int:
    """The pixels a cell's text gets in a column (the style's margins off)."""
    margin = view.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, view) + 1
    return view.columnWidth(col) - 2 * margin


def _headers(view) -> list[str]:
    m = view.model()
    return [m.headerData(c, H) for c in range(m.columnCount())]


def test_one_measure_columns_show_their_whole_text(demo, qtbot):
    pq = demo.per_query
    demo.tabs.setCurrentWidget(pq)
    pq.mode.setCurrentIndex(pq.mode.findData("run"))  # sized for the other mode first
    pq.mode.setCurrentIndex(pq.mode.findData("measure"))
    pq.choice.setCurrentIndex(pq.choice.findData("adr"))
    qtbot.wait(10)
    assert demo.width() == 1600
    v, m = pq.view, pq.proxy
    heads = _headers(v)
    assert heads[-2] == "Ranking of runs (best first)" and heads[-1] == "Class"
    hfm = v.horizontalHeader().fontMetrics()
    for c, text in enumerate(heads):
        assert v.columnWidth(c) >= hfm.horizontalAdvance(text), text
    fm = v.fontMetrics()
    for c in range(len(heads)):
        for r in range(m.rowCount()):
            text = m.index(r, c).data()
            assert fm.elidedText(text, Qt.TextElideMode.ElideRight, _cell_room(v, c)) == text
    ranking = len(heads) - 2
    text = m.index(0, ranking).data()
    assert text.count(" > ") == 6 and m.index(0, ranking).data(Qt.ItemDataRole.ToolTipRole) == text
    # wider than a 1,600 px window: the table scrolls sideways to every column
    total = sum(v.columnWidth(c) for c in range(len(heads)))
    bar = v.horizontalScrollBar()
    assert total > v.viewport().width() and bar.maximum() >= total - v.viewport().width() - 1


def test_a_text_too_long_for_any_column_is_elided_not_the_table(qtbot):
    v = CopyTable()
    qtbot.addWidget(v)
    model = QStandardItemModel(1, 2)
    model.setHorizontalHeaderLabels(["Query", "Ranking"])
    model.setItem(0, 0, QStandardItem("q01"))
    model.setItem(0, 1, QStandardItem(" > ".join(f"Run{i:02d}" for i in range(80))))
    v.setModel(model)
    v.fit_columns()
    cap = MAX_COLUMN_CHARS * v.fontMetrics().averageCharWidth()
    assert v.columnWidth(1) == cap < v.fontMetrics().horizontalAdvance(model.item(0, 1).text())
    assert v.columnWidth(0) >= v.fontMetrics().horizontalAdvance("Query")


def _labels(keys):
    return [measure_by_key(k).label for k in keys]


def test_one_run_mode_follows_the_columns_chooser(demo):
    pq, summary = demo.per_query, demo.summary
    pq.mode.setCurrentIndex(pq.mode.findData("run"))
    assert pq.columns_button.isVisibleTo(pq) and pq.columns_button.menu() is summary.columns_menu
    assert _headers(pq.view)[1:-1] == _labels(summary.keys)
    summary.column_action("p@10").setChecked(True)
    summary.column_action("adr").setChecked(False)
    try:
        assert "p@10" in summary.keys and "adr" not in summary.keys
        assert _headers(pq.view)[1:-1] == _labels(summary.keys)
        col = 1 + summary.keys.index("p@10")
        want = demo.controller.scored_entries()[0].result.column("p@10")
        got = [pq.model.index(r, col).data(SORT_ROLE) for r in range(pq.model.rowCount())]
        assert got == pytest.approx(list(want))
    finally:
        summary.column_action("p@10").setChecked(False)
        summary.column_action("adr").setChecked(True)
    assert _headers(pq.view)[1:-1] == _labels(summary.keys)
    pq.mode.setCurrentIndex(pq.mode.findData("measure"))
    assert not pq.columns_button.isVisibleTo(pq)


def _open_submenu(qtbot, menu, key):
    """Pop the Columns menu and the family menu holding ``key`` up; return
    (family menu, the key's action)."""
    menu.popup(QPoint(100, 100))
    qtbot.waitUntil(menu.isVisible)
    for entry in menu.actions():
        for a in entry.menu().actions():
            if a.text().endswith(f"[{key}]"):
                sub = entry.menu()
                sub.popup(menu.geometry().topRight())
                qtbot.waitUntil(sub.isVisible)
                return sub, a
    raise AssertionError(key)


def _click(qtbot, menu, action):
    qtbot.mouseMove(menu, menu.actionGeometry(action).center())
    qtbot.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(action).center())


def _column_values(view, key):
    m = view.model()
    col = next(c for c in range(m.columnCount()) if m.headerData(c, H, COLUMN_ROLE) == key)
    return [m.index(r, col).data(SORT_ROLE) for r in range(m.rowCount())]


def test_adding_columns_keeps_the_sort_and_the_menu_open(demo, qtbot):
    summary = demo.summary
    demo.tabs.setCurrentWidget(summary)
    v = summary.view
    v.sortByColumn(1 + summary.keys.index("st_psb"), Qt.SortOrder.AscendingOrder)
    added = ["p@10", "p@25"]  # before st_psb in the registry's order: st_psb moves right
    assert not set(added) & set(summary.keys)
    sub, first = _open_submenu(qtbot, summary.columns_menu, added[0])
    second = next(a for a in sub.actions() if a.text().endswith(f"[{added[1]}]"))
    try:
        _click(qtbot, sub, first)
        assert first.isChecked() and added[0] in summary.keys
        assert sub.isVisible() and summary.columns_menu.isVisible()  # still open
        _click(qtbot, sub, second)  # a second column in a row, from the same open menu
        assert second.isChecked() and added[1] in summary.keys and sub.isVisible()
        assert v.sort_state() == ("st_psb", Qt.SortOrder.AscendingOrder)
        assert v.horizontalHeader().sortIndicatorSection() == 1 + summary.keys.index("st_psb")
        assert summary.keys.index("st_psb") > 2
        vals = _column_values(v, "st_psb")
        assert vals == sorted(vals)
        # Per query, one run: its sort stays on its measure too
        pq = demo.per_query
        pq.mode.setCurrentIndex(pq.mode.findData("run"))
        pq.view.sortByColumn(1 + summary.keys.index("e_measure"), Qt.SortOrder.DescendingOrder)
        summary.column_action(added[0]).setChecked(False)
        assert pq.view.sort_state() == ("e_measure", Qt.SortOrder.DescendingOrder)
        vals = _column_values(pq.view, "e_measure")
        assert vals == sorted(vals, reverse=True)
    finally:
        sub.hide()
        summary.columns_menu.hide()
        for k in added:
            summary.column_action(k).setChecked(False)
