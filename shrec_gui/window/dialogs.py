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
from shrec_eval.errors import ShrecEvalError
from shrec_eval.model.number_text import parse_ranks
from shrec_eval.option_schema import OPTIONS, by_name
from shrec_eval.options import EvalOptions
from shrec_eval.profiles import listed
from shrec_eval.reading.formats.rules import describe
from shrec_eval.reading.readers import MATRIX_ORDERS, METRICS, RANKLIST_VARIANTS, RUN_FORMATS

from ..state.contest_files import app_leaves_out


def _shown(value) -> str:
    return ("on" if value else "off") if isinstance(value, bool) else str(value)


def _widget(spec, value):
    """The widget of an option of the schema (its ``Widget``), showing ``value``."""
    w = spec.widget
    if w.kind == "line":
        box = QLineEdit(",".join(str(k) for k in value))
    elif w.kind == "spin":
        box = QSpinBox()
        box.setRange(int(w.least), int(w.most))
        if w.special:
            box.setSpecialValueText(w.special)
        box.setValue(value or 0)
    elif w.kind == "double":
        box = QDoubleSpinBox()
        box.setDecimals(w.decimals)
        box.setRange(w.least, w.most)
        box.setValue(value)
    elif w.kind == "check":
        box = QCheckBox(w.label)
        box.setChecked(value)
    else:
        box = QComboBox()
        for v, words in w.items:
            box.addItem(words or str(v), v)
        box.setCurrentIndex(box.findData(value))
    return box


def _show(spec, box, value) -> None:
    kind = spec.widget.kind
    if kind == "check":
        box.setChecked(value)
    elif kind == "combo":
        box.setCurrentIndex(box.findData(value))
    elif kind == "line":
        box.setText(",".join(str(k) for k in value))
    else:
        box.setValue(value or 0)


def _read(spec, box):
    """The value an option's widget shows (a ValueError for ranks that are not)."""
    kind = spec.widget.kind
    if kind == "check":
        return box.isChecked()
    if kind == "combo":
        return box.currentData()
    if kind == "line":
        return parse_ranks(box.text())
    if kind == "spin" and spec.widget.special:
        return box.value() or None
    return box.value()


