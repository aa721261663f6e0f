"""Per query and Ranked list tabs on the scored demo (issue 14): the
one-measure table's columns fit their text, one-run mode follows the Columns
chooser, adding a column keeps the sort and the menu open; the ranked lists
of every run stacked (ids, classes and grades checked against the demo's
files read by hand), hover, one-run view and export."""

import csv

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

pg = pytest.importorskip("pyqtgraph")

from guitools import retire, scored_demo_window, wait_idle  # noqa: E402
from PySide6.QtCore import QPoint, QPointF, Qt  # noqa: E402
from PySide6.QtGui import QStandardItem, QStandardItemModel  # noqa: E402
from PySide6.QtWidgets import QStyle  # noqa: E402
from shrec_eval.outputs.report import HEADLINE  # noqa: E402
from shrec_eval.resources import resource_path  # noqa: E402
from shrec_eval.scoring.measures import expand, measure_by_key  # noqa: E402

from shrec_gui.figures.printing import FigureSettings, build_figure  # noqa: E402
from shrec_gui.models.tables import COLUMN_ROLE, SORT_ROLE  # noqa: E402
from shrec_gui.plots.ranked_strips import GRADE_COLOURS, RankedListsWidget  # noqa: E402
from shrec_gui.widgets.table_view import MAX_COLUMN_CHARS, CopyTable  # noqa: E402
from shrec_gui.workers.ranked_data import QueryLists, RunList  # noqa: E402

H = Qt.Orientation.Horizontal
DEMO = resource_path("demo")


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
    assert heads[-1] == "Ranking of runs (best first)" and heads[:2] == ["Query", "Class"]
    hfm = v.horizontalHeader().fontMetrics()
    for c, text in enumerate(heads):
        assert v.columnWidth(c) >= hfm.horizontalAdvance(text), text
    fm = v.fontMetrics()
    for c in range(len(heads)):
        for r in range(m.rowCount()):
            text = m.index(r, c).data()
            assert fm.elidedText(text, Qt.TextElideMode.ElideRight, _cell_room(v, c)) == text
    ranking = len(heads) - 1
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
    assert _headers(pq.view)[2:] == _labels(summary.keys)
    summary.column_action("p@10").setChecked(True)
    summary.column_action("adr").setChecked(False)
    try:
        assert "p@10" in summary.keys and "adr" not in summary.keys
        assert _headers(pq.view)[:2] == ["Query", "Class"]
        assert _headers(pq.view)[2:] == _labels(summary.keys)
        col = pq.model.first + summary.keys.index("p@10")
        want = demo.controller.scored_entries()[0].result.column("p@10")
        got = [pq.model.index(r, col).data(SORT_ROLE) for r in range(pq.model.rowCount())]
        assert got == pytest.approx(list(want))
    finally:
        summary.column_action("p@10").setChecked(False)
        summary.column_action("adr").setChecked(True)
    assert _headers(pq.view)[2:] == _labels(summary.keys)
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
    summary.toggle_column("r@5", True)  # after the default ones, in the registry's order
    v.sortByColumn(summary.model.column("r@5"), Qt.SortOrder.AscendingOrder)
    at = summary.keys.index("r@5")
    added = ["p@10", "p@25"]  # before r@5 in the registry's order: r@5 moves right
    assert not set(added) & set(summary.keys)
    sub, first = _open_submenu(qtbot, summary.columns_menu, added[0])
    second = next(a for a in sub.actions() if a.text().endswith(f"[{added[1]}]"))
    try:
        _click(qtbot, sub, first)
        assert first.isChecked() and added[0] in summary.keys
        assert sub.isVisible() and summary.columns_menu.isVisible()  # still open
        _click(qtbot, sub, second)  # a second column in a row, from the same open menu
        assert second.isChecked() and added[1] in summary.keys and sub.isVisible()
        sub.setActiveAction(second)  # the keyboard too: Space unticks and the menu stays
        qtbot.keyClick(sub, Qt.Key.Key_Space)
        assert not second.isChecked() and added[1] not in summary.keys and sub.isVisible()
        qtbot.keyClick(sub, Qt.Key.Key_Return)
        assert second.isChecked() and sub.isVisible()
        assert v.sort_state() == ("r@5", Qt.SortOrder.AscendingOrder)
        assert v.horizontalHeader().sortIndicatorSection() == summary.model.column("r@5")
        assert summary.keys.index("r@5") == at + 2
        vals = _column_values(v, "r@5")
        assert vals == sorted(vals)
        # Per query, one run: its sort stays on its measure too
        pq = demo.per_query
        pq.mode.setCurrentIndex(pq.mode.findData("run"))
        pq.view.sortByColumn(
            pq.model.first + summary.keys.index("r@5"), Qt.SortOrder.DescendingOrder
        )
        summary.column_action(added[0]).setChecked(False)  # before r@5: it moves left
        assert pq.view.sort_state() == ("r@5", Qt.SortOrder.DescendingOrder)
        vals = _column_values(pq.view, "r@5")
        assert vals == sorted(vals, reverse=True)
    finally:
        sub.hide()
        summary.columns_menu.hide()
        for k in added + ["r@5"]:
            summary.column_action(k).setChecked(False)


