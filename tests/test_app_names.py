"""The app's Summary takes the names users know: its search box resolves a
key, a label or another tool's name (map, P@10, NN) with the command line's
function, and the profile's columns are the default ones."""

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from guitools import retire, scored_demo_window  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from shrec_eval.profiles import get_profile  # noqa: E402


@pytest.fixture(scope="module")
def demo(qapp):
    w = scored_demo_window(qapp)
    before = list(w.summary.keys)
    yield w
    w.summary.set_columns(before)  # the columns are remembered for the next windows
    retire(w)


def test_search_adds_the_column_of_any_name(demo, qtbot, tmp_path):
    summary = demo.summary
    box = summary.find_column
    for name, key in (("P@10", "p@10"), ("map", "ap_trec_r"), ("nDCG@5", None), ("NN", "nn")):
        if "nn" in summary.keys and key == "nn":
            summary.toggle_column("nn", False)
        box.setText(name)
        qtbot.keyClick(box, Qt.Key.Key_Return)
        if key is None:  # trec_eval's ndcg is not the shrec profile's
            assert "defined differently" in box.toolTip() and box.text() == name
            box.clear()
            continue
        assert key in summary.keys and box.text() == ""
        assert summary.column_action(key).isChecked()
    box.setText("Average Dynamic Recall")
    summary.toggle_column("adr", False)
    qtbot.keyClick(box, Qt.Key.Key_Return)
    assert "adr" in summary.keys
    box.setText("mapp")
    qtbot.keyClick(box, Qt.Key.Key_Return)
    assert "did you mean 'map'" in box.toolTip()
    names = box.completer().model().stringList()
    assert {"map", "P@10", "NN", "Recall@100", "ap_trec_r"} <= set(names)
    assert summary.grab().save(str(tmp_path / "summary_search.png"))  # to look at


def test_default_columns_are_the_profiles(demo):
    from dataclasses import replace

    options = replace(demo.controller.options, profile="psbtable")
    keys, rank_key = get_profile(options.profile).table(demo.controller.assessment, options)
    assert keys == ["nn", "ft_psb", "st_psb", "e_measure", "dcg_psb"] and rank_key == "dcg_psb"
    before = demo.controller.options
    demo.controller.set_options(options)
    try:
        demo.summary.set_columns(["no_such_key"])  # nothing fits: the profile's columns
        assert demo.summary.keys == keys
        assert demo.controller.default_rank_key() == "dcg_psb"
    finally:
        demo.controller.set_options(before)
