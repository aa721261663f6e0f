"""The app's dialogs: Scoring > Options (profile, averaging, F-beta, every
field read and the rest kept, every profile's text whole, no file named the
user lacks), the reader options asked when an assessment is opened, the
embeddings dialog, the figure-size dialog's line."""

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from guitools import wait_idle  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QDialog, QFileDialog  # noqa: E402
from shrec_eval.errors import OptionsError  # noqa: E402
from shrec_eval.options import EvalOptions  # noqa: E402
from shrec_eval.profiles import NAMES  # noqa: E402
from shrec_eval.resources import resource_path  # noqa: E402

from shrec_gui.window.dialogs import OptionsDialog, ReaderDialog, TrecOrderDialog  # noqa: E402


def test_options_dialog_sets_profile_average_and_beta(qtbot):
    start = EvalOptions(profile="trec_eval", complete_queries=True, f_beta=2.0)
    d = OptionsDialog(start)
    qtbot.addWidget(d)
    assert d.options() == start  # shown as they are
    assert d.profile.currentData() == "trec_eval" and d.f_beta.value() == 2.0
    d.profile.setCurrentIndex(d.profile.findData("psbtable"))
    d.average.setCurrentIndex(d.average.findData("macro"))
    d.f_beta.setValue(0.5)
    o = d.options()
    assert (o.profile, o.average, o.f_beta) == ("psbtable", "macro", 0.5)
    assert not o.complete_queries  # trec_eval's -c does not follow to another profile
    assert [d.profile.itemData(i) for i in range(d.profile.count())] == list(NAMES)
    assert [d.average.itemData(i) for i in range(d.average.count())] == [
        "micro",
        "macro",
        "proportional",
        "reciprocal",
    ]


DEMO = resource_path("demo")


def test_options_dialog_reads_every_field_and_keeps_the_rest(qtbot):
    start = EvalOptions(f_beta=2.0)
    d = OptionsDialog(start)
    qtbot.addWidget(d)
    assert d.options() == start  # shown as they are
    d.ranks.setText("5, 10")
    d.curve.setValue(50)
    d.levels.setCurrentText("11")
    d.interp.setCurrentIndex(d.interp.findData("psb"))
    d.remove_self.setChecked(True)
    d.cutoff.setChecked(True)
    d.collection_size.setValue(1000)
    o = d.options()
    assert (o.ranks, o.curve_length, o.pr_levels, o.pr_interpolation) == ((5, 10), 50, 11, "psb")
    assert o.remove_self and o.psb_class_cutoff and o.collection_size == 1000
    assert o.f_beta == 2.0  # not a field of the dialog: kept
    d.ranks.setText("5,x")
    with pytest.raises(OptionsError):
        d.options()


def test_options_dialog_rescores_and_asks_again_after_bad_ranks(win, qtbot, monkeypatch, dialogs):
    win.open_demo()
    wait_idle(qtbot, win, 7)
    answers = iter(["5,ten", "5,10"])

    def fill(self):
        self.ranks.setText(next(answers))
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(OptionsDialog, "exec", fill)
    win.options_dialog()
    assert len(dialogs) == 1 and "whole numbers" in dialogs[0][1]  # then asked again
    qtbot.waitUntil(
        lambda: all(e.result.options.ranks == (5, 10) for e in win.controller.entries.values()),
        timeout=30000,
    )
    assert win.controller.options.ranks == (5, 10)
    assert "p@25" not in win.summary.keys and "p@10" in [
        win.significance.measure.itemData(i) for i in range(win.significance.measure.count())
    ]


def test_reader_dialog_values_for_each_kind(qtbot):
    cla = ReaderDialog("cla", str(DEMO / "target.cla"))
    qtbot.addWidget(cla)
    assert cla.values() == {"queries": None, "graded": False, "matrix_order": "listing"}
    cla.queries.setText(str(DEMO / "queries.cla"))
    cla.graded.setChecked(True)
    cla.matrix_order.setCurrentIndex(cla.matrix_order.findData("id"))
    assert cla.values() == {
        "queries": str(DEMO / "queries.cla"),
        "graded": True,
        "matrix_order": "id",
    }
    qrels = ReaderDialog("qrels", "x.qrels")
    qtbot.addWidget(qrels)
    assert qrels.values() == {"collection_size": None, "matrix_order": "listing"}
    qrels.collection_size.setValue(5000)
    assert qrels.values() == {"collection_size": 5000, "matrix_order": "listing"}
    ranklists = ReaderDialog("ranklists", "folder")
    qtbot.addWidget(ranklists)
    assert ranklists.values() == {"variant": None}
    ranklists.variant.setCurrentIndex(1)
    assert ranklists.values()["variant"] == ranklists.variant.itemData(1) is not None
    trec = TrecOrderDialog(["run.trec"])
    qtbot.addWidget(trec)
    assert trec.values() == {"trec_order": False}  # file order unless asked
    trec.trec_order.setChecked(True)
    assert trec.values() == {"trec_order": True}


def test_open_assessment_asks_the_reader_options(win, qtbot, monkeypatch):
    monkeypatch.setattr(
        QFileDialog, "getOpenFileName", lambda *a, **k: (str(DEMO / "target.cla"), "")
    )

    def fill(self):
        assert self.kind == "cla"
        self.queries.setText(str(DEMO / "queries.cla"))
        self.graded.setChecked(True)
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(ReaderDialog, "exec", fill)
    win.dialogs.open_assessment_dialog()
    qtbot.waitUntil(lambda: win.controller.assessment is not None, timeout=10000)
    a = win.controller.assessment
    assert a.n_queries == 30 and a.top_grade == 2  # the query .cla, graded
    assert win.controller.assessment_source.graded


