"""Undo and redo of what changes a contest (issue 31): runs added and
removed (Ctrl+A then Del, and back with Ctrl+Z), a run renamed, the scoring
options and profile, the shapes folders; the Edit menu names the edit; a
new contest starts a new history; undoing to what was saved leaves nothing
unsaved."""

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from guitools import wait_idle  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from shrec_eval.contest import RunSource  # noqa: E402
from shrec_eval.resources import demo_manifest  # noqa: E402


@pytest.fixture
def demo_win(win, qtbot):
    win.quiet = True
    win.open_demo()
    wait_idle(qtbot, win, 7, timeout=60000)
    return win


def _shown(c):
    """(name, colour, result) of every run, in order."""
    return [(e.name, e.colour, e.result) for e in c.entries.values()]


def test_ctrl_a_del_removes_every_run_and_ctrl_z_brings_them_back(demo_win, qtbot):
    w = demo_win
    c = w.controller
    before = _shown(c)
    assert not c.unsaved() and not w.menus.undo_action.isEnabled()
    view = w.summary.view
    w.tabs.setCurrentWidget(w.summary)
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    assert len(w.summary.selected_run_keys()) == 7
    w.menus.remove_action.trigger()  # Del
    assert c.entries == {}
    assert "Removed 7 runs" in w.status_label.text() and "Ctrl+Z" in w.status_label.text()
    assert w.menus.undo_action.isEnabled() and w.menus.undo_action.text() == "&Undo Remove 7 runs"
    assert c.unsaved()
    qtbot.keyClick(w, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)  # Ctrl+Z
    # back as they were: the same results (nothing read or scored again), names, colours, order
    assert _shown(c) == before
    assert all(a[2] is b[2] for a, b in zip(_shown(c), before))
    assert not c.busy and not c.unsaved()
    assert w.status_label.text() == "Undid: Remove 7 runs."
    wait_idle(qtbot, w, 7)
    assert w.summary.model.rowCount() == 7
    # redo, undo again (Ctrl+Shift+Z, Ctrl+Y)
    mods = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    qtbot.keyClick(w, Qt.Key.Key_Z, mods)
    assert c.entries == {} and w.status_label.text() == "Redid: Remove 7 runs."
    w.menus.undo_action.trigger()
    assert _shown(c) == before
    w.menus.redo_action.trigger()
    w.menus.undo_action.trigger()
    assert _shown(c) == before
    # the ranked lists of a run brought back are there (the worker remembers it again)
    got = []
    c.listsReady.connect(got.append)
    c.request_lists(next(iter(c.entries.values())).result.query_ids[0])
    qtbot.waitUntil(lambda: bool(got), timeout=10000)
    assert all(r.error is None for r in got[-1].runs), [r.error for r in got[-1].runs]


def test_add_rename_options_shapes_undo_and_redo(demo_win, qtbot):
    w = demo_win
    c = w.controller
    first = _shown(c)
    folder = demo_manifest().parent
    # add a run (the demo's SpectralNet matrix once more, under another name)
    c.add_runs([RunSource(folder / "spectralnet.txt", format="ascii-matrix", name="Again")])
    wait_idle(qtbot, w, 8)
    added = list(c.entries.values())[-1]
    assert added.name == "Again" and w.menus.undo_action.text() == "&Undo Add 1 run"
    w.menus.undo_action.trigger()
    assert _shown(c) == first
    w.menus.redo_action.trigger()  # back with its result: not read again
    assert not c.busy and list(c.entries.values())[-1].result is added.result
    # rename it, and back
    c.rename_run(added.key, "Renamed")
    wait_idle(qtbot, w, 8)
    assert c.entries[added.key].name == "Renamed"
    assert "Renamed" in [w.summary.model.index(r, 0).data() for r in range(8)]
    assert w.menus.undo_action.text() == "&Undo Rename a run"
    w.menus.undo_action.trigger()
    assert c.entries[added.key].name == "Again"
    w.menus.redo_action.trigger()
    assert c.entries[added.key].name == "Renamed"
    # a rename to nothing shows the name the file gives
    c.rename_run(added.key, "  ")
    assert c.entries[added.key].name == "spectralnet"  # the command line's name of the file
    w.menus.undo_action.trigger()
    assert c.entries[added.key].name == "Renamed"
    # the profile (an option): every run scored again, and back
    from dataclasses import replace

    shrec = c.options
    c.change_options(replace(shrec, profile="psbtable"))
    wait_idle(qtbot, w, 8, timeout=60000)
    assert c.options.profile == "psbtable"
    assert all(e.result.profile == "psbtable" for e in c.entries.values())
    assert w.menus.undo_action.text() == "&Undo Scoring options"
    w.menus.undo_action.trigger()
    wait_idle(qtbot, w, 8, timeout=60000)
    assert c.options == shrec and all(e.result.profile == "shrec" for e in c.entries.values())
    assert [e.name for e in c.entries.values()][-1] == "Renamed"
    w.menus.redo_action.trigger()
    wait_idle(qtbot, w, 8, timeout=60000)
    assert c.options.profile == "psbtable"
    w.menus.undo_action.trigger()
    wait_idle(qtbot, w, 8, timeout=60000)
    # the shapes folders
    shapes = (c.shapes.source, c.shapes.query_source)
    assert shapes[0] is not None
    c.set_shapes(None, None)
    assert c.shapes.source is None and w.menus.undo_action.text() == "&Undo Shapes folders"
    w.menus.undo_action.trigger()
    assert (c.shapes.source, c.shapes.query_source) == shapes
    # undo everything: the demo as opened, nothing unsaved
    while c.history.stack.canUndo():
        w.menus.undo_action.trigger()
        wait_idle(qtbot, w, timeout=60000)
    assert [(n, col) for n, col, _ in _shown(c)] == [(n, col) for n, col, _ in first]
    assert not c.unsaved()


def test_a_new_contest_starts_a_new_history(demo_win, qtbot):
    w = demo_win
    c = w.controller
    c.remove([next(iter(c.entries))])
    assert c.history.stack.canUndo()
    c.close()
    assert not c.history.stack.canUndo() and not w.menus.undo_action.isEnabled()
    w.open_demo()
    wait_idle(qtbot, w, 7, timeout=60000)
    assert not c.history.stack.canUndo()
    # nothing open: nothing recorded
    c.close()
    c.remove([1, 2])
    assert not c.history.stack.canUndo()


def test_undo_waits_while_an_assessment_is_read(demo_win, qtbot):
    w = demo_win
    c = w.controller
    c.remove([next(iter(c.entries))])
    n = len(c.entries)
    c.open_assessment(c.assessment_source, keep_session=True)  # read again (as the profile does)
    assert c.opening()
    w.menus.undo_action.trigger()
    assert len(c.entries) == n and "being read" in w.status_label.text()
    wait_idle(qtbot, w, 6, timeout=60000)
    w.menus.undo_action.trigger()
    wait_idle(qtbot, w, 7, timeout=60000)