class OptionsDialog(QDialog):
    """Engine options (re-score with F5 after changing them), and how the
    open assessment's matrices are read (``matrix_order``: the user's
    choice, None: no assessment open; ``by_id``: whether its ids allow
    reading them by id).  Each option's widget is made from the option
    schema (:data:`shrec_eval.option_schema.OPTIONS`); Load evaluator file…
    adds a profile described by an evaluator file to the choice."""

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
        #: option -> its widget (also the dialog's attribute the schema names)
        self.widgets = {}
        for spec in OPTIONS:
            if spec.widget is not None:
                box = _widget(spec, getattr(options, spec.name))
                self.widgets[spec.name] = box
                setattr(self, spec.widget.attr, box)
        self.matrix_order = _matrix_order_box()
        self._order_open = matrix_order is not None
        self.matrix_order.setCurrentIndex(self.matrix_order.findData(matrix_order or "listing"))
        if not by_id:  # ids other than 0..N-1: no reading by id
            item = self.matrix_order.model().item(self.matrix_order.findData("id"))
            item.setEnabled(False)
            item.setToolTip("The assessment's ids are not 0..N-1: matrices cannot be read by id.")
        #: name -> profile of the choice (the registry's, and evaluator files loaded)
        self._profiles = {p.name: p for p in listed()}
        self._profiles.setdefault(options.profile, options.rules)
        self.profile = QComboBox()
        for p in self._profiles.values():  # names and words: the profile registry's
            self._add_profile(p)
        self.profile.setCurrentIndex(self.profile.findData(options.profile))
        self.load_file = QPushButton("Load evaluator file…")
        self.load_file.setToolTip(
            "Add the profile an evaluator file (.toml) describes: a contest's own rules, "
            "measures, columns and native tables"
        )
        self.load_file.clicked.connect(self._load_file)
        self.forced = QLabel()  # what the chosen profile fixes, and why
        self.forced.setWordWrap(True)
        # wide enough for the longest text in a few lines (its height: _reserve_about)
        self.forced.setMinimumWidth(self.fontMetrics().averageCharWidth() * 60)
        self.forced.setEnabled(False)  # greyed, as the options it fixes
        choice = QHBoxLayout()
        choice.addWidget(self.profile, 1)
        choice.addWidget(self.load_file)
        f.addRow("Evaluator profile:", choice)
        f.addRow("", self.forced)
        rows = sorted(
            [(s.widget.place, s.widget, self.widgets[s.name]) for s in OPTIONS if s.widget]
            + [(10, None, self.matrix_order)],
            key=lambda r: r[0],
        )
        for _, w, box in rows:
            if w is None:
                f.addRow("Matrix rows and columns:", box)
            elif w.kind == "check":
                f.addRow(box)
            else:
                f.addRow(w.label, box)
        bb = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        bb.accepted.connect(self.accept)
        bb.rejected.connect(self.reject)
        f.addRow(bb)
        self._user = {name: getattr(options, name) for name in self.widgets}
        self._user["matrix_order"] = matrix_order or "listing"
        self._fixed: set[str] = set()
        self.profile.currentIndexChanged.connect(self._show_forced)
        self._show_forced()
        self._reserve_about()

    def _add_profile(self, profile) -> None:
        self.profile.addItem(f"{profile.name}: {profile.label}", profile.name)
        i = self.profile.count() - 1
        why = app_leaves_out(profile)
        self.profile.setItemData(i, why or profile.help, Qt.ItemDataRole.ToolTipRole)
        if why is not None:  # listed, greyed, with what to use instead
            self.profile.model().item(i).setEnabled(False)

    def _load_file(self) -> None:
        """Load evaluator file…: its profile added to the choice and chosen;
        a file that is not one is said (its line and what was expected)."""
        path, _ = QFileDialog.getOpenFileName(
            self, "Load evaluator file", "", "Evaluator files (*.toml);;All files (*)"
        )
        if path:
            self.add_evaluator_file(path)

    def add_evaluator_file(self, path) -> bool:
        """Add the profile of the evaluator file ``path`` and choose it (False:
        it is not one; a message box said why, the choice is as it was)."""
        from PySide6.QtWidgets import QMessageBox

        try:
            profile = EvalOptions(profile=Path(path)).rules
        except ShrecEvalError as exc:
            QMessageBox.warning(self, "Cannot load the evaluator file", str(exc))
            return False
        if profile.name not in self._profiles:
            self._add_profile(profile)
        else:
            i = self.profile.findData(profile.name)
            self.profile.setItemText(i, f"{profile.name}: {profile.label}")
        self._profiles[profile.name] = profile
        self.profile.setCurrentIndex(self.profile.findData(profile.name))
        self._show_forced()
        self._reserve_about()
        return True

    def _fixable(self) -> dict:
        """Option (and the matrix order) -> its widget: what a profile may fix."""
        return {**self.widgets, "matrix_order": self.matrix_order}

    def _show_forced(self) -> None:
        """The options the chosen profile fixes: shown at its values, greyed,
        with why; the others as the user left them."""
        boxes = self._fixable()
        for name in self._fixed:  # remember what the user had chosen, then let go
            boxes[name].setEnabled(True)
            boxes[name].setToolTip("")
            self._show_value(name, self._user[name])
        for name in set(boxes) - self._fixed:
            self._user[name] = self._value(name)
        profile = self._profiles[self.profile.currentData()]
        fixed = {k: v for k, v in profile.fixed().items() if k in boxes}
        self._fixed = set(fixed)
        for name, value in fixed.items():
            self._show_value(name, value)
            boxes[name].setEnabled(False)
            why = profile.why if name in profile.options else f"it reads {describe(name, value)}"
            boxes[name].setToolTip(f"Fixed by the {profile.name} profile: {why}")
        if not self._order_open:
            self.matrix_order.setEnabled(False)
            self.matrix_order.setToolTip("How an assessment's matrices are read: open one first.")
        self.forced.setText(self._about(profile))

    def _show_value(self, name: str, value) -> None:
        if name == "matrix_order":
            self.matrix_order.setCurrentIndex(self.matrix_order.findData(value))
        else:
            _show(by_name(name), self.widgets[name], value)

    def _about(self, profile) -> str:
        """What a profile is, and what it fixes and why."""
        fixed = {k: v for k, v in profile.options.items() if k in self._fixable()}
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
        texts = [self._about(p) for p in self._profiles.values()]
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
        if name == "matrix_order":
            return self.matrix_order.currentData()
        return _read(by_name(name), self.widgets[name])

    def chosen_matrix_order(self) -> str | None:
        """The matrix order chosen (the user's own beneath a profile that
        fixes it); None when no assessment is open."""
        return self._own("matrix_order") if self._order_open else None

    def options(self) -> EvalOptions:
        """The options shown (the others, e.g. the measures, as they were);
        OptionsError when the ranks are not a list of whole numbers.  What a
        profile fixes stays the user's own choice underneath."""
        profile = self._profiles[self.profile.currentData()]
        return replace(
            profile.fit(self.base),  # another profile's own options (-c) reset
            profile=profile,
            **{name: self._own(name) for name in self.widgets},
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
