"""The table view every tab uses: sortable, copies its selection as TSV,
gives its rows for CSV export, sizes its columns once per shape, and keeps
its sort on the same column when the model's columns change."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QAbstractItemView, QApplication, QHeaderView, QTableView

from .models import COLUMN_ROLE, KEY_ROLE

#: widest a column is sized to its contents, in average characters; longer
#: texts are elided (the model gives them in full as a tooltip)
MAX_COLUMN_CHARS = 160


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
        # sideways by pixels: a wide column (a ranking of runs) can be read in part
        self.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
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
        """Size the columns to their contents when the table's columns
        change (their headers), or its rows while it has few (not on every
        refresh of a long table: it measures cells), so that names arriving
        run by run are not cut.  A column is at most MAX_COLUMN_CHARS wide;
        the table scrolls sideways when the columns need more room."""
        m = self.model()
        rows = min(m.rowCount(), 50)
        heads = tuple(m.headerData(c, Qt.Orientation.Horizontal) for c in range(m.columnCount()))
        if self._shape != (rows, heads):
            self._shape = (rows, heads)
            self.resizeColumnsToContents()
            cap = MAX_COLUMN_CHARS * self.fontMetrics().averageCharWidth()
            for c in range(len(heads)):
                if self.columnWidth(c) > cap:
                    self.setColumnWidth(c, cap)

    def sort_state(self) -> tuple | None:
        """(column id, order) of the sort shown, the column named by the
        model's COLUMN_ROLE header (a measure key...), or None: unsorted."""
        m = self.model()
        col, order = m.sortColumn(), m.sortOrder()  # the proxy's: what the rows show
        if not 0 <= col < m.columnCount():
            return None
        ident = m.headerData(col, Qt.Orientation.Horizontal, COLUMN_ROLE)
        return None if ident is None else (ident, order)

    def restore_sort(self, state: tuple | None) -> bool:
        """Sort again by the column of ``state`` (from sort_state), wherever
        it is now; False when that column is gone."""
        if state is None:
            return False
        ident, order = state
        m = self.model()
        for c in range(m.columnCount()):
            if m.headerData(c, Qt.Orientation.Horizontal, COLUMN_ROLE) == ident:
                self.sortByColumn(c, order)
                return True
        return False
