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
    QLineEdit,
    QPushButton,
    QSpinBox,
)
from shrec_eval.options import AVERAGES, MAX_BETA, PROFILES, EvalOptions
from shrec_eval.readers import METRICS, RANKLIST_VARIANTS, RUN_FORMATS
from shrec_eval.values import parse_ranks

#: one line each for the Options dialog (README, Profiles; ../shared/spec/profiles.md)
PROFILE_TEXT = {
    "shrec": "measures.md as written (the default)",
    "boli": "SHREC sketch / image toolkits (MATLAB)",
    "psbtable": "Princeton Shape Benchmark psbTable",
    "shapenet17": "SHREC 2016/2017 ShapeNet Core55 (Node.js)",
    "trec_eval": "NIST trec_eval",
}
AVERAGE_TEXT = {
    "micro": "over queries",
    "macro": "over classes (mean of class means)",
    "proportional": "queries weighted by their relevant count",
    "reciprocal": "queries weighted by 1 / relevant count",
}


class OptionsDialog(QDialog):
    """Engine options (re-score with F5 after changing them)."""

    def __init__(self, options: EvalOptions, parent=None) -> None:
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
        self.interp.setCurrentIndex(self.interp.findData(options.pr_interpolation))
        self.remove_self = QCheckBox("Remove a query from its own list (leave-one-out)")
        self.remove_self.setChecked(options.remove_self)
        self.cutoff = QCheckBox("Leave classes of at most 2 members out of the means (psbTable)")
        self.cutoff.setChecked(options.psb_class_cutoff)
        self.size = QSpinBox()
        self.size.setRange(0, 2_000_000_000)
        self.size.setSpecialValueText("from the assessment")
        self.size.setValue(options.collection_size or 0)
        self.profile = QComboBox()
        for name in PROFILES:
            self.profile.addItem(f"{name}: {PROFILE_TEXT[name]}", name)
        self.profile.setCurrentIndex(self.profile.findData(options.profile))
        self.average = QComboBox()
        for name in AVERAGES:
            self.average.addItem(f"{name}: {AVERAGE_TEXT[name]}", name)
        self.average.setCurrentIndex(self.average.findData(options.average))
        self.f_beta = QDoubleSpinBox()
        self.f_beta.setDecimals(3)
        self.f_beta.setRange(0.001, MAX_BETA)
        self.f_beta.setValue(options.f_beta)
        f.addRow("Evaluator profile:", self.profile)
        f.addRow("Run mean (averaging):", self.average)
        f.addRow("F-measure weight beta:", self.f_beta)
        f.addRow("Ranks K of the @K measures:", self.ranks)
        f.addRow("Curve length (ranks):", self.curve)
        f.addRow("Precision-recall levels:", self.levels)
        f.addRow("Interpolation:", self.interp)
        f.addRow(self.remove_self)
        f.addRow(self.cutoff)
        f.addRow("Collection size:", self.size)
        bb = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        bb.accepted.connect(self.accept)
        bb.rejected.connect(self.reject)
        f.addRow(bb)

    def options(self) -> EvalOptions:
        """The options shown (the others, e.g. the profile, as they were);
        OptionsError when the ranks are not a list of whole numbers."""
        profile = self.profile.currentData()
        return replace(
            self.base,
            ranks=parse_ranks(self.ranks.text()),
            curve_length=self.curve.value(),
            pr_levels=int(self.levels.currentText()),
            pr_interpolation=self.interp.currentData(),
            remove_self=self.remove_self.isChecked(),
            psb_class_cutoff=self.cutoff.isChecked(),
            collection_size=self.size.value() or None,
            profile=profile,
            average=self.average.currentData(),
            f_beta=self.f_beta.value(),
            # trec_eval's -c belongs to that profile only (EvalOptions refuses it elsewhere)
            complete_queries=self.base.complete_queries and profile == "trec_eval",
        )


class ReaderDialog(QDialog):
    """Reader options a file needs: for a .cla the query .cla and graded
    relevance; for qrels the collection size; for rank lists the variant;
    for TREC runs the ordering; for feature vectors the distance and top-K."""

    def __init__(self, kind: str, path: str, parent=None, start_dir: str = "") -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Reading {Path(path).name}")
        f = QFormLayout(self)
        self.kind = kind
        self.start_dir = start_dir
        if kind == "cla":
            self.queries = QLineEdit()
            self.queries.setPlaceholderText("none: every model is a query (leave-one-out)")
            browse = QPushButton("Browse…")
            browse.clicked.connect(self._browse)
            row = QHBoxLayout()
            row.addWidget(self.queries, 1)
            row.addWidget(browse)
            f.addRow("Query .cla:", row)
            self.graded = QCheckBox("Graded: same class 2, sister classes 1 (SHREC 2006)")
            f.addRow(self.graded)
        elif kind == "qrels":
            self.size = QSpinBox()
            self.size.setRange(0, 2_000_000_000)
            self.size.setSpecialValueText("the judged documents")
            f.addRow("Collection size:", self.size)
        elif kind == "ranklists":
            self.variant = QComboBox()
            self.variant.addItem("detect from the content", None)
            for v, text in RANKLIST_VARIANTS.items():
                self.variant.addItem(f"{v}: {text}", v)
            f.addRow("Rank-list variant:", self.variant)
        elif kind == "trec":
            self.trec_order = QCheckBox(
                "Sort as trec_eval does (score desc, docno desc) instead of file order"
            )
            f.addRow(self.trec_order)
        elif kind == "embeddings":
            self.metric = QComboBox()
            for m, text in METRICS.items():
                self.metric.addItem(f"{m}: {text}", m)
            f.addRow("Distance:", self.metric)
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
        if self.kind == "cla":
            return {
                "queries": self.queries.text().strip() or None,
                "graded": self.graded.isChecked(),
            }
        if self.kind == "qrels":
            return {"collection_size": self.size.value() or None}
        if self.kind == "ranklists":
            return {"variant": self.variant.currentData()}
        if self.kind == "trec":
            return {"trec_order": self.trec_order.isChecked()}
        if self.kind == "embeddings":
            return {"metric": self.metric.currentData(), "top_k": self.top_k.value() or None}
        return {}


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
