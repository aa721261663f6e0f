"""A new measure is one registry entry: the toy measure of
tests/test_measures_toy.py, registered before the window is made, is offered
by the app's Summary (its Columns menu and the column search's suggestions)
and its column shows the values the engine gives it (nn's)."""

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from guitools import wait_idle  # noqa: E402

KEY = "toy_nn"


def test_the_summary_offers_and_shows_the_toy_measure(toy_measure, win, qtbot):
    win.quiet = True
    win.open_demo()
    wait_idle(qtbot, win, 7, timeout=120000)
    summary = win.summary
    assert summary.column_action(KEY) is not None
    assert KEY in summary._names.stringList()
    assert "Toy nearest neighbour" in summary._names.stringList()
    remembered = win.prefs.summary_columns()  # the next tests' windows start with them
    summary.column_action(KEY).setChecked(True)
    try:
        assert KEY in summary.keys
    finally:  # a key the registry will not have once the test is over: never remembered
        summary.column_action(KEY).setChecked(False)
        win.prefs.set_summary_columns(remembered)
    for entry in win.controller.entries.values():
        assert entry.result.mean(KEY) == entry.result.mean("nn")