# -- dialogs' texts -----------------------------------------------------------------


def test_options_name_no_file_the_user_lacks_and_the_placeholder_is_whole(qtbot):
    d = OptionsDialog(EvalOptions())
    qtbot.addWidget(d)
    texts = [d.profile.itemText(i) for i in range(d.profile.count())]
    assert texts and not [t for t in texts if "measures.md" in t]
    r = ReaderDialog("cla", "target.cla")
    qtbot.addWidget(r)
    r.show()
    qtbot.waitExposed(r)
    line = r.queries
    shown = line.width() - line.textMargins().left() - line.textMargins().right()
    assert line.fontMetrics().horizontalAdvance(line.placeholderText()) < shown - 8


def test_embeddings_dialog_shadows_no_qt_method(qtbot, capfd, tmp_path):
    """M10: the dialog's distance list is not called ``metric`` (that name
    hid QWidget.metric, which Qt calls while painting: five TypeErrors
    printed each time the dialog opened)."""
    from PySide6.QtWidgets import QWidget

    from shrec_gui.window.dialogs import ReaderDialog

    d = ReaderDialog("embeddings", str(tmp_path / "net.npy"))
    qtbot.addWidget(d)
    d.show()
    d.grab()
    qtbot.wait(20)
    err = capfd.readouterr().err
    assert "Error calling Python override" not in err and "TypeError" not in err
    for name, value in vars(d).items():  # no attribute hides a QWidget method
        assert not callable(getattr(QWidget, name, None)) or callable(value), name
    assert d.values() == {"metric": "cosine", "top_k": None}


def test_options_dialog_shows_every_profile_text_whole(qtbot):
    """M11: the profile's description (what it fixes and why) is never cut
    off, whichever profile is chosen after the dialog opened."""
    from shrec_eval.options import EvalOptions
    from shrec_eval.profiles import REGISTRY

    from shrec_gui.window.dialogs import OptionsDialog

    d = OptionsDialog(EvalOptions())  # opened on the shrec profile: its text is short
    qtbot.addWidget(d)
    d.show()
    qtbot.wait(20)
    label = d.forced
    flags = int(Qt.TextFlag.TextWordWrap)
    for name in REGISTRY:
        d.profile.setCurrentIndex(d.profile.findData(name))
        qtbot.wait(20)
        text = label.text()
        need = label.fontMetrics().boundingRect(0, 0, label.width(), 10_000, flags, text)
        assert label.height() >= need.height(), name
        assert d.height() >= d.minimumSizeHint().height()


def test_figure_dialog_size_line_is_the_formats_and_the_plots(qtbot):
    """L3: the size line speaks the format's units (pixels of a PNG, points of
    an SVG or PDF) and says when the figure grows with the classes or runs."""
    from shrec_gui.figures.dialog import FigureDialog, size_text
    from shrec_gui.figures.printing import FigureSettings

    custom = FigureSettings(width=960, height=600, font_px=16, preset="custom")
    assert size_text(custom) == "960 x 600 px, text 16 px; printed at 300 dpi: 8.1 x 5.1 cm"
    svg = FigureSettings(width=960, height=600, font_px=16, preset="custom", fmt="svg")
    assert size_text(svg) == "720 x 450 pt in SVG, text 12 pt; 25.4 x 15.9 cm"
    heat = size_text(svg, "class_heatmap")
    assert heat == (
        "720 pt wide, as tall as its classes need (at least 450 pt) in SVG, text 12 pt; "
        "25.4 cm wide"
    )
    column = FigureSettings(preset="column", fmt="pdf")
    assert size_text(column) == "8.5 x 6.4 cm, text 8 pt; 241 x 181 pt in PDF"
    assert "as tall as its runs need (at least 6.4 cm)" in size_text(column, "ranked")
    assert "legend" in size_text(column, "curves") and "legend" not in size_text(column, "ranked")
    d = FigureDialog(svg, which="class_heatmap")
    qtbot.addWidget(d)
    assert d.print_size.text() == heat and not d.legend.isEnabled()
    d.fmt.setCurrentIndex(d.fmt.findData("png"))
    assert d.print_size.text().startswith("960 px wide, as tall as its classes need")


def test_the_options_dialog_makes_a_widget_per_option_of_the_schema(qtbot):
    """Scoring > Options' widgets come from the option schema (its label,
    kind and items): each shows the options' value and gives it back."""
    from shrec_eval.option_schema import OPTIONS

    o = EvalOptions(
        ranks=(3, 7),
        curve_length=40,
        pr_levels=11,
        pr_interpolation="psbplot",
        remove_self=False,
        psb_class_cutoff=True,
        f_beta=0.5,
        average="macro",
        collection_size=77,
    )
    d = OptionsDialog(o)
    qtbot.addWidget(d)
    with_widget = [s for s in OPTIONS if s.widget is not None]
    assert {s.name for s in with_widget} == set(d.widgets)
    for s in with_widget:
        assert getattr(d, s.widget.attr) is d.widgets[s.name]
    back = d.options()
    for s in with_widget:
        assert getattr(back, s.name) == getattr(o, s.name), s.name
