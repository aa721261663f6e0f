"""The table view every tab uses: sortable, copies its selection as TSV,
gives its rows for CSV export, and sizes its columns once per shape."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QAbstractItemView, QApplication, QHeaderView, QTableView

from .models import KEY_ROLE


class CopyTable(QTableView):
    """A sortable table whose selection copies as TSV (Ctrl+C)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setSortingEnabled(True)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectItems)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.setAlternatingRowColors(True)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.horizontalHeader().setStretchLastSection(True)
        self.verticalHeader().setDefaultSectionSize(22)
        self.verticalHeader().setVisible(True)  # row numbers = rank in the sorted order
        # sizing columns to their contents looks at a sample of rows, not all
        self.horizontalHeader().setResizeContentsPrecision(60)
        self._shape = None

    def keyPressEvent(self, event) -> None:
        if event.matches(QKeySequence.StandardKey.Copy):
            QApplication.clipboard().setText(self.selection_tsv())
            return
        super().keyPressEvent(event)

    def selection_tsv(self) -> str:
        idx = self.selectedIndexes()
        if not idx:
            return ""
        rows = sorted({i.row() for i in idx})
        cols = sorted({i.column() for i in idx})
        m = self.model()
        header = [str(m.headerData(c, Qt.Orientation.Horizontal) or "") for c in cols]
        chosen = {(i.row(), i.column()) for i in idx}
        lines = ["\t".join(header)]
        for r in rows:
            lines.append(
                "\t".join(str(m.index(r, c).data() or "") if (r, c) in chosen else "" for c in cols)
            )
        return "\n".join(lines)

    def table_rows(self) -> list[list[str]]:
        """Header and rows as shown (sorted as shown)."""
        m = self.model()
        head = [
            str(m.headerData(c, Qt.Orientation.Horizontal) or "") for c in range(m.columnCount())
        ]
        body = [
            [str(m.index(r, c).data() or "") for c in range(m.columnCount())]
            for r in range(m.rowCount())
        ]
        return [head] + body

    def selected_run_keys(self) -> list[int]:
        """The run keys of the selected rows (the model's key role), in
        the order shown, whatever the sorting."""
        keys: list[int] = []
        for i in sorted(self.selectedIndexes(), key=lambda i: i.row()):
            k = i.data(KEY_ROLE)
            if k is not None and k not in keys:
                keys.append(k)
        return keys

    def fit_columns(self) -> None:
        """Size the columns to their contents when the table gains columns,
        or rows while it has few (not on every refresh of a long table: it
        measures cells), so that names arriving run by run are not cut."""
        m = self.model()
        rows = min(m.rowCount(), 50)
        shape = (rows, m.columnCount(), m.headerData(0, Qt.Orientation.Horizontal))
        if self._shape != shape:
            self._shape = shape
            self.resizeColumnsToContents()