# -- Ranked list: every run's list of one query, stacked -----------------------------------
def _demo_classes():
    """Class and parent of each model of the demo's target.cla, read by hand
    (PSB format: a header, then "class parent count" and that many ids)."""
    tokens = (DEMO / "target.cla").read_text().split()
    pos, item_class, parent = 4, {}, {}
    while pos < len(tokens):
        name, par, n = tokens[pos], tokens[pos + 1], int(tokens[pos + 2])
        parent[name] = par
        for model in tokens[pos + 3 : pos + 3 + n]:
            item_class[model] = name
        pos += 3 + n
    return item_class, parent


def _grade(item_class, parent, query_class, item) -> int:
    """The demo's rule: the query's class highly relevant (2), its sister
    classes (same parent, not the root) marginally (1)."""
    c = item_class.get(item)
    if c == query_class:
        return 2
    p = parent.get(query_class)
    return 1 if c is not None and p not in (None, "0") and parent.get(c) == p else 0


def _wait_lists(qtbot, ranked, query_id):
    ranked.select_query(query_id)
    qtbot.waitUntil(
        lambda: ranked.lists is not None and ranked.lists.query_id == query_id, timeout=10000
    )


def test_ranked_lists_of_every_run_are_stacked_by_rank(demo, qtbot):
    ranked = demo.ranked
    demo.tabs.setCurrentWidget(ranked)
    assert ranked.run.currentData() is None  # all runs, stacked
    _wait_lists(qtbot, ranked, "q03")
    names = [e.name for e in demo.controller.scored_entries()]
    runs = ranked.shown_runs()
    assert [r.name for r in runs] == names and len(ranked.strips) == 7
    left = ranked.plot.getPlotItem().getAxis("left")
    assert [name for _, name in left._tickLevels[0]] == names  # run names label the strips
    item_class, parent = _demo_classes()
    lightfield = next(r for r in runs if r.name == "LightField-200")
    lines = (DEMO / "lightfield-200" / "q03.txt").read_text().split("\n")
    want = [ln.split()[0] for ln in lines[1:] if ln.strip()]
    assert len(want) == 200 and list(lightfield.items) == want
    assert list(lightfield.classes) == [item_class[i] for i in want]
    assert [int(g) for g in lightfield.gains] == [
        _grade(item_class, parent, "snake", i) for i in want
    ]
    trec = [ln.split() for ln in (DEMO / "randombaseline.trec").read_text().splitlines()]
    want = [t[2] for t in sorted((t for t in trec if t[0] == "q03"), key=lambda t: int(t[3]))]
    baseline = next(r for r in runs if r.name == "RandomBaseline")
    assert list(baseline.items) == want
    # each strip: its run's row, one pixel per rank, coloured by grade
    for i, (strip, run) in enumerate(zip(ranked.strips, runs)):
        rect = strip.mapRectToParent(strip.boundingRect())
        assert rect.left() == 0.5 and rect.width() == len(run)
        assert 6 - i < rect.center().y() < 7 - i
        img = strip.image[:, 0]
        assert (img[np.asarray(run.gains) == 0] == GRADE_COLOURS[0]).all()
        assert (img[np.asarray(run.gains) == 2] == GRADE_COLOURS[2]).all()
    assert "Query q03 (class snake)" in ranked.info.text()
    assert "LightField-200: " in ranked.info.text()


