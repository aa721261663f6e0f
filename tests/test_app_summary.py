"""The Summary tab: the first click on a column sorts best first, the Rank
column follows the ranking measure, every column fits 1,200 px, the Columns
menu toggles and remembers columns, the columns and the ranking said; a
measure with parameters typed in the column search is scored and shown."""

import math

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from guitools import settled, wait_idle  # noqa: E402
from PySide6.QtCore import QPoint, Qt  # noqa: E402
from shrec_eval.outputs.report import HEADLINE  # noqa: E402
from shrec_eval.scoring.measures import measure_by_key  # noqa: E402

from shrec_gui.models.tables import SORT_ROLE, competition_ranks  # noqa: E402
from shrec_gui.window.main import MainWindow, app_settings  # noqa: E402
from shrec_gui.window.settings import Preferences  # noqa: E402

H = Qt.Orientation.Horizontal


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


def test_the_first_click_on_a_column_sorts_best_first(win, qtbot):
    w = demo_window(win, qtbot)
    s = w.summary
    s.set_columns(["nn", "ft_psb", "adr", "fp_r"])  # fp_r: lower is better
    for key in ("ft_psb", "fp_r", "adr"):
        col = s.model.column(key)
        click_header(s.view, col)
        higher = measure_by_key(key).higher_is_better
        want = Qt.SortOrder.DescendingOrder if higher else Qt.SortOrder.AscendingOrder
        assert s.proxy.sortColumn() == col and s.proxy.sortOrder() == want, key
        vals = column_values(s.view, col)
        assert vals == sorted(vals, reverse=higher), key  # the best run on top
    click_header(s.view, s.model.column("adr"))  # the second click: worst first
    assert s.proxy.sortOrder() == Qt.SortOrder.AscendingOrder


def test_the_rank_column_follows_the_ranking_measure(win, qtbot):
    w = demo_window(win, qtbot)
    s = w.summary
    key = s.rank_key()
    assert s.model.rank_key == key and f"[{key}]" in s.rank_label.text()
    means = {e.name: e.result.mean(key) for e in w.controller.scored_entries()}
    want = sorted(means, key=lambda n: -means[n])  # higher is better: the demo's ADR

    def ranks():
        p = s.proxy
        return {p.index(r, 0).data(): int(p.index(r, s.model.RANK).data()) for r in range(7)}

    assert ranks() == {n: want.index(n) + 1 for n in want}
    assert [s.proxy.index(r, 0).data() for r in range(7)] == want  # sorted by rank at first
    click_header(s.view, s.model.column("nn"))  # sorted by another measure: ranks stay
    assert ranks() == {n: want.index(n) + 1 for n in want}
    assert not s.view.verticalHeader().isVisible()  # no row numbers that read like ranks
    assert s.model.headerData(s.model.RANK, H) == "Rank"
    assert competition_ranks([0.5, 0.9, None, 0.9, 0.1], True) == [3, 1, None, 1, 4]
    assert competition_ranks([0.5, 0.9, 0.5], False) == [1, 3, 1]


