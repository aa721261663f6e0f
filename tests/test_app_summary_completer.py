"""H1 of issue 31: Enter in the Summary's "Add column" search with its
suggestions popup open crashed the app (the completer was replaced while
Qt was still handling the key in it).  Here the popup is really shown (the
test fails if it is not) and Enter is pressed in it: on the name typed, and
on a suggestion chosen with the arrow keys."""

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from guitools import retire, scored_demo_window  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402


@pytest.fixture(scope="module")
def demo(qapp):
    w = scored_demo_window(qapp)
    before = list(w.summary.keys)
    yield w
    w.summary.set_columns(before)  # the columns are remembered for the next windows
    retire(w)


def _type_with_popup(qtbot, demo, text):
    summary = demo.summary
    box = summary.find_column
    box.clear()
    demo.activateWindow()
    box.setFocus()
    qtbot.keyClicks(box, text)
    popup = box.completer().popup()
    qtbot.waitUntil(popup.isVisible, timeout=5000)
    return box, popup


@pytest.mark.parametrize("downs, key", [(0, "ap_trec_r"), (1, "ap_trec_r"), (2, "map@r")])
def test_enter_in_the_suggestions_popup_adds_the_column(demo, qtbot, downs, key):
    summary = demo.summary
    if key in summary.keys:
        summary.toggle_column(key, False)
    completer_before = summary.find_column.completer()
    box, popup = _type_with_popup(qtbot, demo, "map")
    shown = [popup.model().index(i, 0).data() for i in range(popup.model().rowCount())]
    assert shown[:3] == ["map", "MAP@R", "map@r"]
    for _ in range(downs):
        qtbot.keyClick(popup, Qt.Key.Key_Down)
    chosen = popup.currentIndex().data() if downs else None
    qtbot.keyClick(popup, Qt.Key.Key_Return)
    # the name typed (no suggestion chosen) or the suggestion chosen gets its column
    qtbot.waitUntil(lambda: key in summary.keys and box.text() == "", timeout=5000)
    assert chosen in (None, "map", "MAP@R")
    assert not popup.isVisible()
    assert summary.column_action(key).isChecked()
    # one completer for the box's lifetime: the same one, whatever was added
    assert box.completer() is completer_before
    # and the box works again at once
    box2, popup2 = _type_with_popup(qtbot, demo, "P@1")
    assert popup2 is popup
    qtbot.keyClick(popup2, Qt.Key.Key_Escape)
    box2.clear()


def test_options_change_updates_the_suggestions_in_place(demo, qtbot):
    from dataclasses import replace

    summary = demo.summary
    completer = summary.find_column.completer()
    before = demo.controller.options
    demo.controller.set_options(replace(before, ranks=(*before.ranks, 7)))
    try:
        assert summary.find_column.completer() is completer
        assert "P@7" in completer.model().stringList()
    finally:
        demo.controller.set_options(before)
    assert "P@7" not in completer.model().stringList()
