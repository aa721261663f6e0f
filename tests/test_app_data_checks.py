"""The Data checks tab: what is wrong with the inputs, in short rows that fit
1,200 px without cutting names or codes, no installed paths, a run that
failed to load listed then removed."""

import re

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from guitools import names_of, retire, scored_demo_window, select_rows  # noqa: E402
from shrec_eval.resources import resources_dir  # noqa: E402


@pytest.fixture(scope="module")
def demo_1200(qapp):
    """The demo scored in a window 1,200 px wide, once for the tests that
    only look at its Data checks (a window per test cost a second of CPU)."""
    w = scored_demo_window(qapp)
    w.resize(1200, 800)
    yield w
    retire(w)


# -- Data checks --------------------------------------------------------------------


def test_data_checks_read_in_short_rows_without_installed_paths(demo_1200, qtbot):
    w = demo_1200
    checks = w.checks
    w.tabs.setCurrentWidget(checks)
    qtbot.wait(20)
    m, v = checks.proxy, checks.view
    what, examples = m.columnCount() - 2, m.columnCount() - 1
    assert v.columnWidth(what) > v.columnWidth(examples)  # the meaning gets the room
    assert v.horizontalScrollBar().maximum() == 0
    line = v.fontMetrics().lineSpacing()
    for r in range(m.rowCount()):
        assert v.rowHeight(r) <= 3 * line + 8, m.index(r, what).data()  # at most 3 lines
        text = m.index(r, what).data()
        assert str(resources_dir()) not in text and not re.search(r"(^|\s)/\w", text), text
    notes = [m.index(r, what).data() for r in range(m.rowCount())]
    assert any("of the run shapehistogram normalised" in n for n in notes)


def test_data_checks_fit_1200_px_without_cutting_names_or_codes(demo_1200, qtbot, tmp_path):
    win = demo_1200
    win.tabs.setCurrentWidget(win.checks)
    qtbot.wait(50)
    win.checks.refresh()
    v, m = win.checks.view, win.checks.proxy
    fm = v.fontMetrics()
    for row in range(m.rowCount()):
        for col in (0, 1):  # run names and check codes are never cut
            assert v.columnWidth(col) >= fm.horizontalAdvance(m.index(row, col).data())
    total = sum(v.columnWidth(c) for c in range(m.columnCount()))
    assert total <= v.viewport().width()  # every column on screen (the long ones wrap)
    assert win.grab().save(str(tmp_path / "checks_1200_wrapped.png"))


def test_a_failed_run_is_removed_from_data_checks(with_failed_first, qtmodeltester):
    w = with_failed_first
    m, proxy = w.checks.model, w.checks.proxy
    qtmodeltester.check(m)
    w.tabs.setCurrentWidget(w.checks)
    row = next(r for r in range(proxy.rowCount()) if proxy.index(r, 1).data() == "unreadable")
    assert proxy.index(row, 0).data() == "Broken"
    select_rows(w.checks.view, [row])
    w.checks.remove_button.click()
    assert "Broken" not in names_of(w) and len(w.controller.entries) == 7
    assert "unreadable" not in {m.index(r, 1).data() for r in range(m.rowCount())}
    assert w.summary.model.rowCount() == 7  # the scored runs untouched