def test_every_summary_column_fits_1200_px(win, qtbot):
    w = demo_window(win, qtbot)
    s = w.summary
    s.set_columns(HEADLINE)  # the default columns (a test before may have chosen others)
    w.tabs.setCurrentWidget(s)
    qtbot.wait(20)
    assert w.width() == 1200 and len(s.keys) == 8
    assert s.view.horizontalScrollBar().maximum() == 0  # no sideways scrolling
    header = s.view.horizontalHeader()
    fm = header.fontMetrics()
    lines = max(1, (header.height() - 8) // fm.lineSpacing())
    for c in range(s.proxy.columnCount()):
        text = s.proxy.headerData(c, H)
        assert s.view.columnWidth(c) >= max(fm.horizontalAdvance(x) for x in text.split()), text
        flags = int(Qt.TextFlag.TextWordWrap)
        need = fm.boundingRect(0, 0, s.view.columnWidth(c) - 8, 1000, flags, text).height()
        assert need <= lines * fm.lineSpacing(), text  # the whole header is shown
        for r in range(s.proxy.rowCount()):  # and every value
            cell = s.proxy.index(r, c).data()
            assert fm.horizontalAdvance(cell) <= s.view.columnWidth(c), cell
    assert s.model.headerData(s.model.column("adr"), H, Qt.ItemDataRole.InitialSortOrderRole) == (
        Qt.SortOrder.DescendingOrder.value
    )


def test_columns_menu_toggles_and_remembers_summary_columns(demo, qtbot):
    s = demo.summary
    before = list(s.keys)
    assert "p@10" not in before
    s.column_action("p@10").setChecked(True)
    assert "p@10" in s.keys and s.model.columnCount() == 2 + len(before) + 1  # run, rank
    j = s.model.column("p@10")
    ref = {e.name: e.result.mean("p@10") for e in demo.controller.scored_entries()}
    for r in range(s.model.rowCount()):
        assert s.model.index(r, j).data(SORT_ROLE) == pytest.approx(ref[s.model.index(r, 0).data()])
    assert s.model.headerData(j, Qt.Orientation.Horizontal) == measure_by_key("p@10").label
    assert Preferences().summary_columns() == s.keys
    other = MainWindow(app_settings())
    qtbot.addWidget(other)
    assert other.summary.keys == s.keys  # a new window shows the same columns
    other.close()
    s.column_action("p@10").setChecked(False)
    s.column_action("adr").setChecked(False)
    assert "adr" not in s.keys and s.model.columnCount() == 2 + len(before) - 1
    s.column_action("adr").setChecked(True)
    assert s.keys == before and Preferences().summary_columns() == before


def test_summary_columns_and_ranking_said(demo, qtbot):
    """L1, L2, L14: the last column is as wide as its values, no doubled
    parentheses in a label, no row numbers; a profile that ranks by a
    measure it does not show (boli: ADR) says so, and each rank tells its value."""
    import dataclasses

    from shrec_eval.scoring.measures import measure_by_key

    s = demo.summary
    assert not s.view.horizontalHeader().stretchLastSection()
    assert measure_by_key("ap_trec_r").label == "Average Precision (trec, relevant)"
    for tab in (demo.summary, demo.per_query, demo.per_class, demo.checks):
        assert not tab.table().verticalHeader().isVisible(), tab.title
    c = demo.controller
    c.set_options(dataclasses.replace(c.options, profile="boli"))
    c.score()
    qtbot.waitUntil(lambda: settled(demo, 7) and not c.stale_entries(), timeout=60000)
    try:
        assert "adr" not in s.keys
        assert "Rank by <b>Average Dynamic Recall</b> [adr] (not a column of this table" in (
            s.rank_label.text()
        )
        tip = s.proxy.index(0, s.model.RANK).data(Qt.ItemDataRole.ToolTipRole)
        top = max(e.result.means["adr"] for e in c.readable_entries())
        assert tip == f"rank 1 by Average Dynamic Recall [adr] = {top:.4f}"
    finally:
        c.set_options(dataclasses.replace(c.options, profile="shrec"))
        c.score()
        qtbot.waitUntil(lambda: settled(demo, 7) and not c.stale_entries(), timeout=60000)


# -- review day, round 3: the Summary's lows ---------------------------------------


def _shown_widths(s):
    return [s.view.columnWidth(c) for c in range(s.proxy.columnCount())]


def _header_lines(view) -> int:
    header = view.horizontalHeader()
    return max(1, round((header.height() - 8) / header.fontMetrics().lineSpacing()))


def test_summary_columns_refit_after_a_resize(win, qtbot):
    """Resized while shown, or while another tab was (the table is resized
    only once shown again): the columns and their headers fit the new width:
    one line of headers where the columns fit, wrapped where they do not,
    never a sideways scroll bar."""
    w = demo_window(win, qtbot, width=900)
    s = w.summary
    s.set_columns(HEADLINE)
    w.tabs.setCurrentWidget(s)
    qtbot.waitUntil(lambda: _header_lines(s.view) > 1)  # 900 px: the headers wrapped
    for hidden in (False, True):
        if hidden:
            w.resize(900, 760)
            qtbot.waitUntil(lambda: _header_lines(s.view) > 1)
            w.tabs.setCurrentWidget(w.curves)
        w.resize(1800, 760)
        qtbot.wait(20)
        w.tabs.setCurrentWidget(s)
        qtbot.waitUntil(lambda: _header_lines(s.view) == 1, timeout=3000)
        natural = [
            max(s.view.sizeHintForColumn(c), s.view.horizontalHeader().sectionSizeHint(c))
            for c in range(s.proxy.columnCount())
        ]
        assert _shown_widths(s) == natural, hidden  # each column as wide as it asks
    w.resize(900, 760)
    qtbot.waitUntil(lambda: _header_lines(s.view) > 1, timeout=3000)
    assert s.view.horizontalScrollBar().maximum() == 0


def _cli_table_columns(profile: str) -> list[str]:
    """The columns ``shrec-eval measures --profile NAME`` says the printed
    table has (the command line's own order)."""
    import io

    from shrec_eval.cli.parser import main

    out = io.StringIO()
    assert main(["measures", "--profile", profile], out=out) == 0
    line = next(x for x in out.getvalue().splitlines() if "table columns:" in x)
    return [k.strip() for k in line.split(":", 1)[1].split(",")]


def test_summary_default_columns_are_in_the_command_lines_order(win, qtbot):
    """The default columns of every profile the app offers, in the order the
    command line prints them (the Summary's headers too); a column added
    comes after them, and the order holds across a profile change."""
    import dataclasses

    from shrec_eval.profiles import REGISTRY
    from shrec_eval.scoring.measures import expand

    from shrec_gui.state.contest_files import app_leaves_out

    c, s = win.controller, win.summary
    start = c.options
    try:
        for name, profile in REGISTRY.items():
            if app_leaves_out(profile) is not None:
                continue
            c.set_options(dataclasses.replace(start, profile=name))
            want = _cli_table_columns(name)
            assert s.keys == want, name
            labels = [s.model.headerData(s.model.column(k), H) for k in want]
            shown = [s.model.headerData(i, H) for i in range(2, s.model.columnCount())]
            assert shown == labels, name
        c.set_options(dataclasses.replace(start, profile="shrec"))
        s.toggle_column("p@10", True)
        assert s.keys == _cli_table_columns("shrec") + ["p@10"]
        kept = set(s.keys)
        c.set_options(dataclasses.replace(start, profile="psbtable"))  # the columns kept
        first = _cli_table_columns("psbtable")  # psbTable's, then the others by registry
        known = [m.key for m in expand(c.options.ranks, "psbtable")]
        assert s.keys == first + [k for k in known if k in kept and k not in first]
    finally:
        c.set_options(start)
        s.set_columns(HEADLINE)


def test_the_bold_header_of_the_current_column_fits_it(win, qtbot):
    """The style draws the head of the current cell's column bold: wrapped,
    it still fits its column and the header's lines (it ran over both)."""
    from PySide6.QtGui import QFont, QFontMetrics

    w = demo_window(win, qtbot, width=1100)
    s = w.summary
    s.set_columns(HEADLINE)
    w.tabs.setCurrentWidget(s)
    qtbot.waitUntil(lambda: _header_lines(s.view) == 2)
    header = s.view.horizontalHeader()
    bold = QFont(header.font())
    bold.setBold(True)
    fm = QFontMetrics(bold)
    room = header.height() - 8
    margin = 2 * header.style().pixelMetric(header.style().PixelMetric.PM_HeaderMargin)
    flags = int(Qt.TextFlag.TextWordWrap)
    wrapped = 0
    for c in range(s.proxy.columnCount()):
        text = s.proxy.headerData(c, H)
        if " " not in text:  # one word: Qt's own size for the section, bold included
            continue
        s.view.setCurrentIndex(s.proxy.index(0, c))
        width = s.view.columnWidth(c) - margin - 14  # the sort arrow's room
        need = fm.boundingRect(0, 0, width, 1000, flags, text)
        assert need.height() <= room and need.width() <= width, text
        wrapped += need.height() > fm.lineSpacing()
    assert wrapped >= 3  # Average Precision (trec, relevant), First Tier (PSB)...


# -- measures with parameters ---------------------------------------------------------


def test_the_column_search_scores_a_measure_with_parameters(win, qtbot, tmp_path):
    """A measure with parameters typed in the search box is added to the
    options, scored (the value the library gives) and shown; a bad one says
    what is wrong under the box and changes nothing; Edit > Undo takes it
    back out of the options."""
    from PySide6.QtCore import Qt as _Qt
    from shrec_eval import EvalOptions, evaluate, load_assessment, load_run
    from shrec_eval.contest import AssessmentSource, RunSource

    (tmp_path / "a.qrels").write_text("q1 0 d1 1\nq1 0 d2 1\nq1 0 d3 1\nq2 0 d1 1\nq2 0 d4 1\n")
    (tmp_path / "r.trec").write_text(
        "q1 Q0 d4 1 0.9 x\nq1 Q0 d1 2 0.8 x\nq1 Q0 d2 3 0.7 x\nq2 Q0 d1 1 0.9 x\nq2 Q0 d2 2 0.8 x\n"
    )
    win.quiet = True
    c = win.controller
    c.open_assessment(
        AssessmentSource(tmp_path / "a.qrels", collection_size=5),
        runs=[RunSource(tmp_path / "r.trec")],
    )
    wait_idle(qtbot, win, 1)
    s, box = win.summary, win.summary.find_column
    before = list(s.keys)
    name = "ndcg(ideal=retrieved, discount=log2_from_1)"  # any spelling
    key = "ndcg(discount=log2_from_1,ideal=retrieved)"  # its canonical name
    box.setText(name)
    qtbot.keyClick(box, _Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: settled(win, 1) and not c.stale_entries(), timeout=20000)
    assert c.options.measures == (key,) and s.keys == before + [key]
    a = load_assessment(tmp_path / "a.qrels", collection_size=5)
    want = evaluate(a, load_run(tmp_path / "r.trec", a), EvalOptions(measures=[key])).mean(key)
    assert want == pytest.approx(
        ((1 / math.log2(3) + 1 / 2) / (1 + 1 / math.log2(3)) + 1) / 2, abs=1e-15
    )
    j = s.model.column(key)
    assert s.model.index(0, j).data(SORT_ROLE) == want
    assert s.model.headerData(j, H) == "NDCG (discount=log2_from_1, ideal=retrieved)"
    assert s.column_action(key).isChecked() and box.text() == ""
    # a measure the registry names is its key's column, the options unchanged
    box.setText("ft(divide=min_va)")
    qtbot.keyClick(box, _Qt.Key.Key_Return)
    assert "ft_r" in s.keys and c.options.measures == (key,)
    # a bad one: said under the box, nothing changed
    box.setText("ndcg(discount=log3)")
    qtbot.keyClick(box, _Qt.Key.Key_Return)
    assert "discount='log3' is not allowed; expected log2_from_2 (default)" in box.toolTip()
    assert c.options.measures == (key,) and key in s.keys
    win.menus.undo_action.trigger()  # the options before the measure was added
    qtbot.waitUntil(lambda: settled(win, 1) and not c.stale_entries(), timeout=20000)
    assert c.options.measures == () and key not in s.keys
    s.set_columns(before)  # the columns are remembered for the next windows
