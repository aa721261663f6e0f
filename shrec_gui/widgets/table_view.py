"""The table view every tab uses: sortable, copies its selection as TSV,
gives its rows for CSV export, sizes its columns once per shape (each
column's contents measured once per change of the model), and keeps its
sort on the same column when the model's columns change.  A table hidden in
a window shown (a tab not shown) sizes its columns when it is shown."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QFont, QFontMetrics, QKeySequence
from PySide6.QtWidgets import QAbstractItemView, QApplication, QHeaderView, QTableView

from ..models.tables import COLUMN_ROLE, KEY_ROLE

INITIAL_ORDER = Qt.ItemDataRole.InitialSortOrderRole

#: widest a column is sized to its contents, in average characters; longer
#: texts are elided (the model gives them in full as a tooltip)
MAX_COLUMN_CHARS = 160


class CopyTable(QTableView):
    """A sortable table whose selection copies as TSV (Ctrl+C)."""

    #: the table's own size changed (its viewport laid out again): a tab that
    #: fits its columns to the width does it then, not on its own resize (a
    #: hidden tab's table is resized only once shown, after the tab)
    resized = Signal()

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
        # no row numbers: the first column names the row (a run, a query, a
        # class), and numbers beside it would read as ranks in any order
        self.verticalHeader().setVisible(False)
        # sizing columns to their contents looks at a sample of rows, not all
        self.horizontalHeader().setResizeContentsPrecision(60)
        self._shape = None
        # each column's contents' width, measured once per change of the model
        # (a model's texts through Python, several roles a cell): the table
        # resized, its headers wrapped again, reuses them
        self._content_widths: dict[int, int] = {}
        self._fit_when_shown = False  # columns to size once the table is shown
        # Tab goes on to the next control (the arrow keys move between cells):
        # moving from cell to cell, it never left the table
        self.setTabKeyNavigation(False)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.resized.emit()

    def waits_to_be_shown(self) -> bool:
        """Hidden in a window shown (a tab not shown, the welcome page in
        front): its model is filled, its columns sized when it is shown, not
        at every change nobody sees (a window not shown yet, or a table on
        its own, sizes them at once)."""
        return not self.isVisible() and self.window().isVisible()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._fit_when_shown:
            self._fit_when_shown = False
            self.fit_columns()
            self.resized.emit()  # what a tab fits for the table's width, as after a resize

    #: the model's signals after which its cells may need other widths
    _CHANGES = (
        "modelReset",
        "layoutChanged",
        "dataChanged",
        "rowsInserted",
        "rowsRemoved",
        "rowsMoved",
        "columnsInserted",
        "columnsRemoved",
        "columnsMoved",
    )

    def setModel(self, model) -> None:
        old = self.model()
        if old is not None:
            for name in self._CHANGES:
                getattr(old, name).disconnect(self._forget_content_widths)
        super().setModel(model)
        self._forget_content_widths()
        if model is not None:
            for name in self._CHANGES:
                getattr(model, name).connect(self._forget_content_widths)

    def _forget_content_widths(self, *_args) -> None:
        self._content_widths.clear()

    def changeEvent(self, event) -> None:
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._forget_content_widths()  # the same texts, other metrics
        super().changeEvent(event)

    def sizeHintForColumn(self, column: int) -> int:
        """Qt's width of a column's contents (the widest of its cells, as
        its delegate sizes them), measured once per change of the model:
        Qt asks for it when sizing the columns to their contents, and
        :meth:`fit_to_width` on every resize."""
        width = self._content_widths.get(column)
        if width is None:
            width = self._content_widths[column] = super().sizeHintForColumn(column)
        return width

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
        the table scrolls sideways when the columns need more room.  Hidden
        in a window shown: once shown (see :meth:`waits_to_be_shown`)."""
        if self.waits_to_be_shown():
            # sized once shown, whatever shape it then has (its columns may
            # change and come back meanwhile: a run removed and the removal
            # undone gives a new column Qt's default width)
            self._fit_when_shown = True
            self._shape = None
            return
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

    def fit_to_width(self, max_lines: int = 3) -> int:
        """When the columns sized to their contents need more room than the
        view has, wrap the headers (at most ``max_lines`` lines) so that each
        column is only as wide as its values or its header's longest word:
        the header grows in height instead of the table in width.  Returns the
        header lines used (1: the columns fit as they were; 0: the table
        waits to be shown, and fits them then)."""
        if self.waits_to_be_shown():
            self._fit_when_shown = True
            return 0
        header = self.horizontalHeader()
        n = self.model().columnCount()
        room = self.viewport().width()
        cells = [self.sizeHintForColumn(c) for c in range(n)]
        natural = [max(cell, header.sectionSizeHint(c)) for c, cell in enumerate(cells)]
        if sum(natural) <= room:
            for c, w in enumerate(natural):
                self.setColumnWidth(c, w)
            self._header_lines(1)
            return 1
        fm = _label_metrics(header)
        pad = 2 * header.style().pixelMetric(header.style().PixelMetric.PM_HeaderMargin) + 14
        texts = [str(self.model().headerData(c, Qt.Orientation.Horizontal) or "") for c in range(n)]
        for lines in range(2, max_lines + 1):
            widths = [
                max(cell, _wrapped_width(fm, text, lines) + pad) for cell, text in zip(cells, texts)
            ]
            if sum(widths) <= room or lines == max_lines:
                break
        for c, w in enumerate(widths):
            self.setColumnWidth(c, w)
        self._header_lines(lines)
        return lines

    def _header_lines(self, lines: int) -> None:
        """Headers of ``lines`` lines, word-wrapped (1: Qt's own height)."""
        header = self.horizontalHeader()
        align = header.defaultAlignment() & ~Qt.TextFlag.TextWordWrap
        if lines == 1:
            header.setDefaultAlignment(align)
            header.setMinimumHeight(0)
            header.setMaximumHeight(16777215)
            return
        header.setDefaultAlignment(align | Qt.TextFlag.TextWordWrap)
        height = lines * _label_metrics(header).lineSpacing() + 8
        header.setFixedHeight(height)

    def sort_by_current_column(self) -> str | None:
        """Sort by the current cell's column as a click on its head does: the
        first time in the column's first order (a measure's best first), again
        in the other; without a current cell, the column sorted by, the other
        way.  What was done, in words; None when the table keeps its order."""
        if not self.isSortingEnabled() or self.model() is None:
            return None
        header = self.horizontalHeader()
        col = self.currentIndex().column()
        if col < 0:
            col = max(header.sortIndicatorSection(), 0)
        if col >= self.model().columnCount():
            return None
        if header.sortIndicatorSection() == col:
            descending = header.sortIndicatorOrder() == Qt.SortOrder.AscendingOrder
        else:
            first = self.model().headerData(col, Qt.Orientation.Horizontal, INITIAL_ORDER)
            descending = first is not None and int(first) == Qt.SortOrder.DescendingOrder.value
        order = Qt.SortOrder.DescendingOrder if descending else Qt.SortOrder.AscendingOrder
        self.sortByColumn(col, order)
        name = str(self.model().headerData(col, Qt.Orientation.Horizontal) or col)
        return f"Sorted by {name}, {'descending' if descending else 'ascending'}"

    def sort_state(self) -> tuple | None:
        """(column id, order) of the sort shown, the column named by the
        model's COLUMN_ROLE header (a measure key...), or None: unsorted."""
        m = self.model()
        col, order = m.sortColumn(), m.sortOrder()  # the proxy's: what the rows show
        if not 0 <= col < m.columnCount():
            return None
        ident = m.headerData(col, Qt.Orientation.Horizontal, COLUMN_ROLE)
        return None if ident is None else (ident, order)

    def clear_sort(self) -> None:
        """The model's own order, and no sort arrow (none would be true)."""
        self.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        self.model().sort(-1)

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


def _label_metrics(header) -> QFontMetrics:
    """The metrics of a header's labels as drawn at their widest: bold, as
    the style draws the head of the column that holds the current cell (a
    wrapped label measured in the plain font ran over its section then)."""
    bold = QFont(header.font())
    bold.setBold(True)
    return QFontMetrics(bold)


def _wrapped_width(fm, text: str, lines: int) -> int:
    """The narrowest width at which ``text``, word-wrapped, takes at most
    ``lines`` lines (never narrower than its longest word)."""
    words = text.split()
    if not words:
        return 0
    lo = max(fm.horizontalAdvance(w) for w in words)
    hi = max(lo, fm.horizontalAdvance(text))
    flags = int(Qt.TextFlag.TextWordWrap)
    limit = lines * fm.lineSpacing()
    while lo < hi:  # the fewest pixels that still wrap within ``lines``
        mid = (lo + hi) // 2
        if fm.boundingRect(0, 0, mid, 10 * limit, flags, text).height() <= limit:
            hi = mid
        else:
            lo = mid + 1
    return lo
