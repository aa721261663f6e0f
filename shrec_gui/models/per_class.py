"""Models of the Per-class tab: classes x runs of one measure (the engine's
per-class means and its four averages, never recomputed here), and the
classes filling one class's first tiers (shrec_eval.scoring.confusion, computed in
the worker)."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont
from shrec_eval.options import AVERAGES
from shrec_eval.outputs.figures import text_colour
from shrec_eval.outputs.report import fmt
from shrec_eval.scoring.measures import measure_by_key

from .tables import COLUMN_ROLE, SORT_ROLE, FixedColumns, SortProxy, TableModel, natural_key

#: True on the rows of the averages (kept at the bottom whatever the sort)
AVERAGE_ROLE = Qt.ItemDataRole.UserRole + 3
#: the class of a row (None on the averages' rows)
CLASS_ROLE = Qt.ItemDataRole.UserRole + 4
#: True where the cell holds the best run of its row
BEST_ROLE = Qt.ItemDataRole.UserRole + 5
AVERAGE_LABELS = {
    "micro": ("Micro average", "mean over the queries"),
    "macro": ("Macro average", "mean over the classes of the class means"),
    "proportional": ("Proportional", "mean weighted by each query's relevant items"),
    "reciprocal": ("Reciprocal", "mean weighted by 1 / each query's relevant items"),
}
RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


def _same(a, b) -> bool:
    return a is not None and b is not None and abs(a - b) <= 1e-12 * max(1.0, abs(b))


class PerClassModel(TableModel):
    """Rows: the classes, then the four averages; columns: class, its
    number of queries, then each run's class mean of ``measure``."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.entries: list = []  # (run key, name, RunResult), scored and with classes
        self.measure = "ap_trec_r"
        self.ranks = (5, 10, 25, 50, 100)
        self.heatmap = False
        self.classes: list[str] = []
        self.counts: list[int] = []
        self.rows: list[list] = []  # per row: the value of each run (None = undefined)
        self.bests: list = []
        self._m = None
        self._lo = self._hi = 0.0

    def configure(self, entries, measure, ranks) -> None:
        self.beginResetModel()
        self.entries = [e for e in entries if e[2] is not None and e[2].per_class]
        self.measure, self.ranks = measure, tuple(ranks)
        self._cache()
        self.endResetModel()

    def set_heatmap(self, on: bool) -> None:
        self.heatmap = bool(on)
        if self.rowCount():
            top, bottom = self.index(0, 2), self.index(self.rowCount() - 1, self.columnCount() - 1)
            self.dataChanged.emit(top, bottom, [Qt.ItemDataRole.BackgroundRole])

    def _cache(self) -> None:
        self._m = measure_by_key(self.measure, self.ranks)
        res = [r for _, _, r in self.entries]
        self.classes = list(dict.fromkeys(c for r in res for c in r.per_class))
        self.counts = [
            max(r.per_class.get(c, {}).get("queries", 0) for r in res) for c in self.classes
        ]
        self.rows = [[r.per_class.get(c, {}).get(self.measure) for r in res] for c in self.classes]
        for kind in AVERAGES:
            self.rows.append([(r.averages.get(kind) or {}).get(self.measure) for r in res])
        self.bests = []
        for row in self.rows:
            vals = [v for v in row if v is not None]
            self.bests.append(
                None if not vals else max(vals) if self._m.higher_is_better else min(vals)
            )
        cells = [v for row in self.rows[: len(self.classes)] for v in row if v is not None]
        self._lo, self._hi = (min(cells), max(cells)) if cells else (0.0, 1.0)

    @property
    def measure_info(self):
        """The registry's measure shown (None before the first configure)."""
        return self._m

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() or not self.entries else len(self.rows)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else 2 + len(self.entries)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return ("Class", "Queries")[section] if section < 2 else self.entries[section - 2][1]
        if role == COLUMN_ROLE:  # what the sort is kept by
            return (
                ("class", "queries")[section]
                if section < 2
                else f"run:{self.entries[section - 2][1]}"
            )
        if role == Qt.ItemDataRole.ToolTipRole and section >= 2 and self._m is not None:
            return f"{self._m.label}: mean over the class's queries (best run marked)"
        return None

    def is_average(self, row: int) -> bool:
        return row >= len(self.classes)

    def heat_brush(self, v) -> QBrush:
        """The heatmap colour of a value (viridis over the class cells' range;
        better is brighter whichever way the measure goes)."""
        span = self._hi - self._lo
        t = 0.5 if span <= 0 else (v - self._lo) / span
        if not self._m.higher_is_better:
            t = 1.0 - t
        return QBrush(pg.colormap.get("viridis").map(min(max(t, 0.0), 1.0), mode="qcolor"))

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        row, col = index.row(), index.column()
        avg = self.is_average(row)
        if role == AVERAGE_ROLE:
            return avg
        if role == CLASS_ROLE:
            return None if avg else self.classes[row]
        if role == Qt.ItemDataRole.FontRole and (avg or self._best(row, col)):
            f = QFont()
            f.setBold(not avg or self._best(row, col))
            f.setItalic(avg)
            return f
        if col == 0:
            label = AVERAGE_LABELS[AVERAGES[row - len(self.classes)]] if avg else None
            text = label[0] if avg else self.classes[row]
            if role == Qt.ItemDataRole.DisplayRole:
                return text
            if role == Qt.ItemDataRole.ToolTipRole and avg:
                return f"{label[0]}: {label[1]} (the engine's, as in the report)"
            if role == SORT_ROLE:
                return natural_key(text)
            return None
        if col == 1:
            n = None if avg else self.counts[row]
            if role in (Qt.ItemDataRole.DisplayRole, SORT_ROLE):
                return (str(n) if n is not None else "") if role != SORT_ROLE else n
            return RIGHT if role == Qt.ItemDataRole.TextAlignmentRole else None
        v = self.rows[row][col - 2]
        if role == Qt.ItemDataRole.DisplayRole:
            return fmt(v, self._m)
        if role == SORT_ROLE:
            return v
        if role == BEST_ROLE:
            return self._best(row, col)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return RIGHT
        if role == Qt.ItemDataRole.BackgroundRole:
            if self.heatmap and v is not None and not avg:
                return self.heat_brush(v)
            if not self.heatmap and self._best(row, col):
                return self.best_brush()
        if role == Qt.ItemDataRole.ForegroundRole and self.heatmap and v is not None and not avg:
            c = self.heat_brush(v).color()  # black or white: the larger WCAG contrast
            return QBrush(QColor.fromRgbF(*text_colour((c.redF(), c.greenF(), c.blueF()))))
        if role == Qt.ItemDataRole.ToolTipRole and self._best(row, col):
            return "best run of this row"
        return None

    def _best(self, row: int, col: int) -> bool:
        return col >= 2 and _same(self.rows[row][col - 2], self.bests[row])