def test_hovering_a_strip_names_the_item_its_class_and_grade(demo, qtbot):
    ranked = demo.ranked
    demo.tabs.setCurrentWidget(ranked)
    _wait_lists(qtbot, ranked, "q03")
    qtbot.wait(20)
    vb = ranked.plot.getPlotItem().vb
    item_class, parent = _demo_classes()
    for i, run in enumerate(ranked.shown_runs()):
        for rank in (1, 2, 7):
            ranked.hover(vb.mapViewToScene(QPointF(rank + 0.2, 6 - i + 0.5)))
            item = run.items[rank - 1]
            grade = _grade(item_class, parent, "snake", item)
            what = "not relevant" if grade == 0 else f"relevant, grade {grade}"
            want = f"{run.name}, rank {rank}: item {item}, class {item_class[item]} ({what})"
            assert ranked.readout.text() == want
            assert ranked.plot.toolTip() == want
    ranked.hover(vb.mapViewToScene(QPointF(3, 6.02)))  # the gap between two strips
    assert ranked.readout.text() == " "


def test_an_answer_for_another_query_is_not_drawn(demo, qtbot):
    ranked = demo.ranked
    demo.tabs.setCurrentWidget(ranked)
    _wait_lists(qtbot, ranked, "q05")
    shown = ranked.lists
    late = QueryLists("q09", tuple(RunList.failed(r.key, r.name, "x") for r in shown.runs))
    ranked.show_lists(late)  # the user has moved on to q05 since q09 was asked for
    assert ranked.lists is shown and "Query q05" in ranked.info.text()


def test_one_run_view_and_the_export_of_the_stacked_lists(demo, qtbot, tmp_path, monkeypatch):
    ranked = demo.ranked
    demo.tabs.setCurrentWidget(ranked)
    _wait_lists(qtbot, ranked, "q05")
    path = tmp_path / "ranked.csv"
    asked = []
    monkeypatch.setattr(demo.dialogs, "ask_save_path", lambda *a: asked.append(a[1]) or str(path))
    demo.exports.export_tab_dialog()  # Ctrl+E
    assert asked == ["ranked-q05.csv"] and demo.status_label.text() == f"Wrote {path}"
    rows = list(csv.reader(path.open()))
    assert rows[0] == ["run", "query", "rank", "item", "class", "grade"]
    runs = ranked.shown_runs()
    assert len(rows) == 1 + sum(len(r) for r in runs)
    lf = [row for row in rows if row[0] == "LightField-200"]
    run = next(r for r in runs if r.name == "LightField-200")
    assert [row[3] for row in lf] == list(run.items) and lf[2][2] == "3"
    fig = build_figure(ranked.plot.getPlotItem(), FigureSettings(width=1200, height=500))
    try:  # the figure: a strip per run, the run names on its left axis, a key to the colours
        images = [i for i in fig.plot.vb.addedItems if isinstance(i, pg.ImageItem)]
        assert len(images) == 7
        assert [n for _, n in fig.plot.getAxis("left")._tickLevels[0]] == [r.name for r in runs]
        assert fig.plot.titleLabel.text == "Ranked lists of query q05 (class vase)"
        key = [(label.text, sample.item.opts["brush"]) for sample, label in fig.legend.items]
        assert [t for t, _ in key] == ["highly relevant", "marginally relevant", "not relevant"]
        assert [pg.mkBrush(b).color().getRgb()[:3] for _, b in key] == [
            GRADE_COLOURS[g] for g in (2, 1, 0)
        ]
    finally:
        fig.close()
    ranked.run.setCurrentIndex(ranked.run.findText("LightField-200"))
    try:
        assert [r.name for r in ranked.shown_runs()] == ["LightField-200"]
        assert len(ranked.strips) == 1 and ranked.strips[0].image.shape[0] == 200
        demo.exports.export_tab(ranked, str(path))
        assert len(list(csv.reader(path.open()))) == 201
    finally:
        ranked.run.setCurrentIndex(0)
    assert len(ranked.strips) == 7


