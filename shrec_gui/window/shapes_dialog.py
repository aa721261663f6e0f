"""File > Shapes…: the shapes folders of the contest (saved in sessions)."""

from __future__ import annotations

import os

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
)
from shrec_eval.shapes.index import LAYOUTS, ShapesSource
from shrec_eval.shapes.index import check_layout as _check_layout

DETECTED = "detected"


class ShapesDialog(QDialog):
    """The shapes folder of the collection and, for image or sketch
    queries, of the queries; each with its layout (detected, a known one,
    or a pattern such as models/{id}/mesh.ply)."""

    def __init__(self, shapes: ShapesSource | None, query_shapes: ShapesSource | None, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Shapes")
        form = QFormLayout(self)
        self.fields = {}
        for key, label, source in (
            ("shapes", "Shapes folder:", shapes),
            ("query_shapes", "Query shapes folder (optional):", query_shapes),
        ):
            path = QLineEdit(str(source.path) if source is not None else "")
            browse = QPushButton("Browse…")
            browse.clicked.connect(lambda _=False, e=path: self._browse(e))
            layout = QComboBox()
            layout.setEditable(True)
            layout.addItems([DETECTED, *LAYOUTS, "{id}.obj", "models/{id}/mesh.ply"])
            layout.setCurrentText(source.layout if source and source.layout else DETECTED)
            row = QHBoxLayout()
            row.addWidget(path, 1)
            row.addWidget(browse)
            form.addRow(label, row)
            form.addRow("  layout:", layout)
            self.fields[key] = (path, layout)
        self.error = QLabel("")
        self.error.setStyleSheet("color: #b00020")
        form.addRow(self.error)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self._accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def _browse(self, edit: QLineEdit) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Shapes folder", edit.text())
        if folder:
            edit.setText(folder)

    def source(self, key: str) -> ShapesSource | None:
        """The folder and layout given (None when the folder is left empty);
        ValueError with the reason when they cannot be used."""
        path, layout = self.fields[key]
        folder = path.text().strip()
        if not folder:
            return None
        if not os.path.isdir(folder):
            raise ValueError(f"{folder} is not a folder")
        text = layout.currentText().strip()
        text = None if text in ("", DETECTED) else text
        try:
            _check_layout(text)
        except Exception as exc:
            raise ValueError(str(exc)) from None
        return ShapesSource(folder, text)

    def _accept(self) -> None:
        try:
            self.result_sources = (self.source("shapes"), self.source("query_shapes"))
        except ValueError as exc:
            self.error.setText(str(exc))
            return
        self.accept()