class PerClassProxy(SortProxy):
    """Sorts the classes; the averages' rows stay at the bottom in either order."""

    def lessThan(self, left, right) -> bool:
        a, b = left.data(AVERAGE_ROLE), right.data(AVERAGE_ROLE)
        if a or b:
            if a and b:
                return left.row() < right.row()
            asc = self.sortOrder() == Qt.SortOrder.AscendingOrder
            return bool(b) == asc  # an average row last in both orders
        return super().lessThan(left, right)


class ConfusionModel(FixedColumns):
    """The classes in the first tiers of one class's queries (one run):
    class, items, share of the first-tier places; most frequent first."""

    HEADERS = ("Class in the first tier", "Items", "Share")

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.confusion = None  # shrec_eval.scoring.confusion.FirstTierConfusion

    def set_confusion(self, confusion) -> None:
        self.beginResetModel()
        self.confusion = confusion
        self.rows = [] if confusion is None else list(confusion.counts.items())
        self.shares = [] if confusion is None else list(confusion.fractions().values())
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() or self.confusion is None else len(self.rows)

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or self.confusion is None:
            return None
        row, col = index.row(), index.column()
        name, n = self.rows[row]
        value = (name, n, self.shares[row])[col]
        if role == SORT_ROLE:
            return natural_key(name) if col == 0 else value
        if role == Qt.ItemDataRole.DisplayRole:
            return name if col == 0 else str(n) if col == 1 else f"{100 * value:.1f} %"
        if role == Qt.ItemDataRole.TextAlignmentRole and col:
            return RIGHT
        if role == Qt.ItemDataRole.BackgroundRole and name == self.confusion.query_class:
            return self.best_brush()  # the right class: what the first tier should hold
        return None
