"""Dialogs: scoring options, the reader options a file needs, the format of
a run that fits several, and About."""

from __future__ import annotations

import platform
from dataclasses import replace
from pathlib import Path

import numpy as np
import pyqtgraph as pg
import shrec_eval
from PySide6 import QtCore
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QSpinBox,
    QVBoxLayout,
)
from shrec_eval.model.values import parse_ranks
from shrec_eval.options import AVERAGES, MAX_BETA, EvalOptions
from shrec_eval.profiles import REGISTRY
from shrec_eval.reading.formats.rules import describe
from shrec_eval.reading.readers import MATRIX_ORDERS, METRICS, RANKLIST_VARIANTS, RUN_FORMATS

from .contest_files import app_leaves_out

AVERAGE_TEXT = {
    "micro": "over queries",
    "macro": "over classes (mean of class means)",
    "proportional": "queries weighted by their relevant count",
    "reciprocal": "queries weighted by 1 / relevant count",
}


def _shown(value) -> str:
    return ("on" if value else "off") if isinstance(value, bool) else str(value)


class OptionsDialog(QDialog):
    """Engine options (re-score with F5 after changing them), and how the
    open assessment's matrices are read (``matrix_order``: the user's
    choice, None: no assessment open; ``by_id``: whether its ids allow
    reading them by id)."""

    def __init__(
        self,
        options: EvalOptions,
        parent=None,
        *,
        matrix_order: str | None = None,
        by_id: bool = True,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Scoring options")
        self.base = options
        f = QFormLayout(self)
        self.ranks = QLineEdit(",".join(str(k) for k in options.ranks))
        self.curve = QSpinBox()
        self.curve.setRange(1, 100000)
        self.curve.setValue(options.curve_length)
        self.levels = QComboBox()
        self.levels.addItems(["21", "11"])
        self.levels.setCurrentText(str(options.pr_levels))
        self.interp = QComboBox()
        self.interp.addItem("max: P(r) = max precision at recall >= r", "max")
        self.interp.addItem("psb: psbPlot / SHREC MATLAB (20 levels, linear)", "psb")
        self.interp.addItem("psbplot: psbPlot's own (query counted, float32)", "psbplot")
        self.interp.setCurrentIndex(self.interp.findData(options.pr_interpolation))
        self.remove_self = QCheckBox("Remove a query from its own list (leave-one-out)")
        self.remove_self.setChecked(options.remove_self)
        self.cutoff = QCheckBox("Leave classes of at most 2 members out of the means (psbTable)")
        self.cutoff.setChecked(options.psb_class_cutoff)
        self.matrix_order = _matrix_order_box()
        self._order_open = matrix_order is not None
        self.matrix_order.setCurrentIndex(self.matrix_order.findData(matrix_order or "listing"))
        if not by_id:  # ids other than 0..N-1: no reading by id
            item = self.matrix_order.model().item(self.matrix_order.findData("id"))
            item.setEnabled(False)
            item.setToolTip("The assessment's ids are not 0..N-1: matrices cannot be read by id.")
        self.collection_size = QSpinBox()
        self.collection_size.setRange(0, 2_000_000_000)
        self.collection_size.setSpecialValueText("from the assessment")
        self.collection_size.setValue(options.collection_size or 0)
        self.profile = QComboBox()
        for name, profile in REGISTRY.items():  # names and words: the profile registry's
            self.profile.addItem(f"{name}: {profile.label}", name)
            i = self.profile.count() - 1
            why = app_leaves_out(profile)
            self.profile.setItemData(i, why or profile.help, Qt.ItemDataRole.ToolTipRole)
            if why is not None:  # listed, greyed, with what to use instead
                self.profile.model().item(i).setEnabled(False)
        self.profile.setCurrentIndex(self.profile.findData(options.profile))
        self.forced = QLabel()  # what the chosen profile fixes, and why
        self.forced.setWordWrap(True)
        # wide enough for the longest text in a few lines (its height: _reserve_about)
        self.forced.setMinimumWidth(self.fontMetrics().averageCharWidth() * 60)
        self.forced.setEnabled(False)  # greyed, as the options it fixes
        self.average = QComboBox()
        for name in AVERAGES:
            self.average.addItem(f"{name}: {AVERAGE_TEXT[name]}", name)
        self.average.setCurrentIndex(self.average.findData(options.average))
        self.f_beta = QDoubleSpinBox()
        self.f_beta.setDecimals(3)
        self.f_beta.setRange(0.001, MAX_BETA)
        self.f_beta.setValue(options.f_beta)
        f.addRow("Evaluator profile:", self.profile)
        f.addRow("", self.forced)
        f.addRow("Run mean (averaging):", self.average)
        f.addRow("F-measure weight beta:", self.f_beta)
        f.addRow("Ranks K of the @K measures:", self.ranks)
        f.addRow("Curve length (ranks):", self.curve)
        f.addRow("Precision-recall levels:", self.levels)
        f.addRow("Interpolation:", self.interp)
        f.addRow(self.remove_self)
        f.addRow(self.cutoff)
        f.addRow("Matrix rows and columns:", self.matrix_order)
        f.addRow("Collection size:", self.collection_size)
        bb = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        bb.accepted.connect(self.accept)
        bb.rejected.connect(self.reject)
        f.addRow(bb)
        #: option -> (its widget, how to show a value) for what a profile may fix
        self._fixable = {
            "remove_self": (self.remove_self, self.remove_self.setChecked),
            "psb_class_cutoff": (self.cutoff, self.cutoff.setChecked),
            "pr_interpolation": (
                self.interp,
                lambda v: self.interp.setCurrentIndex(self.interp.findData(v)),
            ),
            "matrix_order": (
                self.matrix_order,
                lambda v: self.matrix_order.setCurrentIndex(self.matrix_order.findData(v)),
            ),
        }
        self._user = {  # the user's own choices, back when a profile lets go
            "remove_self": options.remove_self,
            "psb_class_cutoff": options.psb_class_cutoff,
            "pr_interpolation": options.pr_interpolation,
            "matrix_order": matrix_order or "listing",
        }
        self._fixed: set[str] = set()
        self.profile.currentIndexChanged.connect(self._show_forced)
        self._show_forced()
        self._reserve_about()

    def _show_forced(self) -> None:
        """The options the chosen profile fixes: shown at its values, greyed,
        with why; the others as the user left them."""
        for name in self._fixed:  # remember what the user had chosen, then let go
            widget, show = self._fixable[name]
            widget.setEnabled(True)
            widget.setToolTip("")
            show(self._user[name])
        for name in set(self._fixable) - self._fixed:
            self._user[name] = self._value(name)
        profile = REGISTRY[self.profile.currentData()]
        fixed = {k: v for k, v in profile.fixed().items() if k in self._fixable}
        self._fixed = set(fixed)
        for name, value in fixed.items():
            widget, show = self._fixable[name]
            show(value)
            widget.setEnabled(False)
            why = profile.why if name in profile.options else f"it reads {describe(name, value)}"
            widget.setToolTip(f"Fixed by the {profile.name} profile: {why}")
        if not self._order_open:
            self.matrix_order.setEnabled(False)
            self.matrix_order.setToolTip("How an assessment's matrices are read: open one first.")
        self.forced.setText(self._about(profile))

    def _about(self, profile) -> str:
        """What a profile is, and what it fixes and why."""
        fixed = {k: v for k, v in profile.options.items() if k in self._fixable}
        about = profile.help[:1].upper() + profile.help[1:]
        text = f"{about}."
        if fixed:
            what = ", ".join(f"{k.replace('_', ' ')} = {_shown(v)}" for k, v in fixed.items())
            text += f" It fixes {what}: {profile.why}."
        if profile.reading:  # how it reads the files (Scoring > Score reads them again)
            text += " It reads " + "; ".join(describe(k, v) for k, v in profile.reading.items())
            text += "."
        return text

    def _reserve_about(self) -> None:
        """Room for the longest profile text at the label's width: choosing
        another profile never cuts its text off (a dialog does not grow by
        itself when a wrapped label needs more lines)."""
        label = self.forced
        width = max(label.width(), label.minimumWidth())
        texts = [self._about(p) for p in REGISTRY.values()]
        flags = int(Qt.TextFlag.TextWordWrap)
        fm = label.fontMetrics()
        need = max(fm.boundingRect(0, 0, width, 100_000, flags, t).height() for t in texts)
        if need != label.minimumHeight():
            label.setMinimumHeight(need)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._reserve_about()

    def _own(self, name: str):
        """The user's value of an option (not the one a profile shows fixed)."""
        return self._user[name] if name in self._fixed else self._value(name)

    def _value(self, name: str):
        if name in ("pr_interpolation", "matrix_order"):
            return self._fixable[name][0].currentData()
        return self._fixable[name][0].isChecked()

    def chosen_matrix_order(self) -> str | None:
        """The matrix order chosen (the user's own beneath a profile that
        fixes it); None when no assessment is open."""
        return self._own("matrix_order") if self._order_open else None

    def options(self) -> EvalOptions:
        """The options shown (the others, e.g. the profile, as they were);
        OptionsError when the ranks are not a list of whole numbers."""
        profile = self.profile.currentData()
        return replace(
            REGISTRY[profile].fit(self.base),  # another profile's own options (-c) reset
            ranks=parse_ranks(self.ranks.text()),
            curve_length=self.curve.value(),
            pr_levels=int(self.levels.currentText()),
            # what a profile fixes stays the user's own choice underneath
            pr_interpolation=self._own("pr_interpolation"),
            remove_self=self._own("remove_self"),
            psb_class_cutoff=self._own("psb_class_cutoff"),
            collection_size=self.collection_size.value() or None,
            profile=profile,
            average=self.average.currentData(),
            f_beta=self.f_beta.value(),
        )


class ReaderDialog(QDialog):
    """Reader options a file needs: for a .cla the query .cla and graded
    relevance; for qrels the collection size; for rank lists the variant;
    for feature vectors the distance and top-K (TREC runs: TrecOrderDialog,
    one question for all)."""

    def __init__(
        self, kind: str, path: str, parent=None, start_dir: str = "", profile=None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Reading {Path(path).name}")
        f = QFormLayout(self)
        self.kind = kind
        self.start_dir = start_dir
        if kind == "cla":
            self.queries = QLineEdit()
            self.queries.setPlaceholderText("none: every model is a query (leave-one-out)")
            # the placeholder in full (QLineEdit's own width hint is 17 characters)
            room = self.queries.textMargins().left() + self.queries.textMargins().right() + 24
            self.queries.setMinimumWidth(
                self.queries.fontMetrics().horizontalAdvance(self.queries.placeholderText()) + room
            )
            browse = QPushButton("Browse…")
            browse.clicked.connect(self._browse)
            row = QHBoxLayout()
            row.addWidget(self.queries, 1)
            row.addWidget(browse)
            f.addRow("Query .cla:", row)
            self.graded = QCheckBox("Graded: same class 2, sister classes 1 (SHREC 2006)")
            f.addRow(self.graded)
        if kind in ("cla", "qrels"):
            # how dissimilarity matrices map onto it (a profile may fix it: sipiran21 by id)
            self.matrix_order = _matrix_order_box()
            fixed = profile.reading.get("matrix_order") if profile is not None else None
            if fixed is not None:  # shown at the profile's value, greyed (the choice kept)
                self.matrix_order.setCurrentIndex(self.matrix_order.findData(fixed))
                self.matrix_order.setEnabled(False)
                self.matrix_order.setToolTip(
                    f"Fixed by the {profile.name} profile: it reads "
                    f"{describe('matrix_order', fixed)}."
                )
            f.addRow("Matrix rows and columns:", self.matrix_order)
        if kind == "qrels":
            self.collection_size = QSpinBox()
            self.collection_size.setRange(0, 2_000_000_000)
            self.collection_size.setSpecialValueText("the judged documents")
            f.addRow("Collection size:", self.collection_size)
        elif kind == "ranklists":
            self.variant = QComboBox()
            self.variant.addItem("detect from the content", None)
            for v, text in RANKLIST_VARIANTS.items():
                self.variant.addItem(f"{v}: {text}", v)
            f.addRow("Rank-list variant:", self.variant)
        elif kind == "embeddings":
            self.distance = QComboBox()
            for m, text in METRICS.items():
                self.distance.addItem(f"{m}: {text}", m)
            f.addRow("Distance:", self.distance)
            self.top_k = QSpinBox()
            self.top_k.setRange(0, 1_000_000)
            self.top_k.setSpecialValueText("every result")
            self.top_k.setToolTip(
                "keep each query's first K results (huge galleries): measures past rank K "
                "become bounds, the Data checks tab says which"
            )
            f.addRow("Keep the first:", self.top_k)
        bb = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        bb.accepted.connect(self.accept)
        bb.rejected.connect(self.reject)
        f.addRow(bb)

    def _browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self,
            "Query classification",
            self.start_dir,
            "PSB classification (*.cla);;All files (*)",
        )
        if path:
            self.queries.setText(path)

    def values(self) -> dict:
        if self.kind in ("cla", "qrels"):
            # a matrix order the profile fixes is not the user's choice: not said
            order = self.matrix_order.currentData() if self.matrix_order.isEnabled() else None
        if self.kind == "cla":
            return {
                "queries": self.queries.text().strip() or None,
                "graded": self.graded.isChecked(),
                "matrix_order": order,
            }
        if self.kind == "qrels":
            return {"collection_size": self.collection_size.value() or None, "matrix_order": order}
        if self.kind == "ranklists":
            return {"variant": self.variant.currentData()}
        if self.kind == "embeddings":
            return {"metric": self.distance.currentData(), "top_k": self.top_k.value() or None}
        return {}


def _matrix_order_box() -> QComboBox:
    """The matrix orders to choose from (the reader dialog, Scoring > Options)."""
    box = QComboBox()
    for k, text in MATRIX_ORDERS.items():
        box.addItem(f"{k}: {text}", k)
    box.setToolTip(
        "When the ids are 0..N-1 but listed out of order, the two readings give other "
        "numbers: a banner over the tabs then gives the NN of both."
    )
    return box


class TrecOrderDialog(QDialog):
    """One question for every TREC run added at once: each query's documents
    in file order, or sorted as trec_eval sorts them.  Named in the text, not
    only the title bar."""

    def __init__(self, paths: list[str], parent=None) -> None:
        super().__init__(parent)
        n = len(paths)
        self.setWindowTitle("TREC runs" if n > 1 else f"TREC run {Path(paths[0]).name}")
        shown = ", ".join(Path(p).name for p in paths[:6]) + (f" and {n - 6} more" if n > 6 else "")
        text = QLabel(
            f"{'These TREC runs' if n > 1 else 'This TREC run'} ({shown}): how are each "
            "query's documents ranked?"
        )
        text.setWordWrap(True)
        self.file_order = QRadioButton("In the order of the &file (what the participant ranked)")
        self.trec_order = QRadioButton(
            "As &trec_eval sorts them: score descending, then docno descending"
        )
        self.file_order.setChecked(True)
        note = QLabel("The trec_eval profile (Options) always sorts as trec_eval does.")
        note.setWordWrap(True)
        bb = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        bb.accepted.connect(self.accept)
        bb.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        for w in (text, self.file_order, self.trec_order, note, bb):
            lay.addWidget(w)

    def values(self) -> dict:
        """The reader setting of every TREC run added (RunSource's)."""
        return {"trec_order": self.trec_order.isChecked()}


def ask_run_format(parent, path: str, candidates) -> str | None:
    """Which format a run that fits several is (None: the user cancelled)."""
    items = [f"{k}: {RUN_FORMATS.get(k, k)}" for k in candidates]
    text, ok = QInputDialog.getItem(
        parent,
        "Which format?",
        f"{Path(path).name} fits several formats. Read it as:",
        items,
        0,
        False,
    )
    if not ok or text not in items:
        return None
    return candidates[items.index(text)]


def about_text() -> str:
    return (
        f"<h3>SHREC evaluation {shrec_eval.__version__}</h3>"
        "<p>Scores 3D shape retrieval contests (SHREC, Princeton Shape Benchmark): every "
        "measure of the SHREC 2006 and SHREC 2012 / PSB evaluations.</p>"
        f"<p>Python {platform.python_version()}, Qt {QtCore.qVersion()}, "
        f"PySide6 {_version('PySide6')}, numpy {np.__version__}, "
        f"pyqtgraph {pg.__version__}</p>"
    )


def _version(mod: str) -> str:
    try:
        return __import__(mod).__version__
    except (ImportError, AttributeError):
        return "?"
