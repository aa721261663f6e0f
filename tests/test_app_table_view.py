"""The table view every tab uses (``shrec_gui.widgets.table_view.CopyTable``):
its columns sized to their widest text, each column's cells measured once
per change of the model, not again on every resize of the table."""

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt  # noqa: E402
from PySide6.QtGui import QFont  # noqa: E402
from PySide6.QtWidgets import QStyle  # noqa: E402

from shrec_gui.widgets.table_view import CopyTable  # noqa: E402

H = Qt.Orientation.Horizontal


class CountingModel(QAbstractTableModel):
    """A small table whose cells count how often they are read."""

    def __init__(self, rows: list[list[str]]) -> None:
        super().__init__()
        self.rows = rows
        self.reads = 0

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows[0])

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        self.reads += 1
        if role == Qt.ItemDataRole.DisplayRole:
            return self.rows[index.row()][index.column()]
        return None

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if role == Qt.ItemDataRole.DisplayRole and orientation == H:
            return f"C{section}"
        return None

    def set_cell(self, row: int, column: int, text: str) -> None:
        self.rows[row][column] = text
        index = self.index(row, column)
        self.dataChanged.emit(index, index)


def _text_room(view, col: int) -> int:
    """The pixels a cell's text gets in a column (the style's margins off)."""
    margin = view.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, view) + 1
    return view.columnWidth(col) - 2 * margin


def _fits(view, model) -> bool:
    fm = view.fontMetrics()
    return all(
        fm.horizontalAdvance(text) <= _text_room(view, c)
        for row in model.rows
        for c, text in enumerate(row)
    )


@pytest.fixture
def table(qtbot):
    model = CountingModel([[f"q{r}", f"{r / 7:.4f}", "RunA > RunB"] for r in range(12)])
    view = CopyTable()
    qtbot.addWidget(view)
    view.setModel(model)
    view.resize(500, 300)
    view.show()
    qtbot.waitExposed(view)
    return view, model


def test_a_resize_measures_no_cell_again(table):
    view, model = table
    view.fit_columns()
    view.fit_to_width()
    assert _fits(view, model)
    widths = [view.columnWidth(c) for c in range(2)]  # the last one stretches to the edge
    model.reads = 0
    for width in (260, 700, 420):  # narrower than the columns (wrapped headers), then wider
        view.resize(width, 300)  # its resize event now; painted later (not counted here)
        view.fit_to_width()
    assert model.reads == 0  # before: every cell read again, several roles each, per resize
    view.resize(500, 300)
    view.fit_to_width()
    assert [view.columnWidth(c) for c in range(2)] == widths and _fits(view, model)


def test_widths_still_fit_the_widest_text_after_the_model_changes(table):
    view, model = table
    view.fit_columns()
    narrow = view.columnWidth(2)
    # a cell changed (dataChanged): its column measured again, wide enough for it
    model.set_cell(5, 2, "SpectralNet > ViewHarmonics > LightField-200")
    view.fit_to_width()
    assert view.columnWidth(2) > narrow and _fits(view, model)
    # the model reset with other texts
    model.beginResetModel()
    model.rows = [["a", "b", "c"], ["a much longer query name", "0.1", "x"]]
    model.endResetModel()
    view.fit_columns()
    assert _fits(view, model)
    assert view.columnWidth(0) >= view.fontMetrics().horizontalAdvance(model.rows[1][0])


def test_a_larger_font_measures_the_cells_again(table):
    view, model = table
    view.fit_to_width()
    small = view.sizeHintForColumn(2)
    font = QFont(view.font())
    font.setPointSizeF(font.pointSizeF() * 2)
    view.setFont(font)
    view.fit_to_width()
    assert view.sizeHintForColumn(2) > small and _fits(view, model)