def test_the_colour_key_follows_the_assessments_grades(qtbot, demo):
    """Binary judgments: relevant or not; more than two grades: the top grade
    against the grades below it (the strips colour them so)."""
    w = RankedListsWidget()
    qtbot.addWidget(w)
    entries = [(e.key, e.name, e.result) for e in demo.controller.scored_entries()]
    gains = np.array([4, 2, 0, 1, 4])
    items = tuple(f"m{i}" for i in range(5))
    for top, words in (
        (1, ["relevant", "not relevant"]),
        (4, ["grade 4", "grades 1-3", "not relevant"]),
        (2, ["highly relevant", "marginally relevant", "not relevant"]),
    ):
        w.set_entries(entries, top)
        legend = w.plot.getPlotItem().legend
        assert [label.text for _, label in legend.items] == words
        assert all(word in w.key.text() for word in words)
        run = RunList(0, "R", gains if top > 1 else np.minimum(gains, 1), items, None, 2, 2)
        w.show_lists(QueryLists(w.current_query(), (run,)))
        img = [tuple(p) for p in w.strips[0].image[:, 0]]
        if top == 4:
            assert img == [GRADE_COLOURS[g] for g in (2, 1, 0, 1, 2)]
            assert "2 relevant items of grade 4 and 2 of grades 1-3" in w.info.text()
        if top == 1:
            assert img == [GRADE_COLOURS[g] for g in (2, 2, 0, 2, 2)]
            assert "4 relevant items" in w.info.text()


def demo_window(win, qtbot, width=1200):
    win.resize(width, 760)
    win.open_demo()
    wait_idle(qtbot, win, 7)
    return win


# -- Summary ------------------------------------------------------------------------


def click_header(view, section: int) -> None:
    from pytestqt.qtbot import QtBot

    header = view.horizontalHeader()
    x = header.sectionViewportPosition(section) + header.sectionSize(section) // 2
    QtBot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(x, 5))


def column_values(view, col: int) -> list:
    p = view.model()
    return [p.index(r, col).data(SORT_ROLE) for r in range(p.rowCount())]


# -- Per query ----------------------------------------------------------------------


def test_per_query_columns_scroll_alignment_and_sort_arrow(win, qtbot):
    w = demo_window(win, qtbot)
    remembered = w.prefs.summary_columns()  # the next tests' windows start with them
    w.summary.set_columns(HEADLINE)
    pq = w.per_query
    w.tabs.setCurrentWidget(pq)
    header = pq.view.horizontalHeader()
    # no sort yet: the file's order, and no arrow claiming one
    assert pq.proxy.sortColumn() == -1 and header.sortIndicatorSection() == -1
    ids = list(pq.model.query_ids)
    assert [pq.proxy.index(r, 0).data() for r in range(len(ids))] == ids
    m = pq.model
    assert [m.headerData(c, H) for c in (0, 1)] == ["Query", "Class"]
    wrap = Qt.TextFlag.TextWordWrap  # headers wrap where the columns would not fit
    left = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter | wrap)
    right = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter | wrap)
    align = Qt.ItemDataRole.TextAlignmentRole
    assert m.headerData(0, H, align) == m.headerData(1, H, align) == left
    assert m.headerData(2, H, align) == right  # a measure: as its numbers
    # scrolled sideways (more measures than the width holds, even with their
    # headers wrapped), then the other mode: shown from the query again
    o = w.controller.options
    w.summary.set_columns([m.key for m in expand(o.ranks, o.profile)][:30])
    qtbot.wait(50)
    bar = pq.view.horizontalScrollBar()
    assert bar.maximum() > 0
    bar.setValue(bar.maximum())
    pq.mode.setCurrentIndex(pq.mode.findData("measure"))
    assert bar.value() == 0 and pq.view.columnViewportPosition(0) == 0
    assert pq.proxy.sortColumn() == -1 and header.sortIndicatorSection() == -1
    last = m.columnCount() - 1
    assert m.headerData(last, H) == "Ranking of runs (best first)"
    assert m.headerData(last, H, align) == left
    assert pq.view.columnWidth(last) <= pq.view.viewport().width()  # its header in sight
    assert m.headerData(2, H, align) == right
    # a run's column: best first on the first click (ADR: higher is better)
    click_header(pq.view, 2)
    assert pq.proxy.sortOrder() == Qt.SortOrder.DescendingOrder
    assert header.sortIndicatorSection() == 2
    vals = [v for v in column_values(pq.view, 2) if v is not None]
    assert vals == sorted(vals, reverse=True)
    pq.mode.setCurrentIndex(pq.mode.findData("run"))
    w.prefs.set_summary_columns(remembered)
